// Read buffers reused across reads: the pool's bounds, and that a relay
// reading into them gives each slab back only once nothing refers to it.
// A slab given back too early is read into again while its old bytes are
// still queued for the output: the output then differs from the input.

import net from 'node:net';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { pipeRelay, pipeWith } from '../src/relay/pipe.js';
import { createTcpRelay } from '../src/relay/tcp.js';
import { giveSlab, LARGE_SLAB_SIZE, SLAB_BYTES_KEPT, SLAB_SIZE, slabCounts, takeSlab } from '../src/streams/read-slabs.js';
import { closeListening, connectClient, listen } from './support/tcp-client.js';

const json = (value: unknown) => Buffer.concat([Uint8Array.of(0), Buffer.from(JSON.stringify(value))]);

/** A seeded stream: small listings, blobs cut across several slabs, broken frames, second responses and finishes. */
function mixedStream(seed: number, exchanges: number): Buffer {
  let x = seed;
  const next = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x % n;
  };
  const parts: Uint8Array[] = [];
  for (let ch = 1; ch <= exchanges; ch++) {
    const kind = next(10);
    if (kind < 6) parts.push(encodeResponse(ch, json({ resources: [{ uri: `file:///${ch}`, name: `r${ch}` }] })));
    else if (kind < 8) parts.push(encodeResponse(ch, json({ contents: [{ uri: 'b', blob: 'QUJD'.repeat(10_000 + next(60_000)) }] })));
    else if (kind < 9) parts.push(encodeResponse(ch, Uint8Array.of(0, 0x7b)));
    else parts.push(encodeResponse(ch, json({ a: ch })), encodeResponse(ch, json({ b: ch })));
    parts.push(encodeFinish(ch));
  }
  return Buffer.concat(parts);
}

/** A readable of `stream` whose chunks are views of slabs, of seeded lengths up to a slab. */
function slabReader(stream: Buffer, seed: number): Readable {
  let at = 0;
  let x = seed;
  return new Readable({
    highWaterMark: SLAB_SIZE,
    read() {
      if (at === stream.length) return void this.push(null);
      x = (Math.imul(x, 69069) + 1) >>> 0;
      const length = Math.min(stream.length - at, x % 3 === 0 ? SLAB_SIZE : 1 + (x % SLAB_SIZE));
      const slab = takeSlab();
      slab.set(stream.subarray(at, at + length));
      at += length;
      this.push(slab.subarray(0, length));
    },
  });
}

/**
 * A writable that reads what it was given late, as a kernel may: each
 * write's bytes are copied only when it completes, a turn of the event
 * loop later for every other write and at once for the rest.
 */
function lateReader(): { sink: Writable; bytes: () => Buffer } {
  const got: Buffer[] = [];
  let k = 0;
  const sink = new Writable({
    highWaterMark: 256 * 1024,
    write(chunk: Uint8Array, _encoding, done) {
      if (k++ % 2 === 0) {
        got.push(Buffer.from(chunk));
        done();
      } else
        setImmediate(() => {
          got.push(Buffer.from(chunk));
          done();
        });
    },
  });
  return { sink, bytes: () => Buffer.concat(got) };
}

/** `stream` in ordinary chunks of 50,000 bytes, each a buffer of its own. */
function plainChunks(stream: Buffer): Buffer[] {
  const chunks = [];
  for (let at = 0; at < stream.length; at += 50_000) chunks.push(Buffer.from(stream.subarray(at, at + 50_000)));
  return chunks;
}

/** Every free slab of both sizes, taken out of the pool. */
function takeFreeSlabs(): Uint8Array[] {
  return [...Array.from({ length: slabCounts().free }, () => takeSlab()), ...Array.from({ length: slabCounts(true).free }, () => takeSlab(true))];
}

/** What pipeRelay forwards of `stream` fed in ordinary chunks of its own. */
async function forwardedPlainly(stream: Buffer): Promise<Buffer> {
  const got: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      got.push(Buffer.from(chunk));
      done();
    },
  });
  const end = await pipeRelay(Readable.from(plainChunks(stream)), sink, { onFault: () => {} }).done;
  expect(end.end).toBe('ended');
  return Buffer.concat(got);
}

