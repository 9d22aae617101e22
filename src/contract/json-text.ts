// Whether a body is strict JSON text (WIRE.md rule 4.1), on the pure-JS path,
// in one pass. assembly/json.ts is this scanner again, the same rules in the
// same order, so both report the same status at the same offset (a
// differential test holds them): change one, change the other.
// PERF NOTES: the string loop is the hot one, one range test a byte.

import type { Fault } from '../wire/fault.js';
import { Status } from '../wire/status.js';
import { isFiniteLiteral } from './finite.js';

/** Rule 4.1's nesting limit, counting the outermost container. */
export const MAX_DEPTH = 127;

const OBJECT = 1;
const ARRAY = 2;

const stack = new Uint8Array(MAX_DEPTH + 1);

const fault = (status: Status, offset: number): Fault => ({ status, offset });

function skipWhitespace(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

export function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** The code unit of the four hex digits at b[i]. */
export function hexValue(b: Uint8Array, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = b[i + k];
    v = (v << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return v;
}

/** Scans the string whose opening quote is at b[i]; returns the offset after it, or a fault. */
function scanString(b: Uint8Array, i: number, end: number): number | Fault {
  i++;
  for (;;) {
    while (i < end) {
      const c = b[i];
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) break;
      i++;
    }
    if (i >= end) return fault(Status.JsonEnd, end);
    const c = b[i];
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const r = scanEscape(b, i, end);
      if (typeof r !== 'number') return r;
      i = r;
    } else if (c < 0x20) {
      return fault(Status.ControlChar, i);
    } else {
      const n = utf8Length(b, i, end);
      if (n === 0) return fault(Status.Utf8, i);
      i += n;
    }
  }
}

/** Scans the escape whose backslash is at b[i]; returns the offset after it, or a fault. */
function scanEscape(b: Uint8Array, i: number, end: number): number | Fault {
  if (i + 1 >= end) return fault(Status.JsonEnd, end);
  switch (b[i + 1]) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return i + 2;
    case 0x75: {
      for (let k = 2; k < 6; k++) {
        if (i + k >= end) return fault(Status.JsonEnd, end);
        if (!isHex(b[i + k])) return fault(Status.BadEscape, i);
      }
      const unit = hexValue(b, i + 2);
      if (unit < 0xd800 || unit > 0xdfff) return i + 6;
      if (unit >= 0xdc00) return fault(Status.LoneSurrogate, i);
      // A high surrogate: a low one must follow at once, as a whole escape.
      const j = i + 6;
      if (j + 6 <= end && b[j] === 0x5c && b[j + 1] === 0x75 && isHex(b[j + 2]) && isHex(b[j + 3]) && isHex(b[j + 4]) && isHex(b[j + 5])) {
        const low = hexValue(b, j + 2);
        if (low >= 0xdc00 && low <= 0xdfff) return j + 6;
      }
      return fault(Status.LoneSurrogate, i);
    }
    default:
      return fault(Status.BadEscape, i);
  }
}

/** The length of the well-formed UTF-8 sequence at the non-ASCII byte b[i], or 0 (Unicode 15, table 3-7). */
function utf8Length(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + n > end) return 0;
  const second = b[i + 1];
  if (second < lo || second > hi) return 0;
  for (let k = 2; k < n; k++) {
    const x = b[i + k];
    if (x < 0x80 || x > 0xbf) return 0;
  }
  return n;
}

/** Scans the number that starts at b[i] ('-' or a digit); returns the offset after it, or a fault. */
function scanNumber(b: Uint8Array, i: number, end: number): number | Fault {
  const start = i;
  if (b[i] === 0x2d) {
    i++;
    if (i >= end) return fault(Status.JsonEnd, end);
    if (b[i] < 0x30 || b[i] > 0x39) return fault(Status.JsonSyntax, i);
  }
  if (b[i] === 0x30) i++;
  else while (i < end && b[i] >= 0x30 && b[i] <= 0x39) i++;
  let plain = true;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end) return fault(Status.JsonEnd, end);
    if (b[i] < 0x30 || b[i] > 0x39) return fault(Status.JsonSyntax, i);
    while (i < end && b[i] >= 0x30 && b[i] <= 0x39) i++;
  }
  if (i < end && (b[i] | 0x20) === 0x65) {
    plain = false;
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= end) return fault(Status.JsonEnd, end);
    if (b[i] < 0x30 || b[i] > 0x39) return fault(Status.JsonSyntax, i);
    while (i < end && b[i] >= 0x30 && b[i] <= 0x39) i++;
  }
  // Only an exponent or 309 digits can reach 1.8e308 (T has 309): the rest is finite.
  if ((!plain || i - start >= 309) && !isFiniteLiteral(b, start, i)) return fault(Status.NumberRange, start);
  return i;
}

