// The TCP relay under load and under faults, run as an operator runs it (WIRE.md section 7): many clients at once,
// slow readers, stalls inside records, garbage, a worker killed with SIGKILL, SIGTERM under load, idle and
// half-closed connections, the connection bound. Each case checks what every client got (byte for byte, or a reset
// where a fault happened: never a clean end of a cut stream) and that the relay's descriptors come back.
//
// The sizes here keep each case to a few seconds; `npm run soak` runs the same cases larger (MCP_FRAMES_SOAK=1).

import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { type ClientResult, connectClient } from './support/tcp-client.js';
import { type RelayProcess, scrape, startRelay, until, upstreamServer } from './support/relay-process.js';

const SOAK = process.env.MCP_FRAMES_SOAK === '1';
/** `small` in `npm test`, `large` in `npm run soak`. */
const size = (small: number, large: number) => (SOAK ? large : small);
const linux = process.platform === 'linux';
const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

/** The frame upstream connection k answers with: it names k, so a client can tell whose stream it has. */
const frameOf = (k: number) => listResources.encode({ kind: 'result', result: { resources: [], _meta: { k } } });
/** Exchange `ch` of upstream connection k: its response and its finish. */
const exchange = (k: number, ch: number) => cat(encodeResponse(ch, frameOf(k)), encodeFinish(ch));
/** The whole stream of upstream connection k: `n` exchanges. */
const streamOf = (k: number, n: number) => cat(...Array.from({ length: n }, (_, ch) => exchange(k, ch + 1)));
/** Which upstream connection a client's bytes came from: the k its first frame names. */
const whose = (bytes: Buffer) => (JSON.parse(bytes.subarray(10, 9 + bytes.readUInt32LE(5)).toString()) as { _meta: { k: number } })._meta.k;

async function relay(upstreamPort: number, flags: string[]): Promise<RelayProcess> {
  const r = await startRelay(upstreamPort, flags);
  cleanup.push(r.kill);
  return r;
}

async function upstream(behave: (socket: net.Socket, k: number) => void) {
  const u = await upstreamServer(behave);
  cleanup.push(u.close);
  return u.port;
}

/** The relay's descriptors with no client connected, once each worker has served a connection (a first connection may open some for good). */
async function baseline(r: RelayProcess, workers: number): Promise<number> {
  for (let k = 0; k < workers; k++) await connectClient(r.port).done;
  await until(() => r.lines().filter((l) => l.event === 'close').length >= workers);
  return r.fds();
}

/** Resolves once the relay's processes hold exactly `count` descriptors. */
const fdsReach = (r: RelayProcess, count: number) => until(() => r.fds() === count);

