// Async-iterator helpers: record streams from anything that yields bytes.
//
// Node's net.Socket, process.stdin and fs read streams are async iterables
// of Buffers (Uint8Arrays), as are Web ReadableStreams in Node, Deno and
// Bun; these helpers take any of them.

import { StreamDecoder, type StreamDecoderOptions } from '../exchange/decoder.js';
import type { StreamEvent } from '../exchange/outcome.js';

/** Yields every event of the record stream `source`, ending with its StreamEnd. */
export async function* readOutcomes<R = unknown>(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: StreamDecoderOptions<R>,
): AsyncGenerator<StreamEvent<R>, void, undefined> {
  const decoder = new StreamDecoder<R>(options);
  for await (const chunk of source) {
    const events = decoder.push(chunk);
    yield* events;
    if (events.length && 'end' in events[events.length - 1]) return;
  }
  yield* decoder.end();
}

/** Writes each chunk of `source` into a WritableStream, honouring its backpressure. */
export async function pipeIterable(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, target: WritableStream<Uint8Array>): Promise<void> {
  const writer = target.getWriter();
  try {
    for await (const chunk of source) {
      await writer.ready;
      await writer.write(chunk);
    }
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => {});
    throw error;
  } finally {
    writer.releaseLock();
  }
}
