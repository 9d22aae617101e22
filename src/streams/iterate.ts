// Async-iterator helpers: record streams from anything that yields bytes.
//
// Node's net.Socket, process.stdin and fs read streams are async iterables
// of Buffers (Uint8Arrays), as are Web ReadableStreams in Node, Deno and
// Bun; these helpers take any of them.

import { StreamDecoder, type StreamDecoderOptions } from '../exchange/decoder.js';
import type { StreamEvent } from '../exchange/outcome.js';

/**
 * Yields every event of the record stream `source`, ending with its
 * StreamEnd. A source that fails (a socket reset, a read error) is no
 * throw: each channel still open is `incomplete`, then the end is
 * `{ end: 'input-error', error }`, so a reader keeps no books of its own to
 * know what was lost. What the decoder's own callbacks throw still throws.
 */
export async function* readOutcomes<R = unknown>(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: StreamDecoderOptions<R>,
): AsyncGenerator<StreamEvent<R>, void, undefined> {
  const decoder = new StreamDecoder<R>(options);
  const chunks: AsyncIterator<Uint8Array> | Iterator<Uint8Array> =
    Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : (source as Iterable<Uint8Array>)[Symbol.iterator]();
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<Uint8Array>;
      try {
        step = await chunks.next();
      } catch (error) {
        finished = true;
        yield* decoder.fail(error);
        return;
      }
      if (step.done) {
        finished = true;
        break;
      }
      const events = decoder.push(step.value);
      yield* events;
      if (events.length && 'end' in events[events.length - 1]) return;
    }
    yield* decoder.end();
  } finally {
    // Left early (a record error, or the caller stopped): the source is let go of, as for await would.
    if (!finished) await chunks.return?.();
  }
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
