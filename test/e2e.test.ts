// End to end with the real MCP SDK: the demo's McpServer over stdio -> the proxy -> TCP -> relay -> TCP -> client,
// as `npm start` runs it, with the checks the demo cannot make on itself: byte equality, a server that hangs up,
// a proxy connection that dies mid-record, and a frame corrupted on the way to the relay (by a tampering hop
// between the proxy and the relay).

import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadBackend } from '../src/backend/builds.js';
import { createProxy } from '../src/proxy/proxy.js';
import { DemoClient } from './support/demo-client.js';
import { blobBytes, HELLO, listingPage } from '../src/demo/server.js';
import { type ConnectionFault, createTcpRelay } from '../src/relay/tcp.js';
import { encodeFinish, encodeResponseHeader, HEADER_SIZE } from '../src/records/record.js';

/** The demo's server as a process of its own, as built by `npm test`'s build step. */
const DEMO_SERVER = join(import.meta.dirname, '..', 'dist', 'demo', 'stdio-server.js');

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Tamper = (channel: number, payload: Uint8Array) => Uint8Array | 'cut';

/**
 * A hop between the proxy and the relay that hands each response's payload to `tamper`: changed (its length
 * kept), or 'cut', which sends half the record and closes the connection. Request lines pass untouched.
 */
function tamperingHop(proxyPort: number, tamper: Tamper): net.Server {
  return net.createServer((down) => {
    const up = net.connect(proxyPort, '127.0.0.1');
    down.on('error', () => {});
    up.on('error', () => down.destroy());
    down.pipe(up);
    let held = Buffer.alloc(0);
    up.on('data', (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      while (held.length >= HEADER_SIZE) {
        const length = held.readUInt32LE(5);
        if (held.length < HEADER_SIZE + length) return;
        const record = held.subarray(0, HEADER_SIZE + length);
        held = held.subarray(HEADER_SIZE + length);
        if (record[0] !== 0x01) {
          down.write(record);
          continue;
        }
        const sent = tamper(record.readUInt32LE(1), record.subarray(HEADER_SIZE));
        if (sent === 'cut') {
          // Half a record, then the connection goes: the relay must still finish the channel.
          down.end(record.subarray(0, HEADER_SIZE + (length >> 1)));
          up.destroy();
          return;
        }
        down.write(Buffer.concat([record.subarray(0, HEADER_SIZE), sent]));
      }
    });
    up.on('end', () => down.end());
  });
}

async function session(tamper?: Tamper) {
  const sent: Array<{ channel: number; payload: Uint8Array }> = [];
  const proxy = createProxy({
    server: { command: process.execPath, args: [DEMO_SERVER] },
    restartDelayMs: { first: 10, max: 100 },
    onExchange: ({ channel, payload }) => sent.push({ channel, payload: Uint8Array.from(payload) }),
  });
  cleanups.push(() => proxy.close());
  let upstreamPort = await listen(proxy.server);
  if (tamper) {
    const hop = tamperingHop(upstreamPort, tamper);
    upstreamPort = await listen(hop);
    cleanups.push(() => new Promise<void>((resolve) => hop.close(() => resolve())));
  }
  const faults: ConnectionFault[] = [];
  const relay = createTcpRelay({ upstream: { host: '127.0.0.1', port: upstreamPort }, backend: loadBackend('auto'), onFault: (f) => faults.push(f) });
  cleanups.push(() => new Promise<void>((resolve) => relay.close(() => resolve())));
  const client = await DemoClient.connect(await listen(relay), '127.0.0.1', { keepBytes: true });
  cleanups.push(() => client.close());
  await proxy.ready;
  return { proxy, client, sent, faults };
}

