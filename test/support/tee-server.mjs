// Runs an MCP server and keeps a copy of every byte it writes on stdout: `node tee-server.mjs COPY -- COMMAND [ARGS…]`.
// The tests compare the proxy's frames with this copy of the server's own output, taken outside the proxy.

import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';

const [copy, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) throw new Error('usage: tee-server.mjs COPY -- COMMAND [ARGS…]');
writeFileSync(copy, '');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
process.stdin.pipe(child.stdin);
child.stdin.on('error', () => {});
child.stdout.on('data', (chunk) => {
  appendFileSync(copy, chunk);
  process.stdout.write(chunk);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) process.on(signal, () => child.kill(signal));
