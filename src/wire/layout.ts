// How a record is laid out on a byte stream (WIRE.md section 3): its kinds, its header, its widths.
//
//   offset 0  size 1       kind: 0x01 channel response, 0x02 channel response finish
//   offset 1  size 4       channel id, unsigned 32-bit, little-endian
//   offset 5  size 4       payload length, unsigned 32-bit, little-endian
//   offset 9  size length  payload: the frame (response); nothing (finish)
//
// assembly/records.ts has the same constants for the core.

/** A channel response: the payload is one frame. */
export const KIND_RESPONSE = 0x01;
/** A channel response finish: ends the exchange; the payload is empty. */
export const KIND_FINISH = 0x02;

/** Bytes before the payload: kind, channel id, length. */
export const HEADER_SIZE = 9;

/** The largest channel id and payload length a header can hold. */
export const U32_MAX = 0xffff_ffff;

/** Reads a little-endian u32 at b[i]. */
export function readU32(b: Uint8Array, i: number): number {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}
