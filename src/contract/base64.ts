// What the SDK's Base64Schema accepts: a string `atob` decodes (WHATWG
// forgiving-base64; test/base64.test.ts holds this file to atob):
// - ASCII whitespace (TAB, LF, FF, CR, SPACE) anywhere is ignored;
// - what remains is the alphabet A-Z a-z 0-9 + / then at most two `=`;
// - with no `=`, the alphabet count n is not 1 modulo 4; with one or two,
//   n plus their count is a multiple of 4; leftover bits are allowed ("AR==").
//
// `isBase64` takes a string, `isBase64Bytes` the bytes between a JSON
// string's quotes, escapes and all, for the judges of the bytes. The core
// has both in SIMD (assembly/base64.ts), lent for long strings
// (swapBase64Check, StringKit) with the same verdicts.

// Character classes: a table of 2^16 answers any UTF-16 unit with one load; 0 is refused.
const ALPHABET = 1;
const SPACE = 2;
const PAD = 3;

/** Called as `charCodeAt.call(s, i)`: see utf8-writer.ts. */
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

/** The first offset at or after i in b[i, end) whose byte is not of the alphabet; `units` views b's buffer from 0 as 16-bit units. */
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

/** A run this long or longer is worth the word loop. */
const LONG_RUN = 64;

/**
 * A string with this many units or more to go is copied to bytes for the
 * pair loop. PERF NOTES: on strings JSON.parse just made, the pair loop
 * took 112–125 ns on 44–96 units, a charCodeAt loop 66–176; decode of the
 * everything server's blob frames took 0.92 of its time with 32.
 */
const STRING_RUN = 72;

// Where a string's units are copied to bytes: under 128 KiB, past which a fresh buffer faults in its pages.
const SCRATCH = new Uint8Array(64 * 1024);
const SCRATCH_UNITS = new Uint16Array(SCRATCH.buffer);
const encoder = new TextEncoder();

/** The first index at or after i whose unit is not of the alphabet. */
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

/** Whether b[start, end) holds a run of at least `length` bytes of the alphabet: a sign that a blob is there. */
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
 * `run`, then '=' to its quote: its end past the quote if atob accepts it,
 * else -1; -2 when anything else follows the run (isBase64Bytes must read it).
 */
export function base64AfterRun(b: Uint8Array, start: number, run: number): number {
  let k = run;
  while (b[k] === 0x3d) k++;
  if (b[k] !== 0x22) return -2;
  return accepts(run - start, k - run) ? k + 1 : -1;
}

/** The verdict once the data ends: `n` alphabet characters, then `pad` '=' (whitespace aside). */
function accepts(n: number, pad: number): boolean {
  return pad === 0 ? n % 4 !== 1 : pad <= 2 && (n + pad) % 4 === 0;
}

/** Strings this long or longer go to the backend's check, while a codec lends one (swapBase64Check). */
export const LONG_STRING = 256;

/** A backend's check for long strings, in force while a codec judges with that backend. */
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

/** Whether atob accepts `s`, in JS whatever check is in force. */
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
  // The tail: '=' and whitespace only.
  const n = i - spaces;
  let pad = 0;
  for (; i < length; i++) {
    const kind = CLASS[charCodeAt.call(s, i)];
    if (kind === PAD) pad++;
    else if (kind !== SPACE) return false;
  }
  return accepts(n, pad);
}

const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX['0123456789abcdef'.charCodeAt(d)] = d;
  HEX['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/**
 * Whether atob accepts the string whose content, between its quotes, is
 * b[start, end): an escape stands for its character (`\/`, `\n`, `\u0041`),
 * and one cut short is refused. assembly/base64.ts is the same function:
 * change one, change the other.
 */
export function isBase64Bytes(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  let n = 0;
  let pad = 0;
  const units = end - start >= LONG_RUN ? new Uint16Array(b.buffer, 0, b.buffer.byteLength >> 1) : SCRATCH_UNITS;
  // Runs of the alphabet by alphabetRun; escapes, whitespace and padding one at a time.
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
        if (i + 4 > end) return false;
        const d0 = HEX[b[i]];
        const d1 = HEX[b[i + 1]];
        const d2 = HEX[b[i + 2]];
        const d3 = HEX[b[i + 3]];
        if ((d0 | d1 | d2 | d3) < 0) return false;
        c = (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
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
