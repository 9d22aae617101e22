// A Worker: the package by name (the "workerd" condition, bundled as wrangler does), the vectors as the request body, the report as the response.

import * as lib from 'mcp-frames';
import * as client from 'mcp-frames/client';
import { runSmoke } from '../smoke.js';

/** Whether this isolate compiles WebAssembly from bytes; workerd is expected to refuse. */
function compilesFromBytes() {
  try {
    new WebAssembly.Module(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    return true;
  } catch {
    return false;
  }
}

export default {
  async fetch(request) {
    try {
      const report = await runSmoke(lib, await request.json(), client);
      report.compilesFromBytes = compilesFromBytes();
      return Response.json(report);
    } catch (error) {
      return new Response(error?.stack ?? String(error), { status: 500 });
    }
  },
};
