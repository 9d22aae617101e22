// The proxy against real MCP servers from npm (server-everything over stdio and Streamable HTTP, server-filesystem,
// server-memory) and a scripted one: every endpoint's method, frames byte for byte as the server wrote them, and every
// way an exchange ends (a crash, a timeout, a refused line, a client that goes away).

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProxy, type McpProxy, type ProxyOptions } from '../src/proxy/proxy.js';
import type { ProxyFault } from '../src/proxy/context.js';
import type { ServerSpec } from '../src/proxy/server-spec.js';
import { readEnvelope } from '../src/proxy/message.js';
import { ProxyClient, type Answer } from './support/proxy-client.js';

const require = createRequire(import.meta.url);
const node = process.execPath;
const SUPPORT = join(import.meta.dirname, 'support');

function binOf(pkg: string): string {
  const manifest = require(`${pkg}/package.json`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin as Record<string, string>)[0];
  return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
}
const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');
const MEMORY = binOf('@modelcontextprotocol/server-memory');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-proxy-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A stdio server behind tee-server.mjs: what it writes on stdout is also kept in the returned file. */
function teed(command: string, args: string[]): { server: ServerSpec; copy: string } {
  const copy = join(tempDir(), 'stdout');
  return { server: { command: node, args: [join(SUPPORT, 'tee-server.mjs'), copy, '--', command, ...args] }, copy };
}

async function start(
  options: ProxyOptions,
): Promise<{ proxy: McpProxy; port: number; faults: Array<{ fault: ProxyFault; connection: number | null }> }> {
  const faults: Array<{ fault: ProxyFault; connection: number | null }> = [];
  const proxy = createProxy({ ...options, onFault: (fault, connection) => faults.push({ fault, connection }) });
  cleanups.push(() => proxy.close());
  const port = await new Promise<number>((resolve) =>
    proxy.server.listen(0, '127.0.0.1', () => resolve((proxy.server.address() as net.AddressInfo).port)),
  );
  return { proxy, port, faults };
}

async function connect(port: number): Promise<ProxyClient> {
  const client = await ProxyClient.connect(port);
  cleanups.push(() => client.close());
  return client;
}

const latin1 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');

/**
 * The `result` or `error` member of each JSON-RPC response line the SDK's servers write, cut by the two envelopes
 * their transports print ({"result":…,"jsonrpc":"2.0","id":N} and {"jsonrpc":"2.0","id":N,"error":…}), independent
 * of the proxy's own reading. Bytes as latin1 text, so that equality is byte equality.
 */
function membersOf(lines: readonly string[]): Map<string, 'result' | 'error'> {
  const members = new Map<string, 'result' | 'error'>();
  for (const line of lines) {
    const result = /^\{"result":([\s\S]*),"jsonrpc":"2\.0","id":\d+\}$/.exec(line);
    if (result) members.set(result[1], 'result');
    const error = /^\{"jsonrpc":"2\.0","id":\d+,"error":([\s\S]*)\}$/.exec(line);
    if (error) members.set(error[1], 'error');
  }
  return members;
}

const rawLines = (copy: string) => readFileSync(copy).toString('latin1').split('\n').filter(Boolean);

/** Checks each answer's frame is a tag and a member that the server wrote, byte for byte; returns the tags' count. */
function expectServersBytes(answers: readonly Answer[], copy: string): { results: number; errors: number } {
  const members = membersOf(rawLines(copy));
  let results = 0;
  let errors = 0;
  for (const a of answers) {
    expect(a.payload, `channel ${a.channel} was carried`).not.toBeNull();
    const payload = a.payload!;
    const body = latin1(payload.subarray(1));
    expect(members.get(body), `channel ${a.channel}: the frame's body is a member the server wrote`).toBe(payload[0] === 0 ? 'result' : 'error');
    if (payload[0] === 0) results++;
    else errors++;
  }
  return { results, errors };
}

const text = (a: Answer) => new TextDecoder().decode(a.payload!.subarray(1));
const json = (a: Answer) => JSON.parse(text(a));

