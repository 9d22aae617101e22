// The TCP relay when upstream fails (WIRE.md section 7): every failure reported with its cause, the
// client given a finish for each open channel, then reset; only a clean end at a record boundary is a FIN.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { type ConnectionFault, createTcpRelay, type TcpRelayOptions, upstreamError } from '../src/relay/tcp.js';
import { type ClientResult, client, closedPort, closeListening, connectClient, listen } from './support/tcp-client.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

afterEach(closeListening);

/** An upstream that runs `behave` on each connection. */
function upstreamServer(behave: (socket: net.Socket) => void): Promise<number> {
  // A relay whose client goes away resets its upstream connection: the upstream sees ECONNRESET, as it should.
  return listen(
    net.createServer((socket) => {
      socket.on('error', () => {});
      behave(socket);
    }),
  );
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
    expect(relay.faults).toEqual([
      { reason: 'truncated', offset: 9 + frame.length },
      { reason: 'incomplete', channel: 1, offset: 0 },
    ]);
  });

  it('a record error is an upstream failure: the finishes, the fault, then a reset', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), Uint8Array.of(7, 0, 0, 0, 0, 0, 0, 0, 0)])));
    const relay = await relayTo(port);
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([
      { reason: 'bad-kind', offset: 9 + frame.length },
      { reason: 'incomplete', channel: 1, offset: 0 },
    ]);
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

  it('an upstream that stalls inside a record times out, with no channel open: the whole exchanges, the fault, then a reset', async () => {
    // Five whole exchanges, then channel 6's header and half its payload, then nothing. Before, the idle
    // timer looked only at open channels, and a response still arriving opens none: the client waited forever.
    const whole = Buffer.concat(Array.from({ length: 5 }, (_, k) => Buffer.concat([encodeResponse(k + 1, frame), encodeFinish(k + 1)])));
    const six = encodeResponse(6, frame);
    const port = await upstreamServer((s) => s.write(Buffer.concat([whole, six.subarray(0, 9 + (six.length - 9) / 2)])));
    const relay = await relayTo(port, { idleTimeout: 200 });
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(whole));
    expect(relay.faults).toEqual([{ reason: 'upstream-timeout', phase: 'idle', afterMs: 200 }]);
  });

  it('an upstream that stalls inside a record header times out too', async () => {
    const port = await upstreamServer((s) => s.write(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeFinish(2).subarray(0, 4)])));
    const relay = await relayTo(port, { idleTimeout: 200 });
    const got = await client(relay.port);
    expect(got.ended).toBe('ECONNRESET');
    expect(hex(got.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(relay.faults).toEqual([{ reason: 'upstream-timeout', phase: 'idle', afterMs: 200 }]);
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

  it("a client's half-close reaches upstream as a FIN, and upstream's answer after it still reaches the client", async () => {
    let upstreamSawEnd = false;
    const port = await upstreamServer((s) => {
      s.on('data', () => {});
      s.on('end', () => {
        upstreamSawEnd = true;
        s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]));
      });
    });
    const relay = await relayTo(port);
    const c = connectClient(relay.port);
    c.socket.end();
    const got = await c.done;
    expect(upstreamSawEnd).toBe(true);
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

  it('refuses timeouts that are not milliseconds, and a connection bound that is not a whole number', () => {
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, idleTimeout: -1 })).toThrow(RangeError);
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, connectTimeout: Number.NaN })).toThrow(RangeError);
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, clientIdleTimeout: 2 ** 31 })).toThrow(RangeError);
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, maxConnections: 1.5 })).toThrow(RangeError);
    expect(() => createTcpRelay({ upstream: { host: 'h', port: 1 }, maxConnections: -1 })).toThrow(RangeError);
  });
});

