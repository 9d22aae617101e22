// End to end with the real MCP SDK: McpServer -> SDK Client -> proxy ->
// TCP -> relay -> TCP -> client, as `npm start` runs it, with the checks
// the demo cannot make on itself: byte equality, a server that hangs up, a
// proxy that dies mid-record, and a frame corrupted on the way to the relay.

import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadBackend } from '../src/backend/builds.js';
import { createProxy, type ProxyOptions } from '../src/demo/proxy.js';
import { DemoClient } from '../src/demo/client.js';
import { blobBytes, createDemoServer, HELLO, listingPage } from '../src/demo/server.js';
import { type ConnectionFault, createTcpRelay } from '../src/relay/tcp.js';
import { encodeFinish, encodeResponseHeader } from '../src/records/record.js';

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function session(options: ProxyOptions = {}, backend = 'auto' as const) {
  const blob = blobBytes();
  const mcp = createDemoServer(blob);
  const sent: Array<{ channel: number; payload: Uint8Array | null }> = [];
  const proxy = await createProxy(mcp, {
    ...options,
    onExchange: (channel, _method, payload) => sent.push({ channel, payload }),
  });
  const faults: ConnectionFault[] = [];
  const relay = createTcpRelay({
    upstream: { host: '127.0.0.1', port: await listen(proxy.server) },
    backend: loadBackend(backend),
    onFault: (f) => faults.push(f),
  });
  const client = await DemoClient.connect(await listen(relay), '127.0.0.1', { keepBytes: true });
  cleanups.push(async () => {
    client.close();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    await proxy.close();
  });
  return { client, sent, faults, blob };
}

describe('end to end with the MCP SDK', () => {
  it('carries results byte for byte, unknown members and _meta included', async () => {
    const { client, sent, blob } = await session();
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
    expect(Buffer.from(contents[0].blob, 'base64').equals(Buffer.from(blob))).toBe(true);

    // Every byte the client received is a byte the proxy sent, in order.
    const expected = Buffer.concat(sent.flatMap((s) => [encodeResponseHeader(s.channel, s.payload!.length), s.payload!, encodeFinish(s.channel)]));
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

  it('gives not-carried, never a hang, when the server closes in mid-exchange', async () => {
    const { client } = await session();
    const hung = await client.exchange('resources/read', { uri: 'demo://hang-up' });
    expect(hung.outcome.outcome).toBe('not-carried');
    const after = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(after.outcome.outcome).toBe('not-carried');
  });

  it('gives not-carried or incomplete, never a hang, when the proxy dies in mid-record', async () => {
    const { client, faults } = await session({ tamper: (channel, payload) => (channel === 2 ? 'cut' : payload) });
    const first = await client.exchange('resources/read', { uri: 'demo://hello' });
    expect(first.outcome.outcome).toBe('result');
    const [cut, later] = await Promise.all([
      client.exchange('resources/read', { uri: 'demo://blob' }),
      client.exchange('resources/read', { uri: 'demo://hello' }),
    ]);
    // The cut response never became a whole record, so no channel opened at the relay: the
    // client's stream ends with the exchange unanswered.
    expect(cut.outcome.outcome).toBe('incomplete');
    expect(['not-carried', 'incomplete']).toContain(later.outcome.outcome);
    expect(faults).toEqual([{ reason: 'truncated', offset: expect.any(Number) }]);
  });

  it('turns a frame corrupted on its way to the relay into not-carried, with the fault reported', async () => {
    const { client, faults } = await session({
      tamper: (channel, payload) => {
        if (channel !== 2) return payload;
        const bad = Uint8Array.from(payload);
        bad[bad.length - 1] = 0x2c; // the closing '}' becomes ','
        return bad;
      },
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