describe('proxy: server-everything over stdio', () => {
  it('carries every method behind the eight endpoints, each frame the bytes the server wrote', async () => {
    const { server, copy } = teed(node, [EVERYTHING, 'stdio']);
    const { proxy, port, faults } = await start({ server });
    const client = await connect(port);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['resources/list', {}],
      ['resources/list', { cursor: 'MTA=' }],
      ['resources/read', { uri: 'test://static/resource/1' }],
      ['resources/read', { uri: 'test://static/resource/2' }],
      ['resources/templates/list', {}],
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: { message: 'hello, "world" \u2028 😀' } }],
      ['tools/call', { name: 'add', arguments: { a: 2, b: 40 } }],
      ['tools/call', { name: 'getTinyImage', arguments: {} }],
      ['tools/call', { name: 'structuredContent', arguments: { location: 'Paris' } }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'simple_prompt' }],
      ['prompts/get', { name: 'complex_prompt', arguments: { temperature: '0.7', style: 'terse' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '1' } }],
      ['resources/read', { uri: 'test://static/resource/1000' }],
      ['tools/call', { name: 'noSuchTool', arguments: {} }],
    ];
    const answers = await Promise.all(calls.map(([method, params], k) => client.exchange(k + 1, method, params)));
    expect(expectServersBytes(answers, copy)).toEqual({ results: 14, errors: 2 });
    // The server's code passes through as sent: -32603 is not flattened, and its message is not prefixed.
    expect(json(answers[14])).toEqual({ code: -32603, message: 'Unknown resource: test://static/resource/1000' });
    expect(json(answers[2]).contents[0].text).toBe('Resource 1: This is a plaintext resource');
    expect(json(answers[7]).content[0].text).toBe('The sum of 2 and 40 is 42.');
    expect(faults).toEqual([]);
    expect(client.strays).toBe(0);
    expect(proxy.stats).toMatchObject({ results: 14, errors: 2, inFlight: 0, serverStarts: 1, serverRestarts: 0 });
  });

  it('serves 64 exchanges in flight across 8 connections, each answered on its own connection and channel', async () => {
    const { server, copy } = teed(node, [EVERYTHING, 'stdio']);
    const { proxy, port, faults } = await start({ server });
    await proxy.ready;
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(port)));
    const answers = await Promise.all(
      clients.map((client, c) =>
        Promise.all(Array.from({ length: 8 }, (_, k) => client.exchange(k, 'resources/read', { uri: `test://static/resource/${c * 8 + k + 1}` }))),
      ),
    );
    for (const [c, list] of answers.entries()) {
      for (const [k, a] of list.entries())
        expect(json(a).contents[0].uri, `connection ${c} channel ${k}`).toBe(`test://static/resource/${c * 8 + k + 1}`);
    }
    expect(expectServersBytes(answers.flat(), copy)).toEqual({ results: 64, errors: 0 });
    expect(faults).toEqual([]);
    expect(proxy.stats.results).toBe(64);
    // All 64 were sent before the first answer came back: the proxy held them in flight at once.
    expect(clients.every((c) => c.strays === 0)).toBe(true);
  });
});

/** server-everything in its Streamable HTTP mode, bound to loopback by a preload; resolves with its process and URL. */
async function everythingHttp(): Promise<{ child: ChildProcess; url: string }> {
  const child: ChildProcess = spawn(node, ['--import', join(SUPPORT, 'loopback.mjs'), EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => {
    child.kill();
  });
  const httpPort = await new Promise<number>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /loopback-port (\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error(`server-everything exited: ${err}`)));
  });
  return { child, url: `http://127.0.0.1:${httpPort}/mcp` };
}

