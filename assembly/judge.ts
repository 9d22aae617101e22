// Rule 4.2's acceptance, proven in the core: a schema plan walked over bodies rule 4.1 already accepts.
//
// The byte judge of src/contract/judge-bytes.ts (acceptsBytes) follows a
// plan (src/contract/judge-plan.ts) over a body's text; JS lowers that plan
// into a table of 32-bit words (src/contract/judge-table.ts), written into
// the plan area below, and this walk follows the same plan. It answers only
// "accepted": wherever the plan asks something the table does not carry (a
// pattern, an escaped member name, a defaulted member absent, the value of
// a number with an exponent), it proves nothing, and JS judges the frame as before. So it
// accepts a body only where acceptsBytes does, and the verdicts stay the JS
// path's on every backend.
//
// # The table
//
// A node is at a byte offset from the table's start; its first word is its
// kind, with NULL_OK (null accepted) in bit 8. Then, by kind:
//
//   OBJECT   required mask, asked mask, strict, n, shift; 32 one-byte slots, the member
//            numbered k + 1 in slot (first byte ^ length << shift) & 31 (0: none; COLLIDED:
//            two or more, searched in turn); then n × (child, name offset, name length,
//            the name's length << 8 | the byte after its opening quote)
//   ARRAY    element, cap (-1: none)
//   RECORD   element
//   OPTIONS  n; then n options, each tried in order
//   ENUM     n; then n × (string offset, string length): the strings, as UTF-8
//   NUMBER   flags (INTEGER, LOW, LOW_OPEN, HIGH, HIGH_OPEN), then the bounds as two f64
//
// ANY, CONTAINER, STRING, BASE64, BOOLEAN and BAIL have no fields.
//
// PERF NOTES: the plan walked here, a run of folded exchanges a call, in
// place of the JS byte judge a frame a call: `relay --validate full` over
// 64 MiB (whole process, CPU) took 0.60 s against 0.75 on ~80-byte
// listings and 0.77 against 0.91 on 16 KiB ones, json with the same
// --endpoint 0.52 and 0.65. Names found by a slot of their length and
// first byte, strings ended 16 bytes a turn: 0.7-1.0 ns a byte of
// listing (1.2 a byte at a time, names searched), beside verifyFrame's 0.6-1.0.

import { stringEnd } from './string-end';
import { base64Valid } from './base64';
import { HEADER_SIZE } from './record-layout';
import { TAG_RESULT } from './frame';

const K_ANY: u32 = 0;
const K_OBJECT: u32 = 1;
const K_ARRAY: u32 = 2;
const K_OPTIONS: u32 = 3;
const K_RECORD: u32 = 4;
const K_CONTAINER: u32 = 5;
const K_BAIL: u32 = 6;
const K_STRING: u32 = 7;
const K_BASE64: u32 = 8;
const K_ENUM: u32 = 9;
const K_NUMBER: u32 = 10;
const K_BOOLEAN: u32 = 11;
const NULL_OK: u32 = 0x100;

/** OBJECT: the word its members start at, and the slot that two names share. */
const MEMBERS: usize = 14;
const COLLIDED: u32 = 255;

// A NUMBER's checks, in its flags word.
const INTEGER: u32 = 1;
const LOW: u32 = 2;
const LOW_OPEN: u32 = 4;
const HIGH: u32 = 8;
const HIGH_OPEN: u32 = 16;

/** Bytes the plan area holds: every table JS writes for one core. */
export const PLAN_BYTES: i32 = 16 * 1024;
export const planArea: usize = memory.data(PLAN_BYTES, 16);

/** The table being walked. */
let base: usize = 0;

@inline function isSpace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

@inline function ws(p: usize): usize {
  // Compact text has none: one compare for a byte that is not a space.
  while (<u32>load<u8>(p) <= 0x20 && isSpace(<u32>load<u8>(p))) p++;
  return p;
}

/**
 * The first quote or backslash at or after p, up to end: 16 bytes a turn
 * in the SIMD build, where most strings and names end in the first.
 */
@inline function quoteOrSlash(p: usize, end: usize): usize {
  if (ASC_FEATURE_SIMD) {
    const quote = i8x16.splat(0x22);
    const slash = i8x16.splat(0x5c);
    while (p + 16 <= end) {
      const v = v128.load(p);
      const bits = i8x16.bitmask(v128.or(i8x16.eq(v, quote), i8x16.eq(v, slash)));
      if (bits != 0) return p + <usize>ctz(bits);
      p += 16;
    }
  }
  while (p < end) {
    const c = load<u8>(p);
    if (c == 0x22 || c == 0x5c) return p;
    p++;
  }
  return end;
}

/** Past the string whose opening quote is at p; 0 when none ends it before end. */
function skipString(p: usize, end: usize): usize {
  let q = p + 1;
  // A few escapes here; past 64 bytes, the rest by stringEnd's wide loads.
  const far = q + 64;
  while (q < far) {
    q = quoteOrSlash(q, end);
    if (q >= end) return 0;
    if (load<u8>(q) == 0x22) return q + 1;
    q += 2; // past the escaped byte: a character boundary (a \u escape's hex digits hold no quote)
  }
  return q >= end ? 0 : stringEnd(q, end);
}

