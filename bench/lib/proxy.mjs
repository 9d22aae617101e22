// The proxy against the SDK's own client on small answers, and against the relay in front of it on large ones.
//
//   proxy/read-small/http   server-everything in its Streamable HTTP mode, one process; backend
//                           'mcp-frames-proxy': TCP request lines through `mcp-frames proxy --server-url`,
//                           answered as records; backend 'sdk-client': the SDK's Client with its
//                           StreamableHTTPClientTransport calling the same server directly
//   proxy/answer-1m/text    one pipeline, a stdio server (text-server.mjs) -> `mcp-frames proxy` ->
//                           `mcp-frames relay --listen --validate full` -> one client; backend
//                           'mcp-frames-proxy': the proxy process's CPU, 'mcp-frames-relay': the
//                           relay's, over the same resources/read answers of a 1 MiB text
//
// read-small: each round sends the same EXCHANGES reads of
// test://static/resource/1..100 (140 to 170 bytes), CONCURRENCY in flight,
// through each path in turn; the figure is exchanges a second. Both answers
// are checked before timing.
//
// answer-1m: each round reads LARGE_READS answers, LARGE_IN_FLIGHT in
// flight; the figures are each process's CPU (utime + stime from /proc, the
// proxy's alone, not its server's) over the same answers. Every frame the
// client gets, in the check and while timed, is compared with the bytes the
// server wrote.

import net from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from './env.mjs';
import { CLI, cpuFigures, MiB, mean, roundResult, startNode } from './rounds.mjs';
import { answerText, resultBytes } from './text-server.mjs';

const EXCHANGES = 1000;
const CONCURRENCY = 16;
const HEADER = 9;
const LARGE_READS = 200;
const LARGE_IN_FLIGHT = 8;

const READ_SMALL = 'proxy/read-small/http';
const ANSWER_1M = 'proxy/answer-1m/text';
export const PROXY_NAMES = [READ_SMALL, ANSWER_1M];

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

export async function runProxyCases(options) {
  const results = [];
  const fixtures = [];
  const cases = [
    { name: READ_SMALL, run: runReadSmall },
    { name: ANSWER_1M, run: runAnswer1m },
  ];
  for (const { name, run } of cases) {
    if (!options.wanted(name)) continue;
    const out = await run(options);
    results.push(...out.results);
    fixtures.push(...out.fixtures);
  }
  return { results, fixtures };
}

