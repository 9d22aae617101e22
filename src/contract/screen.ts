// What JSON.parse does not judge of rule 4.1, for decode: one light pass over a body (the JS path's).
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
// refuses U+FEFF, and the decoders decode uses keep it (./utf8-text.ts).
// On a body that is not JSON, the screen's reading may be anything; the
// body fails JSON.parse whatever the screen says.
//
// So for a body that passes, JSON.parse's verdict is rule 4.1's: where it
// parses, the body is strict JSON text; where it throws, the body is not,
// and the backend's verifyFrame names the fault. A body that does not pass
// is verified as before. The screen names no fault and is never the last
// word on one. assembly/screen.ts is the same screen in the core; its SIMD
// build, 64 bytes at a time, refuses a little more (any backslash before
// `u` and `d`, escaped or not; any three whole blocks of digits).

import { utf8Length } from './json-text.js';

/** Rule 4.1's nesting limit. */
const MAX_DEPTH = 127;
/** Digits in a row from which a number may be 1e308 or more. */
const DIGIT_RUN = 309;

/** Whether JSON.parse's verdict on the body b[start, end) is rule 4.1's (see above). */
export function screenJsonText(b: Uint8Array, start: number, end: number): boolean {
  let depth = 0;
  let digits = 0;
  let i = start;
  while (i < end) {
    const c = b[i];
    if (c === 0x22) {
      // A string, to its closing quote: escapes and UTF-8.
      i++;
      while (i < end) {
        const d = b[i];
        if (d === 0x22) break;
        if (d === 0x5c) {
          if (b[i + 1] === 0x75 && (b[i + 2] | 0x20) === 0x64) return false;
          i += 2;
        } else if (d >= 0x80) {
          const n = utf8Length(b, i, end);
          if (n === 0) return false;
          i += n;
        } else {
          i++;
        }
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
      } else if (c >= 0x80 && utf8Length(b, i, end) === 0) {
        return false;
      }
      digits = 0;
    }
    i++;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Short bodies, screened on their text.
//
// A body of at most SHORT_TEXT bytes cannot hold two of the four things:
// 128 nested brackets take 256 bytes, and a number without an exponent of
// three digits or more is below 1e308 unless its integer part has 210
// digits or more (10^209 times 10^99). What is left can be seen in the text
// that decode parses anyway, by one regular expression:
//
// - bytes that are not UTF-8: every decoder decode uses (./utf8-text.ts)
//   turns them into U+FFFD, so a text without U+FFFD came from UTF-8 (one
//   with it may have too: it is screened on its bytes);
// - a surrogate escape: `\u` and `d` or `D`, as the byte screen looks;
// - a number that may be past the largest double: a digit, then an `e` or
//   `E`, then three digits, signed or not (an exponent follows a digit in
//   every JSON number).
//
// Like the byte screen, it reads strings too (`"1e100"` in a string is not
// a number): a body it does not pass is screened on its bytes, never
// refused for it. Without the digit before the `e`, a name such as
// `release-2024` in a URI sent 17% of the listing-small fixture's frames
// to the byte screen as well.
//
// Only an ASCII text is read: V8 holds one with a character outside ASCII
// in two bytes a unit, where the regular expression runs slower than the
// core's screen (175 ns against 115 on the short frames of the error
// fixture, whose texts hold accented words).
//
// PERF NOTES: 116 of the everything server's 139 answers are this short.
// On their texts the regular expression took about 50 ns, where the core's
// screen cost 110 ns a frame alone and about 220 ns more within decode.
// Timed in turns against the build before, decode took 0.967–0.978 of its
// time on listing-small, 0.952–0.969 on the everything server's answers
// (wasm-simd), and the same within noise on the error fixture, whose texts
// are mostly longer than SHORT_TEXT or not ASCII.

/** The longest body screenShortText may judge (see above). */
export const SHORT_TEXT = 208;

const MAY_BREAK_RULE_41 = /\uFFFD|\\u[dD]|\d[eE][+-]?\d\d\d/;

/**
 * Whether JSON.parse's verdict on `text`, the text utf8Text made of a body
 * of `bytes` bytes (at most SHORT_TEXT), is rule 4.1's (see above). Only an
 * ASCII text is read: one with a character outside ASCII is shorter than
 * its bytes, and the byte screen takes it.
 */
export function screenShortText(text: string, bytes: number): boolean {
  return text.length === bytes && !MAY_BREAK_RULE_41.test(text);
}