/** Past a number or a literal: text the walk never judges beyond its first byte. */
function skipScalar(p: usize, end: usize): usize {
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c == 0x2c || c == 0x7d || c == 0x5d || isSpace(c)) break;
    p++;
  }
  return p;
}

/** Past any value at p (text rule 4.1 accepted), or 0 where a string runs past end. */
function skip(p: usize, end: usize): usize {
  const c = <u32>load<u8>(p);
  if (c == 0x22) return skipString(p, end);
  if (c != 0x7b && c != 0x5b) return skipScalar(p, end);
  let depth = 0;
  while (p < end) {
    const x = <u32>load<u8>(p);
    if (x == 0x22) {
      p = skipString(p, end);
      if (p == 0) return 0;
      continue;
    }
    if (x == 0x7b || x == 0x5b) depth++;
    else if ((x == 0x7d || x == 0x5d) && --depth == 0) return p + 1;
    p++;
  }
  return 0;
}

@inline function word(node: usize, k: usize): u32 {
  return load<u32>(base + node + (k << 2));
}

/**
 * Whether the string whose content is [s, s + n) is the table's bytes at
 * offset `at`, length `len`: eight bytes a turn while the text has them
 * (the table pads each string to whole words of eight).
 */
@inline function sameBytes(s: usize, n: usize, at: usize, len: usize, end: usize): bool {
  if (n != len) return false;
  const t = base + at;
  let k: usize = 0;
  if (s + n + 8 <= end) {
    for (; k < n; k += 8) {
      const left = n - k;
      const mask: u64 = left >= 8 ? <u64>-1 : (<u64>1 << (<u64>left << 3)) - 1;
      if (((load<u64>(s + k) ^ load<u64>(t + k)) & mask) != 0) return false;
    }
    return true;
  }
  for (; k < n; k++) if (load<u8>(s + k) != load<u8>(t + k)) return false;
  return true;
}

/** The end of the value at p if the plan at `node` accepts it; 0 when the walk proves nothing. */
function value(node: usize, p: usize, end: usize): usize {
  const head = word(node, 0);
  const kind = head & 0xff;
  const c = <u32>load<u8>(p);
  if (c == 0x6e && (head & NULL_OK) != 0) return p + 4;
  switch (kind) {
    case K_ANY:
      return skip(p, end);
    case K_STRING:
      return c == 0x22 ? skipString(p, end) : 0;
    case K_OBJECT:
      return c == 0x7b ? object(node, p, end) : 0;
    case K_ARRAY:
      return c == 0x5b ? array(node, p, end) : 0;
    case K_RECORD:
      return c == 0x7b ? record(node, p, end) : 0;
    case K_CONTAINER:
      return c == 0x7b || c == 0x5b ? skip(p, end) : 0;
    case K_BASE64: {
      if (c != 0x22) return 0;
      const e = skipString(p, end);
      return e != 0 && base64Valid(p + 1, e - 1, true) ? e : 0;
    }
    case K_NUMBER:
      return c == 0x2d || (c >= 0x30 && c <= 0x39) ? number(node, p, end) : 0;
    case K_BOOLEAN:
      return c == 0x74 || c == 0x66 ? skipScalar(p, end) : 0;
    case K_ENUM: {
      if (c != 0x22) return 0;
      const e = skipString(p, end);
      if (e == 0) return 0;
      const n = word(node, 1);
      for (let k: u32 = 0; k < n; k++) {
        if (sameBytes(p + 1, e - p - 2, word(node, 2 + 2 * k), word(node, 3 + 2 * k), end)) return e;
      }
      return 0;
    }
    case K_OPTIONS: {
      const n = word(node, 1);
      for (let k: u32 = 0; k < n; k++) {
        const e = value(word(node, 2 + k), p, end);
        if (e != 0) return e;
      }
      return 0;
    }
  }
  return 0; // K_BAIL
}

/**
 * The end of the number at p if the NUMBER at `node` takes it; 0 when the
 * walk proves nothing. Rule 4.1 holds: every number is finite. A value is
 * made only in Clinger's exact case (PLDI 1990): at most 15 digits and no
 * exponent make an integer below 2^53, and one division by an exact power
 * of ten rounds as JSON.parse rounds. Any other spelling proves nothing
 * where a check needs the value.
 */