describe('the TCP relay when a connection goes nowhere', () => {
  /** A relay whose connections are reported as they close. */
  async function relayWithCloses(upstreamPort: number, options: Partial<TcpRelayOptions>) {
    const faults: ConnectionFault[] = [];
    const ends: string[] = [];
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port: upstreamPort },
      onFault: (f) => faults.push(f),
      onClose: (_id, _error, summary) => ends.push(summary.end),
      ...options,
    });
    return { server, port: await listen(server), faults, ends };
  }

  it('no byte either way with nothing in flight: the client idle timeout resets it, and says so', async () => {
    const port = await upstreamServer(() => {});
    const relay = await relayWithCloses(port, { clientIdleTimeout: 200 });
    const got = await client(relay.port);
    expect([got.bytes.length, got.ended]).toEqual([0, 'ECONNRESET']);
    expect(relay.faults).toEqual([{ reason: 'client-idle-timeout', afterMs: 200 }]);
    await until(() => relay.ends.length === 1);
    expect(relay.ends).toEqual(['idle']);
    expect(relay.server.stats.faultsByReason).toEqual({ 'client-idle-timeout': 1 });
  });

  it('clients that write and reset at once (often read as a clean end) are let go of at once, not at the client idle timeout', async () => {
    const upstreams = new Set<net.Socket>();
    // An upstream that keeps its half open and says nothing: only the client's going can end these connections.
    const port = await listen(
      net.createServer({ allowHalfOpen: true }, (s) => {
        upstreams.add(s);
        s.on('error', () => {});
      }),
    );
    const relay = await relayWithCloses(port, { clientIdleTimeout: 60_000 });
    for (let k = 0; k < 50; k++) {
      const socket = net.connect(relay.port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write('{"channel":1,"method":"tools/list"}\n');
      socket.resetAndDestroy();
    }
    // Taken for a half-close, each waited for an upstream that never ends, up to the client idle timeout.
    await until(() => relay.server.stats.connectionsOpen === 0);
    expect(relay.ends.every((end) => end === 'client-gone')).toBe(true);
    for (const s of upstreams) s.destroy();
  });

  it('a half-closed client whose upstream keeps its half open and silent is reset by the client idle timeout', async () => {
    let upstreamSawEnd = false;
    let upstreamSocket: net.Socket | undefined;
    const port = await listen(
      net.createServer({ allowHalfOpen: true }, (s) => {
        upstreamSocket = s;
        s.on('end', () => {
          upstreamSawEnd = true;
        });
      }),
    );
    const relay = await relayWithCloses(port, { clientIdleTimeout: 200 });
    const c = connectClient(relay.port);
    c.socket.end();
    const got = await c.done;
    expect([got.bytes.length, got.ended, upstreamSawEnd]).toEqual([0, 'ECONNRESET', true]);
    expect(relay.faults).toEqual([{ reason: 'client-idle-timeout', afterMs: 200 }]);
    await until(() => relay.server.stats.connectionsOpen === 0);
    upstreamSocket?.destroy();
  });

  it('a client that takes nothing of what waits for it is reset by the client idle timeout, after the finishes', async () => {
    const big = listResources.encode({ kind: 'result', result: { resources: [], _meta: { text: 'a'.repeat(60_000) } } });
    const flood = Buffer.concat([
      encodeResponse(99, frame),
      ...Array.from({ length: 300 }, () => Buffer.concat([encodeResponse(1, big), encodeFinish(1)])),
    ]);
    const port = await upstreamServer((s) => {
      s.on('error', () => {});
      s.write(flood);
    });
    const relay = await relayWithCloses(port, { clientIdleTimeout: 300 });
    const c = connectClient(relay.port);
    c.socket.pause();
    await until(() => relay.faults.length > 0);
    c.socket.resume();
    const got = await c.done;
    expect(relay.faults[0]).toEqual({ reason: 'client-idle-timeout', afterMs: 300 });
    expect(relay.faults).toContainEqual({ reason: 'incomplete', channel: 99, offset: 0 });
    expect(got.bytes.length).toBeLessThan(flood.length);
    await until(() => relay.ends.length === 1);
    expect(relay.ends).toEqual(['idle']);
  });

  it('a client given its FIN that never closes its own side is closed after the client idle timeout', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    const relay = await relayWithCloses(port, { clientIdleTimeout: 200 });
    const socket = net.connect({ port: relay.port, host: '127.0.0.1', allowHalfOpen: true });
    let ended = false;
    socket.on('end', () => {
      ended = true;
    });
    socket.on('data', () => {});
    await until(() => relay.ends.length === 1);
    expect([ended, relay.ends, relay.faults, relay.server.stats.connectionsOpen]).toEqual([true, ['ended'], [], 0]);
    socket.destroy();
  });

  it('past maxConnections a new client is reset as it comes, before anything is dialed, and counted', async () => {
    let dialed = 0;
    const port = await upstreamServer((s) => {
      dialed++;
      s.write(encodeResponse(1, frame));
    });
    const relay = await relayWithCloses(port, { maxConnections: 2 });
    const held = [connectClient(relay.port), connectClient(relay.port)];
    await until(() => held.every((h) => h.socket.bytesRead > 0));
    const refused = await Promise.all([client(relay.port), client(relay.port), client(relay.port)]);
    expect(refused.map((g) => `${g.bytes.length} ${g.ended}`)).toEqual(['0 ECONNRESET', '0 ECONNRESET', '0 ECONNRESET']);
    expect([dialed, relay.server.stats.connectionsRefused, relay.server.stats.connectionsTotal, relay.server.stats.connectionsOpen]).toEqual([
      2, 3, 2, 2,
    ]);
    for (const h of held) h.socket.resetAndDestroy();
    await until(() => relay.server.stats.connectionsOpen === 0);
    // With those gone, the next client is served.
    const again = connectClient(relay.port);
    await until(() => again.socket.bytesRead > 0);
    again.socket.resetAndDestroy();
    expect([dialed, relay.server.stats.connectionsRefused]).toEqual([3, 3]);
  });

  it('reset() resets every open connection at once, with no finishes', async () => {
    const port = await upstreamServer((s) => s.write(encodeResponse(1, frame)));
    const relay = await relayWithCloses(port, {});
    const c = connectClient(relay.port);
    await until(() => c.socket.bytesRead === 9 + frame.length);
    expect(relay.server.reset()).toBe(1);
    const got = await c.done;
    expect([hex(got.bytes), got.ended]).toEqual([hex(encodeResponse(1, frame)), 'ECONNRESET']);
  });
});

