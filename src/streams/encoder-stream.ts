// Frames and finishes in, record bytes out, as a Web Streams TransformStream.
//
// # Backpressure
//
// The readable side counts bytes against its high-water mark, and a
// TransformStream does not call transform() while that side is full, so a
// slow reader holds the writer back and at most the high-water mark plus one
// record is queued.
//
// # Chunks that own their buffers
//
// A response goes out as two chunks, its header and its frame, so a frame's
// bytes are not copied, except for a frame that encode carved from its
// shared slab (a view shorter than its buffer, src/contract/body-writer.ts): that one
// goes out with its header as one chunk of its own, because a consumer that
// transfers a chunk's buffer (a byte stream's enqueue does) would detach
// the frames beside it. A `payload` message is passed on as it is: the
// caller owns those bytes.

import { type CodecChoice, codecFor } from '../frame/build.js';
import type { Frame } from '../frame/frame.js';
import { encodeFinish, encodeResponse, encodeResponseHeader } from '../records/record.js';

/** One channel event to write: a frame (encoded by the codec), a payload already encoded, or the finish. */
export type ChannelMessage<R = unknown> =
  | { channel: number; frame: Frame<R> }
  /** Bytes passed on as they are; a short frame from encode is a view into a shared slab, so slice() it first if the consumer transfers chunks. */
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
        const frame = codecFor(endpoint, message.channel).encode(message.frame);
        if (frame.byteLength !== frame.buffer.byteLength) {
          // A view into encode's shared slab: copied, with its header, into a chunk of its own.
          controller.enqueue(encodeResponse(message.channel, frame));
        } else {
          controller.enqueue(encodeResponseHeader(message.channel, frame.length));
          controller.enqueue(frame);
        }
      },
    },
    { highWaterMark: 1 },
    { highWaterMark: options.highWaterMark ?? 1 << 20, size: (chunk) => chunk.byteLength },
  );
}