describe('the read slab pool', () => {
  it(`keeps at most ${SLAB_BYTES_KEPT / 2 ** 20} MiB of free slabs, of both sizes together, each once, and nothing of another size`, () => {
    // Free slabs left by the tests before are taken out of the way.
    const aside = takeFreeSlabs();
    const made = [slabCounts().made, slabCounts(true).made];
    const smallKept = SLAB_BYTES_KEPT / SLAB_SIZE;
    const small = Array.from({ length: smallKept + 8 }, () => takeSlab());
    expect(small.every((slab) => slab.length === SLAB_SIZE)).toBe(true);
    expect(slabCounts().made - made[0]).toBe(smallKept + 8);
    // Given back twice while there is room: kept once.
    giveSlab(small[0].buffer);
    giveSlab(small[0].buffer);
    expect(slabCounts().free).toBe(1);
    for (const slab of small.slice(1)) giveSlab(slab.buffer);
    giveSlab(new ArrayBuffer(100));
    giveSlab(new ArrayBuffer(SLAB_SIZE * 2));
    giveSlab(new ArrayBuffer(LARGE_SLAB_SIZE * 2));
    expect(slabCounts().free).toBe(smallKept);
    // Taken again: the same memory, no fresh slab, and no slab handed out twice.
    const again = new Set(Array.from({ length: smallKept }, () => takeSlab().buffer));
    expect(again.size).toBe(smallKept);
    expect(slabCounts()).toEqual({ free: 0, made: made[0] + smallKept + 8 });
    for (const buffer of again) giveSlab(buffer);
    // The bound full of small slabs: each large one given back lets four small ones go.
    const largeKept = SLAB_BYTES_KEPT / LARGE_SLAB_SIZE;
    const large = Array.from({ length: largeKept + 8 }, () => takeSlab(true));
    expect(large.every((slab) => slab.length === LARGE_SLAB_SIZE)).toBe(true);
    for (const slab of large.slice(0, 8)) giveSlab(slab.buffer);
    expect([slabCounts().free, slabCounts(true).free]).toEqual([smallKept - 32, 8]);
    // Once no small one is left, a large one past the bound is let go itself.
    for (const slab of large.slice(8)) giveSlab(slab.buffer);
    expect([slabCounts().free, slabCounts(true).free]).toEqual([0, largeKept]);
    expect(slabCounts(true).made - made[1]).toBe(largeKept + 8);
    for (const slab of aside) giveSlab(slab.buffer);
  });
});