describe.runIf(linux)('the relay under load', () => {
  for (const workers of [1, 2]) {
    it(`many clients at once, each byte for byte, and every descriptor back (--workers ${workers})`, async () => {
      const clients = size(200, 1000);
      const exchanges = size(20, 50);
      const port = await upstream((s, k) => s.end(streamOf(k, exchanges)));
      const r = await relay(port, ['--workers', String(workers), '--log-level', 'info']);
      const base = await baseline(r, workers);
      const got = await Promise.all(Array.from({ length: clients }, () => connectClient(r.port).done));
      const seen = new Set<number>();
      for (const g of got) {
        const k = whose(g.bytes);
        seen.add(k);
        expect(g.ended).toBe('end');
        expect(hex(g.bytes)).toBe(hex(streamOf(k, exchanges)));
      }
      expect(seen.size).toBe(clients);
      await fdsReach(r, base);
    });
  }

  it('slow readers beside fast ones: every client byte for byte, and backpressure holds upstream back', async () => {
    const slow = size(10, 50);
    const fast = size(40, 200);
    // 32 answers of 40 KB: more than the kernel buffers hold, so a slow reader makes the relay pause upstream.
    const big = (k: number) => listResources.encode({ kind: 'result', result: { resources: [], _meta: { k, text: 'x'.repeat(40_000) } } });
    const streamBig = (k: number) => cat(...Array.from({ length: 32 }, (_, ch) => cat(encodeResponse(ch + 1, big(k)), encodeFinish(ch + 1))));
    const port = await upstream((s, k) => s.end(streamBig(k)));
    const r = await relay(port, ['--log-level', 'info']);
    const base = await baseline(r, 1);
    const slowClients = Array.from({ length: slow }, () => {
      const c = connectClient(r.port);
      // Reads a chunk, then pauses a while: far slower than upstream writes.
      c.socket.on('data', () => {
        c.socket.pause();
        setTimeout(() => c.socket.resume(), 5);
      });
      return c.done;
    });
    const fastClients = Array.from({ length: fast }, () => connectClient(r.port).done);
    for (const g of await Promise.all([...fastClients, ...slowClients])) {
      expect(g.ended).toBe('end');
      expect(hex(g.bytes)).toBe(hex(streamBig(whose(g.bytes))));
    }
    expect(r.lines().filter((l) => l.event === 'fault')).toEqual([]);
    await fdsReach(r, base);
  });

  it('a stall inside a record times out: whole exchanges, then a reset, and one idle fault per client', async () => {
    const clients = size(50, 200);
    // Five whole exchanges, then channel 6's header and half its payload, then nothing; every second
    // connection first opens channel 99 (already timed before), every other has no channel open at all.
    const stalled = (k: number) => {
      const six = encodeResponse(6, frameOf(k));
      return cat(k % 2 === 0 ? encodeResponse(99, frameOf(k)) : new Uint8Array(0), streamOf(k, 5), six.subarray(0, 9 + (six.length - 9) / 2));
    };
    const port = await upstream((s, k) => s.write(stalled(k)));
    const r = await relay(port, ['--idle-timeout', '0.5', '--log-level', 'info']);
    const base = await baseline(r, 0);
    const got = await Promise.all(Array.from({ length: clients }, () => connectClient(r.port).done));
    for (const g of got) {
      expect(g.ended).toBe('ECONNRESET');
      const k = g.bytes.readUInt32LE(1) === 99 ? Number.NaN : whose(g.bytes);
      if (Number.isNaN(k)) {
        // Channel 99's response, the five exchanges, and the finish the relay gave channel 99.
        const k99 = (JSON.parse(g.bytes.subarray(10, 9 + g.bytes.readUInt32LE(5)).toString()) as { _meta: { k: number } })._meta.k;
        expect(hex(g.bytes)).toBe(hex(cat(encodeResponse(99, frameOf(k99)), streamOf(k99, 5), encodeFinish(99))));
      } else {
        expect(hex(g.bytes)).toBe(hex(streamOf(k, 5)));
      }
    }
    await until(() => r.lines().filter((l) => l.event === 'close').length === clients);
    const timeouts = r.lines().filter((l) => l.reason === 'upstream-timeout');
    expect(timeouts).toHaveLength(clients);
    expect(timeouts.every((l) => l.phase === 'idle' && l.afterMs === 500 && l.level === 'error')).toBe(true);
    expect(r.lines().filter((l) => l.event === 'close' && l.end === 'failed')).toHaveLength(clients);
    await fdsReach(r, base);
  });

  it('garbage from upstream: each client gets a reset, never a clean end, and one record error each', async () => {
    const upstreams = size(100, 500);
    // A bad kind byte first, then bytes from a fixed generator: the first record is already an error.
    const garbage = (k: number) => {
      const b = Buffer.alloc(64 + (k % 64));
      let x = k * 2654435761;
      for (let i = 0; i < b.length; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        b[i] = x >>> 24;
      }
      b[0] = 7;
      return b;
    };
    const port = await upstream((s, k) => s.end(garbage(k)));
    const r = await relay(port, ['--log-level', 'info']);
    const base = await baseline(r, 0);
    const got = await Promise.all(Array.from({ length: upstreams }, () => connectClient(r.port).done));
    expect(got.map((g) => `${g.bytes.length} ${g.ended}`)).toEqual(got.map(() => '0 ECONNRESET'));
    await until(() => r.lines().filter((l) => l.event === 'close').length === upstreams);
    expect(r.lines().filter((l) => l.reason === 'bad-kind')).toHaveLength(upstreams);
    await fdsReach(r, base);
  });
});

