// The proxy as a hostile peer and a failing server would try it: every answer held to all of WIRE.md section 4, and
// every bound it has, each asserted by a count or by memory. Fake servers stand in for the bad ones: the scripted
// stdio server (support/scripted-server.mjs) and a Streamable HTTP server written here.
//
// `npm run soak` runs the same cases at the sizes they were first seen at (MCP_FRAMES_SOAK=1).

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyFault } from '../src/proxy/context.js';
import { createProxy, type McpProxy, type ProxyOptions } from '../src/proxy/proxy.js';
import type { ServerSpec } from '../src/proxy/server-spec.js';
import { bytesInUse, MiB } from './support/memory.js';
import { ProxyClient } from './support/proxy-client.js';
import { startCli, until } from './support/relay-process.js';

const SOAK = process.env.MCP_FRAMES_SOAK === '1';
const SCRIPTED = join(import.meta.dirname, 'support', 'scripted-server.mjs');
const scripted = (env?: Record<string, string>): ServerSpec => ({ command: process.execPath, args: [SCRIPTED], ...(env ? { env } : {}) });

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Faults = Array<{ fault: ProxyFault; connection: number | null }>;

async function start(options: ProxyOptions): Promise<{ proxy: McpProxy; port: number; faults: Faults }> {
  const faults: Faults = [];
  const proxy = createProxy({ ...options, onFault: (fault, connection) => faults.push({ fault, connection }) });
  cleanups.push(() => proxy.close());
  const port = await new Promise<number>((resolve) =>
    proxy.server.listen(0, '127.0.0.1', () => resolve((proxy.server.address() as net.AddressInfo).port)),
  );
  await proxy.ready;
  return { proxy, port, faults };
}

async function connect(port: number): Promise<ProxyClient> {
  const client = await ProxyClient.connect(port);
  cleanups.push(() => client.close());
  return client;
}

const json = (payload: Uint8Array | null) => JSON.parse(new TextDecoder().decode(payload!.subarray(1)));
const notCarried = (faults: Faults) => faults.map((f) => f.fault).filter((f) => f.reason === 'not-carried');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A socket that connects and never reads: what the proxy sends it piles up. */
async function nonReader(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => {});
  socket.pause();
  cleanups.push(() => socket.destroy());
  return socket;
}

