// The TCP relay as an operator sees it from the library: live counters over every connection, an event per
// connection, and drain(): stop accepting, let connections end, then finishes and a reset for the rest.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { VALIDATION_BUCKETS } from '../src/relay/relay.js';
import { type ConnectionFault, type ConnectionSummary, createTcpRelay, type TcpRelay } from '../src/relay/tcp.js';
import { closeListening, connectClient, knownFaults, listen } from './support/tcp-client.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const broken = Uint8Array.of(0, 0x7b); // a tag, then '{' and nothing more
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);

afterEach(closeListening);

async function relayTo(upstreamPort: number, extra: Partial<Parameters<typeof createTcpRelay>[0]> = {}) {
  const faults: Array<{ fault: ConnectionFault; connection: number }> = [];
  const opened: Array<{ connection: number; remote: string }> = [];
  const closed: ConnectionSummary[] = [];
  const server: TcpRelay = createTcpRelay({
    upstream: { host: '127.0.0.1', port: upstreamPort },
    onFault: (fault, connection) => faults.push({ fault, connection }),
    onOpen: (connection, remote) => opened.push({ connection, remote }),
    onClose: (_connection, _error, summary) => closed.push(summary),
    ...extra,
  });
  return { server, port: await listen(server), faults, opened, closed };
}

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('createTcpRelay: counters and connection events', () => {
  it('counts bytes, records, faults and upstream failures over every connection, live and closed', async () => {
    // Connections 1 and 2: a known stream with a frame error, a sequence violation and a channel left open.
    // Connection 3: two responses, then a reset.
    const { stream, forwarded } = knownFaults(frame, broken);
    let n = 0;
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      if (++n <= 2) s.end(stream);
      else s.write(cat(encodeResponse(7, frame), encodeResponse(8, frame)), () => setTimeout(() => s.resetAndDestroy(), 20));
    });
    const relay = await relayTo(await listen(upstream));
    for (const k of [1, 2]) {
      const got = await connectClient(relay.port).done;
      expect([hex(got.bytes), got.ended], `connection ${k}`).toEqual([hex(forwarded), 'end']);
    }
    const reset = await connectClient(relay.port).done;
    expect(reset.ended).toBe('ECONNRESET');
    await until(() => relay.closed.length === 3);

    const stats = relay.server.stats;
    expect(stats.connectionsTotal).toBe(3);
    expect(stats.connectionsOpen).toBe(0);
    const resetIn = 2 * (9 + frame.length);
    expect(stats.bytesIn).toBe(2 * stream.length + resetIn);
    expect(stats.bytesOut).toBe(2 * forwarded.length + resetIn + 18);
    expect([stats.responsesIn, stats.finishesIn, stats.responsesOut, stats.finishesOut]).toEqual([2 * 5 + 2, 2 * 3, 2 * 3 + 2, 2 * 4 + 2]);
    expect(stats.faultsByReason).toEqual({ 'frame-error': 2, 'sequence-violation': 2, incomplete: 2 + 2, 'upstream-error': 1 });
    expect(stats.faults).toBe(9);
    expect(stats.upstreamFailures).toEqual({ reset: 1 });
    expect([stats.openChannels, stats.heldBytes]).toEqual([0, 0]);
    // Every response read is in the histogram once, at its chunk's share of the time.
    expect(stats.validationBuckets).toHaveLength(VALIDATION_BUCKETS.length + 1);
    expect(stats.validationBuckets.reduce((a, b) => a + b, 0)).toBe(stats.responsesIn);
    expect(stats.validationSeconds).toBeGreaterThan(0);

    expect(relay.opened.map((o) => o.connection)).toEqual([1, 2, 3]);
    expect(relay.opened[0].remote).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(relay.closed.map((c) => [c.connection, c.end, c.bytesIn, c.bytesOut, c.recordsIn, c.recordsOut, c.faults])).toEqual([
      [1, 'ended', stream.length, forwarded.length, 8, 7, 3],
      [2, 'ended', stream.length, forwarded.length, 8, 7, 3],
      [3, 'failed', resetIn, resetIn + 18, 2, 4, 3],
    ]);
    expect(relay.closed.every((c) => c.durationMs >= 0 && c.remote === relay.opened[c.connection - 1].remote)).toBe(true);
  });

  it('reads open channels and held bytes live, while connections are open', async () => {
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      s.write(cat(encodeResponse(1, frame), encodeResponse(2, frame), encodeFinish(1)));
    });
    const relay = await relayTo(await listen(upstream));
    const a = connectClient(relay.port);
    const b = connectClient(relay.port);
    await until(() => relay.server.stats.responsesIn === 4);
    expect(relay.server.stats).toMatchObject({ connectionsOpen: 2, openChannels: 2, heldBytes: 2 * frame.length, finishesOut: 2 });
    // A reset, not a FIN: a FIN would be passed upstream, which would end, and the relay with it.
    a.socket.resetAndDestroy();
    b.socket.resetAndDestroy();
    await until(() => relay.server.stats.connectionsOpen === 0);
    expect(relay.closed.map((c) => c.end)).toEqual(['client-gone', 'client-gone']);
    expect(relay.server.stats.openChannels).toBe(0);
  });
});

