// Node and Bun: the package by name (the "node" condition), the vectors on stdin, one JSON report on stdout.

import process from 'node:process';
import * as lib from 'mcp-frames';
import * as client from 'mcp-frames/client';
import { runSmoke } from '../smoke.js';

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const vectors = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const report = await runSmoke(lib, vectors, client);
  // Which file the runtime resolved 'mcp-frames' to: the harness checks the condition it took.
  report.entry = import.meta.resolve('mcp-frames');
  report.runtime = globalThis.Bun ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
