// Browsers, and any host that has only web-standard globals: the embedded builds compiled as the module loads, or asynchronously where the host refuses that.
//
// # Compiled synchronously where the host allows it
//
// The builds come inside the JavaScript (src/backend/builds.ts), so a page
// needs nothing from its bundler: no .wasm asset rule, no public path.
// They are compiled while this module loads, with `new WebAssembly.Module`,
// so the first call already runs on the core and `ready` is settled before
// the importer's first line: Chromium allows synchronous compiles of up to
// 8 MB on the main thread (the builds are 6 and 14 KB), workers allow any
// size. A host that refuses it (an older browser's 4 KB main-thread limit)
// gets the asynchronous compile instead: until it settles the pure-JS
// backend serves, with the same answers byte for byte, `backend` reads
// 'js', and `await ready` gives the winner. A page whose CSP forbids
// WebAssembly ('wasm-unsafe-eval' missing) keeps the JS path, and `ready`
// still resolves.
//
// # Also the default
//
// package.json points its "default" condition here: a host that no other
// condition names gets the entry that assumes the least.

import { readBuild } from '../backend/builds.js';
import { adopt, useBuilds } from './selection.js';

export * from './api.js';

type Modules = { simd?: WebAssembly.Module; scalar?: WebAssembly.Module };

/** The SIMD build where this host validates it, else the scalar one, compiled here and now; undefined when the host refused. */
function compileNow(): Modules | undefined {
  try {
    const simdBytes = readBuild('simd');
    if (WebAssembly.validate(simdBytes)) return { simd: new WebAssembly.Module(simdBytes) };
    return { scalar: new WebAssembly.Module(readBuild('scalar')) };
  } catch {
    return undefined;
  }
}

/** The same choice, compiled asynchronously: for hosts that refuse the synchronous compile. */
async function compileLater(): Promise<Modules> {
  const simdBytes = readBuild('simd');
  if (WebAssembly.validate(simdBytes)) {
    try {
      return { simd: await WebAssembly.compile(simdBytes) };
    } catch {
      // fall through to the scalar build
    }
  }
  try {
    return { scalar: await WebAssembly.compile(readBuild('scalar')) };
  } catch {
    return {};
  }
}

/** The chosen modules, or the other build's bytes compiled on demand (which loadBackend reports when refused). */
const fromModules = (modules: Modules) => (name: 'simd' | 'scalar') => modules[name] ?? readBuild(name);

const now = typeof WebAssembly === 'undefined' ? {} : compileNow();
if (now) {
  useBuilds(fromModules(now));
} else {
  // Whatever goes wrong, `ready` settles: on the JS path at worst.
  compileLater()
    .then((modules) => useBuilds(fromModules(modules)))
    .catch(() => adopt(() => undefined));
}