describe('a relay reading into slabs', () => {
  it('forwards exactly what it forwards from ordinary chunks, to an output that reads each write late', async () => {
    const stream = mixedStream(7, 300);
    const expected = await forwardedPlainly(stream);
    for (const seed of [1, 2, 3]) {
      const { sink, bytes } = lateReader();
      const end = await pipeWith(slabReader(stream, seed), sink, { onFault: () => {} }, { slabs: true }).done;
      expect(end.end).toBe('ended');
      await new Promise((resolve) => sink.end(resolve));
      expect(bytes().equals(expected), `seed ${seed}`).toBe(true);
    }
  });

  it('gives no slab back while a relay stopped mid-chunk by a throwing onFault still has views of it to send', async () => {
    const stream = mixedStream(23, 300);
    /** An output that takes each write at once until `late`, then a turn of the event loop later, as a kernel may. */
    const output = () => {
      const got: Buffer[] = [];
      const state = { late: false };
      const sink = new Writable({
        highWaterMark: 256 * 1024,
        write(chunk: Uint8Array, _encoding, done) {
          if (!state.late) {
            got.push(Buffer.from(chunk));
            return done();
          }
          setImmediate(() => {
            got.push(Buffer.from(chunk));
            done();
          });
        },
      });
      return { sink, state, bytes: () => Buffer.concat(got) };
    };
    // The n-th fault throws; from then on the output reads its writes late.
    const throwing = (n: number, state: { late: boolean }) => {
      let faults = 0;
      return () => {
        if (++faults < n) return;
        state.late = true;
        throw new Error('stop');
      };
    };
    const chunks = plainChunks(stream);
    for (let n = 1; n <= 10; n++) {
      const plain = output();
      expect((await pipeRelay(Readable.from(chunks), plain.sink, { onFault: throwing(n, plain.state) }).done).end).toBe('relay-error');
      await new Promise((resolve) => plain.sink.end(resolve));
      const expected = plain.bytes();
      for (const seed of [1, 2, 3]) {
        const { sink, state, bytes } = output();
        const end = await pipeWith(slabReader(stream, seed), sink, { onFault: throwing(n, state) }, { slabs: true }).done;
        expect(end.end).toBe('relay-error');
        // Every free slab is read into at once, as the next connection's reads would, before the late writes are read.
        const free = takeFreeSlabs();
        for (const slab of free) slab.fill(0xee);
        for (const slab of free) giveSlab(slab.buffer);
        await new Promise((resolve) => sink.end(resolve));
        expect(bytes().equals(expected), `fault ${n}, seed ${seed}`).toBe(true);
      }
    }
  });

  it('gives every slab back: a second pass over the stream makes no fresh slab', async () => {
    const stream = mixedStream(11, 200);
    const pass = async () => {
      const { sink } = lateReader();
      await pipeWith(slabReader(stream, 5), sink, { onFault: () => {} }, { slabs: true }).done;
      await new Promise((resolve) => sink.end(resolve));
    };
    // Free slabs left by the tests before are taken out of the way, so that the first pass makes what it needs.
    const aside = Array.from({ length: slabCounts().free }, () => takeSlab());
    const before = slabCounts().made;
    await pass();
    const warm = slabCounts().made;
    await pass();
    await pass();
    expect(slabCounts().made).toBe(warm);
    // What one pass needs lent out at once: the output's high-water mark (256 KiB) and the longest record cut
    // across slabs (280 KB), in chunks that fill about half a slab each here, and the reader's own two.
    expect(warm - before).toBeLessThanOrEqual(24);
    for (const slab of aside) giveSlab(slab.buffer);
  });

  it('through the TCP relay: every connection gets its stream whole, and after the first none makes a fresh slab', async () => {
    const stream = mixedStream(13, 150);
    const expected = await forwardedPlainly(stream);
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      s.end(stream);
    });
    const server = createTcpRelay({ upstream: { host: '127.0.0.1', port: await listen(upstream) } });
    const port = await listen(server);
    // Slabs of both sizes: a read that fills a small one is followed by reads into large ones.
    const made = () => slabCounts().made + slabCounts(true).made;
    try {
      const first = await connectClient(port).done;
      expect([first.bytes.equals(expected), first.ended]).toEqual([true, 'end']);
      const warm = made();
      // Six at once may need more slabs than one did, of either size (how much a read finds waiting varies); after
      // three such waves, six more at once need none.
      for (let wave = 0; wave < 3; wave++) {
        const rest = await Promise.all(Array.from({ length: 6 }, () => connectClient(port).done));
        for (const got of rest) expect([got.bytes.equals(expected), got.ended]).toEqual([true, 'end']);
      }
      const six = made();
      const last = await Promise.all(Array.from({ length: 6 }, () => connectClient(port).done));
      for (const got of last) expect(got.bytes.equals(expected)).toBe(true);
      expect(made()).toBe(six);
      expect(six).toBeGreaterThanOrEqual(warm);
    } finally {
      await closeListening();
    }
  });

  it('through the TCP relay: a fast upstream is read in large slabs, more than a small slab a read on average', async () => {
    const stream = Buffer.concat(Array.from({ length: 40 }, (_, k) => mixedStream(17 + k, 40)));
    const expected = await forwardedPlainly(stream);
    const upstream = net.createServer((s) => {
      s.on('error', () => {});
      s.end(stream);
    });
    const server = createTcpRelay({ upstream: { host: '127.0.0.1', port: await listen(upstream) }, onFault: () => {} });
    const port = await listen(server);
    try {
      const got = await connectClient(port).done;
      expect([got.bytes.equals(expected), got.ended]).toEqual([true, 'end']);
      const { chunksIn, bytesIn } = server.stats;
      expect(bytesIn).toBe(stream.length);
      expect(bytesIn / chunksIn).toBeGreaterThan(SLAB_SIZE);
    } finally {
      await closeListening();
    }
  });
});