function scanLiteral(b: Uint8Array, i: number, end: number, word: Uint8Array): number | Fault {
  for (let k = 0; k < word.length; k++) {
    if (i + k >= end) return fault(Status.JsonEnd, end);
    if (b[i + k] !== word[k]) return fault(Status.JsonSyntax, i + k);
  }
  return i + word.length;
}

export const TRUE = Uint8Array.from('true', (c) => c.charCodeAt(0));
export const FALSE = Uint8Array.from('false', (c) => c.charCodeAt(0));
export const NULL = Uint8Array.from('null', (c) => c.charCodeAt(0));

/** Whether b[start, end) is strict JSON text: null, or the first fault in reading order (offsets index `b`). */
export function validateJsonText(b: Uint8Array, start: number, end: number): Fault | null {
  let depth = 0;
  let i = skipWhitespace(b, start, end);
  if (i + 2 < end && b[i] === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf) return fault(Status.Bom, i);

  for (;;) {
    if (i >= end) return fault(Status.JsonEnd, end);
    let r: number | Fault;
    const c = b[i];
    switch (c) {
      case 0x7b:
      case 0x5b: {
        // '{' or '[': its end ('}' or ']', two past), or its first key or value.
        if (++depth > MAX_DEPTH) return fault(Status.Depth, i);
        stack[depth] = c === 0x7b ? OBJECT : ARRAY;
        i = skipWhitespace(b, i + 1, end);
        if (i < end && b[i] === c + 2) {
          depth--;
          r = i + 1;
          break;
        }
        if (c === 0x7b) {
          r = scanKey(b, i, end);
          if (typeof r !== 'number') return r;
          i = r;
        }
        continue;
      }
      case 0x22:
        r = scanString(b, i, end);
        break;
      case 0x74:
        r = scanLiteral(b, i, end, TRUE);
        break;
      case 0x66:
        r = scanLiteral(b, i, end, FALSE);
        break;
      case 0x6e:
        r = scanLiteral(b, i, end, NULL);
        break;
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) r = scanNumber(b, i, end);
        else return fault(Status.JsonSyntax, i);
    }
    if (typeof r !== 'number') return r;
    i = r;

    // After a value: close containers until a ',' leads to the next value.
    for (;;) {
      i = skipWhitespace(b, i, end);
      if (depth === 0) return i < end ? fault(Status.Trailing, i) : null;
      if (i >= end) return fault(Status.JsonEnd, end);
      const p = b[i];
      if (p === 0x2c) {
        i = skipWhitespace(b, i + 1, end);
        if (stack[depth] === OBJECT) {
          r = scanKey(b, i, end);
          if (typeof r !== 'number') return r;
          i = r;
        }
        break;
      }
      if ((p === 0x7d && stack[depth] === OBJECT) || (p === 0x5d && stack[depth] === ARRAY)) {
        depth--;
        i++;
        continue;
      }
      return fault(Status.JsonSyntax, i);
    }
  }
}

/** Reads a member name and its ':' at b[i]; returns the offset of its value, or a fault. */
function scanKey(b: Uint8Array, i: number, end: number): number | Fault {
  if (i >= end) return fault(Status.JsonEnd, end);
  if (b[i] !== 0x22) return fault(Status.JsonSyntax, i);
  const r = scanString(b, i, end);
  if (typeof r !== 'number') return r;
  i = skipWhitespace(b, r, end);
  if (i >= end) return fault(Status.JsonEnd, end);
  if (b[i] !== 0x3a) return fault(Status.JsonSyntax, i);
  return skipWhitespace(b, i + 1, end);
}
