// The TCP benchmark's peer: a bare Node TCP proxy, each client piped to its own upstream connection both ways.
//
//   node bench/peers/tcp-proxy.mjs --listen HOST:PORT --upstream HOST:PORT
//
// Prints {"listening":"HOST:PORT"} on stderr once it listens, as `mcp-frames relay --listen` does.

import net from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { listen: { type: 'string' }, upstream: { type: 'string' } } });
const split = (text) => {
  const at = text.lastIndexOf(':');
  return { host: text.slice(0, at), port: Number(text.slice(at + 1)) };
};
const listen = split(values.listen);
const upstream = split(values.upstream);
const server = net.createServer((client) => {
  const up = net.connect(upstream);
  client.setNoDelay(true);
  up.setNoDelay(true);
  client.pipe(up);
  up.pipe(client);
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
});
server.listen(listen.port, listen.host, () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.stderr.write(`${JSON.stringify({ listening: `${listen.host}:${port}` })}\n`);
});
