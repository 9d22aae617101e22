// Choosing a core build once, for the host at hand.
//
// The SIMD build where WebAssembly.validate accepts it, else the scalar
// build, else no WebAssembly at all. The caller brings the bytes or the
// compiled modules; nothing here fetches, and nothing compiles when a
// compiled module is given (Cloudflare workerd refuses to compile bytes).

import type { Backend } from '../backend.js';
import { createWasmBackend } from './backend.js';

/** The two builds, as bytes or as modules compiled by the host. */
export interface CoreBuilds {
  simd?: BufferSource | WebAssembly.Module;
  scalar?: BufferSource | WebAssembly.Module;
}

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

function compile(build: BufferSource | WebAssembly.Module): WebAssembly.Module {
  return isModule(build) ? build : new WebAssembly.Module(build);
}

/** Whether this host runs the SIMD build. */
export function hostHasSimd(simd: BufferSource | WebAssembly.Module | undefined): boolean {
  if (!simd) return false;
  if (isModule(simd)) return true;
  return typeof WebAssembly !== 'undefined' && WebAssembly.validate(simd);
}

/** The SIMD backend, or the scalar one, or undefined when neither builds here. */
export function chooseWasm(builds: CoreBuilds): Backend | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  if (builds.simd && hostHasSimd(builds.simd)) {
    try {
      return createWasmBackend('wasm-simd', compile(builds.simd));
    } catch {
      // fall through to the scalar build
    }
  }
  if (builds.scalar) {
    try {
      return createWasmBackend('wasm-scalar', compile(builds.scalar));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