describe.runIf(linux)('the relay when a worker is killed', () => {
  it('SIGKILL of a worker mid-stream: its clients are reset, none sees a clean end of a cut stream, the others finish byte for byte', async () => {
    const clients = size(100, 400);
    const exchanges = 100;
    // Each upstream connection sends one exchange every 10 ms, then ends: streams in flight for about a second.
    const port = await upstream((s, k) => {
      let ch = 0;
      const timer = setInterval(() => {
        if (s.destroyed) return clearInterval(timer);
        s.write(exchange(k, ++ch));
        if (ch === exchanges) {
          clearInterval(timer);
          s.end();
        }
      }, 10);
      s.on('close', () => clearInterval(timer));
    });
    const r = await relay(port, ['--workers', '2', '--log-level', 'info']);
    const pids = r.pids();
    expect(pids).toHaveLength(3);
    const conns = Array.from({ length: clients }, () => {
      const c = connectClient(r.port);
      let received = 0;
      c.socket.on('data', (d) => {
        received += d.length;
      });
      return { c, received: () => received };
    });
    // Every client is mid-stream: it has at least ten exchanges, and its stream is far from done.
    const ten = exchange(0, 1).length * 10;
    await until(() => conns.every((x) => x.received() >= ten));
    process.kill(pids[1], 'SIGKILL');
    const got: ClientResult[] = await Promise.all(conns.map((x) => x.c.done));

    const exit = await r.line((l) => l.event === 'worker-exit');
    let whole = 0;
    let reset = 0;
    /** Clients that saw a clean end of a stream cut short: each one a failure read as an answer. */
    const cutClean: number[] = [];
    for (const g of got) {
      const k = whose(g.bytes);
      const want = streamOf(k, exchanges);
      // Whatever a client got is a prefix of its stream.
      expect(want.subarray(0, g.bytes.length).equals(g.bytes), `client of upstream ${k}: a prefix of its stream`).toBe(true);
      if (g.ended === 'end' && g.bytes.length === want.length) whole++;
      else if (g.ended === 'end') cutClean.push(k);
      else if (g.ended === 'ECONNRESET') reset++;
    }
    console.log(
      `SIGKILL of a worker: ${clients} clients, ${whole} whole streams with a clean end, ${reset} reset, ${cutClean.length} cut streams that ended cleanly`,
    );
    expect(cutClean).toEqual([]);
    expect(whole + reset).toBe(clients);
    // The primary reset exactly the killed worker's connections, and the surviving worker finished the rest.
    expect(exit).toMatchObject({ level: 'error', signal: 'SIGKILL', reset });
    expect(reset).toBeGreaterThan(0);
    expect(whole).toBeGreaterThan(0);
    await until(() => r.lines().filter((l) => l.event === 'close' && l.end === 'ended').length === whole);
    r.child.kill('SIGTERM');
    expect(await r.exited).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM under load: every client gets its whole stream or its finishes and a reset; none ends cleanly cut short', async () => {
    const clients = size(60, 300);
    // Connection k answers channel 1 whole and opens channel 2; the odd ones end cleanly once the drain has begun.
    const held: net.Socket[] = [];
    const port = await upstream((s, k) => {
      held[k] = s;
      s.write(cat(exchange(k, 1), encodeResponse(2, frameOf(k))));
    });
    const r = await relay(port, ['--workers', '2', '--drain-timeout', '1', '--log-level', 'info']);
    const conns = Array.from({ length: clients }, () => connectClient(r.port));
    // Every client has channel 1's exchange and channel 2's response: channel 2 is open on every connection.
    const first = exchange(0, 1).length + encodeResponse(2, frameOf(0)).length;
    await until(() => conns.every((c) => c.socket.bytesRead >= first));
    r.child.kill('SIGTERM');
    await until(() => r.lines().filter((l) => l.event === 'drain' && l.worker !== undefined).length === 2);
    for (let k = 1; k <= clients; k += 2) held[k].end(encodeFinish(2));
    const got = await Promise.all(conns.map((c) => c.done));
    expect(await r.exited).toEqual({ code: 0, signal: null });
    for (const g of got) {
      const k = whose(g.bytes);
      // Whether upstream ended or the drain cut it, channel 2 gets its finish; only a clean end upstream is a clean end here.
      expect(hex(g.bytes), `client of upstream ${k}`).toBe(hex(cat(exchange(k, 1), encodeResponse(2, frameOf(k)), encodeFinish(2))));
      expect(g.ended, `client of upstream ${k}`).toBe(k % 2 === 1 ? 'end' : 'ECONNRESET');
    }
  });
});

