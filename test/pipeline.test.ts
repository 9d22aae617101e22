// The pipeline a user runs: MCP server -> `mcp-frames proxy` -> `mcp-frames relay --validate full` (no --endpoint:
// each channel judged by the method its request line named) -> client. Every valid answer of every method arrives,
// byte for byte as the server wrote it; an answer that breaks its method's schema is refused by the relay; a response
// on a channel no line named is refused too, never judged less strictly without a word.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources, listTools, readResource } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { type ConnectionFault, createTcpRelay } from '../src/relay/tcp.js';
import { ProxyClient } from './support/proxy-client.js';
import { startCli } from './support/relay-process.js';

const require = createRequire(import.meta.url);
const SUPPORT = join(import.meta.dirname, 'support');
const SCRIPTED = join(SUPPORT, 'scripted-server.mjs');

function binOf(pkg: string): string {
  const manifest = require(`${pkg}/package.json`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin as Record<string, string>)[0];
  return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `proxy` over a stdio server behind tee-server.mjs (its stdout copied to a file), and `relay --validate full` in front. */
async function pipeline(server: string[], proxyFlags: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-pipeline-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const copy = join(dir, 'stdout');
  const proxy = await startCli([
    'proxy',
    '--listen',
    '127.0.0.1:0',
    ...proxyFlags,
    '--',
    process.execPath,
    join(SUPPORT, 'tee-server.mjs'),
    copy,
    '--',
    ...server,
  ]);
  cleanups.push(() => proxy.kill());
  const relay = await startCli(['relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${proxy.port}`, '--validate', 'full']);
  cleanups.push(() => relay.kill());
  const client = await ProxyClient.connect(relay.port);
  cleanups.push(() => client.close());
  return { proxy, relay, client, copy };
}

/** The result or error members of the server's response lines, as latin1 text (so that equality is byte equality). */
function membersOf(copy: string): Set<string> {
  const members = new Set<string>();
  for (const line of readFileSync(copy).toString('latin1').split('\n')) {
    const m = /^\{"result":([\s\S]*),"jsonrpc":"2\.0","id":\d+\}$/.exec(line) ?? /^\{"jsonrpc":"2\.0","id":\d+,"error":([\s\S]*)\}$/.exec(line);
    if (m) members.add(m[1]);
  }
  return members;
}

const latin1 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');

describe('proxy -> relay --validate full (endpoint auto) -> client', () => {
  it('server-everything: every method of the eight endpoints carried, byte for byte as the server wrote it', async () => {
    const { relay, client, copy } = await pipeline([process.execPath, binOf('@modelcontextprotocol/server-everything'), 'stdio']);
    expect(relay.first).toMatchObject({ event: 'listening', endpoint: 'auto', judges: 'compiled' });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['resources/list', {}],
      ['resources/read', { uri: 'test://static/resource/1' }],
      ['resources/read', { uri: 'test://static/resource/2' }],
      ['resources/templates/list', {}],
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: { message: 'hello' } }],
      ['tools/call', { name: 'getTinyImage', arguments: {} }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'simple_prompt' }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '1' } }],
      ['resources/read', { uri: 'test://static/resource/1000' }],
    ];
    const answers = await Promise.all(calls.map(([method, params], k) => client.exchange(k + 1, method, params)));
    const members = membersOf(copy);
    for (const [k, a] of answers.entries()) {
      expect(a.payload, `${calls[k][0]} was carried`).not.toBeNull();
      expect(members.has(latin1(a.payload!.subarray(1))), `${calls[k][0]}: the bytes the server wrote`).toBe(true);
    }
    expect(relay.lines().filter((l) => l.event === 'fault')).toEqual([]);
  });

  it.each([
    ['server-filesystem', () => [process.execPath, binOf('@modelcontextprotocol/server-filesystem'), mkdtempSync(join(tmpdir(), 'mcp-frames-fs-'))]],
    ['server-memory', () => [process.execPath, binOf('@modelcontextprotocol/server-memory')]],
  ])('%s: its lists through the relay (its -32601 errors included), carried byte for byte', async (_name, command) => {
    const { relay, client, copy } = await pipeline(command());
    const answers = await Promise.all([
      client.exchange(1, 'tools/list', {}),
      client.exchange(2, 'prompts/list', {}),
      client.exchange(3, 'resources/list', {}),
    ]);
    const members = membersOf(copy);
    for (const a of answers) expect(members.has(latin1(a.payload!.subarray(1)))).toBe(true);
    expect(relay.lines().filter((l) => l.event === 'fault')).toEqual([]);
  });

  it('an answer that breaks its method schema, let through by a proxy at --validate json, is refused by the relay', async () => {
    const { relay, client } = await pipeline([process.execPath, SCRIPTED], ['--validate', 'json']);
    const [bad, good] = await Promise.all([
      client.exchange(1, 'resources/read', { uri: 'scripted://contents-not-array' }),
      client.exchange(2, 'resources/read', { uri: 'scripted://spelled' }),
    ]);
    expect(bad.payload).toBeNull();
    expect(good.payload![0]).toBe(0);
    await relay.line((l) => l.reason === 'frame-error');
    expect(relay.lines().filter((l) => l.event === 'fault')).toEqual([
      expect.objectContaining({ reason: 'frame-error', channel: 1, frame: expect.objectContaining({ rule: 'schema' }) }),
    ]);
  });
});

