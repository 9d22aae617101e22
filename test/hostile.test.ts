// Hostile input that once took a process down, or grew it without bound, held to its bound.
//
// Every bound is asserted in bytes of memory or in counts (chunks queued,
// bytes copied), never in time. Each case runs on every backend.

import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { listResources } from '../src/frame/endpoints.js';
import { StreamDecoder } from '../src/exchange/decoder.js';
import { encodeFinish, encodeResponse, encodeResponseHeader } from '../src/records/record.js';
import { COPY_BELOW, createRelay, RelayState } from '../src/relay/relay.js';
import { bytesInUse, arrayBuffersInUse, MiB } from './support/memory.js';

/** A frame of `size` bytes: the result tag, then one JSON string of 'A's. */
function stringFrame(size: number): Uint8Array {
  const frame = new Uint8Array(size).fill(0x41);
  frame[0] = 0;
  frame[1] = frame[size - 1] = 0x22;
  return frame;
}

async function drain(readable: ReadableStream<Uint8Array>): Promise<{ chunks: number; bytes: number }> {
  let chunks = 0;
  let bytes = 0;
  for await (const chunk of readable) {
    chunks++;
    bytes += chunk.length;
  }
  return { chunks, bytes };
}

describe.each(BACKENDS.map((b) => [b.name, b] as const))('hostile input on %s', (_name, backend) => {
  it('a 1 MiB record sent a byte per chunk costs memory in proportion to its bytes, not its chunks', () => {
    const record = encodeResponse(1, stringFrame(MiB));
    let forwarded = 0;
    const core = new RelayState({}, backend, (bytes) => (forwarded += bytes.length));
    const before = bytesInUse();
    for (let i = 0; i < record.length - 1; i++) core.push(record.subarray(i, i + 1));
    // All but the last byte is held: once by the reader, to check it whole, and once by the relay, to forward it.
    // Each copy is at most twice what arrived. (A view object per chunk would cost over 100 bytes per byte.)
    const held = bytesInUse() - before;
    expect(held).toBeLessThan(5 * MiB);
    core.push(record.subarray(record.length - 1));
    core.push(encodeFinish(1));
    expect(core.end()).toBeNull();
    expect(forwarded).toBe(record.length + 9);
    expect(core.faultCount).toBe(0);
    // Every byte came as a short piece, so each was copied: at most twice, never more.
    expect(core.stats.bytesCopied).toBeLessThanOrEqual(2 * (record.length + 9));
  });

  it('a flood of dropped responses goes out in a few chunks per input chunk, and the queue stays short', async () => {
    // 200,000 pairs of [a 0-byte response, its finish]: each response fails (empty), and its finish goes alone.
    const pair = Buffer.concat([encodeResponse(1, new Uint8Array(0)), encodeFinish(1)]);
    const pairs = 200_000;
    const input = Buffer.alloc(pair.length * pairs);
    for (let i = 0; i < pairs; i++) pair.copy(input, i * pair.length);
    const chunk = 64 * 1024;
    const inputChunks = Math.ceil(input.length / chunk);
    let faults = 0;
    const relay = createRelay({ backend, onFault: () => faults++ });
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < input.length; at += chunk) controller.enqueue(input.subarray(at, at + chunk));
        controller.close();
      },
    });
    const [out] = await Promise.all([drain(relay.readable), source.pipeTo(relay.writable)]);
    expect(faults).toBe(pairs);
    expect(out.bytes).toBe(pairs * 9);
    // 200,000 finishes of 9 bytes, gathered into chunks of up to 16 KiB: full ones, and at most one
    // partly filled chunk per input chunk. (Not one 9-byte chunk per finish.)
    expect(out.chunks).toBeLessThanOrEqual(Math.ceil(out.bytes / (16 * 1024 - 9)) + inputChunks);
    expect(relay.stats.maxQueuedChunks).toBeLessThanOrEqual(1024);
    expect(relay.stats.chunksOut).toBe(out.chunks);
  });

  it('the output queue is bounded in chunks as well as bytes, even with a slow reader', async () => {
    // One finish per input chunk: 5,000 chunks of 9 bytes each, far below the 1 MiB byte bound.
    const relay = createRelay({ backend });
    const writer = relay.writable.getWriter();
    const writing = (async () => {
      for (let ch = 0; ch < 5000; ch++) {
        await writer.ready;
        await writer.write(encodeFinish(ch));
      }
      await writer.close();
    })();
    // Let the writer run ahead before reading a byte: it must stop at the chunk bound.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(relay.stats.queuedChunks).toBeLessThanOrEqual(1024);
    const out = await drain(relay.readable);
    await writing;
    expect(out.bytes).toBe(5000 * 9);
    expect(relay.stats.maxQueuedChunks).toBeLessThanOrEqual(1024);
  });

  it('4096 streams each cut one byte into a 16 MiB response reserve a few bytes each, not 64 KiB', () => {
    const cut = Buffer.concat([encodeResponseHeader(1, 16 * MiB), Uint8Array.of(0)]);
    const decoders: unknown[] = [];
    const before = arrayBuffersInUse();
    for (let i = 0; i < 4096; i++) {
      const d = new StreamDecoder({ endpoint: listResources, backend });
      expect(d.push(cut)).toEqual([]);
      decoders.push(d);
    }
    // Reserving 64 KiB up front for each would cost 256 MiB in all.
    expect(arrayBuffersInUse() - before).toBeLessThan(MiB);
    expect(decoders.length).toBe(4096);
  });

  it('a record cut across chunks is held in a buffer that grows with what arrived, not with its declared length', () => {
    const d = new StreamDecoder({ endpoint: listResources, backend });
    const before = arrayBuffersInUse();
    expect(d.push(encodeResponseHeader(1, 16 * MiB))).toEqual([]);
    const piece = new Uint8Array(COPY_BELOW);
    for (let sent = 0; sent < MiB; sent += piece.length) expect(d.push(piece)).toEqual([]);
    // 1 MiB arrived of a declared 16 MiB: at most twice what arrived is reserved.
    expect(arrayBuffersInUse() - before).toBeLessThan(2 * MiB + 64 * 1024);
  });
});
