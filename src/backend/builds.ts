// The core builds read from disk, for Node and Bun: build/core-*.wasm at the package root, and loadBackend over them.
//
// The files are read synchronously from build/ at the package root (from
// dist/backend or src/backend alike), only when a WebAssembly backend is
// first asked for; see ./loader.ts for what each name means.

import { readFileSync } from 'node:fs';
import { BackendUnavailableError, createLoader } from './loader.js';

export { BACKEND_CHOICES, BackendUnavailableError, type BackendChoice } from './loader.js';

const BUILD = new URL('../../build/', import.meta.url);

export function readBuild(name: 'simd' | 'scalar'): Uint8Array<ArrayBuffer> {
  const url = new URL(`core-${name}.wasm`, BUILD);
  try {
    return new Uint8Array(readFileSync(url));
  } catch (error) {
    throw new BackendUnavailableError(
      `the WebAssembly core is not built (${url.pathname} cannot be read: ${(error as Error).message}); run \`npm run build\``,
    );
  }
}

/** The backend named by `choice`. Throws BackendUnavailableError when it cannot load. */
export const loadBackend = createLoader(readBuild);