describe("createTcpRelay({ endpoint: 'auto' })", () => {
  /** `upstream` listening, a relay in front of it at 'full' with endpoint 'auto', and a client of the relay. */
  async function autoRelayTo(upstream: net.Server) {
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => upstream.close());
    const faults: ConnectionFault[] = [];
    const relay = createTcpRelay({
      upstream: `127.0.0.1:${(upstream.address() as net.AddressInfo).port}`,
      validate: 'full',
      endpoint: 'auto',
      onFault: (f) => faults.push(f),
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => relay.close());
    const client = await ProxyClient.connect((relay.address() as net.AddressInfo).port);
    cleanups.push(() => client.close());
    return { faults, client };
  }

  it('refuses a response on a channel no request line named: it cannot be judged by a schema', async () => {
    const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      // Channel 1 was asked for as resources/list; channel 2 by no line at all.
      s.once('data', () => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeFinish(2)])));
    });
    const { faults, client } = await autoRelayTo(upstream);
    const second = client.finishOf(2);
    const first = await client.exchange(1, 'resources/list', {});
    expect(first.payload).not.toBeNull();
    expect((await second).payload).toBeNull();
    expect(faults).toEqual([
      expect.objectContaining({
        reason: 'frame-error',
        channel: 2,
        frame: expect.objectContaining({ rule: 'schema', message: expect.stringMatching(/no request line named/) }),
      }),
    ]);
  });

  it('a line on a channel still in flight changes nothing; once its finish has passed, a line names the channel anew', async () => {
    const tools = listTools.encode({ kind: 'result', result: { tools: [] } });
    const read = readResource.encode({ kind: 'result', result: { contents: [] } });
    // A fake proxy: answers each new exchange with the result of the method its line named, ignoring a line on a
    // channel in flight as the proxy does.
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      let held = '';
      const inFlight = new Set<number>();
      s.on('data', (d: Buffer) => {
        held += d.toString();
        for (let lf = held.indexOf('\n'); lf >= 0; lf = held.indexOf('\n')) {
          const line = JSON.parse(held.slice(0, lf)) as { channel: number; method: string };
          held = held.slice(lf + 1);
          if (inFlight.has(line.channel)) continue;
          inFlight.add(line.channel);
          const frame = line.method === 'tools/list' ? tools : read;
          setTimeout(() => {
            inFlight.delete(line.channel);
            s.write(Buffer.concat([encodeResponse(line.channel, frame), encodeFinish(line.channel)]));
          }, 50);
        }
      });
    });
    const { faults, client } = await autoRelayTo(upstream);
    const first = client.finishOf(1);
    // The second line names channel 1 while its exchange is in flight: the proxy gives it nothing.
    client.socket.write('{"channel":1,"method":"tools/list"}\n{"channel":1,"method":"resources/read","params":{"uri":"x"}}\n');
    expect((await first).payload).not.toBeNull();
    // Its finish has passed: channel 1 is free, and a line names its new method.
    const again = await client.exchange(1, 'resources/read', { uri: 'x' });
    expect(again.payload).not.toBeNull();
    expect(faults).toEqual([]);
  });
});