const closed = (socket: net.Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('proxy: every answer is held to all of WIRE.md section 4', () => {
  it("at 'full', the default, answers that break the schema are not carried, each with its rule and offset", async () => {
    const { port, faults } = await start({ server: scripted() });
    const client = await connect(port);
    const answers = await Promise.all([
      client.exchange(1, 'resources/read', { uri: 'scripted://contents-not-array' }),
      client.exchange(2, 'prompts/list', { cursor: 'bad-error' }),
      client.exchange(3, 'resources/list', { cursor: 'uri-5' }),
    ]);
    expect(answers.map((a) => a.payload)).toEqual([null, null, null]);
    const refused = notCarried(faults);
    expect(refused).toHaveLength(3);
    for (const fault of refused) expect(fault).toMatchObject({ cause: 'invalid-answer', rule: 'schema', offset: expect.any(Number) });
  });

  it("at 'json' the same answers are carried: strict JSON text is all they are held to", async () => {
    const { port, faults } = await start({ server: scripted(), validate: 'json' });
    const client = await connect(port);
    const a = await client.exchange(1, 'resources/read', { uri: 'scripted://contents-not-array' });
    const b = await client.exchange(2, 'prompts/list', { cursor: 'bad-error' });
    expect(json(a.payload)).toEqual({ contents: 'not an array' });
    expect(b.payload![0]).toBe(1);
    expect(json(b.payload)).toEqual({ code: 'x', message: 5 });
    expect(faults).toEqual([]);
  });

  it('an answer that holds both result and error is refused, whichever comes first', async () => {
    const { port, faults } = await start({ server: scripted() });
    const client = await connect(port);
    const first = await client.exchange(1, 'resources/read', { uri: 'scripted://both/result-first' });
    const second = await client.exchange(2, 'resources/read', { uri: 'scripted://both/error-first' });
    expect([first.payload, second.payload]).toEqual([null, null]);
    const refused = notCarried(faults);
    expect(refused.map((f) => [f.channel, f.cause, f.rule])).toEqual([
      [1, 'invalid-answer', 'result-and-error'],
      [2, 'invalid-answer', 'result-and-error'],
    ]);
    // The offset is where the second of the two members starts in the server's message.
    const line1 = '{"jsonrpc":"2.0","id":1,"result":{"contents":[]},"error":';
    const line2 = '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"and a result"},"result":';
    expect(refused.map((f) => f.offset)).toEqual([line1.length, line2.length]);
  });
});

describe('proxy: an answer past the message limit fails its own exchange only', () => {
  it.each([
    ['the id after the result, as the SDK writes it', 'size'],
    ['the id before the result', 'size-id-first'],
  ])('a 20 MB answer for one client while another has 5 exchanges in flight (%s)', async (_name, shape) => {
    const { proxy, port, faults } = await start({ server: scripted() });
    const a = await connect(port);
    const b = await connect(port);
    a.exchange(9, 'resources/read', { uri: 'scripted://hang' });
    const big = b.exchange(1, 'resources/read', { uri: `scripted://${shape}/${20_000_000}` });
    const small = await Promise.all(Array.from({ length: 5 }, (_, k) => a.exchange(k + 1, 'resources/read', { uri: 'scripted://spelled' })));
    expect((await big).payload).toBeNull();
    for (const answer of small) expect(answer.payload![0]).toBe(0);
    expect(notCarried(faults)).toEqual([expect.objectContaining({ cause: 'oversize', channel: 1, limit: 16 * MiB + 64 * 1024 })]);
    // The server was not restarted: the exchange still waiting on it is still in flight.
    expect(proxy.stats).toMatchObject({ serverStarts: 1, serverRestarts: 0, inFlight: 1 });
    expect(faults.some((f) => f.fault.reason === 'server-ended')).toBe(false);
  });

  it('a line past the limit with no id to be found ends the server, which is started again', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), maxMessageBytes: 64 * 1024, restartDelayMs: { first: 10, max: 100 } });
    const client = await connect(port);
    const lost = await client.exchange(1, 'resources/read', { uri: 'scripted://no-id/100000' });
    expect(lost.payload).toBeNull();
    expect(faults.find((f) => f.fault.reason === 'server-ended')?.fault).toMatchObject({ cause: 'oversize', limit: 64 * 1024 });
    const after = await client.exchange(2, 'resources/read', { uri: 'scripted://spelled' });
    expect(after.payload![0]).toBe(0);
    expect(proxy.stats.serverStarts).toBe(2);
  });
});

describe('proxy: a server that cannot be started', () => {
  it('an exchange waiting for it is not carried at once, naming why; after 5 starts in a row, ready rejects and every exchange is refused', async () => {
    const faults: Faults = [];
    const proxy = createProxy({
      server: { command: 'mcp-frames-test-no-such-server' },
      restartDelayMs: { first: 20, max: 100 },
      onFault: (fault, connection) => faults.push({ fault, connection }),
    });
    cleanups.push(() => proxy.close());
    const port = await new Promise<number>((resolve) =>
      proxy.server.listen(0, '127.0.0.1', () => resolve((proxy.server.address() as net.AddressInfo).port)),
    );
    const client = await connect(port);
    const waiting = await client.exchange(1, 'tools/list');
    expect(waiting.payload).toBeNull();
    // Not after the exchange timeout (60 s): at the start that failed, with its cause.
    expect(notCarried(faults)[0]).toMatchObject({
      cause: 'server-unavailable',
      message: expect.stringMatching(/could not be started: spawn .*ENOENT/),
    });
    await expect(proxy.ready).rejects.toThrow(/no server could be started: the server could not be started: spawn .*ENOENT/);
    expect(faults.map((f) => f.fault).filter((f) => f.reason === 'server-unavailable')).toEqual([
      expect.objectContaining({ starts: 5, message: expect.stringMatching(/ENOENT/) }),
    ]);
    expect(proxy.stats.serverStarts).toBe(5);
    const after = await client.exchange(2, 'tools/list');
    expect(after.payload).toBeNull();
    expect(notCarried(faults).at(-1)).toMatchObject({ cause: 'server-unavailable', channel: 2 });
  });

  it('mcp-frames proxy prints listening first, then why no server could be started, and exits 1', async () => {
    const proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', '--', 'mcp-frames-test-no-such-server']);
    cleanups.push(() => proxy.kill());
    expect(await proxy.exited).toEqual({ code: 1, signal: null });
    const lines = proxy.lines();
    expect(lines[0]).toMatchObject({ event: 'listening' });
    expect(lines.at(-1)).toMatchObject({ level: 'error', event: 'fault', reason: 'server-unavailable', starts: 5 });
  });
});

