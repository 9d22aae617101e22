// An edge function (Vercel's edge-runtime): 'mcp-frames/core', with the modules the host compiled handed in as globals; vectors in the request body, report in the response.
//
// Code generation from bytes is off in this sandbox, so the function cannot
// compile the core itself. The host compiles build/core-*.wasm outside and
// binds the modules as CORE_SIMD and CORE_SCALAR, the way Next.js binds an
// edge function's wasm imports.

import * as lib from 'mcp-frames/core';
import { runSmoke } from '../smoke.js';

let initFault = null;
try {
  lib.init({ simd: globalThis.CORE_SIMD, scalar: globalThis.CORE_SCALAR });
} catch (error) {
  initFault = `init({ simd, scalar }) threw ${error?.name}: ${error?.message}`;
}

async function handle(request) {
  if (initFault) return new Response(initFault, { status: 500 });
  try {
    return Response.json(await runSmoke(lib, await request.json()));
  } catch (error) {
    return new Response(error?.stack ?? String(error), { status: 500 });
  }
}

addEventListener('fetch', (event) => {
  const fetchEvent = /** @type {FetchEvent} */ (event);
  fetchEvent.respondWith(handle(fetchEvent.request));
});
