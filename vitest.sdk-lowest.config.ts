// The suites that hold the codecs to the contract, run once more with the lowest SDK the peer range admits.
//
// package.json installs that SDK as `mcp-sdk-lowest` (an npm alias); here every import of
// '@modelcontextprotocol/sdk/…' resolves to it instead of the SDK the package is built with. The
// compiled judges were generated from the newer SDK, so under this one they find the schemas drifted
// and the SDK's own safeParse judges: what a user on that SDK gets.

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const lowest = fileURLToPath(new URL('./node_modules/mcp-sdk-lowest/dist/esm/', import.meta.url));

export default defineConfig({
  resolve: {
    alias: [{ find: /^@modelcontextprotocol\/sdk\/(.*)$/, replacement: `${lowest}$1` }],
  },
  test: {
    include: [
      'test/sdk-range.test.ts',
      'test/codecs.test.ts',
      'test/encode.test.ts',
      'test/encode-into.test.ts',
      'test/conformance.test.ts',
      'test/streams.test.ts',
      'test/relay.test.ts',
    ],
    env: { MCP_FRAMES_SDK_PACKAGE: fileURLToPath(new URL('./node_modules/mcp-sdk-lowest/package.json', import.meta.url)) },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
