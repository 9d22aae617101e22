// Runs an MCP server and keeps a copy of every byte it writes on stdout: `node tee.js COPY -- COMMAND [ARGS…]`.
//
// The demo compares each frame that reaches its client with this copy of the
// server's own output, taken before the proxy reads a byte of it.

import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';

const [copy, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) {
  process.stderr.write('usage: tee.js COPY -- COMMAND [ARGS…]\n');
  process.exit(2);
}
writeFileSync(copy, '');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(child.stdin);
child.stdin.on('error', () => {});
child.stdout.on('data', (chunk: Buffer) => {
  appendFileSync(copy, chunk);
  process.stdout.write(chunk);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
