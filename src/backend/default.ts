// Which backend a codec or decoder uses when the caller names none.
//
// The choice is made once, by the entry point the host loads (src/runtime/node.ts
// picks 'auto' at import), and stays made: hono's SmartRouter
// binds itself to the router that won, and so does this. Until an entry
// chooses, the pure-JS backend serves.

import type { Backend } from './backend.js';
import { jsBackend } from './js.js';

let chosen: Backend = jsBackend;

/** The backend used where none is named. */
export function defaultBackend(): Backend {
  return chosen;
}

/** Sets the default backend. Entry points call this once, at load. */
export function setDefaultBackend(backend: Backend): void {
  chosen = backend;
}
