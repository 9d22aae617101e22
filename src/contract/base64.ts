// What the SDK's Base64Schema accepts: a string `atob` decodes, which is the
// WHATWG forgiving-base64 decode (HTML, section "Forgiving base64").
//
// # The rule, as measured
//
// The SDK refines `z.string()` with `try { atob(val); return true } catch { return false }`.
// atob follows the forgiving-base64 algorithm, and test/base64.test.ts holds
// this file to atob over generated strings. Its acceptance is:
//
// - ASCII whitespace (TAB, LF, FF, CR, SPACE) anywhere is ignored; VT and
//   NBSP are not whitespace;
// - what remains is the alphabet A-Z a-z 0-9 + / and then at most two `=`;
// - with no `=`, the count of alphabet characters n is not 1 modulo 4;
// - with one or two `=`, n plus their count is a multiple of 4;
// - non-zero bits left over in the last character are allowed ("AR==").
//
// # Two inputs, one rule
//
// `isBase64` takes the string JSON.parse built. `isBase64Bytes` takes the
// bytes between a JSON string's quotes, escapes and all, so that a judge
// working on the frame's bytes gives the same verdict without building the
// string. The WebAssembly core has both again (assembly/base64.ts, in SIMD),
// and a codec whose backend has it lends it to the judges for long strings
// (swapBase64Check here, and the byte judge's StringKit): same verdicts,
// test/base64.test.ts holds every path to them.

// Character classes. A table of 2^16 entries answers every UTF-16 unit with
// one load and no range test; 0, the fill, is "refused", so any unit outside
// ASCII fails on the lookup itself.
const ALPHABET = 1;
const SPACE = 2;
const PAD = 3;

/** Called as `charCodeAt.call(s, i)`: a known target whatever the string's hidden class (see body-writer.ts). */
const charCodeAt = String.prototype.charCodeAt;

const CLASS = new Uint8Array(0x10000);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') CLASS[c.charCodeAt(0)] = ALPHABET;
for (const c of [0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = SPACE;
CLASS[0x3d] = PAD;

// ---------------------------------------------------------------------------
// Runs of the alphabet, two bytes per load.
//
// PERF NOTES: a blob is one long run of the alphabet. A JS loop that loads
// one byte and one table entry per character read about 0.5 GB/s here.
// Reading the bytes as 16-bit units and looking each pair up in a table of
// 2^16 entries (64 KiB, built once) halves the loads, and four pairs per
// step halve the branches again: about 1.1-1.3 GB/s here, where SWAR range
// tests on 32-bit words (Hacker's Delight, section 6-1) gave 0.8-1.0.

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
 * A string with this many units or more to go is worth copying to bytes for
 * the word loop (alphabetRunOfString).
 *
 * PERF NOTES: below this, a `charCodeAt` loop with one table load beats
 * the copy to bytes and the word loop, on strings JSON.parse has just made
 * (as decode meets them): the word loop took 124, 112, 120 and 125 ns on
 * 44, 64, 80 and 96 units, the charCodeAt loop 66, 97, 126 and 176. On
 * strings made once and kept the word loop wins from 32, a misleading
 * measure. At 72, decode of the everything server's 50 blob frames took
 * 0.92 of the time it took with 32.
 */
const STRING_RUN = 72;

// The string's units are copied to bytes (encodeInto, native) a buffer at a
// time; allocated once, and under the 128 KiB past which a fresh buffer
// faults in its pages.
const SCRATCH = new Uint8Array(64 * 1024);
const SCRATCH_UNITS = new Uint16Array(SCRATCH.buffer);
const encoder = new TextEncoder();

/** The first index at or after i whose unit is not of the alphabet. */
function alphabetRunOfString(s: string, i: number): number {
  const length = s.length;
  while (i < length) {
    // A substring of a flat string is a view, not a copy; encodeInto stops when the buffer is full.
    const { read, written } = encoder.encodeInto(i === 0 ? s : s.substring(i), SCRATCH);
    const run = alphabetRun(SCRATCH, SCRATCH_UNITS, 0, written);
    // Every byte before the run's end is ASCII, one per unit.
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

/** The first offset at or after `from` in b whose byte is not of the alphabet (b.length when none is): what a kit's alphabetRun answers. */
export function alphabetRunJs(b: Uint8Array, from: number): number {
  let i = from;
  while (i < b.length && CLASS[b[i]] === ALPHABET) i++;
  return i;
}

/**
 * The verdict on a JSON string whose content is a run of the alphabet from
 * `start` to `run`, then only '=' up to its closing quote: its end (just
 * past the quote) when atob accepts it, -1 when it refuses it; -2 when the
 * content goes on otherwise after the run (whitespace, an escape, any other
 * byte), and isBase64Bytes must read it.
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

/**
 * Puts `check` in force for long strings (the compiled judges call
 * isBase64 with no way to pass it), and returns the check it replaces, for
 * the caller to put back when its judging is done.
 */
export function swapBase64Check(check: ((s: string) => boolean) | undefined): ((s: string) => boolean) | undefined {
  const outer = longCheck;
  longCheck = check;
  return outer;
}

/** Whether atob accepts `s` (see the rule above): the check in force for a long string, else isBase64Js. */
export function isBase64(s: string): boolean {
  return s.length >= LONG_STRING && longCheck !== undefined ? longCheck(s) : isBase64Js(s);
}

/** Whether atob accepts `s`, in JS whatever check is in force. */
export function isBase64Js(s: string): boolean {
  const length = s.length;
  let i = 0;
  let spaces = 0;
  // PERF NOTES: blobs are long runs of the alphabet with no whitespace, so
  // the inner loop is one table load and one compare per unit; whitespace
  // and padding leave it for the outer loop, which runs once per run of them.
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
 * Whether atob accepts the string whose JSON text is b[start, end): the
 * bytes between its quotes, escapes and all. An escape stands for the
 * character it names: `\/` is '/', `\n` and `\t` are whitespace, `\u0041`
 * is 'A'. An escape cut short by `end`, or a \u without four hex digits,
 * is refused (rule 4.1 refuses both, so accepted text has none).
 * assembly/base64.ts is the same function in the core: change one, change
 * the other.
 */
export function isBase64Bytes(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  let n = 0;
  let pad = 0;
  const units = end - start >= LONG_RUN ? new Uint16Array(b.buffer, 0, b.buffer.byteLength >> 1) : SCRATCH_UNITS;
  // PERF NOTES: runs of the alphabet go two bytes per load (alphabetRun);
  // a byte of 0x80 or above fails on the table, since no base64 character
  // needs one. Escapes, whitespace and padding take the slow branch, once each.
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
      } else return false; // \" \\ \b: not base64 characters, and an escape cut short
    }
    const kind = CLASS[c & 0xffff];
    if (kind === ALPHABET) {
      // Only an escaped one reaches here before the padding (\u0041, \/).
      if (pad !== 0) return false;
      n++;
    } else if (kind === PAD) pad++;
    else if (kind !== SPACE) return false;
  }
  return accepts(n, pad);
}
