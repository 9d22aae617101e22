// What JSON.parse does not judge of rule 4.1, for decode. JSON.parse lets
// through bytes not UTF-8, a lone surrogate escape, a number past the
// largest double, and nesting past 127. A body passes when none can be in
// it: its text holds no U+FFFD (decoders make it of bytes not UTF-8, so the
// UTF-8 is well formed), no escape is `\u` then `d` or `D`, outside strings
// no `e`/`E` follows a digit nor 309 digits run, and brackets nest 127 deep
// at most. Then JSON.parse's verdict is rule 4.1's; otherwise the backend
// verifies it. assembly/screen.ts is the same, except that the core, which
// has no text, checks the UTF-8 on the bytes (its SIMD build refuses a
// little more).
//
// PERF NOTES: reading the UTF-8's verdict off the text decode makes anyway,
// the byte loop only looks for `"` and `\` inside strings: 64 µs against
// 88 for text-48k, 20 against 26 for listing-medium (a JS loop comparing
// every byte twice runs at about 1 ns a byte here). Long ASCII strings'
// ends looked up in the text: 1.4 µs against 40 for blob-48k.

import { MAX_DEPTH } from './json-text.js';

/** Digits in a row from which a number may be 1e308 or more. */
const DIGIT_RUN = 309;

/**
 * Whether JSON.parse's verdict on the body b[start, end) is rule 4.1's (see
 * above); `text` is the body's text, utf8Text's, which decode parses.
 */
export function screenJsonText(b: Uint8Array, start: number, end: number, text: string): boolean {
  if (text.indexOf('\uFFFD') !== -1) return false;
  // A text of one unit a byte (ASCII) has the bytes' offsets, less `start`:
  // past LONG_RUN bytes of a string, its next quote or backslash is looked
  // up in the text, natively, where the next one of each lies (so each
  // lookup reads on from the last).
  const ascii = text.length === end - start;
  let quote = -1;
  let backslash = -1;
  let depth = 0;
  let digits = 0;
  let i = start;
  while (i < end) {
    const c = b[i];
    if (c === 0x22) {
      i++;
      for (;;) {
        let d = 0;
        const stop = ascii && end - i > LONG_RUN ? i + LONG_RUN : end;
        while (i < stop) {
          d = b[i];
          if (d === 0x22 || d === 0x5c) break;
          i++;
        }
        if (i === stop && stop !== end) {
          if (quote < i) quote = nextIn(text, '"', i - start) + start;
          if (backslash < i) backslash = nextIn(text, '\\', i - start) + start;
          i = Math.min(quote, backslash);
          continue;
        }
        if (i >= end || d === 0x22) break;
        if (b[i + 1] === 0x75 && (b[i + 2] | 0x20) === 0x64) return false;
        i += 2;
      }
      i++;
      digits = 0;
      continue;
    }
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= DIGIT_RUN) return false;
    } else {
      const folded = c | 0x20;
      if (folded === 0x65) {
        if (digits !== 0) return false;
      } else if (folded === 0x7b) {
        if (++depth > MAX_DEPTH) return false;
      } else if (folded === 0x7d) {
        depth--;
      }
      digits = 0;
    }
    i++;
  }
  return true;
}

/** Bytes of a string read one at a time before its end is looked up in the text (screenJsonText). */
const LONG_RUN = 64;

/** The offset of the next `unit` in `text` from `from`, or text.length when there is none. */
function nextIn(text: string, unit: string, from: number): number {
  const at = text.indexOf(unit, from);
  return at < 0 ? text.length : at;
}

// Short bodies, screened on their text. Within SHORT_TEXT bytes nothing nests
// 128 deep and no number passes 1e308 without a three-digit exponent, so one
// regular expression looks for the rest: U+FFFD (decoders make it of bytes
// not UTF-8), a surrogate escape, a digit then `e` and three digits (the
// digit spares `release-2024`: 17% of listing-small). A text it does not
// pass, or not ASCII (slower than the core there), is screened on its bytes.
// PERF NOTES: 116 of the everything server's 139 answers are this short:
// ~50 ns against 110 for the core; decode took 0.95–0.98 of its time.

export const SHORT_TEXT = 208;

const MAY_BREAK_RULE_41 = /\uFFFD|\\u[dD]|\d[eE][+-]?\d\d\d/;

/** Whether JSON.parse's verdict on `text`, utf8Text of a body of `bytes` bytes, is rule 4.1's; a text not ASCII is shorter than its bytes. */
export function screenShortText(text: string, bytes: number): boolean {
  return text.length === bytes && !MAY_BREAK_RULE_41.test(text);
}
