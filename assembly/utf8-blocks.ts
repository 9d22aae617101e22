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

/** Kinds whose previous-byte low nibble may be anything. */
const ANY_LOW: i8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
/** Kinds that a continuation byte (80..BF) completes, by its high nibble. */
const CONT_ANY: i8 = TOO_LONG | TWO_CONTS | OVERLONG_2;

/**
 * The tables and byte constants, in memory: V8 rebuilds a v128 constant
 * from immediates at every use (three instructions or more), but a load is
 * one, and the caller loads each once per block.
 */
export const UTF8_CONSTANTS: usize = memory.data<i8>([
  // 0: by the previous byte's high nibble
  TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, // 0..7: ASCII
  TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS, // 8..B: continuations
  TOO_SHORT | OVERLONG_2, // C: 2-byte leads C0..CF
  TOO_SHORT, // D: 2-byte leads D0..DF
  TOO_SHORT | OVERLONG_3 | SURROGATE, // E: 3-byte leads
  TOO_SHORT | TOO_LARGE | OVERLONG_4, // F: 4-byte leads and F5..FF
  // 16: by the previous byte's low nibble
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
  // 32: by this byte's high nibble
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, // 0..7: ASCII
  CONT_ANY | OVERLONG_3 | OVERLONG_4, // 8: 80..8F
  CONT_ANY | OVERLONG_3 | TOO_LARGE, // 9: 90..9F
  CONT_ANY | SURROGATE | TOO_LARGE, // A: A0..AF
  CONT_ANY | SURROGATE | TOO_LARGE, // B: B0..BF
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, // C..F: leads
  // 48: the low nibble
  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
  // 64: 0x60, which E0..FF keep the high bit after subtracting (saturating)
  0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60,
  // 80: 0x70, which F0..FF keep the high bit after subtracting (saturating)
  0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70,
  // 96: the high bit
  -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
  // 112: what the last three bytes of a block may be without starting a sequence they do not finish
  -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, <i8>0xef, <i8>0xdf, <i8>0xbf,
], 16);

/**
 * The error bits of the 16 bytes in `cur`, given the 16 before them in
 * `prev`, both vectors' high nibbles, and the tables: zero where all is
 * well.
 */
@inline export function utf8Errors(
  prev: v128,
  cur: v128,
  prevHigh: v128,
  curHigh: v128,
  byte1High: v128,
  byte1Low: v128,
  byte2High: v128,
  lowNibble: v128,
  third: v128,
  fourth: v128,
  highBit: v128,
): v128 {
  const prev1 = i8x16.shuffle(prev, cur, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev1High = i8x16.shuffle(prevHigh, curHigh, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev2 = i8x16.shuffle(prev, cur, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const prev3 = i8x16.shuffle(prev, cur, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  // Nibbles are below 16, so swizzle reads the table and never its zero case.
  const special = v128.and(
    v128.and(i8x16.swizzle(byte1High, prev1High), i8x16.swizzle(byte1Low, v128.and(prev1, lowNibble))),
    i8x16.swizzle(byte2High, curHigh),
  );
  // The high bit where this byte must be a continuation: two after E0..FF
  // (E0 less 0x60 keeps the high bit, DF less 0x60 loses it), three after F0..FF.
  const must = v128.or(i8x16.sub_sat_u(prev2, third), i8x16.sub_sat_u(prev3, fourth));
  return v128.xor(special, v128.and(must, highBit));
}

// Per quarter: three byte shifts (palignr) for the bytes one, two and three
// back, two nibble extractions, three table lookups (each three
// instructions in V8, which guards swizzle's index range), and six
// operations for the continuation rule. Only blocks that hold a non-ASCII
// byte come here.
//
// PERF NOTES: about 25 instructions a quarter, 7 ns a 64-byte block. No
// branch to skip a quarter with no non-ASCII byte: with one, text-48k ran
// 0.37 to 0.55 ns a byte, prose 0.23 to 0.30, listing-medium 0.63 to 0.67,
// and twitter.json no faster.

/**
 * The UTF-8 error bits of the block at p, given the quarter before it. A
 * loop over the quarters rather than four copies: V8 would interleave the
 * copies and spill their vectors.
 */
@inline export function utf8Block(prev: v128, p: usize): v128 {
  const k = UTF8_CONSTANTS;
  const byte1High = v128.load(k, 0);
  const byte1Low = v128.load(k, 16);
  const byte2High = v128.load(k, 32);
  const lowNibble = v128.load(k, 48);
  const third = v128.load(k, 64);
  const fourth = v128.load(k, 80);
  const highBit = v128.load(k, 96);
  let before = prev;
  let beforeHigh = v128.and(i16x8.shr_u(prev, 4), lowNibble);
  let errors = i64x2.splat(0);
  for (let q = p; q < p + 64; q += 16) {
    const v = v128.load(q);
    const high = v128.and(i16x8.shr_u(v, 4), lowNibble);
    errors = v128.or(errors, utf8Errors(before, v, beforeHigh, high, byte1High, byte1Low, byte2High, lowNibble, third, fourth, highBit));
    before = v;
    beforeHigh = high;
  }
  return errors;
}

/**
 * The UTF-8 error bits of the 16 bytes in `cur` alone, given the 16 before
 * them, for a caller that looks at one vector at a time: the constants are
 * loaded here, each time.
 */
@inline export function utf8Vector(prev: v128, cur: v128): v128 {
  const k = UTF8_CONSTANTS;
  const lowNibble = v128.load(k, 48);
  return utf8Errors(
    prev,
    cur,
    v128.and(i16x8.shr_u(prev, 4), lowNibble),
    v128.and(i16x8.shr_u(cur, 4), lowNibble),
    v128.load(k, 0),
    v128.load(k, 16),
    v128.load(k, 32),
    lowNibble,
    v128.load(k, 64),
    v128.load(k, 80),
    v128.load(k, 96),
  );
}

/**
 * Nonzero when the last bytes of `v` start a sequence that they do not
 * finish: a lead in the last byte, a 3- or 4-byte lead in the one before,
 * a 4-byte lead in the one before that. Such a block must be followed by the
 * continuation bytes, and a following ASCII block is an error.
 */
@inline export function utf8Incomplete(v: v128): v128 {
  return i8x16.sub_sat_u(v, v128.load(UTF8_CONSTANTS, 112));
}
