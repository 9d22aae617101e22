// Backpressure: a slow reader holds the writer back, so what is in flight
// stays within the high-water mark plus one frame.
//
// Measured in bytes, not time: the writer counts what it has handed over,
// the reader counts what it has taken, and the gap between them is what the
// streams hold at that moment.

import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { readResource } from '../src/frame/endpoints.js';
import { createRelay } from '../src/relay/relay.js';
import { createEncoderStream, type ChannelMessage } from '../src/streams/encoder-stream.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Reads slowly, one chunk per timer turn, tracking the largest gap between written and read. */
async function slowRead(readable: ReadableStream<Uint8Array>, written: () => number): Promise<{ read: number; maxGap: number }> {
  let read = 0;
  let maxGap = 0;
  for await (const chunk of readable) {
    maxGap = Math.max(maxGap, written() - read);
    read += chunk.length;
    await tick();
  }
  return { read, maxGap };
}

describe('backpressure', () => {
  it('an encoder stream holds at most the high-water mark plus one frame', async () => {
    const highWaterMark = 256 * 1024;
    const text = 'x'.repeat(60_000);
    const frame = { kind: 'result' as const, result: { contents: [{ uri: 'u', text }] } };
    const encoder = createEncoderStream({ endpoint: readResource, highWaterMark });
    const frameBytes = 9 + readResource.encode(frame).length;
    let written = 0;
    const writing = (async () => {
      const writer = encoder.writable.getWriter();
      for (let ch = 0; ch < 200; ch++) {
        await writer.ready;
        const messages: ChannelMessage<never>[] = [{ channel: ch, frame } as never, { channel: ch, finish: true }];
        for (const m of messages) {
          await writer.write(m);
          written += 'finish' in m ? 9 : frameBytes;
        }
      }
      await writer.close();
    })();
    const { read, maxGap } = await slowRead(encoder.readable, () => written);
    await writing;
    expect(read).toBe(200 * (frameBytes + 9));
    expect(maxGap).toBeLessThanOrEqual(highWaterMark + 2 * frameBytes);
  });

  it("an encoder stream's frame chunks own their buffers: transferring one leaves the others whole", async () => {
    const encoder = createEncoderStream({ endpoint: readResource });
    const writer = encoder.writable.getWriter();
    // Short frames (views into encode's slab) and long ones (buffers of their own), mixed.
    const frames = Array.from({ length: 50 }, (_, k) => ({
      kind: 'result' as const,
      result: { contents: [{ uri: `u${k}`, text: 't'.repeat(k % 5 === 0 ? 5000 : 1) }] },
    }));
    const writing = (async () => {
      for (let k = 0; k < frames.length; k++) await writer.write({ channel: k, frame: frames[k] } as ChannelMessage<never>);
      await writer.close();
    })();
    const chunks: Uint8Array[] = [];
    for await (const chunk of encoder.readable) {
      // What a byte stream's enqueue does to every chunk it takes.
      chunks.push(new Uint8Array(structuredClone(chunk.buffer, { transfer: [chunk.buffer] })));
    }
    await writing;
    // The bytes that came out, whatever the chunking, are the records of the frames.
    expect(Buffer.concat(chunks)).toEqual(Buffer.concat(frames.map((f, k) => encodeResponse(k, readResource.encode(f)))));
  });

  it("the relay's output counts the memory its views keep alive: a reader that stops holds the input back after one chunk of 1 MiB", async () => {
    // Each 1 MiB chunk: a valid response of 4 KiB and its finish (forwarded as a view of the chunk), then a
    // response whose frame fails (dropped) filling the rest. Counted by the bytes it shows, each view let the
    // input on: 255 chunks (255 MiB kept alive) before it waited, where the high-water mark is 1 MiB.
    const CHUNK = 1 << 20;
    const good = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'a'.repeat(4096) }] } });
    const chunkFor = (ch: number) => {
      const head = Buffer.concat([encodeResponse(ch, good), encodeFinish(ch)]);
      const badLength = CHUNK - head.length - 2 * 9;
      const bad = new Uint8Array(badLength).fill(0x62);
      bad.set(new TextEncoder().encode('\u0000{"x":"'));
      return Buffer.concat([head, encodeResponse(ch + 1, bad), encodeFinish(ch + 1)]);
    };
    const faults: string[] = [];
    const relay = createRelay({ onFault: (f) => faults.push(f.reason) });
    const writer = relay.writable.getWriter();
    let taken = 0;
    for (let k = 0; k < 8; k++) {
      const ready = await Promise.race([
        writer.ready.then(() => true),
        tick()
          .then(() => tick())
          .then(() => false),
      ]);
      if (!ready) break;
      void writer.write(chunkFor(2 * k + 1));
      taken++;
    }
    expect(taken).toBe(1);
    expect(relay.stats.queuedBytes).toBeLessThan(8 * 1024);
    // The chunk, and the 9-byte finish of the dropped response, copied into a buffer of its own.
    expect(relay.stats.queuedBufferBytes).toBe(CHUNK + 9);
    // The reader comes back: everything goes through, in order, and the input goes on.
    const reading = new Response(relay.readable).arrayBuffer();
    for (let k = taken; k < 4; k++) await writer.write(chunkFor(2 * k + 1));
    await writer.close();
    const out = Buffer.from(await reading);
    expect(out).toEqual(
      Buffer.concat([0, 1, 2, 3].map((k) => Buffer.concat([encodeResponse(2 * k + 1, good), encodeFinish(2 * k + 1), encodeFinish(2 * k + 2)]))),
    );
    expect(faults).toEqual(['frame-error', 'frame-error', 'frame-error', 'frame-error']);
    expect(relay.stats.queuedBufferBytes).toBe(0);
  });

  it('the relay with a high-water mark of 0 lets one chunk wait at a time, and relays the whole stream', async () => {
    const frame = readResource.encode({ kind: 'result', result: { contents: [] } });
    const input = Array.from({ length: 6 }, (_, k) => Buffer.concat([encodeResponse(k, frame), encodeFinish(k)]));
    const relay = createRelay({ highWaterMark: 0 });
    let maxQueued = 0;
    const writing = (async () => {
      const writer = relay.writable.getWriter();
      for (const chunk of input) {
        await writer.ready;
        await writer.write(chunk);
        maxQueued = Math.max(maxQueued, relay.stats.queuedChunks);
      }
      await writer.close();
    })();
    const { read } = await slowRead(relay.readable, () => 0);
    await writing;
    expect(read).toBe(Buffer.concat(input).length);
    expect(maxQueued).toBeLessThanOrEqual(1);
  });

  for (const backend of BACKENDS) {
    it(`the relay on ${backend.name} holds at most the high-water mark plus one chunk`, async () => {
      const highWaterMark = 256 * 1024;
      const frame = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', blob: 'QUJD'.repeat(4000) }] } });
      const record = Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]);
      const relay = createRelay({ backend, highWaterMark });
      let written = 0;
      const writing = (async () => {
        const writer = relay.writable.getWriter();
        for (let n = 0; n < 400; n++) {
          await writer.ready;
          await writer.write(record);
          written += record.length;
        }
        await writer.close();
      })();
      const { read, maxGap } = await slowRead(relay.readable, () => written);
      await writing;
      expect(read).toBe(400 * record.length);
      expect(maxGap).toBeLessThanOrEqual(highWaterMark + 2 * record.length);
    });
  }
});
