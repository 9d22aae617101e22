// The backend an entry chose for its host, once, and the promise that says when.
//
// # One choice, then it stays
//
// An entry hands its choice to adopt() once, at load or when its
// asynchronous compile settles; the winner becomes the default backend
// (src/backend/default.ts) and `backend` names it. Later calls change
// nothing and return the first choice, the way hono's SmartRouter binds
// itself to the router that won. Until an entry adopts, the pure-JS backend
// serves and `backend` reads 'js'.
//
// # A live binding, not a snapshot
//
// `backend` is an exported `let`: ES module bindings are live, so a caller
// that imported it before `ready` settled reads the winner afterwards.

import type { Backend, BackendName, PublicBackend } from '../backend/backend.js';
import { setDefaultBackend, watchDefaultBackend } from '../backend/default.js';
import { jsBackend } from '../backend/js.js';
import { BackendUnavailableError, createLoader, type BackendChoice, type BuildSource } from '../backend/loader.js';

let chosen: BackendName = 'js';
let settled = false;
let settle: (name: BackendName) => void = () => {};

/**
 * Resolves with the backend's name once the entry has chosen (mcp-frames/core: once init() is
 * called). Never rejects: a core that fails to load leaves 'js'.
 */
export const ready: Promise<BackendName> = new Promise((resolve) => {
  settle = resolve;
});

/**
 * The default backend's name: the one the entry chose for this host ('js' until `ready`), or the
 * one set since with setDefaultBackend.
 */
export { chosen as backend };

// A default set by hand (setDefaultBackend) is the one `backend` names from then on.
watchDefaultBackend((use) => {
  chosen = use.name;
});

/**
 * Makes the backend `choose` returns (or the JS path, when it returns
 * undefined) the default, once. Returns the name that holds. Once settled,
 * `choose` is not called again, so no second core is instantiated.
 */
export function adopt(choose: () => Backend | undefined): BackendName {
  if (settled) return chosen;
  const use = choose() ?? jsBackend;
  settled = true;
  setDefaultBackend(use);
  chosen = use.name;
  settle(chosen);
  return chosen;
}

/**
 * Until an entry hands over its builds, there are none: 'auto' is 'js', and a wasm name says why.
 * On mcp-frames/core nothing hands them over but init(): `ready` waits for it, and "await ready"
 * alone waited for ever.
 */
let loader = createLoader(() => {
  throw new BackendUnavailableError(
    'the WebAssembly builds are not loaded yet on this host: await ready (on mcp-frames/core, after calling init() with them)',
  );
});

/**
 * The entry's builds: from now on loadBackend() makes backends from them,
 * and the default is chosen from them (once; see adopt). Once a choice is
 * made, later builds change nothing, loadBackend() included: a second
 * init(), or init() after the Node entry chose its builds, once replaced
 * the builds loadBackend() used while the default stayed, so 'auto' and
 * `backend` disagreed.
 */
export function useBuilds(source: BuildSource): BackendName {
  if (settled) return chosen;
  loader = createLoader(source);
  return adopt(() => loader('auto'));
}

/**
 * The backend named by `choice`, made from this host's builds: 'js',
 * 'wasm-simd', 'wasm-scalar', 'wasm' (the best of the two) or 'auto' (the
 * best, else 'js'). Throws BackendUnavailableError when it cannot be had.
 */
export function loadBackend(choice: BackendChoice): PublicBackend {
  return loader(choice);
}
