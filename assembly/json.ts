// Whether a body is strict JSON text (WIRE.md rule 4.1), in the core.
//
// This is src/contract/json-text.ts again, rule for rule and in the same
// order, so that both report the same status at the same offset for every
// input; the differential test holds them to it. Change one, change the
// other.
//
// # Two stages first, in the SIMD build
//
// The SIMD build judges a text of STAGED_MIN bytes or more in two stages
// over 64-byte blocks (./text-simd, after Langdale and Lemire, "Parsing
// Gigabytes of JSON per Second", VLDB Journal 28, 2019), which only say
// whether the text is valid. The scanner below runs when they say it is not,
// to name the first fault and its offset, and alone on shorter texts. The
// scalar build has only this scanner.
//
// Its string loop, in the SIMD build, tests 16 bytes at a time for a byte
// that needs the scanner: a quote, a backslash, a control byte or a
// non-ASCII byte. The idea is the block classification of simdjson's
// src/generic/stage1/json_string_scanner.h (simdjson/simdjson at commit
// 203eac004a57d7ebb1ce21141d57b7a7f7800fcb): compare a whole block against
// '"' and '\\' and reduce the compares to a bitmask. No code is borrowed.
// The rest, structure, numbers, escapes and UTF-8 sequences, goes one byte
// at a time. One pass, so the first fault in reading order is the one
// reported, as on the JS path.
//
// # Faults
//
// Scanning functions return the position after what they read, or 0 for a
// fault (no position in this memory is 0: data starts above it), with the
// status and the faulting position left in `faultStatus` and `faultAt`
// (./fault, below this file, so that stage 2 and the number scanner can fail too).

import {
  OK,
  JSON_SYNTAX,
  JSON_END,
  UTF8,
  BOM,
  CONTROL_CHAR,
  BAD_ESCAPE,
  LONE_SURROGATE,
  NUMBER_RANGE,
  DEPTH,
  TRAILING,
} from './status';
import { fail, faultAt, faultStatus } from './fault';
import { scanNumber } from './number';
import { utf8Length } from './utf8';
import { plainText } from './stage1';
import { textValid, STAGED_MIN } from './text-simd';
import { resumeAt, resumeDepth, resumeStack } from './stage2';

/** Rule 4.1's nesting limit, counting the outermost container. */
const MAX_DEPTH: i32 = 127;

const OBJECT: u8 = 1;
const ARRAY: u8 = 2;

/** The container stack: one byte per level, OBJECT or ARRAY. */
const stack: usize = memory.data(MAX_DEPTH + 1);


/** As fail, for validateText, which answers with the status itself. */
@inline function refuse(status: i32, at: usize): i32 {
  fail(status, at);
  return status;
}

@inline function isWhitespace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

@inline function skipWhitespace(p: usize, end: usize): usize {
  while (p < end && isWhitespace(load<u8>(p))) p++;
  return p;
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

@inline function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}

