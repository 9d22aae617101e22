// The PROXY protocol header (versions 1 and 2) before a client's bytes: read with a bound, the client it names is the
// one the relay and the proxy log, and a connection without one is reset, counted and told onRefused.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PROXY_HEADER_BYTES, type ProxyHeader, readProxyHeader } from '../src/connection/proxy-header.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { createTcpRelay, type TcpRelay } from '../src/relay/tcp.js';

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

/** A version 2 header: command, family and transport byte, then the address block (and any TLVs). */
function v2(command: number, familyTransport: number, block: number[]): Uint8Array {
  return Uint8Array.from([...SIGNATURE, 0x20 | command, familyTransport, block.length >> 8, block.length & 0xff, ...block]);
}
const INET_BLOCK = [203, 0, 113, 7, 192, 0, 2, 1, 0xdc, 0x04, 0x1b, 0x58]; // 203.0.113.7:56324 -> 192.0.2.1:7000
const INET6_BLOCK = [
  ...[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7],
  ...[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
  ...[0xdc, 0x04, 0x1b, 0x58],
];

describe('readProxyHeader', () => {
  it.each<[string, Uint8Array, string | null, 1 | 2]>([
    ['v1 TCP4', ascii('PROXY TCP4 203.0.113.7 192.0.2.1 56324 7000\r\n'), '203.0.113.7:56324', 1],
    ['v1 TCP6', ascii('PROXY TCP6 2001:db8::7 2001:db8::1 56324 7000\r\n'), '[2001:db8::7]:56324', 1],
    ['v1 UNKNOWN', ascii('PROXY UNKNOWN\r\n'), null, 1],
    ['v1 UNKNOWN with addresses', ascii('PROXY UNKNOWN ffff::1 ffff::2 65535 65535\r\n'), null, 1],
    ['v2 PROXY over IPv4', v2(1, 0x11, INET_BLOCK), '203.0.113.7:56324', 2],
    ['v2 PROXY over IPv6', v2(1, 0x21, INET6_BLOCK), '[2001:db8::7]:56324', 2],
    ['v2 LOCAL (a health check)', v2(0, 0x00, []), null, 2],
    ['v2 PROXY, UNSPEC', v2(1, 0x00, []), null, 2],
    ['v2 with TLVs after the addresses', v2(1, 0x11, [...INET_BLOCK, 0x04, 0x00, 0x02, 0xaa, 0xbb]), '203.0.113.7:56324', 2],
  ])('%s: the client, and where its own bytes start, however the header is cut', (_, header, source, version) => {
    const bytes = Uint8Array.from([...header, 0x01, 0x02]);
    for (let cut = 0; cut < header.length; cut++) expect(readProxyHeader(bytes.subarray(0, cut)), `cut at ${cut}`).toBeNull();
    expect(readProxyHeader(bytes)).toEqual({ version, length: header.length, source } satisfies ProxyHeader);
  });

  it.each<[string, Uint8Array, number, RegExp]>([
    ['no header at all', ascii('{"channel":1}\n'), 0, /must start with one/],
    ['a wrong first word', ascii('PROXX TCP4'), 4, /starts "PROXY "/],
    ['a lone LF', ascii('PROXY UNKNOWN\n'), 13, /CRLF/],
    ['a CR not followed by LF', ascii('PROXY UNKNOWN\rX'), 14, /CRLF/],
    ['no CRLF in 107 bytes', ascii(`PROXY UNKNOWN ${'x'.repeat(200)}`), 106, /at most 107 bytes/],
    ['an unknown protocol', ascii('PROXY UDP4 1.2.3.4 1.2.3.5 1 2\r\n'), 6, /TCP4, TCP6 or UNKNOWN/],
    ['an IPv6 address under TCP4', ascii('PROXY TCP4 ::1 ::1 1 2\r\n'), 22, /IPv4/],
    ['a port past 65535', ascii('PROXY TCP4 1.2.3.4 1.2.3.5 65536 2\r\n'), 34, /port/],
    ['a port with a leading zero', ascii('PROXY TCP4 1.2.3.4 1.2.3.5 01 2\r\n'), 31, /port/],
    ['too few fields', ascii('PROXY TCP4 1.2.3.4 1.2.3.5 1\r\n'), 28, /SOURCE DESTINATION/],
    ['a broken v2 signature', Uint8Array.from([0x0d, 0x0a, 0x0d, 0x0a, 0x01]), 4, /signature/],
    ['v2 version 1', Uint8Array.from([...SIGNATURE, 0x11, 0x11, 0, 0]), 12, /version is 2/],
    ['v2 command 2', Uint8Array.from([...SIGNATURE, 0x22, 0x11, 0, 0]), 12, /LOCAL \(0\) or PROXY \(1\)/],
    ['v2 family 4', Uint8Array.from([...SIGNATURE, 0x21, 0x41, 0, 0]), 13, /family and transport/],
    ['v2 over UDP', v2(1, 0x12, INET_BLOCK), 13, /not a datagram/],
    ['a v2 IPv4 block too short', v2(1, 0x11, INET_BLOCK.slice(0, 8)), 14, /12 bytes, not 8/],
  ])('refuses %s, at the byte that shows it', (_, bytes, offset, message) => {
    const refusal = readProxyHeader(bytes);
    expect(refusal).toMatchObject({ refused: 'proxy-header', offset });
    expect((refusal as { message: string }).message).toMatch(message);
  });

  it(`refuses a v2 header declared past ${MAX_PROXY_HEADER_BYTES} bytes from its first 16, before the rest is held`, () => {
    const prefix = Uint8Array.from([...SIGNATURE, 0x21, 0x11, 0xff, 0xff]);
    expect(readProxyHeader(prefix)).toMatchObject({ refused: 'proxy-header', offset: 14 });
    const longest = Uint8Array.from([...SIGNATURE, 0x21, 0x11, (MAX_PROXY_HEADER_BYTES - 16) >> 8, (MAX_PROXY_HEADER_BYTES - 16) & 0xff]);
    expect(readProxyHeader(longest)).toBeNull();
  });
});

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** An upstream that sends `answer` to each connection and records what each sent. */
async function upstreamServer(answer: Uint8Array) {
  const received: Buffer[] = [];
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('end', () => {
      received.push(Buffer.concat(got));
      socket.end();
    });
    socket.on('error', () => {});
    socket.write(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as net.AddressInfo).port, received };
}

