// Frames and finishes in, record bytes out, as a Web Streams TransformStream.
//
// # Backpressure
//
// The readable side counts bytes against its high-water mark, and a
// TransformStream does not call transform() while that side is full, so a
// slow reader holds the writer back and at most the high-water mark plus one
// record is queued. A response goes out as two chunks, its header and its
// frame, so the frame's bytes are never copied.

import { type CodecChoice, codecFor } from '../frame/build.js';
import type { Frame } from '../frame/frame.js';
import { encodeFinish, encodeResponse, encodeResponseHeader } from '../records/record.js';

/** One channel event to write: a frame (encoded by the codec), a payload already encoded, or the finish. */
export type ChannelMessage<R = unknown> =
  | { channel: number; frame: Frame<R> }
  | { channel: number; payload: Uint8Array }
  | { channel: number; finish: true };

export interface EncoderStreamOptions<R> {
  /** The codec that encodes `frame` messages, for every channel or chosen per channel. */
  endpoint?: CodecChoice<R>;
  /** Bytes the output may queue before the writer waits. Default 1 MiB. */
  highWaterMark?: number;
}

export function createEncoderStream<R = unknown>(options: EncoderStreamOptions<R> = {}): TransformStream<ChannelMessage<R>, Uint8Array> {
  const { endpoint } = options;
  return new TransformStream<ChannelMessage<R>, Uint8Array>(
    {
      transform(message, controller) {
        if ('finish' in message) {
          controller.enqueue(encodeFinish(message.channel));
          return;
        }
        if ('payload' in message) {
          // The caller's bytes, passed on as they are: no copy.
          controller.enqueue(encodeResponseHeader(message.channel, message.payload.length));
          controller.enqueue(message.payload);
          return;
        }
        if (!endpoint) throw new TypeError('a frame message needs the encoder stream to have an endpoint codec');
        // One chunk with a buffer of its own: a short frame from encode is a
        // view into a slab it shares with other frames, and a consumer that
        // transfers a chunk's buffer (a byte stream's enqueue does) would
        // detach the frames beside it.
        controller.enqueue(encodeResponse(message.channel, codecFor(endpoint, message.channel).encode(message.frame)));
      },
    },
    { highWaterMark: 1 },
    { highWaterMark: options.highWaterMark ?? 1 << 20, size: (chunk) => chunk.byteLength },
  );
}