describe('proxy: the restart backoff', () => {
  it('grows while the server keeps dying soon after initialize, instead of starting again from the first wait', async () => {
    const { proxy, faults } = await start({
      server: scripted({ SCRIPTED_EXIT_AFTER_INIT_MS: '20' }),
      restartDelayMs: { first: 50, max: 10_000 },
    });
    await sleep(1600);
    const waits = faults.map((f) => f.fault).flatMap((f) => (f.reason === 'server-ended' ? [f.restartInMs] : []));
    // Each failure doubles the wait: reset at every initialize, it was 50 ms every time (64 starts in 20 s at 100 ms).
    expect(waits.slice(0, 4)).toEqual([50, 100, 200, 400]);
    expect(proxy.stats.serverStarts).toBeLessThanOrEqual(6);
  });

  it('starts again from the first wait once a server has stayed up for stableAfterMs', async () => {
    const { faults } = await start({
      server: scripted({ SCRIPTED_EXIT_AFTER_INIT_MS: '600' }),
      restartDelayMs: { first: 20, max: 10_000 },
      stableAfterMs: 100,
    });
    await until(() => faults.filter((f) => f.fault.reason === 'server-ended').length >= 3);
    const waits = faults.map((f) => f.fault).flatMap((f) => (f.reason === 'server-ended' ? [f.restartInMs] : []));
    expect(waits.slice(0, 3)).toEqual([20, 20, 20]);
  });
});

describe('proxy: a stdio server that stops reading its requests', () => {
  it('holds a bounded queue for it; past it, exchanges are not carried (server-not-reading), and memory comes back', async () => {
    const lines = SOAK ? 300 : 40;
    const pad = 'p'.repeat(900 * 1024);
    const { proxy, port, faults } = await start({ server: scripted({ SCRIPTED_STOP_READING: '1' }), exchangeTimeoutMs: 1000 });
    const before = bytesInUse();
    const clients = await Promise.all(Array.from({ length: 4 }, () => connect(port)));
    const answers = await Promise.all(
      Array.from({ length: lines }, (_, k) => clients[k % 4].exchange(k, 'tools/call', { name: 'x', arguments: { pad } })),
    );
    expect(answers.every((a) => a.payload === null)).toBe(true);
    const causes = notCarried(faults).map((f) => f.cause);
    // What fits the 8 MiB queue was written and timed out; the rest was refused at once.
    expect(causes.filter((c) => c === 'server-not-reading').length).toBeGreaterThanOrEqual(lines - 10);
    expect(causes.filter((c) => c === 'timeout').length).toBeLessThanOrEqual(10);
    expect(proxy.stats.inFlight).toBe(0);
    // What stays is the queue written to the server's stdin, not every byte the clients sent (900 KB a line).
    const held = bytesInUse() - before;
    expect(held).toBeLessThan(12 * MiB);
  });
});

