// Deno: the package by name (the "deno" condition), the vectors on stdin, one JSON report on stdout.

import * as lib from 'mcp-frames';
import * as client from 'mcp-frames/client';
import { runSmoke } from '../smoke.js';

async function main() {
  const vectors = JSON.parse(await new Response(Deno.stdin.readable).text());
  const report = await runSmoke(lib, vectors, client);
  // Which file Deno resolved 'mcp-frames' to: the harness checks the condition it took.
  report.entry = import.meta.resolve('mcp-frames');
  report.runtime = `Deno ${Deno.version.deno}`;
  console.log(JSON.stringify(report));
}

main().catch((error) => {
  console.error(error?.stack ?? String(error));
  Deno.exit(1);
});
