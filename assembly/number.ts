// A JSON number: read by its grammar, and judged finite as an IEEE double (rule 4.1).
//
// The same decision as src/contract/finite.ts, which explains it: a literal
// is refused exactly when |x| >= T = 2^1024 - 2^970, the halfway point above
// the largest double, where round-to-nearest-even goes to Infinity. Decided
// on the decimal digits alone: x = 0.d1d2... * 10^E with d1 != 0; E < 309 is
// finite, E > 309 is not, and E = 309 compares digits with T's.

import { JSON_END, JSON_SYNTAX, NUMBER_RANGE } from './status';
import { fail } from './fault';

/** T's 309 decimal digits, as ASCII: (2n ** 1024n - 2n ** 970n).toString(). */
const T: usize = memory.data<u8>([
  49, 55, 57, 55, 54, 57, 51, 49, 51, 52, 56, 54, 50, 51, 49, 53, 56, 48, 55, 57, 51, 55, 50, 56, 57,
  55, 49, 52, 48, 53, 51, 48, 51, 52, 49, 53, 48, 55, 57, 57, 51, 52, 49, 51, 50, 55, 49, 48, 48, 51,
  55, 56, 50, 54, 57, 51, 54, 49, 55, 51, 55, 55, 56, 57, 56, 48, 52, 52, 52, 57, 54, 56, 50, 57, 50,
  55, 54, 52, 55, 53, 48, 57, 52, 54, 54, 52, 57, 48, 49, 55, 57, 55, 55, 53, 56, 55, 50, 48, 55, 48,
  57, 54, 51, 51, 48, 50, 56, 54, 52, 49, 54, 54, 57, 50, 56, 56, 55, 57, 49, 48, 57, 52, 54, 53, 53,
  53, 53, 52, 55, 56, 53, 49, 57, 52, 48, 52, 48, 50, 54, 51, 48, 54, 53, 55, 52, 56, 56, 54, 55, 49,
  53, 48, 53, 56, 50, 48, 54, 56, 49, 57, 48, 56, 57, 48, 50, 48, 48, 48, 55, 48, 56, 51, 56, 51, 54,
  55, 54, 50, 55, 51, 56, 53, 52, 56, 52, 53, 56, 49, 55, 55, 49, 49, 53, 51, 49, 55, 54, 52, 52, 55,
  53, 55, 51, 48, 50, 55, 48, 48, 54, 57, 56, 53, 53, 53, 55, 49, 51, 54, 54, 57, 53, 57, 54, 50, 50,
  56, 52, 50, 57, 49, 52, 56, 49, 57, 56, 54, 48, 56, 51, 52, 57, 51, 54, 52, 55, 53, 50, 57, 50, 55,
  49, 57, 48, 55, 52, 49, 54, 56, 52, 52, 52, 51, 54, 53, 53, 49, 48, 55, 48, 52, 51, 52, 50, 55, 49,
  49, 53, 53, 57, 54, 57, 57, 53, 48, 56, 48, 57, 51, 48, 52, 50, 56, 56, 48, 49, 55, 55, 57, 48, 52,
  49, 55, 52, 52, 57, 55, 55, 57, 50
]);
const T_LENGTH: i32 = 309;

const DOT: u32 = 0x2e;
const ZERO: u32 = 0x30;
const NINE: u32 = 0x39;

/** Exponent digits past this saturate: any larger exponent decides alone. */
const EXPONENT_CAP: i64 = 1000000000;

@inline function isDigitOrDot(c: u32): bool {
  return (c >= ZERO && c <= NINE) || c == DOT;
}

/** Whether the literal in [start, end) is finite. It must match the JSON number grammar. */
export function isFiniteLiteral(start: usize, end: usize): bool {
  let i = start;
  if (load<u8>(i) == 0x2d) i++; // '-'
  const digitsStart = i;
  let digitsEnd = i;
  while (digitsEnd < end && isDigitOrDot(load<u8>(digitsEnd))) digitsEnd++;

  let intEnd = digitsStart;
  while (intEnd < digitsEnd && load<u8>(intEnd) != DOT) intEnd++;
  if (digitsEnd == end && intEnd - digitsStart < 309) return true;

  let exponent: i64 = 0;
  if (digitsEnd < end) {
    let j = digitsEnd + 1; // past 'e' or 'E'
    let negative = false;
    const sign = load<u8>(j);
    if (sign == 0x2b) j++;
    else if (sign == 0x2d) {
      negative = true;
      j++;
    }
    for (; j < end; j++) {
      if (exponent < EXPONENT_CAP) exponent = exponent * 10 + <i64>(load<u8>(j) - ZERO);
    }
    if (negative) exponent = -exponent;
  }

  // Find the first significant digit and E, so that x = 0.d1d2... * 10^E.
  let first = digitsStart;
  let e: i64;
  while (first < intEnd && load<u8>(first) == ZERO) first++;
  if (first < intEnd) {
    e = <i64>(intEnd - first);
  } else {
    first = intEnd + 1; // past the '.', if any
    while (first < digitsEnd && load<u8>(first) == ZERO) first++;
    if (first >= digitsEnd) return true; // the value is zero
    e = -<i64>(first - intEnd - 1);
  }

  const e10 = e + exponent;
  if (e10 < 309) return true;
  if (e10 > 309) return false;
  let k: i32 = 0;
  for (let p = first; p < digitsEnd; p++) {
    const d = <u32>load<u8>(p);
    if (d == DOT) continue;
    const t = k < T_LENGTH ? <u32>load<u8>(T + <usize>k) : ZERO;
    if (d < t) return true;
    if (d > t) return false;
    k++;
  }
  // Our digits ran out while equal so far: below T if T still has a non-zero digit.
  for (; k < T_LENGTH; k++) if (<u32>load<u8>(T + <usize>k) != ZERO) return true;
  return false;
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

/**
 * The number that starts at p ('-' or a digit): the position after it, or
 * 0 with the fault left in ./fault. The exact scanner (./json) and stage 2
 * (./stage2) both read numbers with it, so the two agree on every one.
 */
export function scanNumber(p: usize, end: usize): usize {
  const start = p;
  if (load<u8>(p) == 0x2d) {
    p++;
    if (p >= end) return fail(JSON_END, end);
    if (!isDigit(load<u8>(p))) return fail(JSON_SYNTAX, p);
  }
  if (load<u8>(p) == 0x30) p++;
  else while (p < end && isDigit(load<u8>(p))) p++;
  let plain = true;
  if (p < end && load<u8>(p) == 0x2e) {
    p++;
    if (p >= end) return fail(JSON_END, end);
    if (!isDigit(load<u8>(p))) return fail(JSON_SYNTAX, p);
    while (p < end && isDigit(load<u8>(p))) p++;
  }
  if (p < end && (<u32>load<u8>(p) | 0x20) == 0x65) {
    plain = false;
    p++;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) p++;
    if (p >= end) return fail(JSON_END, end);
    if (!isDigit(load<u8>(p))) return fail(JSON_SYNTAX, p);
    while (p < end && isDigit(load<u8>(p))) p++;
  }
  // Only an exponent or 309 digits can reach 1.8e308 (T has 309): the rest is finite.
  if ((!plain || p - start >= 309) && !isFiniteLiteral(start, p)) return fail(NUMBER_RANGE, start);
  return p;
}
