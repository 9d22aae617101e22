// Memory that outlives one record stream: the held-record spares and the core pool, each bounded, each reused by the streams after.

import { describe, expect, it } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { HeldRecord, spareBuffers } from '../src/records/held-record.js';
import { CorePool } from '../src/backend/wasm/backend.js';
import type { CoreInstance } from '../src/backend/wasm/instance.js';
import { readBuild } from '../src/backend/builds.js';
import { RelayState } from '../src/relay/relay.js';
import { readResource } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';

const MiB = 1024 * 1024;

/** A stream of `count` readResource blobs of `size` base64 bytes, each followed by its finish. */
function blobStream(count: number, size: number): Uint8Array {
  const frame = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'file:///b', blob: 'QUJD'.repeat(size / 4) }] } });
  const parts: Uint8Array[] = [];
  for (let k = 0; k < count; k++) parts.push(encodeResponse(k, frame), encodeFinish(k));
  return Buffer.concat(parts);
}

/** `streams` relays fed 64 KiB chunks of `input` in turn, as a TCP relay's connections are; each output checked. */
function interleaved(backend: (typeof BACKEND_ROWS)[number][1], input: Uint8Array, streams: number): void {
  const out = new Array<number>(streams).fill(0);
  const relays = out.map((_, k) => new RelayState({ validate: 'json', backend }, backend, (bytes) => (out[k] += bytes.length)));
  for (let at = 0; at < input.length; at += 64 * 1024) for (const r of relays) expect(r.push(input.subarray(at, at + 64 * 1024))).toBe(null);
  for (const r of relays) expect(r.end()).toBe(null);
  expect(out).toEqual(new Array<number>(streams).fill(input.length));
}

describe('held-record spares', () => {
  it('keep at most 16 buffers of at most 1 MiB (and a header), and serve a new stream before anything is allocated', () => {
    // Streams that end holding buffers of every size, some past the largest kept.
    for (let k = 0; k < 40; k++) {
      const held = new HeldRecord();
      held.begin();
      const size = (k % 5) * 512 * 1024 + 100 * 1024;
      held.append(new Uint8Array(size), 0, size);
      held.clear();
    }
    const kept = spareBuffers();
    expect(kept.count).toBeLessThanOrEqual(16);
    expect(kept.bytes).toBeLessThanOrEqual(16 * (MiB + 16));
    // A new stream's long record takes a spare: the spares lose one, and nothing new is made.
    const held = new HeldRecord();
    held.begin();
    held.append(new Uint8Array(16), 0, 16);
    held.append(new Uint8Array(300 * 1024), 0, 300 * 1024);
    expect(spareBuffers().count).toBe(kept.count - 1);
    expect(held.capacity).toBeGreaterThanOrEqual(300 * 1024 + 16);
    held.clear();
    expect(spareBuffers().count).toBe(kept.count);
  });
});

describe('the core pool', () => {
  it('keeps at most two free cores past 4 MiB, and at most ten in all', () => {
    const pool = new CorePool(new WebAssembly.Module(readBuild('scalar')));
    const free = () => (pool as unknown as { free: CoreInstance[] }).free;
    // Twelve lent at once, each grown for a 6 MiB record, then given back: only two stay.
    const big = Array.from({ length: 12 }, () => pool.acquire());
    for (const core of big) core.reserve(6 * MiB);
    for (const core of big) pool.release(core);
    expect(free().length).toBe(2);
    // Small ones are kept up to ten in all.
    const small = Array.from({ length: 12 }, () => pool.acquire());
    for (const core of small) core.reserve(MiB);
    for (const core of small) pool.release(core);
    expect(free().length).toBe(10);
    expect(free().filter((core) => core.capacity > 4 * MiB).length).toBeLessThanOrEqual(2);
  });
});

describe.each(BACKEND_ROWS)('streams after streams on %s', (name, backend) => {
  it('16 streams of 768 KiB frames cut across 64 KiB chunks, again and again, make no core instance after the first round', () => {
    const input = blobStream(3, 768 * 1024);
    let made = 0;
    const proto = CorePool.prototype as unknown as { create: () => unknown };
    const create = proto.create;
    proto.create = function (this: unknown) {
      made++;
      return create.call(this);
    };
    try {
      interleaved(backend, input, 16);
      const first = made;
      for (let round = 0; round < 3; round++) interleaved(backend, input, 16);
      expect(made - first, name).toBe(0);
      expect(spareBuffers().count).toBeLessThanOrEqual(16);
    } finally {
      proto.create = create;
    }
  });
});
