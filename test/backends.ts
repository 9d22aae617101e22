// The backends every shared suite runs against, one run per backend.
//
// By default the list is all three: 'js', 'wasm-simd' and 'wasm-scalar'.
// A WebAssembly backend that does not load is still listed, as a backend
// whose every method throws the load error, so its suites FAIL rather than
// skip (STYLE.md rule 13: no skips between the core and the JS path).
//
// To run against fewer, set MCP_FRAMES_BACKENDS to a comma-separated list:
//
//   MCP_FRAMES_BACKENDS=js npx vitest run               # the JS path only
//   MCP_FRAMES_BACKENDS=js,wasm-simd npx vitest run
//
// An unknown name in the list is an error, not a silent omission.

import type { Backend, BackendName } from '../src/backend/backend.js';
import { jsBackend } from '../src/backend/js.js';
import { loadBackend } from '../src/backend/builds.js';

const ALL: readonly BackendName[] = ['js', 'wasm-simd', 'wasm-scalar'];

/** A stand-in for a backend that did not load: every call throws why. */
function unavailable(name: BackendName, error: unknown): Backend {
  const fail = (): never => {
    throw error;
  };
  return { name, verifyFrame: fail, screenFrame: fail, createKernel: fail, createReader: fail };
}

async function load(name: BackendName): Promise<Backend> {
  if (name === 'js') return jsBackend;
  try {
    const backend = await loadBackend(name);
    if (backend.name !== name) {
      return unavailable(name, new Error(`loadBackend('${name}') returned the '${backend.name}' backend`));
    }
    return backend;
  } catch (error) {
    return unavailable(name, error);
  }
}

function chosen(): BackendName[] {
  const env = process.env.MCP_FRAMES_BACKENDS?.trim();
  if (!env) return [...ALL];
  const names = env
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!(ALL as readonly string[]).includes(n)) {
      throw new Error(`MCP_FRAMES_BACKENDS: unknown backend '${n}' (known: ${ALL.join(', ')})`);
    }
  }
  return names as BackendName[];
}

export const BACKENDS: Backend[] = await Promise.all(chosen().map(load));

/** The rows for describe.each: [name, backend]. */
export const BACKEND_ROWS: [string, Backend][] = BACKENDS.map((b) => [b.name, b]);
