// A schema plan's table, and the checks on it that both of the core's schema walks make.
//
// JS lowers a schema plan (src/contract/judge-plan.ts) into a table of
// 32-bit words (src/contract/judge-table.ts) and writes it into the plan
// area below. Two walks follow it, and only ever answer "accepted": the
// byte walk of ./judge, over a body rule 4.1 has accepted, and stage 2's
// walk over the structural index (./stage2), which judges the schema in
// the same pass as the grammar. Wherever the plan asks something the table
// does not carry, they prove nothing, and JS judges the frame.
//
// # The table
//
// A node is at a byte offset from the table's start; its first word is its
// kind, with NULL_OK (null accepted) in bit 8. Then, by kind:
//
//   OBJECT   required mask, asked mask, strict, n, shift; 32 one-byte slots, the member
//            numbered k + 1 in slot (first byte ^ length << shift) & 31 (0: none; COLLIDED:
//            two or more, searched in turn); then n × (child, name offset, name length,
//            the name's length << 8 | its first byte, or -1 for a name no text can match
//            unescaped)
//   ARRAY    element, cap (-1: none)
//   RECORD   element
//   OPTIONS  n; then n options, each tried in order
//   ENUM     n; then n × (string offset, string length): the strings, as UTF-8
//   NUMBER   flags (INTEGER, LOW, LOW_OPEN, HIGH, HIGH_OPEN), then the bounds as two f64
//
// ANY, CONTAINER, STRING, BASE64, BOOLEAN and BAIL have no fields. A name's
// first byte is its closing quote when it is empty.

import { stringEnd } from './string-end';

export const K_ANY: u32 = 0;
export const K_OBJECT: u32 = 1;
export const K_ARRAY: u32 = 2;
export const K_OPTIONS: u32 = 3;
export const K_RECORD: u32 = 4;
export const K_CONTAINER: u32 = 5;
export const K_BAIL: u32 = 6;
export const K_STRING: u32 = 7;
export const K_BASE64: u32 = 8;
export const K_ENUM: u32 = 9;
export const K_NUMBER: u32 = 10;
export const K_BOOLEAN: u32 = 11;
export const NULL_OK: u32 = 0x100;

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

/** Makes the table at `plan` (in the plan area) the one the checks below read. */
export function usePlan(plan: usize): void {
  base = plan;
}

/** Word k of the node at `node`. */
@inline export function word(node: usize, k: usize): u32 {
  return load<u32>(base + node + (k << 2));
}

@inline export function isSpace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

/**
 * The first quote or backslash at or after p, up to end: 16 bytes a turn
 * in the SIMD build, where most strings and names end in the first.
 */
@inline export function quoteOrSlash(p: usize, end: usize): usize {
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
export function skipString(p: usize, end: usize): usize {
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

/** Past a number or a literal: text the walks never judge beyond its first byte. */
export function skipScalar(p: usize, end: usize): usize {
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c == 0x2c || c == 0x7d || c == 0x5d || isSpace(c)) break;
    p++;
  }
  return p;
}

/**
 * Whether the string whose content is [s, s + n) is the table's bytes at
 * offset `at`, length `len`: eight bytes a turn while the text has them
 * (the table pads each string to whole words of eight).
 */
@inline export function sameBytes(s: usize, n: usize, at: usize, len: usize, end: usize): bool {
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

/**
 * The number of the OBJECT's member named by the bytes [s, s + len) (a
 * name's content, up to its closing quote at s + len), or n when it has
 * none. Its length and first byte pick one slot; a slot two names share
 * sends the search through them all.
 */
@inline export function memberOf(node: usize, s: usize, len: usize, end: usize): usize {
  const n = <usize>word(node, 4);
  const first = <u32>load<u8>(s);
  const sign = (<u32>len << 8) | first;
  const slot = <u32>load<u8>(base + node + 24 + ((first ^ (<u32>len << word(node, 5))) & 31));
  if (slot == 0) return n;
  if (slot != COLLIDED) {
    const at: usize = MEMBERS + 4 * <usize>(slot - 1);
    return word(node, at + 3) == sign && sameBytes(s, len, word(node, at + 1), len, end) ? <usize>(slot - 1) : n;
  }
  for (let k: usize = 0; k < n; k++) {
    const at: usize = MEMBERS + 4 * k;
    if (word(node, at + 3) == sign && sameBytes(s, len, word(node, at + 1), len, end)) return k;
  }
  return n;
}

/** The child node of the OBJECT's member k. */
@inline export function memberChild(node: usize, k: usize): usize {
  return <usize>word(node, MEMBERS + 4 * k);
}

/** Whether the members `met` (a bit each) are all the OBJECT at `node` requires, and all it asks to see. */
@inline export function membersMet(node: usize, met: u32): bool {
  return (met & word(node, 1)) == word(node, 1) && (word(node, 2) & ~met) == 0;
}

/** Whether the OBJECT at `node` refuses members it does not name. */
@inline export function strictObject(node: usize): bool {
  return word(node, 3) != 0;
}

/** Whether the string with content [s, s + n) is one of the ENUM's. */
export function enumHas(node: usize, s: usize, n: usize, end: usize): bool {
  const count = word(node, 1);
  for (let k: u32 = 0; k < count; k++) {
    if (sameBytes(s, n, word(node, 2 + 2 * k), word(node, 3 + 2 * k), end)) return true;
  }
  return false;
}

/**
 * The end of the number at p if the NUMBER at `node` takes it; 0 when the
 * walk proves nothing. Rule 4.1 holds: every number is finite. A value is
 * made only in Clinger's exact case (PLDI 1990): at most 15 digits and no
 * exponent make an integer below 2^53, and one division by an exact power
 * of ten rounds as JSON.parse rounds. Any other spelling proves nothing
 * where a check needs the value.
 */
export function number(node: usize, p: usize, end: usize): usize {
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