function hexValue(p: usize): u32 {
  let v: u32 = 0;
  for (let k: usize = 0; k < 4; k++) {
    const c = <u32>load<u8>(p + k);
    v = (v << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return v;
}

// The exact scanner's hot loop: in the SIMD build it runs on short texts,
// and to name a fault, which may sit at the end of a long string. The SIMD
// build tests 16 bytes per step with four compares and one bitmask, only
// while 16 bytes remain before `end`, so it never reads past the body. At a
// non-ASCII byte plainText (./stage1) takes over, 16 bytes at a time with
// stage 1's UTF-8 lookups, until a quote, a backslash, a control byte or a
// UTF-8 error; when it cannot pass a single step (a short string with one
// é), it is not tried again in that string before an escape, and a
// multi-byte character turns the 16-byte test off likewise.
//
// PERF NOTES: the bet is that string contents are long runs of printable
// ASCII (URIs, names, text, above all base64 blobs). Prose that is mostly
// non-ASCII breaks it: the 16-byte test alone stopped at every multi-byte
// character and ran prose at half the scalar build's speed, hence
// plainText and the switches off.
function scanString(p: usize, end: usize): usize {
  p++;
  // Whether the 16-byte test, and the blocks of plainText, are worth trying (see PERF NOTES).
  let wide = true;
  let bulk = true;
  while (true) {
    if (ASC_FEATURE_SIMD && wide) {
      const below = i8x16.splat(0x20);
      const span = i8x16.splat(0x60);
      const quote = i8x16.splat(0x22);
      const backslash = i8x16.splat(0x5c);
      while (p + 16 <= end) {
        const v = v128.load(p);
        // Outside 0x20..0x7f: (v - 0x20) as unsigned is 0x60 or more.
        const outside = i8x16.ge_u(i8x16.sub(v, below), span);
        const special = v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash));
        const mask = i8x16.bitmask(v128.or(outside, special));
        if (mask != 0) {
          p += <usize>ctz(mask);
          break;
        }
        p += 16;
      }
    }
    while (p < end) {
      const c = <u32>load<u8>(p);
      if (c < 0x20 || c >= 0x80 || c == 0x22 || c == 0x5c) break;
      p++;
    }
    if (p >= end) return fail(JSON_END, end);
    const c = <u32>load<u8>(p);
    if (c == 0x22) return p + 1;
    if (c == 0x5c) {
      p = scanEscape(p, end);
      if (p == 0) return 0;
      wide = true;
      bulk = true;
    } else if (c < 0x20) {
      return fail(CONTROL_CHAR, p);
    } else {
      if (ASC_FEATURE_SIMD && bulk) {
        // Perhaps a long run of non-ASCII text: 16 bytes at a time.
        const q = plainText(p, end);
        if (q > p) {
          p = q;
          continue;
        }
        bulk = false;
      }
      const n = utf8Length(p, end);
      if (n == 0) return fail(UTF8, p);
      p += n;
      wide = false;
    }
  }
  return 0; // not reached: the loop only returns
}

/** The escape whose backslash is at p. */
function scanEscape(p: usize, end: usize): usize {
  if (p + 1 >= end) return fail(JSON_END, end);
  const c = <u32>load<u8>(p + 1);
  if (c == 0x22 || c == 0x5c || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74) return p + 2;
  if (c != 0x75) return fail(BAD_ESCAPE, p);
  for (let k: usize = 2; k < 6; k++) {
    if (p + k >= end) return fail(JSON_END, end);
    if (!isHex(load<u8>(p + k))) return fail(BAD_ESCAPE, p);
  }
  const unit = hexValue(p + 2);
  if (unit < 0xd800 || unit > 0xdfff) return p + 6;
  if (unit >= 0xdc00) return fail(LONE_SURROGATE, p);
  // A high surrogate: a low one must follow at once, as a whole escape.
  const j = p + 6;
  if (
    j + 6 <= end &&
    load<u8>(j) == 0x5c &&
    load<u8>(j + 1) == 0x75 &&
    isHex(load<u8>(j + 2)) &&
    isHex(load<u8>(j + 3)) &&
    isHex(load<u8>(j + 4)) &&
    isHex(load<u8>(j + 5))
  ) {
    const low = hexValue(j + 2);
    if (low >= 0xdc00 && low <= 0xdfff) return j + 6;
  }
  return fail(LONE_SURROGATE, p);
}

/** The literal `word` (4 or 5 ASCII bytes, first byte at the lowest address) at p. */
function scanLiteral(p: usize, end: usize, word: u64, length: usize): usize {
  for (let k: usize = 0; k < length; k++) {
    if (p + k >= end) return fail(JSON_END, end);
    if (<u64>load<u8>(p + k) != ((word >> (k * 8)) & 0xff)) return fail(JSON_SYNTAX, p + k);
  }
  return p + length;
}

const TRUE: u64 = 0x65757274; // "true", first byte lowest
const FALSE: u64 = 0x65736c6166; // "false"
const NULL: u64 = 0x6c6c756e; // "null"

/** A member name and its ':' at p; returns the position of the member's value. */
function scanKey(p: usize, end: usize): usize {
  if (p >= end) return fail(JSON_END, end);
  if (load<u8>(p) != 0x22) return fail(JSON_SYNTAX, p);
  const r = scanString(p, end);
  if (r == 0) return 0;
  p = skipWhitespace(r, end);
  if (p >= end) return fail(JSON_END, end);
  if (load<u8>(p) != 0x3a) return fail(JSON_SYNTAX, p);
  return skipWhitespace(p + 1, end);
}