function number(node: usize, p: usize, end: usize): usize {
  const e = skipScalar(p, end);
  const flags = word(node, 1);
  if (flags == 0) return e;
  let i = p;
  const negative = load<u8>(i) == 0x2d;
  if (negative) i++;
  let n: f64 = 0;
  let digits = 0;
  let scale: f64 = 1;
  let point = false;
  for (; i < e; i++) {
    const d = <u32>load<u8>(i) - 0x30;
    if (d <= 9) {
      n = n * 10 + <f64>d;
      digits++;
      if (point) scale *= 10;
    } else if (d == 0x2e - 0x30 && !point) point = true;
    else return 0; // an exponent
  }
  if (digits > 15 || ((flags & INTEGER) != 0 && point)) return 0;
  let x = n / scale;
  if (negative) x = -x;
  if ((flags & LOW) != 0) {
    const low = load<f64>(base + node + 8);
    if ((flags & LOW_OPEN) != 0 ? !(x > low) : !(x >= low)) return 0;
  }
  if ((flags & HIGH) != 0) {
    const high = load<f64>(base + node + 16);
    if ((flags & HIGH_OPEN) != 0 ? !(x < high) : !(x <= high)) return 0;
  }
  return e;
}

function object(node: usize, p: usize, end: usize): usize {
  const required = word(node, 1);
  const asked = word(node, 2);
  const strict = word(node, 3);
  const n = <usize>word(node, 4);
  const shift = word(node, 5);
  let met: u32 = 0;
  let i = ws(p + 1);
  if (load<u8>(i) != 0x7d) {
    for (;;) {
      // The name: read to its quote; one with an escape may spell a known name, so JS judges it.
      const ks = i + 1;
      const q = quoteOrSlash(ks, end);
      if (q >= end || load<u8>(q) != 0x22) return 0;
      const len = q - ks;
      // The name's length and first byte pick one slot; a slot two names share sends the search through them all.
      const first = <u32>load<u8>(ks);
      const sign = (<u32>len << 8) | first;
      const slot = <u32>load<u8>(base + node + 24 + ((first ^ (<u32>len << shift)) & 31));
      let k: usize = n;
      if (slot != COLLIDED) {
        if (slot != 0) {
          const at: usize = MEMBERS + 4 * (slot - 1);
          if (word(node, at + 3) == sign && sameBytes(ks, len, word(node, at + 1), len, end)) k = slot - 1;
        }
      } else {
        for (k = 0; k < n; k++) {
          const at: usize = MEMBERS + 4 * k;
          if (word(node, at + 3) == sign && sameBytes(ks, len, word(node, at + 1), len, end)) break;
        }
      }
      const child: usize = k < n ? <usize>word(node, MEMBERS + 4 * k) : 0;
      i = ws(ws(q + 1) + 1); // past ':'
      let e: usize;
      if (k < n) {
        // A string where a string is asked, the commonest member, without the call.
        e = load<u32>(base + child) == K_STRING && load<u8>(i) == 0x22 ? skipString(i, end) : value(child, i, end);
        met |= 1 << <u32>k;
      } else {
        if (strict != 0) return 0;
        e = skip(i, end);
      }
      if (e == 0) return 0;
      i = ws(e);
      if (load<u8>(i) != 0x2c) break;
      i = ws(i + 1);
    }
  }
  if ((met & required) != required || (asked & ~met) != 0) return 0;
  return i + 1;
}

function array(node: usize, p: usize, end: usize): usize {
  const element = <usize>word(node, 1);
  const cap = <i32>word(node, 2);
  let i = ws(p + 1);
  if (load<u8>(i) == 0x5d) return i + 1;
  let count = 0;
  for (;;) {
    if (cap >= 0 && ++count > cap) return 0;
    const e = value(element, i, end);
    if (e == 0) return 0;
    i = ws(e);
    if (load<u8>(i) != 0x2c) break;
    i = ws(i + 1);
  }
  return i + 1;
}

function record(node: usize, p: usize, end: usize): usize {
  const element = <usize>word(node, 1);
  let i = ws(p + 1);
  if (load<u8>(i) == 0x7d) return i + 1;
  for (;;) {
    const ke = skipString(i, end);
    if (ke == 0) return 0;
    i = ws(ws(ke) + 1);
    const e = value(element, i, end);
    if (e == 0) return 0;
    i = ws(e);
    if (load<u8>(i) != 0x2c) break;
    i = ws(i + 1);
  }
  return i + 1;
}

/** Whether the plan at `plan` (in the plan area) accepts the JSON text [start, end), which rule 4.1 accepts. */
export function provenBody(start: usize, end: usize, plan: usize): bool {
  if (start >= end) return false;
  base = plan;
  let e = value(0, ws(start), end);
  if (e == 0 || e > end) return false;
  while (e < end && isSpace(<u32>load<u8>(e))) e++;
  return e == end;
}

/**
 * How many of the `count` exchanges from ptr (a response, its frame
 * accepted by rule 4.1, then its finish) have a result frame the plan
 * accepts, counted from the first up to the first it does not prove.
 */
export function provenRun(ptr: usize, count: i32, plan: usize): i32 {
  for (let n = 0; n < count; n++) {
    const length = <usize>load<u32>(ptr + 5);
    const frame = ptr + HEADER_SIZE;
    if (length < 2 || load<u8>(frame) != TAG_RESULT || !provenBody(frame + 1, frame + length, plan)) return n;
    ptr = frame + length + HEADER_SIZE;
  }
  return count;
}
