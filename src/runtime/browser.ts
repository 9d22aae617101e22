// Browsers, and any host that has only web-standard globals: the builds are embedded as base64 and compiled asynchronously, once.
//
// # Embedded, not fetched
//
// The two builds come with this module as base64 text (core-base64.js,
// generated from build/ when the package is built), so a page that imports
// the package needs nothing from its bundler: no .wasm asset rule, no
// public path, no URL that breaks when the bundle moves. The price is
// about 12 KB of text for 9 KB of builds. Nothing is fetched, so strict
// connect-src policies and offline pages are fine too.
//
// # Compiled asynchronously, never awaited at top level
//
// Chrome has refused synchronous compiles of modules over 4 KB on the main
// thread, and the builds are about 4.5 KB. So compilation starts when this
// module loads and runs with WebAssembly.compile; the module does not wait
// for it. Until it settles the pure-JS backend serves (it gives the same
// answers, byte for byte), and `backend` reads 'js'. `await ready` gives
// the winner's name, and from then on `backend` holds it. A page whose CSP
// forbids WebAssembly ('wasm-unsafe-eval' missing), or a host that refuses
// to compile bytes (workerd, edge runtimes), keeps the JS path, and `ready`
// still resolves.
//
// Instantiating the compiled module stays synchronous (createWasmBackend
// makes the instance when the loader picks it). Chromium 156, which the
// runtime matrix runs, allows that on the main thread; a browser that
// refused it would leave the JS path, as any other load failure does.
//
// # Also the default
//
// package.json points its "default" condition here: a host that no other
// condition names gets the entry that assumes the least.

import { scalar, simd } from './core-base64.js';
import { adopt, useBuilds } from './selection.js';

export * from './api.js';

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The SIMD build where this host validates it, else the scalar one; compiled off the main thread's sync path. */
async function compileBest(): Promise<{ simd?: WebAssembly.Module; scalar?: WebAssembly.Module }> {
  if (typeof WebAssembly === 'undefined') return {};
  const simdBytes = decode(simd);
  if (WebAssembly.validate(simdBytes)) {
    try {
      return { simd: await WebAssembly.compile(simdBytes) };
    } catch {
      // fall through to the scalar build
    }
  }
  try {
    return { scalar: await WebAssembly.compile(decode(scalar)) };
  } catch {
    return {};
  }
}

// Whatever goes wrong, `ready` settles: on the JS path at worst.
compileBest()
  .then((modules) =>
    useBuilds((name) => {
      // The build compiled above, or the other one's bytes, compiled on demand (and refused
      // by a host that forbids synchronous compiles, which loadBackend reports).
      return modules[name] ?? decode(name === 'simd' ? simd : scalar);
    }),
  )
  .catch(() => adopt(() => undefined));
