// The writer's output (body-writer.ts walks the value): a scratch buffer grown
// by doubling within the frame's limits, and strings, numbers and literals as
// JSON.stringify writes them; a long string goes through TextEncoder.

import { EncodeError, REFUSAL } from './encode-rules.js';

/** How long a frame may be, and its body's JSON text. */
export interface FrameLimits {
  /** Bytes in the frame, the tag included. */
  readonly bytes: number;
  /** UTF-16 code units in the body's JSON text, as TextDecoder would make it. */
  readonly units: number;
}

// A record's length field is 32 bits (WIRE.md sections 3 and 6); V8's longest
// string bounds what TextDecoder can decode, and keeps bodies below 2^32 - 1.
export const FRAME_LIMITS: FrameLimits = { bytes: 2 ** 32 - 1, units: 2 ** 29 - 24 };

/** Below 128 KiB, so a fresh buffer costs few page faults. */
const FIRST_BYTES = 64 * 1024;
const MAX_BUFFER = 2 ** 32; // V8's largest typed array

const NAME_LENGTH = 64;

/** Strings longer than this try encodeInto first (see escapeRaw). */
const LONG = 128;
/** Characters of a long string looked at first: an escape there sends it through RAW. */
const LOOK_AHEAD = 64;
/** Characters written between capacity checks on the JS path. */
const CHUNK = 8192;

// PERF NOTES: `charCodeAt.call(s, i)`, not `s.charCodeAt(i)`, whose load
// went megamorphic past four string kinds (--log-ic) for the rest of the
// process: encode runs stayed fast in 12 of 12, where 9 of 17 went slow.
const charCodeAt = String.prototype.charCodeAt;
export const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s);
const utf8 = new TextEncoder();

/** The letter of a control character's two-character escape (`\\n`); 0 for `\\u00XX`. */
const SHORT_ESCAPE = new Uint8Array(0x20);
SHORT_ESCAPE[0x08] = 0x62; // b
SHORT_ESCAPE[0x09] = 0x74; // t
SHORT_ESCAPE[0x0a] = 0x6e; // n
SHORT_ESCAPE[0x0c] = 0x66; // f
SHORT_ESCAPE[0x0d] = 0x72; // r
const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** PLAIN[c] is 1 for a UTF-16 unit written as its one byte (printable ASCII but `"` and `\\`): one load, no range test. */
const PLAIN = new Uint8Array(0x10000);
for (let c = 0x20; c < 0x7f; c++) if (c !== 0x22 && c !== 0x5c) PLAIN[c] = 1;

/** A new buffer, or null where the engine throws a RangeError. */
function allocate(size: number): Uint8Array | null {
  try {
    return new Uint8Array(size);
  } catch {
    return null;
  }
}

/** Writes an ASCII character's escape (DEL as it is); returns the new end. */
function writeEscape(b: Uint8Array, p: number, c: number): number {
  if (c === 0x7f) {
    b[p++] = c;
    return p;
  }
  b[p++] = 0x5c;
  if (c >= 0x20) {
    b[p++] = c;
    return p;
  }
  const letter = SHORT_ESCAPE[c];
  if (letter !== 0) {
    b[p++] = letter;
    return p;
  }
  b[p++] = 0x75;
  b[p++] = 0x30;
  b[p++] = 0x30;
  b[p++] = HEX[c >> 4];
  b[p++] = HEX[c & 15];
  return p;
}

function pair(b: Uint8Array, p: number, high: number, low: number): number {
  const cp = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
  b[p++] = 0xf0 | (cp >> 18);
  b[p++] = 0x80 | ((cp >> 12) & 0x3f);
  b[p++] = 0x80 | ((cp >> 6) & 0x3f);
  b[p++] = 0x80 | (cp & 0x3f);
  return p;
}

/** Whether JSON.stringify escapes the ASCII character c. */
function escapes(c: number): boolean {
  return c < 0x20 || c === 0x22 || c === 0x5c;
}

function plainAhead(s: string): boolean {
  for (let i = 0; i < LOOK_AHEAD; i++) if (escapes(charCodeAt.call(s, i))) return false;
  return true;
}

function escapeInWord(x: number): boolean {
  const q = x ^ 0x22222222;
  const r = x ^ 0x5c5c5c5c;
  return ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((r - 0x01010101) & ~r)) & 0x80808080) !== 0;
}

