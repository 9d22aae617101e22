// The decoder as a stream and as an object, when the stream or its caller misbehaves: a peer that goes on
// after a record error, a callback that throws, chunks that are not bytes (found by a hostile-input review).

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { listResources } from '../src/frame/endpoints.js';
import { StreamDecoder, decodeStream } from '../src/exchange/decoder.js';
import { createDecoderStream } from '../src/streams/decoder-stream.js';
import { createEncoderStream } from '../src/streams/encoder-stream.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import { readOutcomes } from '../src/streams/iterate.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { bytesInUse, MiB } from './support/memory.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
/** Each event as a short word: `1:result`, `ok`, `record-error`. */
const words = (events: unknown[]) =>
  events.map((e) => (e as { end?: string }).end ?? `${(e as { channel: number }).channel}:${(e as { outcome: string }).outcome}`);

describe.each(BACKEND_ROWS)('the decoder on %s', (_name, backend) => {
  it('as a stream, ends after a record error and cancels its source: a peer that goes on is not read for ever', async () => {
    let pulls = 0;
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls++;
          // A bad kind at once, then 64 KiB chunks of zeros for as long as anyone reads.
          controller.enqueue(pulls === 1 ? cat(encodeResponse(1, frame), Uint8Array.of(7)) : new Uint8Array(65536));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const seen: unknown[] = [];
    // Before, this loop never ended: 967 MiB were read and thrown away in 2 s.
    for await (const event of source.pipeThrough(createDecoderStream({ endpoint: listResources, backend }))) seen.push(event);
    expect(words(seen)).toEqual(['1:incomplete', 'record-error']);
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(5);
  });

  it('a callback that throws stops it there: push throws it, and so does every call after, with no outcome made up', () => {
    const broke = new Error('metrics sink down');
    let thrown = false;
    const decoder = new StreamDecoder({
      endpoint: listResources,
      backend,
      onRecord: (r) => {
        if (r.kind === 'finish' && r.channel === 2 && !thrown) {
          thrown = true;
          throw broke;
        }
      },
    });
    expect(() =>
      decoder.push(cat(encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeFinish(2), encodeResponse(3, frame))),
    ).toThrow(broke);
    // Before, the decoder went on: 3 not carried though its response had come, 2 incomplete though its finish
    // had, and the stream 'ok'.
    expect(() => decoder.push(encodeFinish(3))).toThrow(broke);
    expect(() => decoder.end()).toThrow(broke);
  });

  it('an endpoint function that throws stops it too', () => {
    const decoder = new StreamDecoder({
      backend,
      endpoint: (channel) => {
        if (channel === 2) throw new RangeError('no codec for channel 2');
        return listResources;
      },
    });
    expect(() => decoder.push(cat(encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeFinish(2)))).toThrow(RangeError);
    expect(() => decoder.end()).toThrow(RangeError);
  });

  it('reads any view of bytes or an ArrayBuffer as its bytes, and refuses what is not bytes', async () => {
    const bytes = cat(encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), Uint8Array.of(7));
    const want = ['1:result', '2:incomplete', 'record-error'];
    expect(words(decodeStream(bytes, { endpoint: listResources, backend }))).toEqual(want);
    // Before, an ArrayBuffer was read as no bytes at all, and the stream ended 'ok'.
    for (const chunk of [bytes.buffer, new DataView(bytes.buffer), Buffer.from(bytes)]) {
      expect(words(new StreamDecoder({ endpoint: listResources, backend }).push(chunk as Uint8Array))).toEqual(want);
    }
    const seen: unknown[] = [];
    for await (const e of readOutcomes([bytes.buffer as unknown as Uint8Array], { endpoint: listResources, backend })) seen.push(e);
    expect(words(seen)).toEqual(want);
    // A string (a socket with setEncoding) had been read as a bad kind at offset 0.
    expect(() => new StreamDecoder({ endpoint: listResources, backend }).push('\u0001' as unknown as Uint8Array)).toThrow(TypeError);
  });
});