async function runReadSmall({ quick, progress }) {
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

/**
 * A TCP client of a relay or a proxy for large frames: request lines out,
 * frames back by channel. A record's chunks are joined once, when it is whole.
 */
async function recordClient(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let chunks = [];
  let have = 0;
  const frames = new Map();
  const waiting = new Map();
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    while (have >= HEADER) {
      if (chunks[0].length < HEADER) chunks = [Buffer.concat(chunks, have)];
      const need = HEADER + chunks[0].readUInt32LE(5);
      if (have < need) return;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
      const channel = all.readUInt32LE(1);
      if (all[0] === 1) frames.set(channel, all.subarray(HEADER, need));
      else {
        const resolve = waiting.get(channel);
        waiting.delete(channel);
        resolve?.(frames.get(channel) ?? null);
        frames.delete(channel);
      }
      const rest = all.subarray(need);
      chunks = rest.length ? [rest] : [];
      have = rest.length;
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

/** CPU seconds and minor page faults of a process between two of its /proc readings; no CPU off Linux. */
const usageBetween = (before, after) => (before && after ? { cpu: after.cpu - before.cpu, faults: after.faults - before.faults } : { cpu: null });

async function runAnswer1m({ quick, progress }) {
  const server = join(ROOT, 'bench', 'lib', 'text-server.mjs');
  progress(`${ANSWER_1M}: starting a stdio server behind mcp-frames proxy, and mcp-frames relay --validate full before it`);
  const proxy = await startNode([CLI, 'proxy', '--listen', '127.0.0.1:0', '--', process.execPath, server], { env: { ANSWER_BYTES: String(MiB) } });
  const relay = await startNode([CLI, 'relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${proxy.port}`, '--validate', 'full']).catch(
    async (error) => {
      await proxy.stop();
      throw error;
    },
  );
  let client;
  try {
    client = await recordClient(relay.port);
    // Eight uris, each answer's frame known in advance: the tag, then the result as the server writes it.
    const textJson = JSON.stringify(answerText(MiB));
    const uris = Array.from({ length: 8 }, (_, k) => `file:///texts/${k}.txt`);
    const expected = uris.map((uri) => Buffer.from(`\0${resultBytes(uri, textJson)}`));
    let channel = 0;
    /** Reads `count` answers, LARGE_IN_FLIGHT in flight: how many were not the server's bytes. */
    const readAll = async (count) => {
      let started = 0;
      let wrong = 0;
      await Promise.all(
        Array.from({ length: LARGE_IN_FLIGHT }, async () => {
          for (let k = started++; k < count; k = started++) {
            const c = channel++;
            const frame = await client.read(c, uris[c % uris.length]);
            if (!frame?.equals(expected[c % uris.length])) wrong++;
          }
        }),
      );
      return wrong;
    };
    progress(`${ANSWER_1M}: checking`);
    const checked = quick ? 2 * LARGE_IN_FLIGHT : 8 * LARGE_IN_FLIGHT;
    const wrongAtCheck = await readAll(checked);
    if (wrongAtCheck) throw new Error(`${ANSWER_1M}: ${wrongAtCheck} of ${checked} answers were not the bytes the server wrote`);
    const rounds = quick ? 2 : 5;
    const count = quick ? LARGE_READS / 4 : LARGE_READS;
    /** @type {Record<string, Array<{ cpu: number | null, faults?: number }>>} */
    const runs = { 'mcp-frames-proxy': [], 'mcp-frames-relay': [] };
    const seconds = [];
    for (let r = 0; r < rounds; r++) {
      progress(`${ANSWER_1M}: round ${r + 1} of ${rounds}`);
      const p0 = proxy.usage();
      const r0 = relay.usage();
      const t0 = performance.now();
      const wrong = await readAll(count);
      seconds.push((performance.now() - t0) / 1000);
      runs['mcp-frames-proxy'].push(usageBetween(p0, proxy.usage()));
      runs['mcp-frames-relay'].push(usageBetween(r0, relay.usage()));
      if (wrong) throw new Error(`${ANSWER_1M}: ${wrong} answers were not the bytes the server wrote while timed`);
    }
    // The payload bytes of a round: the uris are of one length, so every frame is.
    const bytes = count * expected[0].length;
    const impl = {
      'mcp-frames-proxy': '`mcp-frames proxy -- node text-server.mjs`, the proxy process alone (not its server)',
      'mcp-frames-relay': '`mcp-frames relay --listen --upstream PROXY --validate full`, in front of that proxy, on the same answers',
    };
    const results = Object.entries(runs).map(([key, usage]) => {
      const cpu = usage.every((u) => u.cpu != null) ? mean(usage.map((u) => u.cpu)) : null;
      return roundResult({ layer: 'proxy', op: 'answer-1m', fixture: 'text', backend: key, name: ANSWER_1M, impl: impl[key] }, seconds, bytes, {
        answers: count,
        inFlight: LARGE_IN_FLIGHT,
        ...cpuFigures(usage, bytes),
        ...(cpu == null ? {} : { cpuMsPerAnswer: Math.round((cpu / count) * 1e6) / 1e3 }),
      });
    });
    return {
      results,
      fixtures: [
        {
          name: 'proxy-answer-1m',
          kind: 'wire',
          description: `${count} resources/read answers a round from a stdio server, each a result of one ${MiB}-byte text (${expected[0].length - 1} bytes)`,
          bytes,
        },
      ],
    };
  } finally {
    client?.close();
    await relay.stop();
    await proxy.stop();
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
    {
      // A CPU target's ratio is the numerator's bytes a CPU second over the denominator's: the relay's over the proxy's
      // is the proxy's CPU over the relay's, on the same bytes.
      group: "the proxy's CPU on 1 MiB answers ÷ the relay's (--validate full) on the same answers ≤ 2",
      fixture: 'text',
      num: [ANSWER_1M, 'mcp-frames-relay'],
      den: [ANSWER_1M, 'mcp-frames-proxy'],
      target: 2,
      comparison: '<=',
      metric: 'cpu',
      note: 'utime + stime of each process over the same answers, one pipeline: stdio server, proxy, relay --validate full, client',
    },
  ];
}
