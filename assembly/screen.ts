// What JSON.parse does not judge of rule 4.1, for decode: one light pass over a body.
//
// Decode parses every body it accepts with JSON.parse, which refuses
// everything outside the RFC 8259 grammar (ECMA-404 is that grammar, with
// the same four whitespace bytes). What it lets through that rule 4.1
// refuses is four things:
//
// - bytes that are not UTF-8 (a decoder replaces them before it parses);
// - a lone surrogate escape, which it turns into a lone code unit;
// - a number beyond the largest double, which it turns into Infinity;
// - nesting deeper than 127.
//
// A body passes this screen when none of the four can be in it. It reads
// the body as JSON.parse would where it is JSON (strings from quote to
// unescaped quote, and everything else between them), and asks:
//
// - is the UTF-8 well formed, everywhere;
// - is no escape inside a string a `\u` whose first hex digit is `d` or
//   `D` (every surrogate escape is one);
// - outside strings, does no `e` or `E` follow a digit (an exponent), and
//   do no 309 digits come in a row? A number with neither is below 1e308,
//   so finite;
// - outside strings, do the brackets never nest deeper than 127?
//
// A byte-order mark needs nothing here: outside a string JSON.parse
// refuses U+FEFF, and the decoders decode uses keep it
// (src/contract/utf8-text.ts). On a body that is not JSON, the screen's
// reading may be anything; the body fails JSON.parse whatever the screen
// says.
//
// So for a body that passes, JSON.parse's verdict is rule 4.1's: where it
// parses, the body is strict JSON text; where it throws, the body is not,
// and verifyFrame names the fault. A body that does not pass is verified
// as before. The screen names no fault and is never the last word on one.
//
// The scalar build's screen is src/contract/screen.ts's, the JS path's,
// except for the UTF-8: the JS path reads its verdict off the text decode
// makes (a decoder makes U+FFFD of bytes not UTF-8), where the core, which
// has no text, checks the bytes. The SIMD build's refuses a little more: any
// backslash before `u` and `d`, escaped or not, and any body with
// DIGIT_BLOCKS whole blocks of digits.

import { utf8Length } from './utf8';
import { EVEN, mask64, ODD, prefixXor } from './stage1';
import { copyTail, tail } from './windows';
import { utf8Block, utf8Incomplete } from './utf8-blocks';

/** Rule 4.1's nesting limit. */
const MAX_DEPTH: i32 = 127;
/** Digits in a row from which a number may be 1e308 or more. */
const DIGIT_RUN: u32 = 309;

/** Whether JSON.parse's verdict on the body [start, end) is rule 4.1's (see above). */
export function screenText(start: usize, end: usize): bool {
  if (ASC_FEATURE_SIMD) return screenVectors(start, end);
  return screenBytes(start, end);
}

/** The screen one byte at a time: the scalar build's, and the JS path's (src/contract/screen.ts). */
function screenBytes(start: usize, end: usize): bool {
  let depth: i32 = 0;
  let digits: u32 = 0;
  let p = start;
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c == 0x22) {
      // A string, to its closing quote: escapes and UTF-8.
      p++;
      while (p < end) {
        const d = <u32>load<u8>(p);
        if (d == 0x22) break;
        if (d == 0x5c) {
          if (p + 2 < end && load<u8>(p, 1) == 0x75 && (<u32>load<u8>(p, 2) | 0x20) == 0x64) return false;
          p += 2;
        } else if (d >= 0x80) {
          const n = utf8Length(p, end);
          if (n == 0) return false;
          p += n;
        } else {
          p++;
        }
      }
      p++;
      digits = 0;
      continue;
    }
    if (c - 0x30 < 10) {
      if (++digits >= DIGIT_RUN) return false;
    } else {
      const folded = c | 0x20;
      if (folded == 0x65) {
        if (digits != 0) return false;
      } else if (folded == 0x7b) {
        if (++depth > MAX_DEPTH) return false;
      } else if (folded == 0x7d) {
        depth--;
      } else if (c >= 0x80 && utf8Length(p, end) == 0) {
        return false;
      }
      digits = 0;
    }
    p++;
  }
  return true;
}