describe('readOutcomes over a source that fails', () => {
  it('a socket that fails mid-stream: the channels open are incomplete, then an end that names the failure; no throw', async () => {
    const server = net.createServer((s) => {
      s.on('error', () => {});
      s.write(cat(encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeResponse(3, frame).subarray(0, 12)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      // Once the bytes are in, the connection fails as a reset fails it (what `read ECONNRESET` threw from the loop).
      let received = 0;
      socket.on('data', (d: Buffer) => {
        received += d.length;
        if (received === 2 * (9 + frame.length) + 9 + 12)
          setImmediate(() => socket.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })));
      });
      const seen = [];
      for await (const e of readOutcomes(socket, { endpoint: listResources })) seen.push(e);
      // The half record of channel 3 goes with the source: no channel opened, and no record error of the stream's.
      expect(words(seen)).toEqual(['1:result', '2:incomplete', 'input-error']);
      expect((seen.at(-1) as { error: NodeJS.ErrnoException }).error.code).toBe('ECONNRESET');
    } finally {
      server.close();
    }
  });

  it("a source that throws: the same, and what the decoder's own callbacks throw still throws", async () => {
    async function* failing() {
      yield cat(encodeResponse(4, frame));
      throw new Error('disk gone');
    }
    const seen = [];
    for await (const e of readOutcomes(failing(), { endpoint: listResources })) seen.push(e);
    expect(words(seen)).toEqual(['4:incomplete', 'input-error']);
    const throwing = readOutcomes([cat(encodeResponse(1, frame), encodeFinish(1))], {
      endpoint: listResources,
      onRecord: () => {
        throw new Error('mine');
      },
    });
    await expect(throwing.next()).rejects.toThrow('mine');
  });
});

describe.each(BACKEND_ROWS)('what the decoder holds on %s', (_name, backend) => {
  it('an open channel holds its payload as bytes, not as a value twenty times their size', () => {
    // Four responses of 2 MiB, each an array of `{}` (3 bytes, and some 64 of heap as a value), their finishes
    // to come: before, each was decoded on arrival and held as its value, 21 times its bytes.
    const n = Math.floor((2 * MiB) / 3);
    const payload = new TextEncoder().encode(`\u0000{"resources":[],"_meta":{"x":[${'{},'.repeat(n - 1)}{}]}}`);
    expect(() => JSON.parse(new TextDecoder().decode(payload.subarray(1)))).not.toThrow();
    const decoder = new StreamDecoder({ endpoint: listResources, backend });
    const before = bytesInUse();
    for (let ch = 1; ch <= 4; ch++) {
      const record = encodeResponse(ch, payload);
      // In chunks of 256 KiB: each response is whole only in a later chunk than where it began.
      for (let at = 0; at < record.length; at += 256 * 1024) expect(decoder.push(record.subarray(at, at + 256 * 1024))).toEqual([]);
    }
    // The four payloads, and room for the cores a WebAssembly backend grew to hold a record in place.
    const held = bytesInUse() - before;
    expect(held).toBeGreaterThan(4 * payload.length);
    expect(held).toBeLessThan(4 * payload.length + 8 * MiB);
    const events = decoder.push(cat(encodeFinish(1), encodeFinish(2), encodeFinish(3), encodeFinish(4)));
    expect(words(events)).toEqual(['1:result', '2:result', '3:result', '4:result']);
  });
});

describe('the encoder stream, when a frame cannot be encoded', () => {
  it('delivers what it accepted, a finish for that channel and each one open, then closes; the write rejects with the EncodeError', async () => {
    const encoder = createEncoderStream({ endpoint: listResources });
    const writer = encoder.writable.getWriter();
    const reading = new Response(encoder.readable).arrayBuffer();
    const good = { kind: 'result' as const, result: { resources: [] } };
    await writer.write({ channel: 1, frame: good });
    await writer.write({ channel: 1, finish: true });
    await writer.write({ channel: 3, frame: good });
    // A resource without its name: the schema refuses it.
    const refused = await writer.write({ channel: 2, frame: { kind: 'result', result: { resources: [{ uri: 'u' }] } } as never }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(EncodeError);
    // Before, the readable errored and the records of channels 1 and 3 were discarded, and 3 never got a finish.
    expect(Buffer.from(await reading)).toEqual(
      Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeResponse(3, frame), encodeFinish(3), encodeFinish(2)]),
    );
  });

  it('a message with finish: false is not a finish', async () => {
    const encoder = createEncoderStream({ endpoint: listResources });
    const writer = encoder.writable.getWriter();
    const reading = new Response(encoder.readable).arrayBuffer();
    await writer.write({ channel: 4, finish: false, frame: { kind: 'result', result: { resources: [] } } } as never);
    await writer.close();
    expect(Buffer.from(await reading)).toEqual(Buffer.from(encodeResponse(4, frame)));
  });
});