describe("proxy: a client's request lines", () => {
  it('an exchange sent to the server holds no params: many objects in flight cost the proxy about nothing', async () => {
    const { proxy, port } = await start({ server: scripted(), exchangeTimeoutMs: 60_000 });
    const client = await connect(port);
    // Within the server queue's 8 MiB while the server reads them.
    const exchanges = 12;
    // 512 KiB of small objects a line: parsed, each line's params were some 25 times its size, held until the end.
    const objects = '{},'.repeat((512 * 1024) / 3);
    const before = bytesInUse();
    for (let k = 0; k < exchanges; k++) {
      void client.finishOf(k);
      client.socket.write(`{"channel":${k},"method":"resources/read","params":{"uri":"scripted://hang","a":[${objects}0]}}\n`);
    }
    await until(() => proxy.stats.inFlight === exchanges && client.socket.writableLength === 0);
    await sleep(300);
    const held = bytesInUse() - before;
    // 6 MiB of lines in flight; parsed and held, they took about 130 MiB.
    expect(held).toBeLessThan(8 * MiB);
  });

  it('a line received a byte at a time costs about its own bytes, not a buffer for every byte', async () => {
    const { port } = await start({ server: scripted() });
    const sockets = await Promise.all(Array.from({ length: 50 }, () => nonReader(port)));
    const before = bytesInUse();
    const bytes = SOAK ? 40_000 : 8_000;
    const head = Buffer.from(`{"channel":1,"method":"tools/list","params":{"pad":"`);
    for (let k = 0; k < bytes; k++) {
      for (const socket of sockets) socket.write(k < head.length ? head.subarray(k, k + 1) : 'x');
      // Each byte its own segment and, mostly, its own read at the proxy.
      if (k % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
    }
    await sleep(300);
    const perByte = (bytesInUse() - before) / (50 * bytes);
    // Kept as one Buffer per chunk, it was about 119 bytes for each byte held.
    expect(perByte).toBeLessThan(3);
  });

  it('a CR before the line feed is no part of the line: a line at the limit ending in CRLF is taken', async () => {
    const { port, faults } = await start({ server: scripted(), maxLineBytes: 200 });
    const client = await connect(port);
    const head = '{"channel":1,"method":"resources/read","params":{"uri":"scripted://spelled","pad":"';
    const line = `${head}${'x'.repeat(200 - head.length - 3)}"}}`;
    expect(line.length).toBe(200);
    const answered = client.finishOf(1);
    client.socket.write(`${line}\r\n`);
    expect((await answered).payload![0]).toBe(0);
    expect(faults).toEqual([]);
  });

  it("one client's flood of lines is read 64 lines a turn, so other clients' events come in between", async () => {
    const { proxy, port } = await start({ server: scripted() });
    const flooding = await connect(port);
    const client = await connect(port);
    const lines = SOAK ? 200_000 : 20_000;
    flooding.socket.write('{}\n'.repeat(lines));
    // Sampled once a turn of the event loop (the proxy's next 64 lines wait for the next turn, as this sampler does):
    // read a chunk at a time, one turn took a whole chunk's 21,000 lines, and every other client waited for them.
    let biggestStep = 0;
    let last = 0;
    while (last < lines) {
      await new Promise((resolve) => setImmediate(resolve));
      const now = proxy.stats.refusedLines;
      biggestStep = Math.max(biggestStep, now - last);
      last = now;
    }
    expect(biggestStep).toBeLessThanOrEqual(2 * 64);
    expect((await client.exchange(1, 'resources/read', { uri: 'scripted://spelled' })).payload![0]).toBe(0);
  });

  it('a line that is not UTF-8 is refused (bad-utf8, with its offset) and never reaches the server', async () => {
    const { port, faults, proxy } = await start({ server: scripted() });
    const client = await connect(port);
    const line = Buffer.concat([Buffer.from('{"channel":1,"method":"tools/list","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}\n')]);
    client.socket.write(line);
    client.socket.write('{"channel":2,"method":"tools/call","params":{"n":1e400}}\n');
    const received = await client.exchange(3, 'resources/read', { uri: 'scripted://received' });
    expect(faults.map((f) => f.fault)).toEqual([
      expect.objectContaining({ reason: 'bad-line', refused: 'bad-utf8', rule: 'utf8', offset: 50 }),
      expect.objectContaining({ reason: 'bad-line', refused: 'bad-json', rule: 'number-range' }),
    ]);
    // Only the exchange that asked what was received reached the server.
    expect(JSON.parse(json(received.payload).contents[0].text).map((r: [string, number]) => r[0])).toEqual(['resources/read']);
    expect(proxy.stats.refusedLines).toBe(2);
  });
});

describe('proxy: a client that does not read', () => {
  it('is reset once its unread answers pass the bound, and its exchanges are cancelled; other clients go on', async () => {
    const lines = SOAK ? 300 : 100;
    const proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', '--max-client-queue', String(4 * MiB), '--', process.execPath, SCRIPTED]);
    cleanups.push(() => proxy.kill());
    const before = proxy.rss().now;
    const stalled = await Promise.all([nonReader(proxy.port), nonReader(proxy.port)]);
    for (const socket of stalled) {
      for (let k = 0; k < lines; k++) socket.write(`{"channel":${k},"method":"resources/read","params":{"uri":"scripted://size/${MiB}"}}\n`);
    }
    await until(() => proxy.lines().filter((l) => l.reason === 'client-overrun').length === 2);
    const overruns = proxy.lines().filter((l) => l.reason === 'client-overrun');
    // Read at last, each stream stops short of its answers. (A reset that finds unread data waiting reads as an
    // end on Linux once that data is read: the client knows the stream was cut by the channels left unfinished.)
    const received = stalled.map((socket) => {
      let bytes = 0;
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      return closed(socket).then(() => bytes);
    });
    for (const socket of stalled) socket.resume();
    for (const bytes of await Promise.all(received)) expect(bytes).toBeLessThan(8 * MiB);
    for (const o of overruns) expect(o).toMatchObject({ level: 'error', limit: 4 * MiB, cancelled: expect.any(Number) });
    // A client that reads is served as ever.
    const reader = await connect(proxy.port);
    expect((await reader.exchange(1, 'resources/read', { uri: 'scripted://spelled' })).payload![0]).toBe(0);
    // Unbounded, every answer stayed queued: 2 × lines MiB (1.1 GB held at 300 lines each).
    const grew = proxy.rss().peak - before;
    expect(grew).toBeLessThan(Math.min(2 * lines * MiB * 0.6, 120 * MiB));
  });
});

describe('proxy: connections', () => {
  it('a client that writes its lines and resets at once (often read as a clean end) has its exchanges cancelled, not held', async () => {
    const { proxy, port } = await start({ server: scripted() });
    const count = SOAK ? 2000 : 100;
    for (let k = 0; k < count; k++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write('{"channel":1,"method":"resources/read","params":{"uri":"scripted://hang"}}\n');
      socket.resetAndDestroy();
    }
    // Taken for a half-close, each held its exchange, its slot and a descriptor until the exchange timed out.
    await until(() => proxy.stats.connectionsOpen === 0 && proxy.stats.inFlight === 0);
    expect(proxy.stats.connectionsTotal).toBe(count);
  });

  it('past maxConnections a new client is reset as it comes, and counted', async () => {
    const { proxy, port } = await start({ server: scripted(), maxConnections: 5 });
    const sockets = await Promise.all(Array.from({ length: 8 }, () => nonReader(port)));
    await until(() => proxy.stats.connectionsRefused === 3);
    await sleep(50);
    expect(sockets.filter((s) => s.destroyed).length).toBe(3);
    expect(proxy.stats).toMatchObject({ connectionsOpen: 5, connectionsRefused: 3 });
  });

  it('idle clients are reset after clientIdleTimeout, with a fault each, and every descriptor comes back', async () => {
    const count = SOAK ? 2000 : 100;
    // Long enough for every client to connect before the first is reset.
    const { proxy, port, faults } = await start({ server: scripted(), clientIdleTimeout: SOAK ? 10_000 : 300 });
    const fds = () => fs.readdirSync('/proc/self/fd').length;
    const baseline = fds();
    const sockets: net.Socket[] = [];
    for (let k = 0; k < count; k++) sockets.push(await nonReader(port));
    await until(() => proxy.stats.connectionsOpen === count);
    await Promise.all(sockets.map(closed));
    await until(() => proxy.stats.connectionsOpen === 0);
    expect(faults.filter((f) => f.fault.reason === 'client-idle-timeout')).toHaveLength(count);
    expect(proxy.stats.clientIdleTimeouts).toBe(count);
    await until(() => fds() <= baseline);
  });
});

describe('proxy: a drain ends on time', () => {
  it('SIGTERM with a client that never reads and one that never closes: finishes, resets, and exit 0 within the drain time', async () => {
    const proxy = await startCli([
      'proxy',
      '--listen',
      '127.0.0.1:0',
      '--drain-timeout',
      '0.5',
      '--log-level',
      'info',
      '--',
      process.execPath,
      SCRIPTED,
    ]);
    cleanups.push(() => proxy.kill());
    const stuck = await nonReader(proxy.port);
    for (let k = 0; k < 20; k++) stuck.write(`{"channel":${k},"method":"resources/read","params":{"uri":"scripted://size/${MiB}"}}\n`);
    const silent = await nonReader(proxy.port);
    silent.write('{"channel":1,"method":"resources/read","params":{"uri":"scripted://hang"}}\n');
    await sleep(500);
    const signalled = performance.now();
    proxy.child.kill('SIGTERM');
    expect((await proxy.exited).code).toBe(0);
    // The drain time, then at most the bounded wait for a client's last writes (2 s): a bound with room for a loaded
    // machine, against a drain that lasted for as long as a client would not read.
    expect(performance.now() - signalled).toBeLessThan(8000);
    expect(proxy.lines().find((l) => l.event === 'drained')).toMatchObject({ connections: 2, cut: 2 });
  });
});

describe('proxy: exiting', () => {
  it("a drain ends on time though the server's own child keeps its stdio pipes open", async () => {
    const proxy = await startCli([
      'proxy',
      '--listen',
      '127.0.0.1:0',
      '--drain-timeout',
      '0.3',
      '--log-level',
      'info',
      '--',
      'sh',
      '-c',
      `sleep 30 & exec ${JSON.stringify(process.execPath)} ${JSON.stringify(SCRIPTED)}`,
    ]);
    cleanups.push(() => proxy.kill());
    await proxy.line((l) => l.event === 'server-ready');
    const signalled = performance.now();
    proxy.child.kill('SIGTERM');
    expect((await proxy.exited).code).toBe(0);
    // Waiting for the pipes to close waited for the sleep, 30 s.
    expect(performance.now() - signalled).toBeLessThan(10_000);
  });

  it('a second signal exits at once, and takes down a stdio server that ignores SIGTERM and outlives its stdin', async () => {
    const proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', '--log-level', 'info', '--', process.execPath, SCRIPTED], {
      SCRIPTED_STUBBORN: '1',
    });
    cleanups.push(() => proxy.kill());
    await proxy.line((l) => l.event === 'server-ready');
    const client = await connect(proxy.port);
    client.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    await until(() => proxy.pids().length === 2);
    const server = proxy.pids()[1];
    proxy.child.kill('SIGTERM');
    await proxy.line((l) => l.event === 'drain');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toEqual({ code: 128 + 15, signal: null });
    await until(() => !runs(server));
  }, 20_000);

  it('a second signal while the drain stops such a server (nothing in flight) takes it down too', async () => {
    const proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', '--log-level', 'info', '--', process.execPath, SCRIPTED], {
      SCRIPTED_STUBBORN: '1',
    });
    cleanups.push(() => proxy.kill());
    await proxy.line((l) => l.event === 'server-ready');
    await until(() => proxy.pids().length === 2);
    const server = proxy.pids()[1];
    proxy.child.kill('SIGTERM');
    await proxy.line((l) => l.event === 'drain');
    // Nothing is in flight: the drain stops the server at once, which ignores SIGTERM and has 2 s before its SIGKILL.
    await sleep(300);
    proxy.child.kill('SIGINT');
    expect(await proxy.exited).toEqual({ code: 128 + 2, signal: null });
    await until(() => !runs(server));
  }, 20_000);
});

