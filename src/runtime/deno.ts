// Deno: both core builds read from the package's build/ folder synchronously at import, then chosen once.
//
// # Read, not fetched
//
// Deno.readFileSync on a file URL made from import.meta.url finds build/
// beside dist/ whether the package sits in node_modules or in Deno's npm
// cache, and needs no top-level await. A fetch of the same URL would need
// one, and --allow-net besides. Deno compiles modules of any size
// synchronously, so the bytes are compiled here and `backend` holds
// the winner before the importer's first line runs.
//
// # Without read permission
//
// A process without --allow-read for the package keeps the pure-JS path:
// a build that cannot be read is a build this host does not have. `backend`
// then reads 'js'.

import { BackendUnavailableError } from '../backend/loader.js';
import { useBuilds } from './selection.js';

export * from './api.js';

/** The part of Deno's namespace this entry uses; the ambient types are Deno's own and not installed here. */
declare const Deno: { readFileSync(path: URL): Uint8Array<ArrayBuffer> };

function read(name: 'simd' | 'scalar'): Uint8Array<ArrayBuffer> {
  try {
    return Deno.readFileSync(new URL(`../../build/core-${name}.wasm`, import.meta.url));
  } catch (error) {
    throw new BackendUnavailableError(`build/core-${name}.wasm cannot be read: ${(error as Error).message}`);
  }
}

useBuilds(read);
