// The core builds that come inside the package, as bytes, and loadBackend over them: what Node, Bun, browsers and the CLI load.
//
// # Embedded, not read from disk
//
// Both builds travel as base64 text in a module generated at build time
// (scripts/embed-wasm.mjs writes generated/core-base64.ts from build/), so
// the core goes wherever the JavaScript goes. Read from build/ beside
// dist/ instead, it was lost to every bundle: esbuild, Rollup or wrangler
// put the code in one file somewhere else, the read failed, and 'auto'
// quietly took the JS path. Nothing is fetched, so strict connect-src
// policies and offline pages are fine too. The price is about 26 KB of
// text for 20 KB of builds, decoded only when a build is first asked for.
// build/core-*.wasm stays in the package for hosts that compile the core
// their own way (package.json's ./wasm/* exports).

import { scalar, simd } from './generated/core-base64.js';
import { createLoader } from './loader.js';

export { BACKEND_CHOICES, BackendUnavailableError, type BackendChoice } from './loader.js';

/** The bytes of one build. atob, not Buffer: every host this package runs on has it. */
export function readBuild(name: 'simd' | 'scalar'): Uint8Array<ArrayBuffer> {
  const text = atob(name === 'simd' ? simd : scalar);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The backend named by `choice`. Throws BackendUnavailableError when it cannot load. */
export const loadBackend = createLoader(readBuild);