/**
 * Whether [start, end) is strict JSON text: OK, or the first fault in
 * reading order, with its position in `faultAt`.
 */
export function validateText(start: usize, end: usize): i32 {
  // The SIMD build answers valid text in two stages over blocks, and runs
  // the exact scanner below only to name a fault it found (or alone, for a
  // short text).
  if (ASC_FEATURE_SIMD) {
    if (end - start >= STAGED_MIN) {
      if (textValid(start, end)) return OK;
      // From the last point before which the stages found all well.
      if (resumeAt != 0) {
        memory.copy(stack, resumeStack, <usize>resumeDepth + 1);
        return validateFrom(resumeAt, end, resumeDepth);
      }
    }
  }
  const p = skipWhitespace(start, end);
  if (p + 2 < end && load<u8>(p) == 0xef && load<u8>(p + 1) == 0xbb && load<u8>(p + 2) == 0xbf) {
    return refuse(BOM, p);
  }
  return validateFrom(p, end, 0);
}

/**
 * The rest of validateText, from a value at p with `depth` containers
 * around it (their kinds in `stack`): from the text's first value, or from
 * a point where the SIMD stages resume it.
 */
function validateFrom(p: usize, end: usize, depth: i32): i32 {

  // Each turn reads one value at p, then the punctuation after it.
  while (true) {
    if (p >= end) {
      return refuse(JSON_END, end);
    }
    let r: usize;
    const c = <u32>load<u8>(p);
    if (c == 0x7b) {
      // '{': an object; read its first key, or its end.
      if (++depth > MAX_DEPTH) {
        return refuse(DEPTH, p);
      }
      store<u8>(stack + <usize>depth, OBJECT);
      p = skipWhitespace(p + 1, end);
      if (p < end && load<u8>(p) == 0x7d) {
        depth--;
        r = p + 1;
      } else {
        r = scanKey(p, end);
        if (r == 0) return faultStatus;
        p = r;
        continue;
      }
    } else if (c == 0x5b) {
      // '[': an array; read its first value, or its end.
      if (++depth > MAX_DEPTH) {
        return refuse(DEPTH, p);
      }
      store<u8>(stack + <usize>depth, ARRAY);
      p = skipWhitespace(p + 1, end);
      if (p < end && load<u8>(p) == 0x5d) {
        depth--;
        r = p + 1;
      } else {
        continue;
      }
    } else if (c == 0x22) {
      r = scanString(p, end);
    } else if (c == 0x74) {
      r = scanLiteral(p, end, TRUE, 4);
    } else if (c == 0x66) {
      r = scanLiteral(p, end, FALSE, 5);
    } else if (c == 0x6e) {
      r = scanLiteral(p, end, NULL, 4);
    } else if (c == 0x2d || isDigit(c)) {
      r = scanNumber(p, end);
    } else {
      return refuse(JSON_SYNTAX, p);
    }
    if (r == 0) return faultStatus;
    p = r;

    // After a value: close containers until a ',' leads to the next value.
    while (true) {
      p = skipWhitespace(p, end);
      if (depth == 0) {
        if (p < end) {
          return refuse(TRAILING, p);
        }
        return OK;
      }
      if (p >= end) {
        return refuse(JSON_END, end);
      }
      const punct = <u32>load<u8>(p);
      if (punct == 0x2c) {
        p = skipWhitespace(p + 1, end);
        if (load<u8>(stack + <usize>depth) == OBJECT) {
          r = scanKey(p, end);
          if (r == 0) return faultStatus;
          p = r;
        }
        break;
      }
      const kind = load<u8>(stack + <usize>depth);
      if ((punct == 0x7d && kind == OBJECT) || (punct == 0x5d && kind == ARRAY)) {
        depth--;
        p++;
        continue;
      }
      return refuse(JSON_SYNTAX, p);
    }
  }
  return OK; // not reached: the loop only returns
}