describe('end to end with the MCP SDK, through the proxy and the relay', () => {
  it('carries results byte for byte, unknown members and _meta included', async () => {
    const { client, sent } = await session();
    const pages = [];
    for (const cursor of [undefined, 'page-1', 'page-2', 'page-3']) pages.push(await client.exchange('resources/list', cursor ? { cursor } : {}));
    pages.forEach((e, page) => {
      expect(e.outcome.outcome).toBe('result');
      expect(e.outcome.outcome === 'result' && e.outcome.result).toEqual(listingPage(page));
    });
    const hello = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(hello.outcome.outcome === 'result' && hello.outcome.result).toEqual(HELLO);
    const big = await client.exchange('resources/read', { uri: 'demo://blob' });
    const contents = big.outcome.outcome === 'result' ? (big.outcome.result as { contents: Array<{ blob: string }> }).contents : [];
    expect(Buffer.from(contents[0].blob, 'base64').equals(Buffer.from(blobBytes()))).toBe(true);

    // Every byte the client received is a byte the proxy sent, in order.
    const expected = Buffer.concat(sent.flatMap((s) => [encodeResponseHeader(s.channel, s.payload.length), s.payload, encodeFinish(s.channel)]));
    expect(Buffer.concat(client.chunks).equals(expected)).toBe(true);
    // And the vendor members are really there.
    expect(JSON.stringify(pages[0].outcome)).toContain('"x-vendor":{"shard":0,"note":null}');
    expect(JSON.stringify(pages[0].outcome)).toContain('"_meta":{"vendor.example/total":200}');
  });

  it('passes -32601, -32602 and -32002 through intact, as McpError with data', async () => {
    const { client } = await session();
    const missing = await client.exchange('resources/read', { uri: 'demo://missing' });
    const invalid = await client.exchange('resources/read', { uri: 'not a uri' });
    const notFound = await client.exchange('prompts/list', {});
    for (const [e, code, data] of [
      [missing, -32002, { uri: 'demo://missing' }],
      [invalid, -32602, { uri: 'not a uri' }],
      [notFound, -32601, undefined],
    ] as const) {
      expect(e.outcome.outcome).toBe('error');
      expect(e.mcpError).toBeInstanceOf(McpError);
      expect(e.mcpError!.code).toBe(code);
      expect(e.mcpError!.data).toEqual(data);
    }
    expect(missing.outcome.outcome === 'error' && missing.outcome.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'demo://missing' },
    });
    expect(notFound.outcome.outcome === 'error' && notFound.outcome.error.message).toBe('Method not found');
  });

  it('gives not-carried, never a hang, when the server hangs up in mid-exchange, and the next is served by a new server', async () => {
    const { client, proxy } = await session();
    const hung = await client.exchange('resources/read', { uri: 'demo://hang-up' });
    expect(hung.outcome.outcome).toBe('not-carried');
    const after = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(after.outcome.outcome).toBe('result');
    expect(proxy.stats.serverStarts).toBe(2);
  });

  it('gives not-carried or incomplete, never a hang, when the connection to the proxy dies in mid-record', async () => {
    const { client, faults } = await session((channel, payload) => (channel === 2 ? 'cut' : payload));
    const first = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(first.outcome.outcome).toBe('result');
    const [cut, later] = await Promise.all([
      client.exchange('resources/read', { uri: 'demo://blob' }),
      client.exchange('resources/read', { uri: 'demo://hello' }),
    ]);
    // The cut response never became a whole record, so no channel opened at the relay: the
    // client's stream ends with the exchange unanswered.
    expect(cut.outcome.outcome).toBe('incomplete');
    expect(['not-carried', 'incomplete', 'result']).toContain(later.outcome.outcome);
    expect(faults).toEqual([{ reason: 'truncated', offset: expect.any(Number) }]);
  });

  it('turns a frame corrupted on its way to the relay into not-carried, with the fault reported', async () => {
    const { client, faults } = await session((channel, payload) => {
      if (channel !== 2) return payload;
      const bad = Uint8Array.from(payload);
      bad[bad.length - 1] = 0x2c; // the closing '}' becomes ','
      return bad;
    });
    const before = await client.exchange('resources/read', { uri: 'demo://hello' });
    const corrupted = await client.exchange('resources/read', { uri: 'demo://hello' });
    const after = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(before.outcome.outcome).toBe('result');
    expect(corrupted.outcome.outcome).toBe('not-carried');
    expect(after.outcome.outcome).toBe('result');
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ reason: 'frame-error', channel: 2, frame: { reason: 'body', rule: 'json-end' } });
  });
});
