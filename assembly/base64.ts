// What the SDK's Base64Schema accepts (atob's forgiving-base64), judged on a JSON string's bytes in the core.
//
// This is isBase64Bytes of src/contract/base64.ts again, rule for rule:
// the same classes, the same escapes, the same verdict on every input, and
// test/base64.test.ts holds the two (and both builds) to it. Change one,
// change the other.
//
// The input is the content of a JSON string, the bytes between its quotes,
// escapes and all (or, for a string JS already holds, its UTF-8 bytes, with
// no escapes). An escape stands for the character it names (`\/` is
// '/', `\n` is whitespace, `\u0041` is 'A'); an escape cut short by the end
// of the input, or with a \u that is not four hex digits, is refused (rule
// 4.1 already refuses both, so valid text never has one). The rule, as
// measured against atob on Node 20:
//
// - ASCII whitespace (TAB, LF, FF, CR, SPACE) anywhere is ignored;
// - what remains is the alphabet A-Z a-z 0-9 + / and then at most two '=';
// - with no '=', the count of alphabet characters n is not 1 modulo 4;
// - with one or two '=', n plus their count is a multiple of 4.
//
// # How
//
// A blob is one long run of the alphabet, so runs are what must be fast.
// The SIMD build classifies 16 bytes per vector against the alphabet by
// range tests, and a block of 64 alphabet bytes costs one test and a
// branch; the first block that holds anything else (padding, a space, an
// escape, the string's end) is found to the byte, and that byte goes to
// the scalar step, once each. The scalar build runs the same scalar step
// over a 256-entry class table, one byte at a time.

import { hex4 } from './stage1';

/** Byte classes: 0 is refused (the fill, so every byte of 0x80 or above fails on the lookup). */
const ALPHABET: u8 = 1;
const SPACE: u8 = 2;
const PAD: u8 = 3;

/** The class of each byte value: A-Z a-z 0-9 + / are ALPHABET, TAB LF FF CR SPACE are SPACE, '=' is PAD. */
const CLASS: usize = memory.data<u8>([
  // 0x00..0x1f: TAB (09), LF (0a), FF (0c), CR (0d)
  0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 2, 2, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  // 0x20..0x3f: SPACE, '+' (2b), '/' (2f), 0-9, '=' (3d)
  2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 3, 0, 0,
  // 0x40..0x5f: A-Z
  0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
  // 0x60..0x7f: a-z
  0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);

/** Whether each byte of v is of the alphabet: all ones where it is. */
@inline function alphabetBytes(v: v128): v128 {
  // PERF NOTES: two range tests and one compare. A range lo..hi is moved to
  // start at -128 by one wrapping addition, so that one signed compare
  // (a single instruction on x64 and arm64) tests it. A-Z is folded onto
  // a-z by setting bit 5 (no other byte lands in a-z that way: '@' and '['
  // to '_' land on '`' and '{' to DEL). '/' and the digits are one range,
  // 0x2f..0x39; '+' stands alone. Eight operations per 16 bytes.
  const letter = i8x16.add(v128.or(v, i8x16.splat(0x20)), i8x16.splat(<i8>(0x80 - 0x61)));
  const digit = i8x16.add(v, i8x16.splat(<i8>(0x80 - 0x2f)));
  return v128.or(
    v128.or(i8x16.lt_s(letter, i8x16.splat(<i8>(-128 + 26))), i8x16.lt_s(digit, i8x16.splat(<i8>(-128 + 11)))),
    i8x16.eq(v, i8x16.splat(0x2b)),
  );
}

/** The first position at or after p, before end, whose byte is not of the alphabet; end when there is none. */
export function alphabetRun(p: usize, end: usize): usize {
  if (ASC_FEATURE_SIMD) {
    // PERF NOTES: 64 bytes a turn while all are alphabet: four classifications,
    // their AND, one all_true. A block with anything else goes to the 16-byte
    // loop, which finds the first such byte by its bitmask.
    while (p + 64 <= end) {
      const a0 = alphabetBytes(v128.load(p));
      const a1 = alphabetBytes(v128.load(p, 16));
      const a2 = alphabetBytes(v128.load(p, 32));
      const a3 = alphabetBytes(v128.load(p, 48));
      if (!i8x16.all_true(v128.and(v128.and(a0, a1), v128.and(a2, a3)))) break;
      p += 64;
    }
    while (p + 16 <= end) {
      const bits = <u32>i8x16.bitmask(alphabetBytes(v128.load(p)));
      if (bits != 0xffff) return p + <usize>ctz(~bits);
      p += 16;
    }
  }
  // PERF NOTES: the scalar build's whole loop, and the SIMD build's last 15 bytes: one table load per byte.
  while (p < end && load<u8>(CLASS + <usize>load<u8>(p)) == ALPHABET) p++;
  return p;
}

/** The verdict once the data ends: n alphabet characters, then `pad` '=' (whitespace aside). */
@inline function accepts(n: usize, pad: u32): bool {
  return pad == 0 ? (n & 3) != 1 : pad <= 2 && ((n + <usize>pad) & 3) == 0;
}

/**
 * Whether atob accepts the string whose JSON text is [start, end): the
 * bytes between its quotes. With `json` false the bytes are the string
 * itself (as UTF-8), and a backslash is a byte like any other outside the
 * alphabet.
 */
export function base64Valid(start: usize, end: usize, json: bool): bool {
  let p = start;
  let n: usize = 0;
  let pad: u32 = 0;
  while (p < end) {
    if (pad == 0) {
      const run = p;
      p = alphabetRun(p, end);
      n += p - run;
      if (p == end) break;
    }
    // The scalar step: one character that is not a plain alphabet byte, or any after the padding began.
    let c = <u32>load<u8>(p++);
    if (c == 0x5c && json) {
      if (p >= end) return false;
      const e = <u32>load<u8>(p++);
      if (e == 0x2f) c = 0x2f;
      else if (e == 0x6e) c = 0x0a;
      else if (e == 0x72) c = 0x0d;
      else if (e == 0x74) c = 0x09;
      else if (e == 0x66) c = 0x0c;
      else if (e == 0x75) {
        if (p + 4 > end) return false;
        const unit = hex4(p);
        if (unit < 0) return false;
        c = <u32>unit;
        p += 4;
      } else return false; // \" \\ \b: not base64 characters
    }
    const kind = c < 0x80 ? load<u8>(CLASS + <usize>c) : 0;
    if (kind == ALPHABET) {
      // Only an escaped one (\u0041, \/), or one after the padding began, reaches here.
      if (pad != 0) return false;
      n++;
    } else if (kind == PAD) pad++;
    else if (kind != SPACE) return false;
  }
  return accepts(n, pad);
}
