// Vercel's edge-runtime with WebAssembly code generation off: the host compiles the core and binds the modules in.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EdgeRuntime } from 'edge-runtime';
import { bundle } from './bundle.js';

/** A valid, empty WebAssembly module: what the sandbox must refuse to compile. */
const EMPTY_MODULE = '[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]';

/** Bundles hosts/edge.js as one script, evaluates it in an EdgeRuntime, dispatches a request with the vectors. */
export async function runEdge(root, vectorsText) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-edge-'));
  try {
    const inputs = await bundle('edge', 'test/runtimes/hosts/edge.js', dir, root);
    const code = await readFile(path.join(dir, 'edge.js'), 'utf8');
    // The host (this Node process) compiles: inside the sandbox nothing may.
    const simd = new WebAssembly.Module(await readFile(path.join(root, 'build/core-simd.wasm')));
    const scalar = new WebAssembly.Module(await readFile(path.join(root, 'build/core-scalar.wasm')));
    const runtime = new EdgeRuntime({
      codeGeneration: { strings: false, wasm: false },
      extend: (context) => Object.assign(context, { CORE_SIMD: simd, CORE_SCALAR: scalar }),
    });
    const refused = runtime.evaluate(
      `(() => { try { new WebAssembly.Module(new Uint8Array(${EMPTY_MODULE})); return false; } catch { return true; } })()`,
    );
    if (!refused) throw new Error('the sandbox compiled WebAssembly from bytes: code generation is not off');
    runtime.evaluate(code);
    const response = await runtime.dispatchFetch('http://127.0.0.1/smoke', {
      method: 'POST',
      body: vectorsText,
      headers: { 'content-type': 'application/json' },
    });
    await response.waitUntil();
    const text = await response.text();
    if (!response.ok) throw new Error(`the function answered ${response.status}: ${text.split('\n')[0]}`);
    return { report: JSON.parse(text), files: inputs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