describe('createTcpRelay: drain()', () => {
  it('lets connections that end in time end cleanly, and gives the rest their finishes and a reset', async () => {
    // Upstream connection k answers channel 100 + k and holds it open until told.
    const held: net.Socket[] = [];
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      const k = held.push(s);
      s.write(cat(encodeResponse(k, frame), encodeFinish(k), encodeResponse(100 + k, frame)));
    });
    const relay = await relayTo(await listen(upstream));
    const clients = Array.from({ length: 6 }, () => connectClient(relay.port));
    await until(() => relay.server.stats.openChannels === 6);

    const draining = relay.server.drain(300);
    expect(relay.server.drain(300)).toBe(draining);
    // Half the upstreams finish their exchange and end, inside the drain timeout.
    for (const [k, s] of held.entries()) if (k % 2 === 0) s.end(encodeFinish(100 + k + 1));
    const result = await draining;
    expect(result).toEqual({ connections: 6, cut: 3 });

    const got = await Promise.all(clients.map((c) => c.done));
    for (const { bytes, ended } of got) {
      // Which upstream a client got is the channel it was answered on.
      const k = bytes[1];
      const want = cat(encodeResponse(k, frame), encodeFinish(k), encodeResponse(100 + k, frame), encodeFinish(100 + k));
      expect(hex(bytes), `client of upstream ${k}`).toBe(hex(want));
      expect(ended, `client of upstream ${k}`).toBe(k % 2 === 1 ? 'end' : 'ECONNRESET');
    }
    const cut = relay.faults.filter((f) => f.fault.reason === 'drain-timeout');
    expect(cut.map((f) => f.fault)).toEqual(Array(3).fill({ reason: 'drain-timeout', afterMs: 300 }));
    // Each cut connection's open channel is reported incomplete, after the drain fault.
    for (const { connection } of cut) {
      expect(relay.faults.filter((f) => f.connection === connection).map((f) => f.fault.reason)).toEqual(['drain-timeout', 'incomplete']);
    }
    expect(relay.closed.map((c) => c.end).sort()).toEqual(['drained', 'drained', 'drained', 'ended', 'ended', 'ended']);
    expect(relay.server.listening).toBe(false);
    expect(relay.server.stats.faultsByReason['drain-timeout']).toBe(3);
  });

  it('ends each idle connection at once: cleanly after an exchange, with a reset before any; only work in flight is waited for', async () => {
    // Upstream: an idle connection says nothing; a used one has had one exchange, answered at once; a busy one has a
    // channel open, finished 300 ms into the drain; one whose client asks something answers it 200 ms after the
    // question (the relay cannot know a question is pending but by the client's bytes since upstream's last).
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      s.once('data', (d: Buffer) => {
        const ask = d.toString();
        if (ask === 'once') s.write(cat(encodeResponse(3, frame), encodeFinish(3)));
        else if (ask === 'busy') {
          s.write(encodeResponse(7, frame));
          setTimeout(() => s.end(encodeFinish(7)), 600);
        } else if (ask === 'ask') setTimeout(() => s.end(cat(encodeResponse(9, frame), encodeFinish(9))), 500);
      });
    });
    const relay = await relayTo(await listen(upstream));
    const idle = Array.from({ length: 10 }, () => connectClient(relay.port));
    const used = Array.from({ length: 10 }, () => connectClient(relay.port, new TextEncoder().encode('once')));
    const busy = Array.from({ length: 2 }, () => connectClient(relay.port));
    for (const c of busy) c.socket.write('busy');
    await until(() => relay.server.stats.openChannels === 2 && relay.server.stats.connectionsOpen === 22 && relay.server.stats.finishesOut === 10);
    const asking = connectClient(relay.port);
    await until(() => relay.server.stats.connectionsOpen === 23);
    asking.socket.write('ask');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Idle connections held a 30 s drain to its end, and each was cut with an error-level fault.
    const result = await relay.server.drain(30_000);
    expect(result).toEqual({ connections: 23, cut: 0 });
    // Nothing carried yet: a clean end would read as an empty, complete answer (WIRE.md section 7).
    for (const { ended, bytes } of await Promise.all(idle.map((c) => c.done))) expect([ended, bytes.length]).toEqual(['ECONNRESET', 0]);
    for (const { ended, bytes } of await Promise.all(used.map((c) => c.done)))
      expect([ended, hex(bytes)]).toEqual(['end', hex(cat(encodeResponse(3, frame), encodeFinish(3)))]);
    for (const { ended, bytes } of await Promise.all(busy.map((c) => c.done)))
      expect([ended, hex(bytes)]).toEqual(['end', hex(cat(encodeResponse(7, frame), encodeFinish(7)))]);
    expect(hex((await asking.done).bytes)).toBe(hex(cat(encodeResponse(9, frame), encodeFinish(9))));
    expect(relay.faults).toEqual([]);
  });

  it('with no connection open resolves at once, and no longer accepts', async () => {
    const upstream = net.createServer((s) => s.end());
    const relay = await relayTo(await listen(upstream));
    expect(await relay.server.drain()).toEqual({ connections: 0, cut: 0 });
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(relay.port, '127.0.0.1');
      s.on('connect', () => resolve('connected'));
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? ''));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('refuses a drain timeout that is not milliseconds', () => {
    const relay = createTcpRelay({ upstream: { host: '127.0.0.1', port: 1 } });
    expect(() => relay.drain(-1)).toThrow(RangeError);
  });
});