/** Whether process `pid` runs: gone, or a zombie waiting to be reaped, it does not. */
function runs(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A Streamable HTTP MCP server on loopback: initialize and notifications answered, every other request by `answer`. */
async function httpServer(answer: (message: { id: number; method: string; params: Record<string, unknown> }, response: http.ServerResponse) => void) {
  const sockets = new Set<net.Socket>();
  const notifications: string[] = [];
  let written = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(200).end();
      const message = JSON.parse(Buffer.concat(chunks).toString());
      if (message.method === 'initialize') {
        const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'fake-http', version: '1' } };
        response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
        return void response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      }
      if (message.id === undefined) {
        notifications.push(message.method);
        return void response.writeHead(202).end();
      }
      const write = response.write.bind(response);
      response.write = ((chunk: unknown, ...rest: never[]) => {
        written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
        return write(chunk as never, ...rest);
      }) as typeof response.write;
      answer(message, response);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`,
    open: () => sockets.size,
    written: () => written,
    notifications,
  };
}

const okResult = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [] } });

describe('proxy: a Streamable HTTP server, bounded', () => {
  it('an endless chunked body is aborted at the exchange timeout, and its connection given back', async () => {
    const fake = await httpServer((_message, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write('x'.repeat(64 * 1024)), 5);
      response.on('close', () => clearInterval(timer));
    });
    const { port, faults } = await start({ server: { url: fake.url }, exchangeTimeoutMs: 300, maxMessageBytes: 1024 * MiB });
    const client = await connect(port);
    expect((await client.exchange(1, 'tools/list')).payload).toBeNull();
    expect(notCarried(faults)).toEqual([expect.objectContaining({ cause: 'timeout' })]);
    const atTimeout = fake.written();
    await sleep(300);
    // Nothing more was downloaded after the timeout (at most what was in flight then).
    expect(fake.written() - atTimeout).toBeLessThan(4 * MiB);
    await until(() => fake.open() <= 1);
  });

  it('a Content-Length past the limit is refused from the header; a chunked body is cut at the limit', async () => {
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'declared') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200_000_000) });
        response.write('{"jsonrpc":"2.0",');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write(' '.repeat(64 * 1024)), 1);
      response.on('close', () => clearInterval(timer));
    });
    const { port, faults } = await start({ server: { url: fake.url }, maxMessageBytes: 2 * MiB });
    const before = bytesInUse();
    const client = await connect(port);
    const declared = await client.exchange(1, 'tools/list', { cursor: 'declared' });
    const chunked = await client.exchange(2, 'tools/list', { cursor: 'chunked' });
    expect([declared.payload, chunked.payload]).toEqual([null, null]);
    expect(notCarried(faults).map((f) => [f.channel, f.cause, f.limit])).toEqual([
      [1, 'oversize', 2 * MiB],
      [2, 'oversize', 2 * MiB],
    ]);
    expect(bytesInUse() - before).toBeLessThan(4 * MiB);
    await until(() => fake.open() <= 1);
  });

  it('event streams that never end: each exchange that times out gives its connection back', async () => {
    const fake = await httpServer((_message, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': waiting\n\n');
    });
    const { port } = await start({ server: { url: fake.url }, exchangeTimeoutMs: 200 });
    const client = await connect(port);
    const count = SOAK ? 200 : 40;
    const answers = await Promise.all(Array.from({ length: count }, (_, k) => client.exchange(k, 'tools/list')));
    expect(answers.every((a) => a.payload === null)).toBe(true);
    // Left open, each held a connection at both ends: descriptors grew by one per exchange and never came back.
    await until(() => fake.open() <= 2);
  });

  it('an HTTP error fails its own exchange only; the session goes on', async () => {
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'fail') return void response.writeHead(500, { 'content-type': 'text/plain' }).end('no');
      response.writeHead(200, { 'content-type': 'application/json' }).end(okResult(message.id));
    });
    const { proxy, port, faults } = await start({ server: { url: fake.url } });
    const client = await connect(port);
    const answers = await Promise.all([
      client.exchange(1, 'tools/list'),
      client.exchange(2, 'tools/list', { cursor: 'fail' }),
      client.exchange(3, 'tools/list'),
    ]);
    expect(answers.map((a) => a.payload === null)).toEqual([false, true, false]);
    expect(notCarried(faults)).toEqual([expect.objectContaining({ channel: 2, cause: 'server-error', status: 500 })]);
    expect(proxy.stats).toMatchObject({ serverStarts: 1, serverRestarts: 0 });
  });

  it('a response that ends with no answer to its request fails that exchange at once, not at its timeout', async () => {
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'json-500') return void response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      if (message.params.cursor === 'other-id') return void response.writeHead(200, { 'content-type': 'application/json' }).end(okResult(99_999));
      response.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n');
    });
    const { proxy, port, faults } = await start({ server: { url: fake.url }, exchangeTimeoutMs: 30_000 });
    const client = await connect(port);
    const answers = await Promise.all([
      client.exchange(1, 'tools/list', { cursor: 'json-500' }),
      client.exchange(2, 'tools/list', { cursor: 'other-id' }),
      client.exchange(3, 'tools/list', { cursor: 'empty-stream' }),
    ]);
    expect(answers.map((a) => a.payload)).toEqual([null, null, null]);
    expect(notCarried(faults).map((f) => [f.channel, f.cause, f.status])).toEqual([
      [1, 'server-error', 500],
      [2, 'server-error', 200],
      [3, 'server-error', 200],
    ]);
    expect(proxy.stats).toMatchObject({ serverStarts: 1, lateAnswers: 1 });
  });

  it('a client holds at most 8 requests open at once; the rest wait within the server queue, and past it are not carried', async () => {
    const fake = await httpServer(() => {
      // Never answered: no headers, no body.
    });
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, fake.open());
    }, 5);
    cleanups.push(() => clearInterval(timer));
    const { port, faults } = await start({ server: { url: fake.url }, exchangeTimeoutMs: 1500, maxServerQueueBytes: 4096 });
    const client = await connect(port);
    const count = SOAK ? 4096 : 400;
    await Promise.all(Array.from({ length: count }, (_, k) => client.exchange(k, 'tools/list')));
    // One socket a request, once: 4096 in flight held 4096 sockets to the server (and exhausted a lower descriptor limit).
    // The server sees an aborted request's socket close a little after the proxy has opened the next: room for that.
    expect(peak).toBeLessThanOrEqual(2 * 8);
    const causes = notCarried(faults).map((f) => f.cause);
    expect(causes.filter((c) => c === 'server-not-reading').length).toBeGreaterThan(count / 2);
    expect(causes.filter((c) => c === 'timeout').length).toBeLessThan(count / 2);
  });

  it("clients take turns for the open requests: one client's burst holds no other's request behind it", async () => {
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'hang') return;
      response.writeHead(200, { 'content-type': 'application/json' }).end(okResult(message.id));
    });
    const { port, faults } = await start({ server: { url: fake.url }, exchangeTimeoutMs: 2000 });
    const burst = await connect(port);
    const other = await connect(port);
    const hung = Array.from({ length: 64 }, (_, k) => burst.exchange(k, 'tools/list', { cursor: 'hang' }));
    await sleep(100);
    // Behind the burst, it waited for the burst's requests to time out: they held every open request.
    const answered = await other.exchange(1, 'tools/list');
    expect(answered.payload).not.toBeNull();
    expect(notCarried(faults)).toEqual([]);
    await Promise.all(hung);
    // Only the requests that were posted are cancelled at the server: the 8 open at the timeout, and those a slot
    // freed a moment before their own timeout. How many of those there are depends on how far apart the 64 timers
    // fire on a loaded machine (it can pass 16), but most of the burst never reached the server.
    await until(() => fake.notifications.filter((m) => m === 'notifications/cancelled').length >= 8);
    await sleep(200);
    expect(fake.notifications.filter((m) => m === 'notifications/cancelled').length).toBeLessThan(64 / 2);
  });

  it('bodies that never finish share one budget: what the proxy holds does not grow with the exchanges in flight', async () => {
    // Written as the proxy takes it, so that what waits in this process is the proxy's, not the server's.
    const fake = await httpServer((_message, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      let left = 1536 * 1024;
      const pump = () => {
        while (left > 0) {
          left -= 16 * 1024;
          if (!response.write('x'.repeat(16 * 1024))) return void response.once('drain', pump);
        }
      };
      response.write('{"jsonrpc":"2.0","id":1,"result":{"pad":"');
      pump();
    });
    const { port } = await start({ server: { url: fake.url }, maxMessageBytes: 2 * MiB, exchangeTimeoutMs: 3000 });
    const before = bytesInUse();
    const client = await connect(port);
    const answers = Array.from({ length: 40 }, (_, k) => client.exchange(k, 'tools/list'));
    await sleep(1500);
    const held = bytesInUse() - before;
    // 16 bodies open at once, each held to 1.5 MiB, were 28 MiB; the budget is twice the message limit (4 MiB),
    // and each open request costs the HTTP client some buffers of its own besides.
    expect(held).toBeLessThan(14 * MiB);
    await Promise.all(answers);
  });

  it('one response cut short fails its own exchange; the others are answered, and the session goes on', async () => {
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'cut') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"jsonrpc":"2.0",');
        setTimeout(() => response.socket?.destroy(), 50);
        return;
      }
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(okResult(message.id)), 300);
    });
    const { proxy, port, faults } = await start({ server: { url: fake.url } });
    const client = await connect(port);
    const others = Array.from({ length: 5 }, (_, k) => client.exchange(k + 1, 'tools/list'));
    const cut = await client.exchange(9, 'tools/list', { cursor: 'cut' });
    expect(cut.payload).toBeNull();
    for (const answer of await Promise.all(others)) expect(answer.payload).not.toBeNull();
    expect(notCarried(faults)).toEqual([expect.objectContaining({ channel: 9, cause: 'server-error', status: 200 })]);
    expect(proxy.stats).toMatchObject({ serverStarts: 1, serverRestarts: 0 });
  });

  it('a redirect is an error status, never followed: the session id goes to no other origin', async () => {
    let elsewhere = 0;
    const other = http.createServer((_request, response) => {
      elsewhere++;
      response.end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => other.close());
    const fake = await httpServer((_message, response) => {
      response.writeHead(302, { location: `http://localhost:${(other.address() as net.AddressInfo).port}/mcp` }).end();
    });
    const { port, faults } = await start({ server: { url: fake.url } });
    const client = await connect(port);
    expect((await client.exchange(1, 'tools/list')).payload).toBeNull();
    expect(notCarried(faults)).toEqual([expect.objectContaining({ cause: 'server-error', status: 302 })]);
    expect(elsewhere).toBe(0);
  });

  it('a 404 on the session is the server saying it has gone: the session is started again', async () => {
    let gone = false;
    const fake = await httpServer((message, response) => {
      if (message.params.cursor === 'forget' || gone) {
        gone = false;
        return void response.writeHead(404).end();
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(okResult(message.id));
    });
    const { proxy, port, faults } = await start({ server: { url: fake.url }, restartDelayMs: { first: 10, max: 100 } });
    const client = await connect(port);
    expect((await client.exchange(1, 'tools/list', { cursor: 'forget' })).payload).toBeNull();
    expect(faults.find((f) => f.fault.reason === 'server-ended')?.fault).toMatchObject({ cause: 'http', status: 404 });
    await until(() => proxy.stats.serverStarts === 2 && faults.length >= 2);
    expect((await client.exchange(2, 'tools/list')).payload).not.toBeNull();
  });
});