describe('proxy: the other servers from npm', () => {
  it('server-filesystem: tools answered as written, and -32601 passes through', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'readme.md'), '# Notes\n"quotes", tabs\t, ünïcödé 😀\n');
    const { server, copy } = teed(node, [FILESYSTEM, dir]);
    const { port, faults } = await start({ server });
    const client = await connect(port);
    const answers = await Promise.all([
      client.exchange(1, 'tools/list', {}),
      client.exchange(2, 'tools/call', { name: 'list_directory', arguments: { path: dir } }),
      client.exchange(3, 'tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'readme.md') } }),
      client.exchange(4, 'prompts/list', {}),
      client.exchange(5, 'resources/list', {}),
    ]);
    expect(expectServersBytes(answers, copy)).toEqual({ results: 3, errors: 2 });
    expect(json(answers[2]).content[0].text).toBe('# Notes\n"quotes", tabs\t, ünïcödé 😀\n');
    expect(json(answers[3])).toEqual({ code: -32601, message: 'Method not found' });
    expect(faults).toEqual([]);
  });

  it('server-memory: a knowledge graph written and read back', async () => {
    const dir = tempDir();
    const { server, copy } = teed(node, [MEMORY]);
    // The tee passes its environment on to the server.
    const { port, faults } = await start({ server: { ...server, env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } } });
    const client = await connect(port);
    const answers = [
      await client.exchange(1, 'tools/list', {}),
      await client.exchange(2, 'tools/call', {
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['née Byron'] }] },
      }),
      await client.exchange(3, 'tools/call', { name: 'read_graph', arguments: {} }),
    ];
    expect(expectServersBytes(answers, copy)).toEqual({ results: 3, errors: 0 });
    expect(text(answers[2])).toContain('née Byron');
    expect(faults).toEqual([]);
  });

  it('server-everything over Streamable HTTP: frames equal to the stdio capture of the same answers', async () => {
    const { url } = await everythingHttp();
    const { proxy, port, faults } = await start({ server: { url } });
    const client = await connect(port);
    const answers = await Promise.all([
      client.exchange(1, 'resources/list', {}),
      client.exchange(2, 'resources/read', { uri: 'test://static/resource/1' }),
      client.exchange(3, 'resources/read', { uri: 'test://static/resource/2' }),
      client.exchange(4, 'resources/templates/list', {}),
      client.exchange(5, 'prompts/get', { name: 'simple_prompt' }),
      client.exchange(6, 'resources/read', { uri: 'test://static/resource/1000' }),
    ]);
    // The capture (scripts/capture-servers.mjs) is the raw stdout of the same server answering the same requests.
    const captured = readFileSync(join(import.meta.dirname, 'fixtures', 'servers', 'everything.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method: string; params: unknown; response: string });
    const members = membersOf(captured.map((c) => Buffer.from(c.response, 'utf8').toString('latin1')));
    for (const a of answers) expect(members.has(latin1(a.payload!.subarray(1))), `channel ${a.channel}`).toBe(true);
    expect(json(answers[5]).code).toBe(-32603);
    expect(faults).toEqual([]);
    expect(proxy.stats).toMatchObject({ results: 5, errors: 1 });
  });
});

