// A 256 MiB stream through the relay, generated as it goes: what the relay holds stays bounded, however long the stream.
//
// Records of three sizes (about 80 B, 16 KiB and 1 MiB, the last always cut
// across chunks) arrive in 64 KiB chunks. Every 16 MiB the bytes in use are
// measured after a full collection; the largest sample, above what was in
// use before the stream began, must stay under the bound. The relay's
// output is counted, not kept. WebAssembly memory is not in the heap or
// ArrayBuffer counts, so the resident set is bounded too.

import { describe, expect, it } from 'vitest';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { RelayState } from '../src/relay/relay.js';
import { BACKENDS } from './backends.js';
import { bytesInUse, MiB } from './support/memory.js';

const encoder = new TextEncoder();

function frame(text: string): Uint8Array {
  return Uint8Array.from([0, ...encoder.encode(JSON.stringify({ contents: [{ uri: 'file:///x', text }] }))]);
}

/** The records, in turn: a small one, a 16 KiB one, a 1 MiB one, each followed by its finish. */
const RECORDS = [frame('s'), frame('m'.repeat(16 * 1024)), frame('l'.repeat(MiB))].map((f, k) => {
  const r = encodeResponse(k, f);
  const out = new Uint8Array(r.length + 9);
  out.set(r);
  out.set(encodeFinish(k), r.length);
  return out;
});

/** 64 KiB chunks of the records in turn, until `total` bytes have gone: each chunk a fresh copy, as a socket gives. */
function* chunks(total: number): Generator<Uint8Array> {
  let sent = 0;
  let record = 0;
  let at = 0;
  while (sent < total) {
    const chunk = new Uint8Array(64 * 1024);
    let fill = 0;
    while (fill < chunk.length) {
      const r = RECORDS[record];
      const take = Math.min(r.length - at, chunk.length - fill);
      chunk.set(r.subarray(at, at + take), fill);
      fill += take;
      at += take;
      if (at === r.length) {
        at = 0;
        record = (record + 1) % RECORDS.length;
      }
    }
    sent += chunk.length;
    yield chunk;
  }
}

/** The bound: a 1 MiB record held twice (once to scan, once to forward), and room for the GC's own slack. */
const BOUND = 24 * MiB;
/** The resident set may grow by the cores' memory (a record and a window each) and the heap's own growth, never by the stream. */
const RSS_BOUND = 96 * MiB;

describe.each(BACKENDS.map((b) => [b.name, b] as const))('a 256 MiB stream on %s', (_name, backend) => {
  it(`holds less than ${BOUND / MiB} MiB at any point`, () => {
    let forwarded = 0;
    const state = new RelayState({}, backend, (bytes) => (forwarded += bytes.length));
    const before = bytesInUse();
    const rssBefore = process.memoryUsage().rss;
    let peak = 0;
    let rssPeak = 0;
    let pushed = 0;
    for (const chunk of chunks(256 * MiB)) {
      expect(state.push(chunk)).toBeNull();
      pushed += chunk.length;
      if (pushed % (16 * MiB) === 0) {
        peak = Math.max(peak, bytesInUse() - before);
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss - rssBefore);
      }
    }
    expect(pushed).toBe(256 * MiB);
    expect(state.faultCount).toBe(0);
    // Everything whole went out; what is left is the record the stream's end cut, which stays held.
    expect(forwarded).toBeLessThanOrEqual(pushed);
    expect(pushed - forwarded).toBeLessThan(MiB + 1024);
    expect(peak).toBeLessThan(BOUND);
    expect(rssPeak).toBeLessThan(RSS_BOUND);
  });
});