async function until(what: () => boolean): Promise<void> {
  while (!what()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the TCP relay when the client is slow, or its own callback fails', () => {
  // 300 answers of 60 KB behind one channel left open: far more than the kernel buffers hold, so a client
  // that stops reading makes the relay stop reading upstream.
  const big = listResources.encode({ kind: 'result', result: { resources: [], _meta: { text: 'a'.repeat(60_000) } } });
  const flood = Buffer.concat([
    encodeResponse(99, frame),
    ...Array.from({ length: 300 }, () => Buffer.concat([encodeResponse(1, big), encodeFinish(1)])),
  ]);

  it('a client that stops reading is not upstream going silent: no idle timeout while the relay waits on the client', async () => {
    const port = await upstreamServer((s) => s.end(Buffer.concat([flood, encodeFinish(99)])));
    const relay = await relayTo(port, { idleTimeout: 300 });
    const c = connectClient(relay.port);
    c.socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    c.socket.resume();
    const got = await c.done;
    expect(relay.faults).toEqual([]);
    expect(got.ended).toBe('end');
    expect(got.bytes.length).toBe(flood.length + 9);
  });

  it('a drain ends a connection whose client has stopped reading: the drain timeout, then a reset after a bounded wait', async () => {
    const port = await upstreamServer((s) => {
      s.on('error', () => {});
      s.write(flood);
    });
    const faults: ConnectionFault[] = [];
    const server = createTcpRelay({ upstream: { host: '127.0.0.1', port }, onFault: (f) => faults.push(f) });
    const relayPort = await listen(server);
    const c = connectClient(relayPort);
    c.socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Before, the reset waited for the last write to leave the process, which a client that does not read never lets happen.
    expect(await server.drain(200)).toEqual({ connections: 1, cut: 1 });
    // The drain timeout, then an incomplete for each channel open then: 99, and 1 if the relay stopped inside its exchange.
    expect(faults[0]).toEqual({ reason: 'drain-timeout', afterMs: 200 });
    expect(faults.slice(1).map((f) => f.reason)).toEqual(faults.length === 2 ? ['incomplete'] : ['incomplete', 'incomplete']);
    expect(faults).toContainEqual({ reason: 'incomplete', channel: 99, offset: 0 });
    // The reset dropped what the relay still had queued: the client reads what its own kernel had taken, and no
    // more (Linux then reports the end of the stream, not the reset, to a reader that had data waiting).
    c.socket.resume();
    const got = await c.done;
    expect(got.bytes.length).toBeLessThan(flood.length / 4);
    expect(['end', 'ECONNRESET']).toContain(got.ended);
  });

  it('an onFault that throws fails that connection (its finishes, then a reset), and the relay serves the next one', async () => {
    const broken = Uint8Array.of(0, 0x7b);
    const port = await upstreamServer((s) =>
      s.end(
        Buffer.concat([
          encodeResponse(1, frame),
          encodeFinish(1),
          encodeResponse(2, broken),
          encodeFinish(2),
          encodeResponse(3, frame),
          encodeFinish(3),
        ]),
      ),
    );
    let calls = 0;
    const closes: unknown[] = [];
    let bothClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      bothClosed = resolve;
    });
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port },
      onFault: () => {
        if (++calls === 1) throw new Error('the logger broke');
      },
      onClose: (_id, error) => {
        if (closes.push(error) === 2) bothClosed();
      },
    });
    const relayPort = await listen(server);
    // Before, the throw left the socket's 'data' handler and took the process down.
    const first = await client(relayPort);
    expect(first.ended).toBe('ECONNRESET');
    expect(hex(first.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeFinish(2)])));
    const second = await client(relayPort);
    expect(second.ended).toBe('end');
    expect(hex(second.bytes)).toBe(
      hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeFinish(2), encodeResponse(3, frame), encodeFinish(3)])),
    );
    await closed;
    expect(closes).toEqual([new Error('the logger broke'), null]);
  });
});