describe('proxy: every exchange ends', () => {
  it('a Streamable HTTP server that goes away: the exchange in flight is not carried, the next finds it gone, and the session is started again', async () => {
    const { child, url } = await everythingHttp();
    const { proxy, port, faults } = await start({ server: { url }, restartDelayMs: { first: 10, max: 100 } });
    await proxy.ready;
    const client = await connect(port);
    const long = client.exchange(1, 'tools/call', { name: 'longRunningOperation', arguments: { duration: 30, steps: 3 } });
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGKILL');
    // Its response was cut: that request fails alone (one cut response is no proof the server has gone).
    expect((await long).payload).toBeNull();
    expect(faults.find((f) => f.fault.reason === 'not-carried')?.fault).toMatchObject({ cause: 'server-error', channel: 1, status: 200 });
    // The next request cannot reach the server at all: the session has ended, and is started again.
    expect((await client.exchange(2, 'tools/list')).payload).toBeNull();
    expect(faults.find((f) => f.fault.reason === 'server-ended')?.fault).toMatchObject({ cause: 'unreachable', inFlight: 1 });
    expect(faults.filter((f) => f.fault.reason === 'not-carried').map((f) => f.fault)).toEqual([
      expect.objectContaining({ channel: 1, cause: 'server-error' }),
      expect.objectContaining({ channel: 2, cause: 'server-ended' }),
    ]);
    expect(proxy.stats.serverRestarts).toBeGreaterThanOrEqual(1);
  });

  const scripted = (): ServerSpec => ({ command: node, args: [join(SUPPORT, 'scripted-server.mjs')] });

  it('keeps number spellings, escapes, key order and unknown members as the server wrote them', async () => {
    const { port } = await start({ server: scripted() });
    const client = await connect(port);
    const a = await client.exchange(1, 'resources/read', { uri: 'scripted://spelled' });
    expect(text(a)).toBe(
      '{"contents":[{"text":"caf\\u00e9 \\/ \\ud83d\\ude00","uri":"scripted://spelled","x-n":[1.0,1e2,-0,0.1e-1]}],"_meta":{"z":1,"a":2}}',
    );
    const missing = await client.exchange(2, 'resources/read', { uri: 'scripted://missing' });
    expect(a.payload![0]).toBe(0);
    expect(missing.payload![0]).toBe(1);
    expect(text(missing)).toBe('{"code":-32002,"message":"Resource not found","data":{"uri":"scripted://missing"}}');
  });

  it("sends the request's params to the server as the client wrote them, never parsed and printed again", async () => {
    const { port } = await start({ server: scripted() });
    const client = await connect(port);
    const params = '{"uri":"scripted://line", "n":1.000000,"m":12345678901234567890,"z":-0,"2":1,"1":2,"e":"\\u00e9","e":"last"}';
    const answered = client.finishOf(4);
    client.socket.write(`{"channel":4,"method":"resources/read","params":${params}}\n`);
    const line = JSON.parse(text(await answered)).contents[0].text as string;
    expect(line).toContain(`"params":${params}}`);
    expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0', method: 'resources/read' });
  });

  it('does not carry an answer that breaks WIRE.md (a lone surrogate), and says why', async () => {
    const { proxy, port, faults } = await start({ server: scripted() });
    const client = await connect(port);
    const a = await client.exchange(7, 'resources/read', { uri: 'scripted://surrogate' });
    expect(a.payload).toBeNull();
    expect(faults).toEqual([
      { connection: 1, fault: expect.objectContaining({ reason: 'not-carried', cause: 'invalid-answer', channel: 7, rule: 'lone-surrogate' }) },
    ]);
    expect(proxy.stats.notCarried['invalid-answer']).toBe(1);
  });

  it('a server that crashes: its exchanges in flight are not carried, and it is started again', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), restartDelayMs: { first: 10, max: 100 } });
    const client = await connect(port);
    const hang = client.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    await proxy.ready;
    const crash = await client.exchange(2, 'resources/read', { uri: 'scripted://crash' });
    expect(crash.payload).toBeNull();
    expect((await hang).payload).toBeNull();
    expect(faults.map((f) => f.fault.reason).sort()).toEqual(['not-carried', 'not-carried', 'server-ended']);
    expect(faults.find((f) => f.fault.reason === 'server-ended')!.fault).toMatchObject({ cause: 'exit', code: 3, inFlight: 2, restartInMs: 10 });
    // The next exchange is served by the new server.
    const after = await client.exchange(3, 'resources/read', { uri: 'scripted://spelled' });
    expect(after.payload![0]).toBe(0);
    expect(proxy.stats).toMatchObject({ serverStarts: 2, serverRestarts: 1 });
    expect(proxy.stats.notCarried['server-ended']).toBe(2);
  });

  it('an exchange past its timeout is not carried, and the server is sent notifications/cancelled', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), exchangeTimeoutMs: 300 });
    const client = await connect(port);
    // The timeout runs from the line, so the server's start is waited for first.
    await proxy.ready;
    const a = await client.exchange(5, 'resources/read', { uri: 'scripted://hang' });
    expect(a.payload).toBeNull();
    expect(faults).toEqual([{ connection: 1, fault: expect.objectContaining({ reason: 'not-carried', cause: 'timeout', channel: 5 }) }]);
    const cancelled = await client.exchange(6, 'resources/read', { uri: 'scripted://cancelled' });
    expect(JSON.parse(json(cancelled).contents[0].text)).toHaveLength(1);
    expect(proxy.stats.notCarried.timeout).toBe(1);
  });

  it('a client that goes away (a reset) has its exchanges in flight cancelled at the server', async () => {
    const { proxy, port } = await start({ server: scripted() });
    const leaving = await connect(port);
    leaving.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    leaving.exchange(2, 'resources/read', { uri: 'scripted://hang' });
    await proxy.ready;
    await new Promise((r) => setTimeout(r, 100));
    expect(proxy.stats.inFlight).toBe(2);
    leaving.socket.resetAndDestroy();
    await leaving.closed;
    const client = await connect(port);
    let ids: unknown[] = [];
    // The cancellations and this read travel on one pipe, in order; the close reaches the proxy first.
    for (let k = 0; k < 50 && ids.length < 2; k++) {
      ids = JSON.parse(json(await client.exchange(k, 'resources/read', { uri: 'scripted://cancelled' })).contents[0].text);
    }
    expect(ids).toHaveLength(2);
    expect(proxy.stats).toMatchObject({ cancelled: 2, inFlight: 0 });
  });

  it("a client's FIN says it has sent its last request: its exchanges are still answered, then the proxy ends the connection", async () => {
    const { proxy, port, faults } = await start({ server: scripted() });
    const client = await connect(port);
    await proxy.ready;
    const slow = client.exchange(1, 'resources/read', { uri: 'scripted://spelled' });
    const second = client.exchange(2, 'resources/read', { uri: 'scripted://missing' });
    // The last line without its line feed: refused, since a line ends with one.
    client.socket.end('{"channel":3,"method":"tools/list"}');
    const ended = new Promise<void>((resolve) => client.socket.once('end', () => resolve()));
    expect((await slow).payload![0]).toBe(0);
    expect((await second).payload![0]).toBe(1);
    await ended;
    await client.closed;
    expect(client.answers.map((a) => a.channel)).toEqual([1, 2]);
    expect(faults.map((f) => f.fault)).toEqual([expect.objectContaining({ reason: 'bad-line', refused: 'unterminated' })]);
    expect(proxy.stats).toMatchObject({ cancelled: 0, inFlight: 0, results: 1, errors: 1 });
  });

  it("refuses the server's own requests with a JSON-RPC error, and drops its notifications", async () => {
    const { proxy, port } = await start({ server: scripted() });
    const client = await connect(port);
    const a = await client.exchange(1, 'resources/read', { uri: 'scripted://ask' });
    const reply = JSON.parse(json(a).contents[0].text);
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 1000, error: { code: -32601 } });
    expect(proxy.stats).toMatchObject({ serverRequestsRefused: 1, notificationsDropped: 1 });
  });

  it('refuses bad lines: a finish alone when the line names a free channel, nothing that would end another exchange', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), exchangeTimeoutMs: 2000 });
    const client = await connect(port);
    const hang = client.exchange(4, 'resources/read', { uri: 'scripted://hang' });
    const unknown = client.finishOf(9);
    client.socket.write('{"channel":9,"method":"resources/subscribe","params":{}}\nnot json\n{"channel":-1,"method":"tools/list"}\n');
    client.socket.write('{"channel":4,"method":"tools/list"}\n');
    expect((await unknown).payload).toBeNull();
    const ok = await client.exchange(5, 'resources/read', { uri: 'scripted://spelled' });
    expect(ok.payload![0]).toBe(0);
    expect(faults.map((f) => [f.fault.reason, (f.fault as { refused?: string }).refused])).toEqual([
      ['bad-line', 'unknown-method'],
      ['bad-line', 'bad-json'],
      ['bad-line', 'bad-channel'],
      ['channel-in-flight', undefined],
    ]);
    // The exchange already on channel 4 still ends on its own terms (here, its timeout).
    expect((await hang).payload).toBeNull();
    expect(client.answers.map((a) => a.channel)).toEqual([9, 5, 4]);
    expect(proxy.stats.refusedLines).toBe(4);
  });

  it('holds at most maxInFlightPerConnection exchanges of a connection: a line past it gets its finish alone', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), maxInFlightPerConnection: 2 });
    const client = await connect(port);
    client.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    client.exchange(2, 'resources/read', { uri: 'scripted://hang' });
    const third = await client.exchange(3, 'resources/read', { uri: 'scripted://spelled' });
    expect(third.payload).toBeNull();
    expect(proxy.stats.inFlight).toBe(2);
    expect(faults).toEqual([
      { connection: 1, fault: expect.objectContaining({ reason: 'bad-line', refused: 'too-many-in-flight', channel: 3, limit: 2 }) },
    ]);
    // Another connection has its own count.
    const other = await connect(port);
    expect((await other.exchange(3, 'resources/read', { uri: 'scripted://spelled' })).payload![0]).toBe(0);
  });

  it('closes a connection whose line passes the limit, before holding it whole', async () => {
    const { proxy, port, faults } = await start({ server: scripted(), maxLineBytes: 1024 });
    const client = await connect(port);
    client.socket.write(`{"channel":1,"method":"tools/list","params":{"pad":"${'x'.repeat(4096)}"}}\n`);
    await client.closed;
    expect(faults).toEqual([{ connection: 1, fault: { reason: 'line-too-long', limit: 1024 } }]);
    expect(proxy.stats.refusedLines).toBe(1);
  });

  it('drains: exchanges in flight get the drain time, then are not carried, and the client gets their finishes and a reset', async () => {
    const { proxy, port, faults } = await start({ server: scripted() });
    const client = await connect(port);
    const hang = client.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    await proxy.ready;
    await new Promise((r) => setTimeout(r, 50));
    expect(await proxy.drain(200)).toEqual({ connections: 1, cut: 1 });
    expect((await hang).payload).toBeNull();
    await client.closed;
    expect(faults.map((f) => (f.fault as { cause?: string }).cause)).toEqual(['drain-timeout']);
  });
});

