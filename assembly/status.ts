// What the core says about a run of bytes: one integer, from this one enum.
//
// # Why an enum and not a throw
//
// AssemblyScript compiles `throw` to `abort`, which kills the instance. The
// core never throws; every export returns one of these, and the facade turns
// it into a typed error (src/wire/status.ts mirrors this file, and
// test/status-mirror.test.ts keeps the two equal).
//
// # Offsets
//
// Record errors are reported at the offset of the record's first byte.
// Frame and body errors are reported at an offset inside the payload, where
// the tag byte is offset 0 and the JSON text starts at offset 1.

/** The bytes are accepted. */
export const OK: i32 = 0;
/** A record is cut at the end of the bytes: wait for more. Not an error. */
export const INCOMPLETE: i32 = 1;

// Record errors (WIRE.md section 3). Each is fatal for the stream.

/** A kind byte other than 0x01 (response) or 0x02 (finish). */
export const BAD_KIND: i32 = 10;
/** A finish whose payload length is not 0. */
export const BAD_FINISH: i32 = 11;
/** A payload length above the frame limit, seen in the header. */
export const OVERSIZE: i32 = 12;
/** A response would open more channels than the limit. */
export const TOO_MANY_CHANNELS: i32 = 13;
/** The stream ended inside a record. */
export const TRUNCATED: i32 = 14;
/** A response would make the stream hold more payload bytes than the held limit (judged by the JS sink, which knows the open channels). */
export const HELD_LIMIT: i32 = 15;

// Frame errors (WIRE.md section 1).

/** The payload has no bytes at all. */
export const EMPTY: i32 = 20;
/** The first byte is neither 0x00 (result) nor 0x01 (error). */
export const UNKNOWN_TAG: i32 = 21;

// Body errors, rule 4.1: the body is not strict JSON text.

/** A byte the JSON grammar does not allow here; offset of that byte. */
export const JSON_SYNTAX: i32 = 30;
/** The text ends inside a value; offset is the payload's length. */
export const JSON_END: i32 = 31;
/** Invalid UTF-8 (overlong, surrogate, out of range, cut); offset of the lead byte. */
export const UTF8: i32 = 32;
/** A byte-order mark before the value; offset of its first byte. */
export const BOM: i32 = 33;
/** A raw control character (U+0000 to U+001F) inside a string; offset of it. */
export const CONTROL_CHAR: i32 = 34;
/** A backslash escape the grammar does not have; offset of the backslash. */
export const BAD_ESCAPE: i32 = 35;
/** A \u escape of a surrogate that is not one half of a pair; offset of its backslash. */
export const LONE_SURROGATE: i32 = 36;
/** A number that is not finite as an IEEE double; offset of its first byte. */
export const NUMBER_RANGE: i32 = 37;
/** More than 127 arrays and objects nested; offset of the 128th opening bracket. */
export const DEPTH: i32 = 38;
/** Something other than whitespace after the value; offset of its first byte. */
export const TRAILING: i32 = 39;

// Body errors, rules 4.2 and 4.3: judged in TypeScript, listed here so that
// one enum names every way a frame can fail.

/** The SDK schema of the variant refuses the value. */
export const SCHEMA: i32 = 40;
/** An error code outside the signed 32-bit range. */
export const CODE_RANGE: i32 = 41;

// Not an answer about the bytes: the entry table filled up before the scan
// reached the end. Call again from where it stopped.

/** The record table is full; scan again from the reported position. */
export const TABLE_FULL: i32 = 50;