async function listening(relay: TcpRelay): Promise<number> {
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  closers.push(() => relay.drain(100));
  return (relay.address() as net.AddressInfo).port;
}

/** Connects, writes each piece in turn (a turn of the event loop apart), half-closes, and gives what came back and how it ended. */
function client(port: number, pieces: Uint8Array[]): Promise<{ bytes: Buffer; end: 'end' | string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('end', () => resolve({ bytes: Buffer.concat(got), end: 'end' }));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ bytes: Buffer.concat(got), end: error.code ?? error.message }));
    socket.on('connect', async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 5));
      }
      socket.end();
    });
  });
}

describe('createTcpRelay({ proxyProtocol: true })', () => {
  const frame = Uint8Array.from([0, ...ascii('{"resources":[]}')]);
  const answer = Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]);

  it("names the header's client, and relays the client's own bytes after it exactly, however the header is cut", async () => {
    const upstream = await upstreamServer(answer);
    const opened: string[] = [];
    const closed: string[] = [];
    const relay = createTcpRelay({
      upstream: { host: '127.0.0.1', port: upstream.port },
      proxyProtocol: true,
      onOpen: (_, remote) => opened.push(remote),
      onClose: (_, __, summary) => closed.push(summary.remote),
    });
    const port = await listening(relay);
    const header = ascii('PROXY TCP4 203.0.113.7 192.0.2.1 56324 7000\r\n');
    const request = ascii('{"channel":1,"method":"resources/list"}\n');
    const all = Uint8Array.from([...header, ...request]);
    // The header alone, cut in two, and sharing a chunk with the client's first bytes.
    const got = await client(port, [all.subarray(0, 9), all.subarray(9, header.length + 3), all.subarray(header.length + 3)]);
    expect(got).toEqual({ bytes: answer, end: 'end' });
    const v2got = await client(port, [v2(1, 0x21, INET6_BLOCK), request]);
    expect(v2got.end).toBe('end');
    await new Promise((r) => setTimeout(r, 50));
    expect(opened).toEqual(['203.0.113.7:56324', '[2001:db8::7]:56324']);
    expect(closed).toEqual(opened);
    expect(upstream.received.map((b) => b.toString())).toEqual([Buffer.from(request).toString(), Buffer.from(request).toString()]);
    expect(relay.stats.proxyHeaderRefused).toBe(0);
  });

  it('resets a connection with no header, a malformed one, or none in time, before anything is relayed; each counted and told', async () => {
    const upstream = await upstreamServer(answer);
    const refused: Array<{ remote: string; message: string }> = [];
    const relay = createTcpRelay({
      upstream: { host: '127.0.0.1', port: upstream.port },
      proxyProtocol: true,
      proxyHeaderTimeout: 200,
      onRefused: (remote, refusal) => refused.push({ remote, message: refusal.message }),
    });
    const port = await listening(relay);
    const none = await client(port, [ascii('{"channel":1,"method":"resources/list"}\n')]);
    const broken = await client(port, [ascii('PROXY TCP4 nowhere\r\n')]);
    // Connects, sends nothing, and waits: the relay gives up after proxyHeaderTimeout.
    const silent = await new Promise<string>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      socket.on('end', () => resolve('end'));
    });
    for (const got of [none, broken]) expect(got).toEqual({ bytes: Buffer.alloc(0), end: 'ECONNRESET' });
    expect(silent).toBe('ECONNRESET');
    expect(relay.stats.proxyHeaderRefused).toBe(3);
    expect(relay.stats.connectionsTotal).toBe(0);
    expect(upstream.received).toEqual([]);
    expect(refused.map((r) => r.message)).toEqual([
      expect.stringMatching(/must start with one/),
      expect.stringMatching(/SOURCE DESTINATION/),
      expect.stringMatching(/no PROXY header within 200 ms/),
    ]);
    for (const r of refused) expect(r.remote).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('counts a connection waiting for its header against maxConnections; a drain waits for it only until the header timeout', async () => {
    const upstream = await upstreamServer(answer);
    const relay = createTcpRelay({
      upstream: { host: '127.0.0.1', port: upstream.port },
      proxyProtocol: true,
      proxyHeaderTimeout: 300,
      maxConnections: 1,
    });
    const port = await listening(relay);
    const waiting = net.connect({ port, host: '127.0.0.1' });
    const waited = new Promise<string>((resolve) => {
      waiting.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      waiting.on('end', () => resolve('end'));
    });
    await new Promise((resolve) => waiting.once('connect', resolve));
    await new Promise((r) => setTimeout(r, 50));
    const second = await client(port, [ascii('PROXY UNKNOWN\r\n')]);
    expect(second.end).toBe('ECONNRESET');
    expect(relay.stats.connectionsRefused).toBe(1);
    const started = Date.now();
    await relay.drain(30_000);
    // Anti-hang bound only: its header would have been served, as the drain serves; none came, so the timeout reset it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await waited).toBe('ECONNRESET');
    expect(relay.stats.proxyHeaderRefused).toBe(1);
  });

  it('holds no more than the bound for a header that never ends', async () => {
    const upstream = await upstreamServer(answer);
    const relay = createTcpRelay({ upstream: { host: '127.0.0.1', port: upstream.port }, proxyProtocol: true });
    const port = await listening(relay);
    // A v1 line with no CRLF, a byte at a time: refused at its 107th byte, not held on.
    const got = await client(
      port,
      Array.from({ length: 300 }, (_, k) => (k < 6 ? ascii('PROXY ')[k] : 0x41)).map((b) => Uint8Array.of(b)),
    );
    expect(got.end).toBe('ECONNRESET');
    expect(relay.stats.proxyHeaderRefused).toBe(1);
  });
});
