// Channel events on a byte stream: one record per event (WIRE.md section 3).
//
// Layout of a record:
//
//   offset 0  size 1       kind: 0x01 channel response, 0x02 channel response finish
//   offset 1  size 4       channel id, unsigned 32-bit, little-endian
//   offset 5  size 4       payload length, unsigned 32-bit, little-endian
//   offset 9  size length  payload: the frame (response); nothing (finish)
//
// Kinds start at 1 so that a run of zero bytes is refused at once. The
// layout's constants are in src/wire/layout.ts; this file writes records.

import { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE, U32_MAX } from '../wire/layout.js';

export { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE, readU32, U32_MAX } from '../wire/layout.js';

function writeHeader(out: Uint8Array, kind: number, channel: number, length: number): void {
  out[0] = kind;
  out[1] = channel;
  out[2] = channel >>> 8;
  out[3] = channel >>> 16;
  out[4] = channel >>> 24;
  out[5] = length;
  out[6] = length >>> 8;
  out[7] = length >>> 16;
  out[8] = length >>> 24;
}

/** Throws a RangeError unless `channel` is an unsigned 32-bit integer. */
export function checkChannel(channel: number): void {
  if (!Number.isInteger(channel) || channel < 0 || channel > U32_MAX) {
    throw new RangeError(`channel id ${channel} is not an unsigned 32-bit integer`);
  }
}

/**
 * The record that carries `payload` (one encoded frame) on `channel`. The
 * payload is bytes, read as asBytes reads a chunk; anything else is a
 * TypeError, where copying it would write its elements as numbers cut to
 * 8 bits (a string as zeros, a Uint16Array's 0x100 as 0) under a header
 * that counts them.
 */
export function encodeResponse(channel: number, payload: Uint8Array): Uint8Array {
  checkChannel(channel);
  const bytes = asBytes(payload, "a response's payload");
  if (bytes.length > U32_MAX) throw new RangeError(`payload of ${bytes.length} bytes does not fit a record`);
  const out = new Uint8Array(HEADER_SIZE + bytes.length);
  writeHeader(out, KIND_RESPONSE, channel, bytes.length);
  out.set(bytes, HEADER_SIZE);
  return out;
}

/** Only the header of a response record, for writers that send the payload on its own. */
export function encodeResponseHeader(channel: number, length: number): Uint8Array {
  checkChannel(channel);
  if (!Number.isInteger(length) || length < 0 || length > U32_MAX) throw new RangeError(`length ${length} does not fit a record`);
  const out = new Uint8Array(HEADER_SIZE);
  writeHeader(out, KIND_RESPONSE, channel, length);
  return out;
}

/** The finish record of `channel`. */
export function encodeFinish(channel: number): Uint8Array {
  checkChannel(channel);
  const out = new Uint8Array(HEADER_SIZE);
  writeHeader(out, KIND_FINISH, channel, 0);
  return out;
}

/** A chunk's bytes: a Uint8Array as it is, any other view of bytes or an ArrayBuffer as a Uint8Array over them; a TypeError, naming `what`, for anything else. */
export function asBytes(chunk: unknown, what = 'a chunk of a record stream'): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && chunk instanceof SharedArrayBuffer)) return new Uint8Array(chunk);
  throw new TypeError(`mcp-frames: ${what} is bytes (a Uint8Array), not ${chunk === null ? 'null' : typeof chunk}`);
}
