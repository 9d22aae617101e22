// Loading a backend by name on Node, from the .wasm files this package ships.
//
// 'wasm' means the best WebAssembly build this host runs: the SIMD build
// where WebAssembly.validate accepts it, else the scalar one. 'auto' is
// 'wasm', falling back to 'js' when no build loads. Each build is read and
// compiled at most once per process, whichever name asked for it.

import { readFileSync } from 'node:fs';
import type { Backend } from './backend.js';
import { jsBackend } from './js.js';
import { createWasmBackend } from './wasm/backend.js';

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

/** Each build's backend, made at most once per process: one compile, one core pool. */
const built = new Map<'simd' | 'scalar', Backend>();

function build(name: 'simd' | 'scalar'): Backend {
  let backend = built.get(name);
  if (!backend) {
    const bytes = readBuild(name);
    if (name === 'simd' && !WebAssembly.validate(bytes)) throw new BackendUnavailableError('this host does not run WebAssembly SIMD');
    try {
      backend = createWasmBackend(name === 'simd' ? 'wasm-simd' : 'wasm-scalar', new WebAssembly.Module(bytes));
    } catch (error) {
      throw new BackendUnavailableError(`the ${name} build does not load here: ${(error as Error).message}`);
    }
    built.set(name, backend);
  }
  return backend;
}

/** The backend named by `choice`. Throws BackendUnavailableError when it cannot load. */
export function loadBackend(choice: BackendChoice): Backend {
  switch (choice) {
    case 'js':
      return jsBackend;
    case 'wasm-simd':
      return build('simd');
    case 'wasm-scalar':
      return build('scalar');
    case 'wasm':
      // The SIMD build where this host runs it, else the scalar one.
      try {
        return build('simd');
      } catch (error) {
        if (!(error instanceof BackendUnavailableError)) throw error;
        return build('scalar');
      }
    case 'auto':
      try {
        return loadBackend('wasm');
      } catch (error) {
        if (!(error instanceof BackendUnavailableError)) throw error;
        return jsBackend;
      }
    default:
      throw new RangeError(`backend must be one of ${BACKEND_CHOICES.join(', ')}, not '${String(choice)}'`);
  }
}
