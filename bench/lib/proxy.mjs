// The proxy against the SDK's own client: exchanges a second on resources/read of small resources, one server for both.
//
//   proxy/read-small/http   server-everything in its Streamable HTTP mode, one process; backend
//                           'mcp-frames-proxy': TCP request lines through `mcp-frames proxy --server-url`,
//                           answered as records; backend 'sdk-client': the SDK's Client with its
//                           StreamableHTTPClientTransport calling the same server directly
//
// Each round sends the same EXCHANGES reads of test://static/resource/1..100
// (140 to 170 bytes), CONCURRENCY in flight, through each path in turn; the
// figure is exchanges a second. Both answers are checked before timing.

import net from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from './env.mjs';
import { CLI, mean, roundResult, startNode } from './rounds.mjs';

const EXCHANGES = 1000;
const CONCURRENCY = 16;
const HEADER = 9;

export const PROXY_NAMES = ['proxy/read-small/http'];

/** A TCP client of the proxy: request lines out, frames back by channel. */
async function proxyClient(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = Buffer.alloc(0);
  const frames = new Map();
  const waiting = new Map();
  socket.on('data', (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    while (buffered.length >= HEADER) {
      const length = buffered.readUInt32LE(5);
      if (buffered.length < HEADER + length) break;
      const channel = buffered.readUInt32LE(1);
      if (buffered[0] === 1) frames.set(channel, buffered.subarray(HEADER, HEADER + length));
      else {
        const resolve = waiting.get(channel);
        waiting.delete(channel);
        resolve(frames.get(channel) ?? null);
        frames.delete(channel);
      }
      buffered = buffered.subarray(HEADER + length);
    }
  });
  return {
    read(channel, uri) {
      return new Promise((resolve) => {
        waiting.set(channel, resolve);
        socket.write(`{"channel":${channel},"method":"resources/read","params":{"uri":${JSON.stringify(uri)}}}\n`);
      });
    },
    close: () => socket.destroy(),
  };
}

/** Runs `count` calls of `one(k, lane)`, `CONCURRENCY` at a time; resolves with the results in order. */
async function spread(count, one) {
  const out = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let k = next++; k < count; k = next++) out[k] = await one(k, lane);
    }),
  );
  return out;
}

const uriOf = (k) => `test://static/resource/${(k % 100) + 1}`;

export async function runProxyCases({ quick, wanted, progress }) {
  if (!PROXY_NAMES.some(wanted)) return { results: [], fixtures: [] };
  const everything = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const loopback = join(ROOT, 'test', 'support', 'loopback.mjs');
  progress('proxy: starting server-everything (Streamable HTTP) and mcp-frames proxy');
  const server = await startNode(['--import', loopback, everything, 'streamableHttp'], { env: { PORT: '0' }, pattern: /loopback-port (\d+)/ });
  const url = `http://127.0.0.1:${server.port}/mcp`;
  const proxy = await startNode([CLI, 'proxy', '--listen', '127.0.0.1:0', '--server-url', url]);
  const connectSdk = async () => {
    const client = new Client({ name: 'mcp-frames-bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };
  let sdk = await connectSdk();
  // One proxy connection per lane, channel k on lane k's own connection: as independent callers would.
  const lanes = await Promise.all(Array.from({ length: CONCURRENCY }, () => proxyClient(proxy.port)));
  try {
    progress('proxy/read-small/http: checking');
    for (let k = 0; k < 100; k++) {
      const frame = await lanes[0].read(k, uriOf(k));
      const direct = await sdk.readResource({ uri: uriOf(k) });
      if (frame?.[0] !== 0) throw new Error(`proxy/read-small/http: ${uriOf(k)} was not answered with a result`);
      const viaProxy = JSON.parse(frame.subarray(1).toString('utf8'));
      // The SDK's schemas strip members they do not know (here `name`), so the paths are compared on what both keep.
      const kept = (c) => JSON.stringify(c.map(({ uri, mimeType, text, blob }) => ({ uri, mimeType, text, blob })));
      if (kept(viaProxy.contents) !== kept(direct.contents)) throw new Error(`proxy/read-small/http: ${uriOf(k)} differs between the paths`);
    }
    const rounds = quick ? 2 : 5;
    const count = quick ? EXCHANGES / 4 : EXCHANGES;
    const runs = { 'mcp-frames-proxy': [], 'sdk-client': [] };
    const paths = {
      'mcp-frames-proxy': () => spread(count, (k, lane) => lanes[lane].read(k, uriOf(k))),
      'sdk-client': () => spread(count, (k) => sdk.readResource({ uri: uriOf(k) })),
    };
    let bytes = 0;
    for (let r = 0; r < rounds; r++) {
      progress(`proxy/read-small/http: round ${r + 1} of ${rounds}`);
      // Alternate which path goes first, so that neither always follows the other.
      const order = r % 2 ? ['sdk-client', 'mcp-frames-proxy'] : ['mcp-frames-proxy', 'sdk-client'];
      // A fresh SDK client each round, connected before the clock starts: its transport adds an abort
      // listener per request that it never removes, and a client kept across rounds slows as they pile up.
      await sdk.close();
      sdk = await connectSdk();
      for (const key of order) {
        const t0 = performance.now();
        const got = await paths[key]();
        runs[key].push((performance.now() - t0) / 1000);
        if (key === 'mcp-frames-proxy') {
          if (got.some((f) => !f)) throw new Error('proxy/read-small/http: an exchange was not carried while timed');
          bytes = got.reduce((a, f) => a + f.length, 0);
        }
      }
    }
    const results = Object.entries(runs).map(([key, seconds]) =>
      roundResult(
        {
          layer: 'proxy',
          op: 'read-small',
          fixture: 'http',
          backend: key,
          name: 'proxy/read-small/http',
          impl:
            key === 'sdk-client'
              ? `the SDK's Client.readResource over StreamableHTTPClientTransport, ${CONCURRENCY} in flight`
              : `\`mcp-frames proxy --server-url\`, request lines over ${CONCURRENCY} TCP connections, one in flight on each`,
        },
        seconds,
        bytes,
        { exchanges: count, exchangesPerSecond: Math.round(count / mean(seconds)) },
      ),
    );
    return {
      results,
      fixtures: [
        {
          name: 'proxy-read-small',
          kind: 'wire',
          description: `${count} resources/read of server-everything's 100 static resources (140-170 byte results)`,
          bytes,
        },
      ],
    };
  } finally {
    for (const lane of lanes) lane.close();
    await sdk.close().catch(() => {});
    await proxy.stop();
    await server.stop();
  }
}

/** The target: the proxy at least 0.8× the SDK client calling the same server directly. */
export function proxyTargets() {
  return [
    {
      group: 'proxy ≥ 0.8× the SDK Client on resources/read of small resources, one server for both',
      fixture: 'http',
      num: ['proxy/read-small/http', 'mcp-frames-proxy'],
      den: ['proxy/read-small/http', 'sdk-client'],
      target: 0.8,
      comparison: '>=',
      note: 'exchanges a second; server-everything in Streamable HTTP mode, one process, sessions of its own for each path',
    },
  ];
}
