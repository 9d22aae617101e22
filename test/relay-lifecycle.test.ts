// How a relay's streams end: a cancelled output stops the input, a callback
// that throws ends the output after the finishes, bad options are refused
// at construction.

import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { listResources } from '../src/frame/endpoints.js';
import { createRelay } from '../src/relay/relay.js';
import { StreamDecoder } from '../src/exchange/decoder.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';

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
