// Well-formed UTF-8 (rule 4.1, Unicode 15 table 3-7) judged 16 bytes at a time, in the SIMD build.
//
// The lookup method of Keiser and Lemire, "Validating UTF-8 in less than one
// instruction per byte", Software: Practice and Experience 51(5), 2021. Every
// error of a UTF-8 byte sequence shows in a pair of adjacent bytes (the byte
// before, the byte itself), save the rule that a 3- or 4-byte sequence has
// enough continuation bytes. Each kind of pair error is a product of three
// sets: the previous byte's high nibble, its low nibble, and this byte's high
// nibble. So three 16-entry tables, indexed by those nibbles, each give a byte
// with one bit per kind of error, and their AND has a bit set exactly where a
// pair is wrong. The tables below are written here from table 3-7, bit by bit;
// the paper gives the method, not these constants.
//
// One bit, TWO_CONTS (a continuation after a continuation), is an error
// except as the third or fourth byte of a 3- or 4-byte sequence; those
// positions are where the byte two back is E0..FF or the byte three back is
// F0..FF, and XOR with that mask turns the expected case into no error.
//
// This file only finds that a block is wrong. Where, and which rule the
// first fault breaks, is for the exact scanner (./json), which the SIMD build
// runs again over the text when anything here is set.

/** A lead byte followed by a byte that is not a continuation (or by nothing). */
const TOO_SHORT: i8 = 1 << 0;
/** A continuation byte after an ASCII byte. */
const TOO_LONG: i8 = 1 << 1;
/** E0 followed by 80..9F: a 3-byte form of a code point below U+0800. */
const OVERLONG_3: i8 = 1 << 2;
/** F4 followed by 90..BF, or F5..FF followed by 90..BF: above U+10FFFF. */
const TOO_LARGE: i8 = 1 << 3;
/** ED followed by A0..BF: U+D800..U+DFFF. */
const SURROGATE: i8 = 1 << 4;
/** C0 or C1 followed by a continuation: a 2-byte form of ASCII. */
const OVERLONG_2: i8 = 1 << 5;
/** F0 followed by 80..8F (a 4-byte form below U+10000), or F5..FF followed by 80..8F. */
const OVERLONG_4: i8 = 1 << 6;
/** A continuation after a continuation: right only inside a 3- or 4-byte sequence. */
const TWO_CONTS: i8 = -128; // 1 << 7

/** By the previous byte's high nibble. */
@inline function byte1HighTable(): v128 {
  return i8x16(
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, // 0..7: ASCII
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS, // 8..B: continuations
    TOO_SHORT | OVERLONG_2, // C: 2-byte leads C0..CF
    TOO_SHORT, // D: 2-byte leads D0..DF
    TOO_SHORT | OVERLONG_3 | SURROGATE, // E: 3-byte leads
    TOO_SHORT | TOO_LARGE | OVERLONG_4, // F: 4-byte leads and F5..FF
  );
}

/** Kinds whose previous-byte low nibble may be anything. */
const ANY_LOW: i8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/** By the previous byte's low nibble. */
@inline function byte1LowTable(): v128 {
  return i8x16(
    ANY_LOW | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, // 0: C0, E0, F0
    ANY_LOW | OVERLONG_2, // 1: C1
    ANY_LOW,
    ANY_LOW,
    ANY_LOW | TOO_LARGE, // 4: F4
    ANY_LOW | TOO_LARGE | OVERLONG_4, // 5..F: F5..FF
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4 | SURROGATE, // D: ED
    ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4,
  );
}

/** Kinds that a continuation byte (80..BF) completes, by its high nibble. */
const CONT_ANY: i8 = TOO_LONG | TWO_CONTS | OVERLONG_2;

/** By this byte's high nibble. */
@inline function byte2HighTable(): v128 {
  return i8x16(
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, // 0..7: ASCII
    CONT_ANY | OVERLONG_3 | OVERLONG_4, // 8: 80..8F
    CONT_ANY | OVERLONG_3 | TOO_LARGE, // 9: 90..9F
    CONT_ANY | SURROGATE | TOO_LARGE, // A: A0..AF
    CONT_ANY | SURROGATE | TOO_LARGE, // B: B0..BF
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, // C..F: leads
  );
}

/**
 * The error bits of the 16 bytes in `cur`, given the 16 before them in
 * `prev`, and both vectors' high nibbles: zero where all is well.
 */
@inline export function utf8Errors(prev: v128, cur: v128, prevHigh: v128, curHigh: v128): v128 {
  const prev1 = i8x16.shuffle(prev, cur, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev1High = i8x16.shuffle(prevHigh, curHigh, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev2 = i8x16.shuffle(prev, cur, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const prev3 = i8x16.shuffle(prev, cur, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  // Nibbles are below 16, so swizzle reads the table and never its zero case.
  const special = v128.and(
    v128.and(i8x16.swizzle(byte1HighTable(), prev1High), i8x16.swizzle(byte1LowTable(), v128.and(prev1, i8x16.splat(0x0f)))),
    i8x16.swizzle(byte2HighTable(), curHigh),
  );
  // The high bit where this byte must be a continuation: two after E0..FF
  // (E0 less 0x60 keeps the high bit, DF less 0x60 loses it), three after F0..FF.
  const must = v128.or(i8x16.sub_sat_u(prev2, i8x16.splat(0x60)), i8x16.sub_sat_u(prev3, i8x16.splat(0x70)));
  return v128.xor(special, v128.and(must, i8x16.splat(TWO_CONTS)));
}

/**
 * Nonzero when the last bytes of `v` start a sequence that they do not
 * finish: a lead in the last byte, a 3- or 4-byte lead in the one before,
 * a 4-byte lead in the one before that. Such a block must be followed by the
 * continuation bytes, and a following ASCII block is an error.
 */
@inline export function utf8Incomplete(v: v128): v128 {
  return i8x16.sub_sat_u(
    v,
    i8x16(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, <i8>0xef, <i8>0xdf, <i8>0xbf),
  );
}
