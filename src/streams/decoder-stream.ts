// Record bytes in, channel outcomes out, as a Web Streams TransformStream.
//
// Each outcome is typed by the codec of its channel's endpoint, as in
// StreamDecoder, and the last event is always one StreamEnd: { end: 'ok' }
// or the record error that stopped the stream. A record error does not
// error the stream; it is an event, because the outcomes before it (and the
// incomplete ones it causes) are answers the reader still needs. After it
// the stream ends: its readable closes, and a source piped into it is
// cancelled, so that a peer that goes on sending is not read for ever (it
// was: 967 MiB read and thrown away in 2 s, and the reader's loop never
// ended).

import { StreamDecoder, type StreamDecoderOptions } from '../exchange/decoder.js';
import type { StreamEvent } from '../exchange/outcome.js';

export function createDecoderStream<R = unknown>(options: StreamDecoderOptions<R>): TransformStream<Uint8Array, StreamEvent<R>> {
  const decoder = new StreamDecoder<R>(options);
  return new TransformStream<Uint8Array, StreamEvent<R>>({
    transform(chunk, controller) {
      const events = decoder.push(chunk);
      for (const event of events) controller.enqueue(event);
      if (events.length !== 0 && 'end' in events[events.length - 1]) controller.terminate();
    },
    flush(controller) {
      for (const event of decoder.end()) controller.enqueue(event);
    },
  });
}
