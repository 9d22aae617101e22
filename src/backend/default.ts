// Which backend a codec or decoder uses when the caller names none.
//
// The choice is made once, by the entry point the host loads (src/runtime/node.ts
// picks 'auto' at import), and stays made: hono's SmartRouter
// binds itself to the router that won, and so does this. Until an entry
// chooses, the pure-JS backend serves.
//
// # A default set by hand is checked, and is the one reported
//
// setDefaultBackend() is public. Given a name ('wasm') or anything else that
// is not a backend, it once took it in silence and every later decode threw
// `backend.verifyFrame is not a function`, far from the mistake; now it
// throws there. And the runtime's `backend` (src/runtime/selection.ts)
// follows each change, so it never names a backend that no longer serves.

import type { Backend, PublicBackend } from './backend.js';
import { jsBackend } from './js.js';

let chosen: Backend = jsBackend;
const watchers: Array<(backend: Backend) => void> = [];

/** The backend used where none is named. */
export function defaultBackend(): Backend {
  return chosen;
}

/** Whether `x` has what a backend must have: a name and the three calls every backend makes. */
function isBackend(x: unknown): x is Backend {
  const b = x as Partial<Backend> | null;
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.name === 'string' &&
    typeof b.verifyFrame === 'function' &&
    typeof b.createKernel === 'function' &&
    typeof b.createReader === 'function'
  );
}

/** `backend`, or a TypeError naming `where` it was given when it is not one. */
export function checkBackend(backend: unknown, where: string): Backend {
  if (!isBackend(backend)) {
    const given = typeof backend === 'string' ? `the string '${backend}'` : backend === null ? 'null' : typeof backend;
    throw new TypeError(`${where} takes a backend (loadBackend('wasm') gives one), not ${given}`);
  }
  return backend;
}

/** Sets the default backend. Entry points call this once, at load. A TypeError when `backend` is not one. */
export function setDefaultBackend(backend: PublicBackend): void {
  const checked = checkBackend(backend, 'setDefaultBackend');
  chosen = checked;
  for (const watch of watchers) watch(checked);
}

/** Calls `watch` with each backend made the default from now on. */
export function watchDefaultBackend(watch: (backend: Backend) => void): void {
  watchers.push(watch);
}