describe('proxy: reading a server message', () => {
  const enc = new TextEncoder();
  const span = (line: string, member: 'result' | 'error' | 'id') => {
    const b = enc.encode(line);
    const e = readEnvelope(b) as Record<string, { start: number; end: number }>;
    return new TextDecoder().decode(b.subarray(e[member].start, e[member].end));
  };

  it('finds a member wherever it stands, with escapes, nesting and spacing around it', () => {
    expect(span('{"id":1,"jsonrpc":"2.0","result":{"a":"}\\"]","b":[{}]}}', 'result')).toBe('{"a":"}\\"]","b":[{}]}');
    expect(span(' { "result" : [1.0, 1e2] , "id" : "x\\"y" } ', 'result')).toBe('[1.0, 1e2]');
    expect(span('{"\\u0072esult":true,"id":2}', 'result')).toBe('true');
    expect(span('{"result":1,"result":2,"id":3}', 'result')).toBe('2');
  });

  it('refuses what is not an envelope, with the offset', () => {
    expect(readEnvelope(enc.encode('[1]'))).toEqual({ fault: 'not a JSON-RPC message: it does not open with an object', offset: 0 });
    expect(readEnvelope(enc.encode('{"result":"abc'))).toEqual({ fault: 'unterminated value', offset: 10 });
    expect(readEnvelope(enc.encode('{"result":{"a":1}'))).toEqual({ fault: "expected ',' or '}'", offset: 17 });
    expect(readEnvelope(enc.encode('{"result":{"a":[1}'))).toEqual({ fault: 'unterminated value', offset: 10 });
    expect(readEnvelope(enc.encode('{"result":1} x'))).toEqual({ fault: 'text after the message', offset: 12 });
    expect(readEnvelope(enc.encode('{"result" 1}'))).toEqual({ fault: "expected ':'", offset: 10 });
  });
});
