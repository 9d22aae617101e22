// The types of 'mcp-frames/wasm/simd' and 'mcp-frames/wasm/scalar': the core's builds as .wasm files.
//
// A host that loads a .wasm import as a compiled module (workerd's
// CompiledWasm rule, wrangler, esbuild and Vite wasm-module plugins) gets a
// WebAssembly.Module, which is what `init()` of 'mcp-frames/core' takes.
// A host that wants the bytes resolves the path (import.meta.resolve) and
// reads the file. scripts/embed-wasm.mjs copies this file to dist/runtime/.

declare const build: WebAssembly.Module;
export default build;