// Per 64-byte block: quotes, brackets and exponent letters reduced to
// 64-bit masks, the bytes inside strings found from the quotes by prefix
// XOR (as in ./stage1, whose notes cite the method), and the opening
// brackets outside strings counted, with a walk over the block's brackets
// only when the count could pass the limit.
//
// PERF NOTES: about a hundred operations a block and no branch that plain
// text takes but the loop's; a backslash or a non-ASCII byte takes a
// branch of its own. The constants load from CONSTANTS once a call, since
// V8 rebuilds a v128 constant at every use (three instructions).

/** The screen's v128 constants (see the PERF NOTES). */
const CONSTANTS: usize = memory.data<u8>([
  // 0: 0x20, which folds '[' and ']' into '{' and '}', and 'E' into 'e'
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  // 16: '{'
  0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
  // 32: 'e'
  0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65, 0x65,
  // 48: '\\'
  0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c,
  // 64: 0xb0: a digit less it is -128..-119 as a signed byte, and no other byte is
  0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0, 0xb0,
  // 80: -118, the bound those are below
  0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a,
  // 96: '"'
  0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
  // 112: '}'
  0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d, 0x7d,
], 16);

/** Whole 64-byte blocks that any DIGIT_RUN digits in a row contain: 309 = 63 + 3 * 64 + 54. */
const DIGIT_BLOCKS: u32 = 3;

/** The digit lanes of v. */
@inline function digitsOf(v: v128, base: v128, bound: v128): v128 {
  return i8x16.lt_s(i8x16.sub(v, base), bound);
}

/**
 * The screen 64 bytes at a time, in the SIMD build: the byte screen's
 * questions, with the bytes inside strings found by mask, which for a body
 * JSON.parse accepts is exact (for any other, JSON.parse throws whatever
 * the screen says). It refuses a little more: any backslash before `u` and
 * `d`, escaped or not, and any body that holds DIGIT_BLOCKS whole blocks of
 * digits, in a row or not.
 */
