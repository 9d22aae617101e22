// Backends by name, from the builds a host has: the same loadBackend on
// every host.
//
// 'wasm' means the best WebAssembly build the host runs: the SIMD build
// where WebAssembly.validate accepts it, else the scalar one. 'auto' is
// 'wasm', falling back to 'js' when no build loads. Each build is compiled
// at most once per loader, whichever name asked for it, and each backend
// made once.

import type { Backend } from './backend.js';
import { jsBackend } from './js.js';
import { createWasmBackend } from './wasm/backend.js';
import { CORE_EXPORTS } from './wasm/instance.js';

export type BackendChoice = 'js' | 'wasm' | 'wasm-simd' | 'wasm-scalar' | 'auto';

export const BACKEND_CHOICES: readonly BackendChoice[] = ['js', 'wasm', 'wasm-simd', 'wasm-scalar', 'auto'];

/** A WebAssembly backend was asked for and cannot be had here; the message says why. */
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
}

/** Where a host's builds come from: bytes or compiled modules, or an error saying why there are none. */
export type BuildSource = (name: 'simd' | 'scalar') => BufferSource | WebAssembly.Module;

/**
 * Whether `x` is a compiled module. Not `instanceof`: a host that runs code
 * in its own realm (edge-runtime's vm context, Next.js edge routes) hands in
 * a Module made by another realm's WebAssembly. Module.exports() checks the
 * internal brand, which holds across realms.
 */
function isModule(x: unknown): x is WebAssembly.Module {
  try {
    WebAssembly.Module.exports(x as WebAssembly.Module);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the host runs WebAssembly SIMD, asked of a module of its own, so
 * that a SIMD build that does not compile is not taken for a host without
 * SIMD: `(module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt))`.
 */
function hostRunsSimd(): boolean {
  return WebAssembly.validate(
    Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11),
  );
}

/** The first export of the core that `module` lacks (by name and kind), or undefined when it has them all. */
function missingExport(module: WebAssembly.Module): string | undefined {
  const has = new Set(WebAssembly.Module.exports(module).map((e) => `${e.kind} ${e.name}`));
  return CORE_EXPORTS.find(([name, kind]) => !has.has(`${kind} ${name}`))?.[0];
}

/** A loadBackend over the builds `source` gives. `source` throws BackendUnavailableError for a build it lacks. */
export function createLoader(source: BuildSource): (choice: BackendChoice) => Backend {
  const built = new Map<'simd' | 'scalar', Backend>();

  function build(name: 'simd' | 'scalar'): Backend {
    let backend = built.get(name);
    if (backend) return backend;
    if (typeof WebAssembly === 'undefined') throw new BackendUnavailableError('this host has no WebAssembly');
    const given = source(name);
    try {
      if (!isModule(given) && name === 'simd' && !hostRunsSimd()) {
        throw new BackendUnavailableError('this host does not run WebAssembly SIMD');
      }
      const module = isModule(given) ? given : new WebAssembly.Module(given);
      const missing = missingExport(module);
      if (missing !== undefined) throw new Error(`the module is not mcp-frames' core (it has no export ${missing})`);
      backend = createWasmBackend(name === 'simd' ? 'wasm-simd' : 'wasm-scalar', module);
    } catch (error) {
      if (error instanceof BackendUnavailableError) throw error;
      throw new BackendUnavailableError(`the ${name} build does not load here: ${(error as Error).message}`);
    }
    built.set(name, backend);
    return backend;
  }

  return function loadBackend(choice: BackendChoice): Backend {
    switch (choice) {
      case 'js':
        return jsBackend;
      case 'wasm-simd':
        return build('simd');
      case 'wasm-scalar':
        return build('scalar');
      case 'wasm':
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
  };
}
