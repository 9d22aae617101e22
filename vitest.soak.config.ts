// `npm run soak`: the relay's load and fault cases (test/tcp-load.test.ts) and the proxy's bounds (test/proxy-bounds.test.ts) at their large sizes, one file at a time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/tcp-load.test.ts', 'test/proxy-bounds.test.ts'],
    env: { MCP_FRAMES_SOAK: '1' },
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