function screenVectors(start: usize, end: usize): bool {
  const lower = v128.load(CONSTANTS, 0);
  const openBrace = v128.load(CONSTANTS, 16);
  const letterE = v128.load(CONSTANTS, 32);
  const backslash = v128.load(CONSTANTS, 48);
  const digitBase = v128.load(CONSTANTS, 64);
  const digitBound = v128.load(CONSTANTS, 80);
  const quote = v128.load(CONSTANTS, 96);
  const closeBrace = v128.load(CONSTANTS, 112);
  const zero = i64x2.splat(0);
  // The last bytes, fewer than a block, padded with spaces (ASCII, no digit, bracket, quote or letter).
  const whole = start + ((end - start) & ~<usize>63);
  copyTail(whole, end);
  let prev = zero;
  let prevDigits = zero;
  let incomplete = zero;
  let errors = zero;
  let escapedCarry: u64 = 0;
  let stringCarry: u64 = 0;
  let depth: i32 = 0;
  let digitBlocks: u32 = 0;
  let p = start;
  let src = start;
  let stop = whole;
  let last = false;
  while (true) {
    for (; src < stop; src += 64, p += 64) {
      const v0 = v128.load(src);
      const v1 = v128.load(src, 16);
      const v2 = v128.load(src, 32);
      const v3 = v128.load(src, 48);

      // Escaped bytes and the bytes inside strings, as stage 1 finds them.
      let escaped = escapedCarry;
      const b0 = i8x16.eq(v0, backslash);
      const b1 = i8x16.eq(v1, backslash);
      const b2 = i8x16.eq(v2, backslash);
      const b3 = i8x16.eq(v3, backslash);
      if (v128.any_true(v128.or(v128.or(b0, b1), v128.or(b2, b3)))) {
        if (surrogateEscape(src, p, end, backslash)) return false;
        const b = mask64(b0, b1, b2, b3) & ~escapedCarry;
        const starts = b & ~(b << 1);
        const evenEnds = (b + (starts & EVEN)) & ~b;
        const oddCarries = b + (starts & ODD);
        escaped |= (evenEnds & ODD) | (oddCarries & ~b & EVEN);
        escapedCarry = oddCarries < b ? 1 : 0;
      } else {
        escapedCarry = 0;
      }
      const quotes = mask64(i8x16.eq(v0, quote), i8x16.eq(v1, quote), i8x16.eq(v2, quote), i8x16.eq(v3, quote)) & ~escaped;
      const inString = prefixXor(quotes) ^ stringCarry;
      stringCarry = <u64>(<i64>inString >> 63);
      const outside = ~inString;

      // Exponents: an `e` or `E` after a digit, outside strings.
      const f0 = v128.or(v0, lower);
      const f1 = v128.or(v1, lower);
      const f2 = v128.or(v2, lower);
      const f3 = v128.or(v3, lower);
      const d0 = digitsOf(v0, digitBase, digitBound);
      const d1 = digitsOf(v1, digitBase, digitBound);
      const d2 = digitsOf(v2, digitBase, digitBound);
      const d3 = digitsOf(v3, digitBase, digitBound);
      const exponents = mask64(
        v128.and(i8x16.eq(f0, letterE), i8x16.shuffle(prevDigits, d0, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)),
        v128.and(i8x16.eq(f1, letterE), i8x16.shuffle(d0, d1, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)),
        v128.and(i8x16.eq(f2, letterE), i8x16.shuffle(d1, d2, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)),
        v128.and(i8x16.eq(f3, letterE), i8x16.shuffle(d2, d3, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)),
      );
      if ((exponents & outside) != 0) return false;
      prevDigits = d3;
      digitBlocks += <u32>i8x16.all_true(v128.and(v128.and(d0, d1), v128.and(d2, d3)));

      // Nesting: the brackets outside strings, walked one by one only when
      // this block's openings could take the depth past the limit.
      const opens = mask64(i8x16.eq(f0, openBrace), i8x16.eq(f1, openBrace), i8x16.eq(f2, openBrace), i8x16.eq(f3, openBrace)) & outside;
      const closes = mask64(i8x16.eq(f0, closeBrace), i8x16.eq(f1, closeBrace), i8x16.eq(f2, closeBrace), i8x16.eq(f3, closeBrace)) & outside;
      if (depth + <i32>popcnt(opens) <= MAX_DEPTH) {
        depth += <i32>popcnt(opens) - <i32>popcnt(closes);
      } else {
        let brackets = opens | closes;
        while (brackets != 0) {
          const bit = brackets & (~brackets + 1);
          brackets ^= bit;
          if ((opens & bit) != 0) {
            if (++depth > MAX_DEPTH) return false;
          } else {
            depth--;
          }
        }
      }

      if (i8x16.bitmask(v128.or(v128.or(v0, v1), v128.or(v2, v3))) != 0) {
        errors = v128.or(errors, utf8Block(prev, src));
        incomplete = utf8Incomplete(v3);
      } else {
        errors = v128.or(errors, incomplete);
        incomplete = zero;
      }
      prev = v3;
    }
    if (last) break;
    // Then the padded last block, which stands for the text at `whole`.
    last = true;
    src = tail;
    stop = tail + 64;
    p = whole;
  }
  return digitBlocks < DIGIT_BLOCKS && !v128.any_true(v128.or(errors, incomplete));
}

/**
 * Whether a backslash in the block at `src`, which stands for the text at
 * `p`, is followed by `u` and then `d` or `D`: read from the text, which
 * ends at `end`.
 */
function surrogateEscape(src: usize, p: usize, end: usize, backslash: v128): bool {
  let bits = mask64(i8x16.eq(v128.load(src), backslash), i8x16.eq(v128.load(src, 16), backslash), i8x16.eq(v128.load(src, 32), backslash), i8x16.eq(v128.load(src, 48), backslash));
  while (bits != 0) {
    const at = p + <usize>ctz(bits);
    bits &= bits - 1;
    if (at + 2 < end && load<u8>(at, 1) == 0x75 && (<u32>load<u8>(at, 2) | 0x20) == 0x64) return true;
  }
  return false;
}
