// Cloudflare workerd: the core builds arrive as compiled modules, imported, never compiled from bytes here.
//
// # Why an import and not bytes
//
// Workers refuse to compile WebAssembly from bytes at run time
// (`new WebAssembly.Module(bytes)` and `WebAssembly.compile` throw). A
// Worker's .wasm must be a module of the Worker itself, compiled by the
// runtime when it loads: wrangler's bundler, or a miniflare/workerd
// `CompiledWasm` module rule, turns each `import … from '…/core-*.wasm'`
// below into a WebAssembly.Module. The loader instantiates the SIMD one
// (or the scalar one) and compiles nothing.
//
// # Chosen at load, no await
//
// Instantiating a compiled module is synchronous and allowed at a Worker's
// top level, so the backend is chosen while this module evaluates: `backend`
// holds the winner and `ready` is already settled by the time a request
// arrives. The paths are relative to dist/runtime/, the build/ folder at the
// package root.

import simd from '../../build/core-simd.wasm';
import scalar from '../../build/core-scalar.wasm';
import { useBuilds } from './selection.js';

export * from './api.js';

useBuilds((name) => (name === 'simd' ? simd : scalar));