describe.runIf(linux)('the relay when it exits with connections open', () => {
  it('a second signal resets every open connection of the single process: no client sees a clean end', async () => {
    const clients = size(20, 100);
    const port = await upstream((s, k) => s.write(cat(exchange(k, 1), encodeResponse(2, frameOf(k)))));
    const r = await relay(port, ['--drain-timeout', '600', '--log-level', 'info']);
    const conns = Array.from({ length: clients }, () => connectClient(r.port));
    const first = exchange(0, 1).length + encodeResponse(2, frameOf(0)).length;
    await until(() => conns.every((c) => c.socket.bytesRead >= first));
    r.child.kill('SIGTERM');
    await r.line((l) => l.event === 'drain');
    r.child.kill('SIGTERM');
    expect(await r.exited).toEqual({ code: 143, signal: null });
    const got = await Promise.all(conns.map((c) => c.done));
    // Before, the kernel closed each connection with a FIN as the process exited: channel 2 open, and a clean end.
    expect(got.map((g) => g.ended)).toEqual(got.map(() => 'ECONNRESET'));
    for (const g of got) expect(hex(g.bytes)).toBe(hex(cat(exchange(whose(g.bytes), 1), encodeResponse(2, frameOf(whose(g.bytes))))));
  });
});

describe.runIf(linux)('the relay holds nothing for a connection nobody uses', () => {
  for (const workers of [1, 2]) {
    const idle = workers === 1 ? 500 : size(100, 500);
    const halfClosed = idle;
    it(`${idle} idle and ${halfClosed} half-closed connections are reset, and the descriptors come back to the baseline (--workers ${workers})`, async () => {
      // Upstream takes the connection and never sends; after a client's half-close it keeps its own half open.
      const port = await upstream(() => {});
      const r = await relay(port, ['--workers', String(workers), '--client-idle-timeout', '3', '--log-level', 'warn']);
      const base = await baseline(r, 0);
      const conns = [
        ...Array.from({ length: idle }, () => connectClient(r.port)),
        ...Array.from({ length: halfClosed }, () => {
          const c = connectClient(r.port);
          c.socket.on('connect', () => c.socket.end());
          return c;
        }),
      ];
      // Each connection holds the relay's client descriptor and its upstream's (and the primary's copy, with workers).
      const each = workers === 1 ? 2 : 3;
      let peak = 0;
      await until(() => {
        peak = Math.max(peak, r.fds());
        return peak >= base + each * (idle + halfClosed) || r.lines().some((l) => l.reason === 'client-idle-timeout');
      });
      const got = await Promise.all(conns.map((c) => c.done));
      expect(got.map((g) => `${g.bytes.length} ${g.ended}`)).toEqual(got.map(() => '0 ECONNRESET'));
      await until(() => r.lines().filter((l) => l.reason === 'client-idle-timeout').length === idle + halfClosed);
      await fdsReach(r, base);
      console.log(
        `${idle} idle + ${halfClosed} half-closed (--workers ${workers}): relay fds ${base} at rest, ${peak} at the peak, ${r.fds()} after`,
      );
      expect(
        r
          .lines()
          .filter((l) => l.reason === 'client-idle-timeout')
          .every((l) => l.afterMs === 3000 && l.level === 'error'),
      ).toBe(true);
    });
  }

  for (const workers of ['1', '2']) {
    it(`past --max-connections a new client is reset at once, and counted (--workers ${workers})`, async () => {
      const port = await upstream((s) => s.write(encodeResponse(1, frameOf(0))));
      const r = await relay(port, ['--workers', workers, '--max-connections', '4', '--metrics', '127.0.0.1:0', '--log-level', 'info']);
      const holding = Array.from({ length: 4 }, () => {
        const c = connectClient(r.port);
        let n = 0;
        c.socket.on('data', (d) => {
          n += d.length;
        });
        return { c, n: () => n };
      });
      await until(() => holding.every((h) => h.n() > 0));
      const refused = await Promise.all(Array.from({ length: 3 }, () => connectClient(r.port).done));
      expect(refused).toEqual(refused.map(() => ({ bytes: Buffer.alloc(0), ended: 'ECONNRESET' })));
      const m = await scrape(String(r.first.metrics));
      expect(m.get('mcp_frames_connections_refused_total')).toBe(3);
      expect(m.get('mcp_frames_connections_open')).toBe(4);
      // A reset, not a FIN: a FIN is a half-close, after which the relay still owes the client channel 1's end.
      for (const h of holding) h.c.socket.resetAndDestroy();
      // Once those close, a new client is served again.
      await until(async () => (await scrape(String(r.first.metrics))).get('mcp_frames_connections_open') === 0);
      const again = connectClient(r.port);
      await until(() => again.socket.bytesRead > 0);
      again.socket.resetAndDestroy();
      r.child.kill('SIGTERM');
      expect(await r.exited).toEqual({ code: 0, signal: null });
    });
  }
});