// Whether b[from, to) holds a byte JSON.stringify escapes; `words` views b's
// buffer. PERF NOTES: a word at a time ("Bit Twiddling Hacks" hasless and
// haszero), ~3× a byte loop or a regex.
function hasEscape(b: Uint8Array, words: Int32Array, from: number, to: number): boolean {
  let i = from;
  for (; i < to && (i & 3) !== 0; i++) if (escapes(b[i])) return true;
  const end = to >> 2;
  let k = i >> 2;
  // Two words a turn: a fifth less time than one.
  for (; k + 1 < end; k += 2) {
    const x = words[k];
    const y = words[k + 1];
    const q = x ^ 0x22222222;
    const r = x ^ 0x5c5c5c5c;
    const s = y ^ 0x22222222;
    const t = y ^ 0x5c5c5c5c;
    const lows = ((x - 0x20202020) & ~x) | ((y - 0x20202020) & ~y);
    if ((lows | ((q - 0x01010101) & ~q) | ((r - 0x01010101) & ~r) | ((s - 0x01010101) & ~s) | ((t - 0x01010101) & ~t)) & 0x80808080) return true;
  }
  for (; k < end; k++) if (escapeInWord(words[k])) return true;
  if (k << 2 > i) i = k << 2;
  for (; i < to; i++) if (escapes(b[i])) return true;
  return false;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** A segment of a long string with escapes, as encodeInto writes it, before escapeRaw. */
const RAW = new Uint8Array(3 * CHUNK + 4);
const RAW_WORDS = new Int32Array(RAW.buffer);

/** Writes RAW[from, to) escaped to b at p; returns the new end. */
function escapeBytes(b: Uint8Array, p: number, from: number, to: number): number {
  for (let j = from; j < to; j++) {
    const c = RAW[j];
    if (escapes(c)) p = writeEscape(b, p, c);
    else b[p++] = c;
  }
  return p;
}

/** The output of one call, and where in the value it is. */
export class Utf8Writer {
  buf: Uint8Array = new Uint8Array(0);
  /** buf's whole buffer, and views of it: words for scans, view for writing words (both go with it). */
  bytes: ArrayBuffer = this.buf.buffer as ArrayBuffer;
  words: Int32Array = new Int32Array(0);
  view: DataView = new DataView(new ArrayBuffer(0));
  pos = 0;
  /** UTF-8 bytes beyond one a UTF-16 unit: pos - extra is the text's length in units, plus the tag. */
  extra = 0;
  /** The arrays and objects being written, outermost first: the cycle check and the depth. */
  readonly open: object[] = [];
  /** path[d] names the member being written inside open[d]. */
  readonly path: PropertyKey[] = [];
  /** The refusal this writer threw, to tell it from the value's own exceptions. */
  refusal: unknown = null;
  /** Scratch buffers allocated (for tests). */
  allocations = 0;

  constructor(readonly limits: FrameLimits) {}

  refuseWith(bad: EncodeError): never {
    this.refusal = bad;
    throw bad;
  }

  /** What a call throws for `e`: this writer's refusal as it is; else what the value's own code threw, at its path, as the cause. */
  failure(e: unknown): unknown {
    if (e === this.refusal) return e;
    return new EncodeError(REFUSAL.threw(e), this.path.slice(0, this.open.length), { cause: e });
  }

  refuse(message: string): never {
    return this.refuseWith(new EncodeError(message, this.path.slice(0, this.open.length)));
  }

  /** Refuses where what is written and `more` one-unit bytes would be over a limit. */
  checkLength(more = 0): void {
    if (this.pos + more - this.extra - 1 > this.limits.units) this.refuse(REFUSAL.tooLong(this.limits.units));
    if (this.pos + more > this.limits.bytes) this.refuse(REFUSAL.tooLarge(this.limits.bytes));
  }

  grow(need: number): void {
    this.checkLength();
    if (need > MAX_BUFFER) this.refuse(REFUSAL.tooLarge(this.limits.bytes));
    let size = Math.max(FIRST_BYTES, this.buf.length * 2);
    while (size < need) size *= 2;
    size = Math.min(size, MAX_BUFFER);
    const bigger = allocate(size) ?? this.refuse(REFUSAL.noMemory(size));
    this.allocations++;
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
    this.bytes = bigger.buffer as ArrayBuffer;
    this.words = new Int32Array(this.bytes, 0, bigger.length >> 2);
    this.view = new DataView(this.bytes);
  }

  // A member's name and the colon. PERF NOTES: string() and byte() took
  // 4.5–6.4% more instructions, a cache of names' bytes 1.3–3.3% more; four
  // characters at a time ran at 0.88–1.02× bare against 1.03–1.15×.
  name(k: string): void {
    const n = k.length;
    let p = this.pos;
    if (n <= NAME_LENGTH) {
      if (p + n + 3 > this.buf.length) this.grow(p + n + 3);
      const b = this.buf;
      b[p++] = 0x22;
      let i = 0;
      for (; i < n; i++) {
        const c = k.charCodeAt(i);
        if ((c - 0x20) >>> 0 >= 0x5f || c === 0x22 || c === 0x5c) break;
        b[p++] = c;
      }
      if (i === n) {
        b[p++] = 0x22;
        b[p++] = 0x3a;
        this.pos = p;
        return;
      }
    }
    if (!this.string(k)) this.refuse(REFUSAL.loneSurrogateInName);
    this.byte(0x3a);
  }

  byte(c: number): void {
    if (this.pos >= this.buf.length) this.grow(this.pos + 1);
    this.buf[this.pos++] = c;
  }

  // A member's head, `"name":`, n bytes, from its words (judge-plan.ts) and
  // the zeros after, which the next write covers. PERF NOTES: against a byte
  // at a time, 1.8–2.9% fewer instructions, 10.5% on listing-small.
  head(n: number, words: Int32Array): void {
    const p = this.pos;
    const count = words.length;
    if (p + 4 * count > this.buf.length) this.grow(p + 4 * count);
    const view = this.view;
    for (let k = 0; k < count; k++) view.setInt32(p + 4 * k, words[k], LITTLE_ENDIAN);
    this.pos = p + n;
  }

  literal(bytes: Uint8Array): void {
    const n = bytes.length;
    let p = this.pos;
    if (p + n > this.buf.length) this.grow(p + n);
    const b = this.buf;
    for (let j = 0; j < n; j++) b[p++] = bytes[j];
    this.pos = p;
  }

  /** Number::toString, refusing what is not finite; integers are written digit by digit. */
  number(n: number): void {
    if (this.pos + 32 > this.buf.length) this.grow(this.pos + 32);
    const b = this.buf;
    let p = this.pos;
    if (n === (n | 0)) {
      let u = n;
      if (u < 0) {
        b[p++] = 0x2d;
        u = -u;
      }
      // -0 is written "0"; u is at most 2^31, so its tenth fits in 31 bits.
      p += u < 10 ? 1 : u < 100 ? 2 : u < 1000 ? 3 : u < 10000 ? 4 : u < 100000 ? 5 : u < 1000000 ? 6 : u < 1e7 ? 7 : u < 1e8 ? 8 : u < 1e9 ? 9 : 10;
      let q = p;
      do {
        const t = (u / 10) | 0;
        b[--q] = 0x30 + u - t * 10;
        u = t;
      } while (u !== 0);
      this.pos = p;
      return;
    }
    if (!Number.isFinite(n)) this.refuse(REFUSAL.notFinite(n));
    const s = String(n);
    for (let i = 0; i < s.length; i++) b[p++] = charCodeAt.call(s, i);
    this.pos = p;
  }

  /** The string, quoted and escaped as QuoteJSONString; false, with nothing written, for a lone surrogate. */
  string(s: string): boolean {
    const n = s.length;
    if (n > LONG) return this.long(s);
    const start = this.pos;
    if (start + 6 * n + 2 > this.buf.length) this.grow(start + 6 * n + 2);
    this.buf[this.pos++] = 0x22;
    if (this.escaped(s, 0, n) < 0) {
      this.pos = start;
      return false;
    }
    this.buf[this.pos++] = 0x22;
    return true;
  }

  // Writes s[i, stop) escaped, in room for 6 bytes a character and a pair past
  // stop; returns where it stopped, or -1 at a lone surrogate (pos unchanged).
  // PERF NOTES: four plain characters a word: 2.8–15.3% fewer instructions.
  escaped(s: string, i: number, stop: number): number {
    const n = s.length;
    const b = this.buf;
    const view = this.view;
    let p = this.pos;
    let extra = this.extra;
    while (i < stop) {
      while (i + 4 <= stop) {
        const c0 = charCodeAt.call(s, i);
        const c1 = charCodeAt.call(s, i + 1);
        const c2 = charCodeAt.call(s, i + 2);
        const c3 = charCodeAt.call(s, i + 3);
        if ((PLAIN[c0] & PLAIN[c1] & PLAIN[c2] & PLAIN[c3]) === 0) break;
        view.setInt32(p, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
        p += 4;
        i += 4;
      }
      if (i === stop) break;
      let c = charCodeAt.call(s, i);
      while ((c - 0x20) >>> 0 < 0x5f && c !== 0x22 && c !== 0x5c) {
        b[p++] = c;
        if (++i === stop) break;
        c = charCodeAt.call(s, i);
      }
      if (i === stop) break;
      i++;
      if (c < 0x80) {
        p = writeEscape(b, p, c);
      } else if (c < 0x800) {
        b[p++] = 0xc0 | (c >> 6);
        b[p++] = 0x80 | (c & 0x3f);
        extra += 1;
      } else if (c < 0xd800 || c > 0xdfff) {
        b[p++] = 0xe0 | (c >> 12);
        b[p++] = 0x80 | ((c >> 6) & 0x3f);
        b[p++] = 0x80 | (c & 0x3f);
        extra += 2;
      } else {
        const d = c <= 0xdbff && i < n ? charCodeAt.call(s, i) : 0;
        if (d < 0xdc00 || d > 0xdfff) return -1;
        p = pair(b, p, c, d);
        extra += 2;
        i++;
      }
    }
    this.pos = p;
    this.extra = extra;
    return i;
  }

  long(s: string): boolean {
    const n = s.length;
    // A unit is a byte at least: refused before anything is allocated.
    this.checkLength(n + 2);
    const start = this.pos;
    const extraAtStart = this.extra;
    this.byte(0x22);
    // From where encodeInto stopped, escaped() checking room and limits every CHUNK characters.
    for (let i = this.native(s); i < n; ) {
      const stop = Math.min(n, i + CHUNK);
      // Eight spare bytes: a pair across the chunk's end.
      if (this.pos + 6 * (stop - i) + 8 > this.buf.length) this.grow(this.pos + 6 * (stop - i) + 8);
      i = this.escaped(s, i, stop);
      if (i < 0) {
        this.pos = start;
        this.extra = extraAtStart;
        return false;
      }
      this.checkLength();
    }
    this.byte(0x22);
    return true;
  }

  // Writes s by encodeInto in segments, none splitting a pair, while each is
  // well formed (it writes a lone surrogate as U+FFFD); returns where it stopped.
  native(s: string): number {
    const n = s.length;
    // An escape near the start: likely more, so every segment goes through RAW.
    const viaRaw = !plainAhead(s);
    let i = 0;
    while (i < n) {
      let end = Math.min(n, i + CHUNK);
      const last = charCodeAt.call(s, end - 1);
      if (end < n && last >= 0xd800 && last <= 0xdbff) end--;
      const segment = i === 0 && end === n ? s : s.slice(i, end);
      if (!viaRaw && this.pos + 3 * (end - i) > this.buf.length) this.grow(this.pos + 3 * (end - i));
      // The view is constructed, as in poolOut: 0.7% fewer instructions than subarray.
      const { read, written } = utf8.encodeInto(segment, viaRaw ? RAW : new Uint8Array(this.bytes, this.pos));
      // Only a string with two-byte characters pays for the check.
      if (read !== end - i || (written !== read && !isWellFormed(segment))) return i;
      // An escape is a byte a unit, as the byte it stands for: extra is unchanged.
      if (viaRaw) this.pos = this.escapeRaw(written);
      else if (hasEscape(this.buf, this.words, this.pos, this.pos + written)) {
        RAW.set(new Uint8Array(this.bytes, this.pos, written));
        this.pos = this.escapeRaw(written);
      } else this.pos += written;
      this.extra += written - read;
      this.checkLength();
      i = end;
    }
    return n;
  }

  // Writes RAW[0, n) at pos escaped, a clean word at a time; returns the new
  // end. PERF NOTES: long texts with escapes took 4.18 ns a character against
  // 5.39 in the JS loop; LONG at 32, not 128, took 901 ns a frame against 641.
  escapeRaw(n: number): number {
    const pos = this.pos;
    if (pos + 6 * n > this.buf.length) this.grow(pos + 6 * n);
    const b = this.buf;
    const view = this.view;
    const words = RAW_WORDS;
    let p = pos;
    const whole = n >> 2;
    for (let k = 0; k < whole; k++) {
      const x = words[k];
      if (escapeInWord(x)) p = escapeBytes(b, p, k << 2, (k << 2) + 4);
      else {
        view.setInt32(p, x, LITTLE_ENDIAN);
        p += 4;
      }
    }
    return escapeBytes(b, p, whole << 2, n);
  }
}
