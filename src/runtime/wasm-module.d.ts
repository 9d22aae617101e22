// A .wasm file imported as a module: a compiled WebAssembly.Module (workerd's CompiledWasm rule, wrangler's and esbuild's wasm-module loaders).
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
