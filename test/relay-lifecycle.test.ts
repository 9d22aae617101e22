// How a relay's streams end: a cancelled output stops the input, a callback
// that throws ends the output after the finishes, bad options are refused
// at construction.

import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { listResources } from '../src/frame/endpoints.js';
import { createRelay } from '../src/relay/relay.js';
import { pipeRelay } from '../src/relay/pipe.js';
import type { RelayFault } from '../src/relay/fault.js';
import { StreamDecoder } from '../src/exchange/decoder.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { growthPages, MAX_PAGES } from '../src/backend/wasm/instance.js';

/** A Node writable that keeps what it is given. */
function collector(): { sink: Writable; bytes: () => string } {
  const got: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      got.push(Buffer.from(chunk));
      done();
    },
  });
  return { sink, bytes: () => Buffer.concat(got).toString('hex') };
}

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });

describe.each(BACKENDS.map((b) => [b.name, b] as const))('relay lifecycle on %s', (_name, backend) => {
  it('stops pulling its input when its output is cancelled', async () => {
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(Buffer.concat([encodeResponse(pulled, frame), encodeFinish(pulled)]));
      },
    });
    const relay = createRelay({ backend, highWaterMark: 0 });
    const piping = source.pipeTo(relay.writable).then(
      () => 'resolved',
      () => 'rejected',
    );
    const reader = relay.readable.getReader();
    await reader.read();
    await reader.cancel(new Error('enough'));
    expect(await piping).toBe('rejected');
    const after = pulled;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pulled).toBe(after);
    expect(pulled).toBeLessThan(10);
  });

  it('ends its output, after the finishes, when a fault callback throws', async () => {
    const relay = createRelay({
      backend,
      onFault: () => {
        throw new Error('callback broke');
      },
    });
    const input = Buffer.concat([encodeResponse(1, frame), encodeResponse(2, Uint8Array.of(0, 0x7b)), encodeFinish(1)]);
    const writer = relay.writable.getWriter();
    const wrote = writer.write(input).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    const out: number[] = [];
    let ended = '';
    try {
      for await (const chunk of relay.readable) out.push(...chunk);
      ended = 'closed';
    } catch (error) {
      ended = (error as Error).message;
    }
    expect(await wrote).toBe('callback broke');
    expect(ended).toBe('callback broke');
    // Channel 1's response went out, then a finish for each open channel, in opening order.
    expect(Buffer.from(out).toString('hex')).toBe(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeFinish(2)]).toString('hex'));
  });

  it('between Node streams, a fault callback that throws ends the relay there: what passed, the finishes, and done settles', async () => {
    // The callback throws at channel 2's frame error, in the middle of the first chunk. Before, the throw left
    // the 'data' handler (a socket's takes the process down), channel 1's records were counted and never written,
    // and done never settled.
    const input = new PassThrough();
    const { sink, bytes } = collector();
    const faults: RelayFault['reason'][] = [];
    const broke = new Error('callback broke');
    const piped = pipeRelay(input, sink, {
      backend,
      onFault: (f) => {
        faults.push(f.reason);
        if (faults.length === 1) throw broke;
      },
    });
    input.write(
      Buffer.concat([
        encodeResponse(1, frame),
        encodeFinish(1),
        encodeResponse(2, Uint8Array.of(0, 0x7b)),
        encodeFinish(2),
        encodeResponse(3, frame),
      ]),
    );
    input.end(Buffer.concat([encodeFinish(3), encodeResponse(4, frame), encodeFinish(4)]));
    expect(await piped.done).toEqual({ end: 'relay-error', error: broke });
    // Channel 2 was opened by its response, whose fault the callback threw at: the relay finishes it, and says so.
    expect(bytes()).toBe(Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeFinish(2)]).toString('hex'));
    expect(faults).toEqual(['frame-error', 'incomplete']);
    expect(piped.stats.responsesOut).toBe(1);
    expect(piped.stats.openChannels).toBe(0);
  });

  it('between Node streams, an input closed with no end and no error is a failed upstream: the finishes, each channel reported', async () => {
    const input = new Readable({ read() {} });
    const { sink, bytes } = collector();
    const faults: RelayFault[] = [];
    const piped = pipeRelay(input, sink, { backend, onFault: (f) => faults.push(f) });
    input.push(encodeResponse(1, frame));
    await new Promise((resolve) => setImmediate(resolve));
    input.destroy();
    const end = await piped.done;
    expect(end.end).toBe('input-error');
    expect((end as { error: { code?: string } }).error.code).toBe('ERR_STREAM_PREMATURE_CLOSE');
    expect(bytes()).toBe(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]).toString('hex'));
    expect(faults).toEqual([{ reason: 'incomplete', channel: 1, offset: 0 }]);
  });
});

describe("the core's memory grows to what a record needs, never past 4 GiB", () => {
  it('grows by a quarter, at least 1 MiB, at least what is missing, and stops at the limit', () => {
    const page = 65536;
    expect(growthPages(4, 10 * page)).toBe(16);
    expect(growthPages(1000, 1001 * page)).toBe(250);
    expect(growthPages(1000, 2000 * page)).toBe(1000);
    expect(growthPages(1000, 900 * page)).toBe(0);
    // 3.4 GiB held: a quarter more would pass 4 GiB, so the growth stops there, and still holds the record.
    const have = Math.floor((3.4 * 2 ** 30) / page);
    expect(growthPages(have, have * page + 1)).toBe(MAX_PAGES - have);
    expect(growthPages(have, MAX_PAGES * page)).toBe(MAX_PAGES - have);
    // Beyond 4 GiB no growth can hold it.
    expect(growthPages(have, MAX_PAGES * page + 1)).toBe(-1);
  });
});

describe('bad options are refused at construction', () => {
  it('relay', () => {
    expect(() => createRelay({ validate: 'strict' as never })).toThrow(RangeError);
    expect(() => createRelay({ validate: 'full' })).toThrow(TypeError);
    expect(() => createRelay({ highWaterMark: -1 })).toThrow(RangeError);
    expect(() => createRelay({ maxOpenChannels: 0 })).toThrow(RangeError);
  });

  it('stream decoder', () => {
    expect(() => new StreamDecoder({} as never)).toThrow(TypeError);
    expect(() => new StreamDecoder({ endpoint: listResources, maxFrameBytes: 2 ** 32 })).toThrow(RangeError);
  });
});
