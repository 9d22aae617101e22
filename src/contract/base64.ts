// What the SDK's Base64Schema accepts: what `atob` decodes (WHATWG
// forgiving-base64; test/base64.test.ts holds this file to atob): ASCII
// whitespace ignored, the alphabet then at most two `=`; with no `=`, an
// alphabet count n not 1 modulo 4, else n plus the `=` a multiple of 4.
// isBase64Bytes takes a JSON string's bytes, escapes and all. The core has
// both in SIMD (assembly/base64.ts), lent for long strings (StringKit).

import { hexValue, isHex } from './json-text.js';

// Character classes: a table of 2^16 answers any UTF-16 unit with one load; 0 is refused.
const ALPHABET = 1;
const SPACE = 2;
const PAD = 3;

const charCodeAt = String.prototype.charCodeAt;

const CLASS = new Uint8Array(0x10000);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') CLASS[c.charCodeAt(0)] = ALPHABET;
for (const c of [0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = SPACE;
CLASS[0x3d] = PAD;

// PERF NOTES: a blob is one long run of the alphabet, read as 16-bit units,
// each pair looked up in one table, four pairs a step: 1.1–1.3 GB/s, against
// 0.5 a byte at a time and 0.8–1.0 for SWAR range tests on words.

/** PAIRS[u] is 1 when both bytes of the 16-bit unit u are of the alphabet, in either byte order. */
const PAIRS = new Uint8Array(0x10000);
for (let u = 0; u < 0x10000; u++) PAIRS[u] = CLASS[u & 0xff] === ALPHABET && CLASS[u >> 8] === ALPHABET ? 1 : 0;

/** The first offset in b[i, end) not of the alphabet; `units` views b's buffer from 0. */
function alphabetRun(b: Uint8Array, units: Uint16Array, i: number, end: number): number {
  const base = b.byteOffset;
  if (((base + i) & 1) !== 0) {
    if (CLASS[b[i]] !== ALPHABET) return i;
    i++;
  }
  let u = (base + i) >> 1;
  const last = (base + end) >> 1;
  while (u + 3 < last && (PAIRS[units[u]] & PAIRS[units[u + 1]] & PAIRS[units[u + 2]] & PAIRS[units[u + 3]]) !== 0) u += 4;
  while (u < last && PAIRS[units[u]] !== 0) u++;
  i = (u << 1) - base;
  while (i < end && CLASS[b[i]] === ALPHABET) i++;
  return i;
}

const LONG_RUN = 64;

// A string with this many units to go is copied to bytes for the pair loop.
// PERF NOTES: on strings JSON.parse just made, it took 112–125 ns on 44–96
// units, a charCodeAt loop 66–176; the blob frames decoded in 0.92 the time of 32.
const STRING_RUN = 72;

// Where a string's units are copied to bytes: under 128 KiB, past which a fresh buffer faults in its pages.
const SCRATCH = new Uint8Array(64 * 1024);
const SCRATCH_UNITS = new Uint16Array(SCRATCH.buffer);
const encoder = new TextEncoder();

function alphabetRunOfString(s: string, i: number): number {
  const length = s.length;
  while (i < length) {
    const { read, written } = encoder.encodeInto(i === 0 ? s : s.substring(i), SCRATCH);
    const run = alphabetRun(SCRATCH, SCRATCH_UNITS, 0, written);
    // Every byte before the run's end is one unit.
    if (run < written) return i + run;
    i += read;
  }
  return length;
}

/** Whether b[start, end) holds an alphabet run of `length` bytes: a sign of a blob. */
export function hasAlphabetRun(b: Uint8Array, start: number, end: number, length: number): boolean {
  let run = 0;
  for (let i = start; i < end; i++) {
    if (CLASS[b[i]] !== ALPHABET) run = 0;
    else if (++run >= length) return true;
  }
  return false;
}

/** A kit's alphabetRun, in JS. */
export function alphabetRunJs(b: Uint8Array, from: number): number {
  let i = from;
  while (i < b.length && CLASS[b[i]] === ALPHABET) i++;
  return i;
}

/**
 * The verdict on a JSON string whose content is alphabet from `start` to
 * `run`, then '=' to its quote: its end past the quote, negated where atob
 * refuses it; 0 when anything else follows the run (isBase64Bytes must read it).
 */
export function base64AfterRun(b: Uint8Array, start: number, run: number): number {
  let k = run;
  while (b[k] === 0x3d) k++;
  if (b[k] !== 0x22) return 0;
  return accepts(run - start, k - run) ? k + 1 : -(k + 1);
}

/** The verdict on `n` alphabet characters, then `pad` '='. */
function accepts(n: number, pad: number): boolean {
  return pad === 0 ? n % 4 !== 1 : pad <= 2 && (n + pad) % 4 === 0;
}

/** Strings this long or longer go to the backend's check, while a codec lends one (swapBase64Check). */
export const LONG_STRING = 256;

let longCheck: ((s: string) => boolean) | undefined;

/** Puts `check` in force for long strings (the judges cannot pass it) and returns the one it replaces, to put back. */
export function swapBase64Check(check: ((s: string) => boolean) | undefined): ((s: string) => boolean) | undefined {
  const outer = longCheck;
  longCheck = check;
  return outer;
}

/** Whether atob accepts `s`: the check in force for a long string, else isBase64Js. */
export function isBase64(s: string): boolean {
  return s.length >= LONG_STRING && longCheck !== undefined ? longCheck(s) : isBase64Js(s);
}

/** Whether atob accepts `s`, in JS. */
export function isBase64Js(s: string): boolean {
  const length = s.length;
  let i = 0;
  let spaces = 0;
  // Whitespace and padding leave the inner loop, once per run of them.
  for (;;) {
    if (length - i >= STRING_RUN) i = alphabetRunOfString(s, i);
    while (i < length && CLASS[charCodeAt.call(s, i)] === ALPHABET) i++;
    if (i === length) return accepts(length - spaces, 0);
    const kind = CLASS[charCodeAt.call(s, i)];
    if (kind === SPACE) {
      spaces++;
      i++;
      continue;
    }
    if (kind !== PAD) return false;
    break;
  }
  const n = i - spaces;
  let pad = 0;
  for (; i < length; i++) {
    const kind = CLASS[charCodeAt.call(s, i)];
    if (kind === PAD) pad++;
    else if (kind !== SPACE) return false;
  }
  return accepts(n, pad);
}

/**
 * Whether atob accepts the JSON string content b[start, end), an escape as
 * its character (`\/`, `\u0041`) and one cut short refused.
 * assembly/base64.ts is the same function: change one, change the other.
 */
export function isBase64Bytes(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  let n = 0;
  let pad = 0;
  const units = end - start >= LONG_RUN ? new Uint16Array(b.buffer, 0, b.buffer.byteLength >> 1) : SCRATCH_UNITS;
  while (i < end) {
    const run = i;
    if (pad === 0) {
      if (end - i >= LONG_RUN) i = alphabetRun(b, units, i, end);
      while (i < end && CLASS[b[i]] === ALPHABET) i++;
      n += i - run;
      if (i === end) break;
    }
    let c = b[i++];
    if (c === 0x5c) {
      const e = i < end ? b[i++] : -1;
      if (e === 0x2f) c = 0x2f;
      else if (e === 0x6e) c = 0x0a;
      else if (e === 0x72) c = 0x0d;
      else if (e === 0x74) c = 0x09;
      else if (e === 0x66) c = 0x0c;
      else if (e === 0x75) {
        if (i + 4 > end || !isHex(b[i]) || !isHex(b[i + 1]) || !isHex(b[i + 2]) || !isHex(b[i + 3])) return false;
        c = hexValue(b, i);
        i += 4;
      } else return false; // \" \\ \b, or cut short
    }
    const kind = CLASS[c & 0xffff];
    if (kind === ALPHABET) {
      if (pad !== 0) return false;
      n++;
    } else if (kind === PAD) pad++;
    else if (kind !== SPACE) return false;
  }
  return accepts(n, pad);
}
