// The library with the core brought by the caller: hosts that compile WebAssembly themselves hand the modules in.
//
// # Who brings the modules
//
// Some hosts load WebAssembly only their own way: Vercel's edge-runtime
// (and Next.js edge routes) switch code generation from bytes off and hand
// the function modules its host compiled; a Worker imports its .wasm as a
// module; a page may compile with WebAssembly.compileStreaming from its own
// URL. The package's .wasm files are exported for them as
// 'mcp-frames/wasm/simd' and 'mcp-frames/wasm/scalar'. This entry loads
// nothing by itself: until init() is called the pure-JS backend serves.
//
// # Modules, not bytes
//
// init() takes the builds as compiled WebAssembly.Modules and only
// instantiates them. Bytes are accepted too, but they are compiled
// synchronously, which Workers, edge runtimes and (for modules over 4 KB)
// some browsers' main threads refuse; such a refusal leaves the JS path.
//
//   import { init, ENDPOINTS } from 'mcp-frames/core';
//   import simd from 'mcp-frames/wasm/simd';   // however the host turns it into a Module
//   init({ simd });                             // 'wasm-simd'

import type { BackendName } from '../backend/backend.js';
import { BackendUnavailableError } from '../backend/loader.js';
import { useBuilds } from './selection.js';

export * from './api.js';
/** The two builds, as modules the host compiled (or bytes, where the host may compile them). */
export interface CoreBuilds {
  simd?: WebAssembly.Module | BufferSource;
  scalar?: WebAssembly.Module | BufferSource;
}

/**
 * Chooses the backend from the caller's builds, once: the SIMD module where
 * given, else the scalar one, else the JS path. Returns the name that holds;
 * later calls change nothing.
 */
export function init(builds: CoreBuilds): BackendName {
  return useBuilds((name) => {
    const build = builds[name];
    if (!build) throw new BackendUnavailableError(`no ${name} build was given to init()`);
    return build;
  });
}
