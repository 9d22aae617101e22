// The TCP relay when upstream fails (WIRE.md section 7): every failure reported with its cause, the
// client given a finish for each open channel, then reset; only a clean end at a record boundary is a FIN.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { type ConnectionFault, createTcpRelay, type TcpRelayOptions, upstreamError } from '../src/relay/tcp.js';
import { type ClientResult, client } from './support/tcp-client.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** An upstream that runs `behave` on each connection. */
function upstreamServer(behave: (socket: net.Socket) => void): Promise<number> {
  return listen(net.createServer(behave));
}

/** A port nothing listens on: bound, closed again. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function relayTo(upstreamPort: number, options: Partial<TcpRelayOptions> = {}): Promise<{ port: number; faults: ConnectionFault[] }> {
  const faults: ConnectionFault[] = [];
  const server = createTcpRelay({ upstream: { host: '127.0.0.1', port: upstreamPort }, onFault: (f) => faults.push(f), ...options });
  return { port: await listen(server), faults };
}

describe('the TCP relay when upstream fails', () => {
  it('a clean end at a record boundary is a clean end for the client, after the finishes', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame)])));
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('end');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeFinish(2)])));
    expect(relay.faults).toEqual([{ reason: 'incomplete', channel: 2, offset: 9 + frame.length + 9 }]);
  });

  it('a refused connection is reported, and the client is reset', async () => {
    const relay = await relayTo(await closedPort());
    const got = await client(relay.port);
    expect([got.bytes.length, got.ended]).toEqual([0, 'ECONNRESET']);
    expect(relay.faults).toEqual([expect.objectContaining({ reason: 'upstream-error', cause: 'refused', code: 'ECONNREFUSED' })]);
  });

  it('a reset mid-stream: the open channels get their finishes, the faults name the reset, and the client is reset', async () => {
    const port = await upstreamServer((s) => {
      s.write(Buffer.concat([encodeResponse(1, frame), encodeResponse(2, frame), encodeFinish(1)]), () => setTimeout(() => s.resetAndDestroy(), 20));
    });
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeResponse(2, frame), encodeFinish(1), encodeFinish(2)])));
    expect(relay.faults).toEqual([
      expect.objectContaining({ reason: 'upstream-error', cause: 'reset', code: 'ECONNRESET' }),
      { reason: 'incomplete', channel: 2, offset: 9 + frame.length },
    ]);
  });

  it('a reset with no channel open is reported too, and the client is reset', async () => {
    const port = await upstreamServer((s) => {
      s.write(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]), () => setTimeout(() => s.resetAndDestroy(), 20));
    });
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([expect.objectContaining({ reason: 'upstream-error', cause: 'reset' })]);
  });

  it('an end inside a record is truncation: the finishes, the fault, then a reset', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), encodeResponse(2, frame).subarray(0, 12)])));
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([{ reason: 'truncated', offset: 9 + frame.length }]);
  });

  it('a record error is an upstream failure: the finishes, the fault, then a reset', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), Uint8Array.of(7, 0, 0, 0, 0, 0, 0, 0, 0)])));
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([{ reason: 'bad-kind', offset: 9 + frame.length }]);
  });

  it('an upstream silent while a channel is open times out: the finish, the fault, then a reset', async () => {
    const port = await upstreamServer((s) => s.write(encodeResponse(1, frame)));
    const relay = await relayTo(port, { idleTimeout: 200 });
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([
      { reason: 'upstream-timeout', phase: 'idle', afterMs: 200 },
      { reason: 'incomplete', channel: 1, offset: 0 },
    ]);
  });

  it('an upstream silent with no channel open is not timed out', async () => {
    let upstreamSocket: net.Socket | undefined;
    const port = await upstreamServer((s) => {
      upstreamSocket = s;
      s.write(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]));
    });
    const relay = await relayTo(port, { idleTimeout: 100 });
    const reading = client(relay.port);
    // Three idle timeouts pass with nothing open; then upstream ends cleanly.
    await new Promise((resolve) => setTimeout(resolve, 350));
    upstreamSocket?.end();
    const got = await reading;
    expect(got.ended).toBe('end');
    expect(relay.faults).toEqual([]);
  });

  it('an upstream that never accepts times out on connect, and the client is reset', async () => {
    // A socket that is never connected stands for a host that drops the SYN.
    const relay = await relayTo(1, { connectTimeout: 150, dial: () => new net.Socket() });
    const got = await client(relay.port);
    expect([got.bytes.length, got.ended]).toEqual([0, 'ECONNRESET']);
    expect(relay.faults).toEqual([{ reason: 'upstream-timeout', phase: 'connect', afterMs: 150 }]);
  });

  it('a client that half-closes after its request still gets every answer', async () => {
    const port = await upstreamServer((s) => {
      s.on('data', () => {});
      s.on('end', () => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    });
    const relay = await relayTo(port);
    const got = await new Promise<ClientResult>((resolve) => {
      const socket = net.connect(relay.port, '127.0.0.1', () => socket.end('request'));
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('end', () => resolve({ bytes: Buffer.concat(chunks), ended: 'end' }));
      socket.on('error', (e: NodeJS.ErrnoException) => resolve({ bytes: Buffer.concat(chunks), ended: e.code ?? '' }));
    });
    expect(got.ended).toBe('end');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
  });

  it('names the cause of each system error code', () => {
    const cause = (code: string) => upstreamError(Object.assign(new Error(code), { code }));
    expect(cause('ECONNREFUSED')).toMatchObject({ cause: 'refused', code: 'ECONNREFUSED' });
    expect(cause('ECONNRESET')).toMatchObject({ cause: 'reset' });
    expect(cause('EHOSTUNREACH')).toMatchObject({ cause: 'unreachable' });
    expect(cause('ENOTFOUND')).toMatchObject({ cause: 'dns' });
    expect(cause('ETIMEDOUT')).toMatchObject({ cause: 'timeout' });
    expect(cause('EWHATEVER')).toMatchObject({ cause: 'error', code: 'EWHATEVER' });
    expect(upstreamError('no code')).toEqual({ reason: 'upstream-error', cause: 'error', message: 'no code' });
  });

  it('refuses timeouts that are not milliseconds', () => {
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, idleTimeout: -1 })).toThrow(RangeError);
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, connectTimeout: Number.NaN })).toThrow(RangeError);
  });
});
