// The two core builds as base64 text: dist/runtime/core-base64.js, written after tsc by scripts/embed-wasm.mjs.
//
// Only the declaration lives in src. The module itself is generated from
// build/core-*.wasm at build time, so the bytes are never committed and can
// never drift from the builds they were made from.

/** build/core-simd.wasm, base64. */
export declare const simd: string;
/** build/core-scalar.wasm, base64. */
export declare const scalar: string;
