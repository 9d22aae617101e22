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
//
// # A message that cannot be written
//
// (a frame that cannot be encoded, a channel id that is not an unsigned
// 32-bit integer, a payload that is not bytes, a message that is none of the
// three) ends the stream, and leaves no exchange hanging: the records written
// before it are delivered, then a finish for its channel and for every
// channel still open (not carried, to the reader), then the readable
// closes; the write rejects with the error (an EncodeError, a RangeError
// or a TypeError). Erroring the stream, as a throw from transform() does,
// discarded the records it had accepted and left the open channels without
// their finishes.

import { type CodecChoice, codecFor, isCodec } from '../frame/build.js';
import type { Frame } from '../frame/frame.js';
import { asBytes, checkChannel, encodeFinish, encodeResponse, encodeResponseHeader } from '../records/record.js';

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
  // Checked here, as createRelay checks its own: Infinity or '10' was taken
  // (a queue with no bound, a string the stream read as a number), and an
  // endpoint that is no codec failed only at the first frame message.
  const highWaterMark = options.highWaterMark ?? 1 << 20;
  if (typeof highWaterMark !== 'number' || !(highWaterMark >= 0) || !Number.isFinite(highWaterMark))
    throw new RangeError(`highWaterMark must be a finite number of bytes, not ${String(highWaterMark)}`);
  if (endpoint !== undefined && typeof endpoint !== 'function' && !isCodec(endpoint)) {
    throw new TypeError('endpoint must be a codec, or a function choosing one per channel');
  }
  /** Channels with a response written and no finish yet. */
  const open = new Set<number>();
  const write = (message: ChannelMessage<R>, controller: TransformStreamDefaultController<Uint8Array>): void => {
    // A channel id that is not an unsigned 32-bit integer is refused before the channel counts as open.
    checkChannel(message.channel);
    if ((message as { finish?: unknown }).finish === true) {
      open.delete(message.channel);
      controller.enqueue(encodeFinish(message.channel));
      return;
    }
    if ('payload' in message) {
      // The caller's bytes, passed on as they are: no copy. Read as
      // bytes first: the header of another view (a Uint16Array) would
      // count its elements, and cut the stream out of step.
      const payload = asBytes(message.payload, "a channel message's payload");
      open.add(message.channel);
      controller.enqueue(encodeResponseHeader(message.channel, payload.length));
      controller.enqueue(payload);
      return;
    }
    if (!('frame' in message)) throw new TypeError('a channel message has a frame, a payload, or finish: true');
    if (!endpoint) throw new TypeError('a frame message needs the encoder stream to have an endpoint codec');
    // A frame that cannot be encoded leaves its channel to be finished with the others.
    open.add(message.channel);
    const frame = codecFor(endpoint, message.channel).encode(message.frame);
    if (frame.byteLength !== frame.buffer.byteLength) {
      // A view into encode's shared slab: copied, with its header, into a chunk of its own.
      controller.enqueue(encodeResponse(message.channel, frame));
    } else {
      controller.enqueue(encodeResponseHeader(message.channel, frame.length));
      controller.enqueue(frame);
    }
  };
  return new TransformStream<ChannelMessage<R>, Uint8Array>(
    {
      transform(message, controller) {
        try {
          write(message, controller);
        } catch (error) {
          // See "A message that cannot be written" above: the finishes, then the readable closes with what it holds.
          for (const channel of open) controller.enqueue(encodeFinish(channel));
          open.clear();
          controller.terminate();
          throw error;
        }
      },
    },
    { highWaterMark: 1 },
    { highWaterMark, size: (chunk) => chunk.byteLength },
  );
}
