// Loading a backend by name on Node, from the .wasm files this package ships.
//
// 'wasm' means the best WebAssembly build this host runs: the SIMD build
// where WebAssembly.validate accepts it, else the scalar one. 'auto' is
// 'wasm', falling back to 'js' when no build loads. Each build is read and
// compiled at most once per process.

import { readFileSync } from 'node:fs';
import type { Backend } from './backend.js';
import { jsBackend } from './js.js';
import { createWasmBackend } from './wasm/backend.js';
import { chooseWasm } from './wasm/choose.js';

export type BackendChoice = 'js' | 'wasm' | 'wasm-simd' | 'wasm-scalar' | 'auto';

export const BACKEND_CHOICES: readonly BackendChoice[] = ['js', 'wasm', 'wasm-simd', 'wasm-scalar', 'auto'];

/** A WebAssembly backend was asked for and cannot be had here; the message says why. */
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
}

/** Where the builds are: build/ at the package root, from dist/backend or src/backend. */
const BUILD = new URL('../../build/', import.meta.url);

function readBuild(name: 'simd' | 'scalar'): Uint8Array<ArrayBuffer> {
  const url = new URL(`core-${name}.wasm`, BUILD);
  try {
    return new Uint8Array(readFileSync(url));
  } catch (error) {
    throw new BackendUnavailableError(
      `the WebAssembly core is not built (${url.pathname} cannot be read: ${(error as Error).message}); run \`npm run build\``,
    );
  }
}

const loaded = new Map<BackendChoice, Backend>();

function load(choice: Exclude<BackendChoice, 'js' | 'auto'>): Backend {
  if (choice === 'wasm-simd') {
    const bytes = readBuild('simd');
    if (!WebAssembly.validate(bytes)) throw new BackendUnavailableError('this host does not run WebAssembly SIMD');
    return createWasmBackend('wasm-simd', new WebAssembly.Module(bytes));
  }
  if (choice === 'wasm-scalar') return createWasmBackend('wasm-scalar', new WebAssembly.Module(readBuild('scalar')));
  const simd = readBuild('simd');
  const chosen = chooseWasm({ simd, scalar: readBuild('scalar') });
  if (!chosen) throw new BackendUnavailableError('neither WebAssembly build compiles on this host');
  return chosen;
}

/** The backend named by `choice`. Throws BackendUnavailableError when it cannot load. */
export function loadBackend(choice: BackendChoice): Backend {
  if (choice === 'js') return jsBackend;
  let backend = loaded.get(choice);
  if (backend) return backend;
  if (choice === 'auto') {
    try {
      backend = loadBackend('wasm');
    } catch (error) {
      if (!(error instanceof BackendUnavailableError)) throw error;
      backend = jsBackend;
    }
  } else {
    backend = load(choice);
  }
  loaded.set(choice, backend);
  return backend;
}
