// A frame as encode writes it (WIRE.md section 5): the tag, then the body as compact JSON, checked against rule 4.1 as it is written.
//
// # One pass, and what the schema judges
//
// The writer reads every member of the value exactly once, in the order
// and with the operations JSON.stringify uses (ECMA-262 SerializeJSONProperty:
// Get, then toJSON with the key, then the primitive inside a boxed value),
// checks what it read, and writes its UTF-8 straight into a scratch buffer.
// As it goes it builds the value JSON.parse would make of those bytes: plain
// objects and arrays around the same primitives. That copy is what the
// schema judges (rules 4.2 and 4.3), never the caller's value, because a
// getter or a Proxy may answer a second read differently, and a Proxy
// cannot be told apart from a plain object in JavaScript. So what was
// checked, what was judged and what was written are one reading of the
// value, and no output is needed to prove it afterwards: the bytes come
// from the checks themselves.
//
// A codec with a compiled judge gives the writer a plan made from it
// (judge-plan.ts), and then the copy is not built: the writer judges each
// member as it writes it, and a member the schema does not look into
// (`_meta`, a tool's input schema, a member it does not know) is only
// written. Where the plan cannot follow the value (a leaf's container, a
// toJSON), that part is copied and judged as before. A refusal is named
// by the judge on the value parsed back from the bytes, which is the copy
// the writer would have built. Against the copy and the judge's walk
// after it, encode counted 4 to 26% fewer instructions on the listings
// and the reference servers' answers (instructions counted under valgrind, 200 rounds)
// and took 8 to 27% less time side by side (side by side, in CPU time).
//
// The other way, JSON.stringify then a check of its output, cannot see what
// JSON.stringify altered without a trace (NaN written as null, a function
// left out) and builds the text as one V8 string, which has a length limit
// below the frame limit.
//
// PERF NOTES (on the copy, which a codec without a plan still builds):
// building only what the compiled judge reads was tried and dropped. Side
// by side, the captures took 0 to 9% less time but the listing and error
// fixtures 5 to 20% more: the plan's lookups and second walks cost more
// than the objects saved, and the copy is about a tenth of encode.
//
// # Where it differs from JSON.stringify
//
// - It refuses what decode would refuse (encode-rules.ts): JSON.stringify
//   would alter those values instead.
// - A boxed primitive is found by its prototype chain (instanceof, or for
//   another realm's, the name of its prototype's constructor), then
//   confirmed by its internal slot, and only for an object whose prototype
//   is not Object.prototype or null. JSON.stringify looks at the slot alone,
//   but a brand check that throws costs about 10 µs here, too much for
//   every object, and Object.prototype.toString would read
//   Symbol.toStringTag, a read a Proxy sees and JSON.stringify does not
//   make. So a boxed primitive whose prototype was changed (to
//   Object.prototype, to null, to anything but its own kind's) is written as
//   the object it also is (`{"0":"a"}` for a String) where JSON.stringify
//   writes its primitive. The bytes are still what was checked and judged.
// - An object's members are enumerated with for-in and an own-property test
//   (see object()), which names the same members in the same order as
//   JSON.stringify's EnumerableOwnProperties. A Proxy sees more of its
//   traps called: getPrototypeOf, and getOwnPropertyDescriptor twice for
//   each name, between the reads of its members rather than before them.
//   Its get trap is called as JSON.stringify calls it, once per member and
//   in order. A member whose descriptor a trap withdraws during the walk is
//   left out, where JSON.stringify would read it.
//
// # Buffers
//
// One scratch buffer is kept between calls and grown by doubling, so a
// steady stream of frames allocates only the copy of exactly the frame's
// length that each call returns. A scratch buffer above KEEP_BYTES is let
// go after the call that needed it. A call made while another is running
// (from a toJSON or a getter) gets a writer of its own.
//
// A frame shorter than POOLED bytes is copied into a slab of SLAB bytes
// shared with the frames written before it, as Node's Buffer.from carves
// its pool: its own ArrayBuffer would cost about 0.5 µs on V8 (a typed
// array over 64 bytes keeps its bytes off the heap), as long as writing a
// listing of three resources takes. Such a frame is a view: its `buffer`
// is the slab, `byteOffset` and `byteLength` say where it lies, and
// transferring that buffer detaches the frames beside it (the next frame
// then starts a new slab). A frame of POOLED bytes or more has an
// ArrayBuffer of its own, of exactly its length.

import { isBase64Bytes } from './base64.js';
import { EncodeError, REFUSAL } from './encode-rules.js';
import { MAX_DEPTH } from './json-text.js';
import { newJudgement, plainObjects } from './judge-kit.js';
import type { JudgeNode } from './judge-node.js';
import { utf8Text } from './utf8-text.js';
import {
  absentOk,
  ANY,
  ANY_PLAN,
  ARRAY,
  BASE64,
  CONTAINER,
  OBJECT,
  type Plan,
  RECORD,
  STRING,
  UNION,
  type UnionMember,
  VALUE,
} from './judge-plan.js';

/** How long a frame may be, and its body's JSON text. */
export interface FrameLimits {
  /** Bytes in the frame, the tag included. */
  readonly bytes: number;
  /** UTF-16 code units in the body's JSON text, as TextDecoder would make it. */
  readonly units: number;
}

/**
 * The limits encode applies. A record's length field is 32 bits (WIRE.md
 * sections 3 and 6); V8's longest string is 2^29 - 24 code units, below
 * SpiderMonkey's and JavaScriptCore's, and a body longer than that cannot
 * be decoded by TextDecoder on V8. The second limit comes first: a code unit
 * is at most 3 bytes of UTF-8, so no body within it reaches 2^32 - 1 bytes.
 */
export const FRAME_LIMITS: FrameLimits = { bytes: 2 ** 32 - 1, units: 2 ** 29 - 24 };

/** The largest scratch buffer kept between calls: the default frame limit. */
const KEEP_BYTES = 16 * 1024 * 1024;
/** Frames shorter than this are carved from a shared slab; see Buffers above. */
export const POOLED = 4096;
/** The slab small frames are carved from: twice POOLED, as Node's Buffer pool. */
const SLAB = 8192;
/** The first scratch buffer: below 128 KiB, so a fresh one costs few page faults. */
const FIRST_BYTES = 64 * 1024;
/** V8's largest typed array, in elements. */
const MAX_BUFFER = 2 ** 32;

/**
 * The longest array encode writes. V8 holds an array's elements in one
 * block of at most 2^27 - 3 (64-bit, no pointer compression), and stops
 * the process, with a fatal error and no exception, when asked for more:
 * JSON.parse making an array of 150 million elements does, and so did the
 * writer's copy, which grows by half again, at about 113 million. Half of
 * V8's longest leaves room for that growth; an array this long is 128 MiB
 * of text at least, eight times the default frame limit.
 */
const MAX_ELEMENTS = 2 ** 26;

/** Member names up to this long, written one byte a character, take name()'s own loop; others go through string(). */
const NAME_LENGTH = 64;

/** Strings longer than this try the native path first: encodeInto, then a scan of its bytes for what must be escaped. */
const LONG = 128;
/** Characters of a long string looked at in JS first: text with an escape among them goes through RAW (BodyWriter.native). */
const LOOK_AHEAD = 64;
/** Characters written between capacity checks on the JS path: at most 6 bytes each. */
const CHUNK = 8192;

// Builtins taken once, so that a program that patches them later changes
// neither what is checked nor what is written.
const isArray = Array.isArray;
const ownProperty = Object.prototype.hasOwnProperty;
const protoOf = Object.getPrototypeOf;
const defineProperty = Object.defineProperty;
const objectPrototype = Object.prototype;
const stringValue = String.prototype.valueOf;
const numberValue = Number.prototype.valueOf;
const booleanValue = Boolean.prototype.valueOf;
// PERF NOTES: strings are read as `charCodeAt.call(s, i)`, not
// `s.charCodeAt(i)`: the method load's feedback is on the string's hidden
// class, and past four kinds of string it went megamorphic (--log-ic), a
// generic load and call per character for the rest of the process. With a
// known target, three-fixture encode runs stayed fast in 12 of 12 (9 of 17
// were slow before), at 0.95–1.04× the old form's speed side by side.
const charCodeAt = String.prototype.charCodeAt;
const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s);
const utf8 = new TextEncoder();

/** The letter of a two-character escape (`\\n`) for the characters below 0x20 that have one; 0 for `\\u00XX`, as QuoteJSONString writes them. */
const SHORT_ESCAPE = new Uint8Array(0x20);
SHORT_ESCAPE[0x08] = 0x62; // b
SHORT_ESCAPE[0x09] = 0x74; // t
SHORT_ESCAPE[0x0a] = 0x6e; // n
SHORT_ESCAPE[0x0c] = 0x66; // f
SHORT_ESCAPE[0x0d] = 0x72; // r
/** Lowercase, as QuoteJSONString's UnicodeEscape writes them. */
const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * PLAIN[c] is 1 for a UTF-16 unit written as it is, one byte (printable
 * ASCII but `"` and `\\`), and 0 for every other: one load answers any
 * unit, with no range test (base64.ts's CLASS is built the same way).
 */
const PLAIN = new Uint8Array(0x10000);
for (let c = 0x20; c < 0x7f; c++) if (c !== 0x22 && c !== 0x5c) PLAIN[c] = 1;

/**
 * A plain object, as JSON.parse makes one: every member its own, whatever
 * Object.prototype holds. `__proto__` is Object.prototype's setter, and an
 * assignment to a name Object.prototype holds read-only throws (the
 * override mistake: every method of a frozen Object.prototype, as under SES
 * lockdown, so `constructor` and `toString` could not be written), as does
 * one to a name whose inherited setter throws. JSON.parse defines each
 * member, as defineProperty does here.
 *
 * PERF NOTES: the assignment stays the common path, and V8 optimizes the
 * try around it; defineProperty for every member would be a runtime call each.
 */
function setMember(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    defineMember(copy, key, value);
    return;
  }
  try {
    copy[key] = value;
  } catch {
    defineMember(copy, key, value);
  }
}

function defineMember(copy: Record<string, unknown>, key: string, value: unknown): void {
  defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
}

/** ToLength(Get(array, "length")) for a Proxy of an array whose length is not a plain index. */
function toLength(raw: unknown): number {
  const n = Math.trunc(+(raw as number));
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}

/** Which primitive a non-plain object boxes, by its internal slot; 0 for none. */
const NONE = 0;
const BOXED_STRING = 1;
const BOXED_NUMBER = 2;
const BOXED_BOOLEAN = 3;
const BOXED_BIGINT = 4;

function boxed(o: object, proto: object): number {
  // instanceof walks the prototype chain and reads no member, so a Proxy's
  // get trap sees nothing JSON.stringify would not make it see; the brand
  // check then confirms the slot (and throws, at a cost, only for an object
  // that inherits from String.prototype and so on without being one).
  if (o instanceof String) return hasSlot(stringValue, o) ? BOXED_STRING : NONE;
  if (o instanceof Number) return hasSlot(numberValue, o) ? BOXED_NUMBER : NONE;
  if (o instanceof Boolean) return hasSlot(booleanValue, o) ? BOXED_BOOLEAN : NONE;
  if (typeof BigInt === 'function' && o instanceof BigInt) return hasSlot(BigInt.prototype.valueOf, o) ? BOXED_BIGINT : NONE;
  // A boxed primitive from another realm (a vm context, an iframe) has that
  // realm's prototype, whose constructor has the same name; the brand checks
  // of this realm accept its slot.
  const ctor = (proto as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function') return NONE;
  switch (ctor.name) {
    case 'String':
      return hasSlot(stringValue, o) ? BOXED_STRING : NONE;
    case 'Number':
      return hasSlot(numberValue, o) ? BOXED_NUMBER : NONE;
    case 'Boolean':
      return hasSlot(booleanValue, o) ? BOXED_BOOLEAN : NONE;
    case 'BigInt':
      return typeof BigInt === 'function' && hasSlot(BigInt.prototype.valueOf, o) ? BOXED_BIGINT : NONE;
  }
  return NONE;
}

function hasSlot(brand: (this: object) => unknown, o: object): boolean {
  try {
    brand.call(o);
    return true;
  } catch {
    return false;
  }
}

/** A new buffer, or null when the engine cannot allocate it (a RangeError, which must not escape encode). */
function allocate(size: number): Uint8Array | null {
  try {
    return new Uint8Array(size);
  } catch {
    return null;
  }
}

/** The first n bytes of b, copied; null when they cannot be allocated. */
function copyOut(b: Uint8Array, n: number): Uint8Array | null {
  try {
    return b.slice(0, n);
  } catch {
    return null;
  }
}

/** The slab small frames are carved from, and how much of it is taken. */
let slab: ArrayBuffer = new ArrayBuffer(0);
let slabUsed = 0;
/** Slabs allocated, for the test that small frames share them. */
let slabs = 0;

/**
 * The first n bytes of b, a view of all of `from`, copied into the slab,
 * for n below POOLED; null when a new slab cannot be allocated. A slab
 * whose buffer was transferred has a byteLength of 0, so the next frame
 * starts a new one.
 */
function poolOut(b: Uint8Array, from: ArrayBuffer, n: number): Uint8Array | null {
  if (slabUsed + n > slab.byteLength) {
    try {
      slab = new ArrayBuffer(SLAB);
    } catch {
      return null;
    }
    slabs++;
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, n);
  // Each frame starts on an 8-byte boundary, as in Node's pool.
  slabUsed = (slabUsed + n + 7) & ~7;
  // PERF NOTES: the copy is a loop up to 32 bytes, else set() from a view
  // made with the constructor (not subarray: 61–74 ns against 75–129 for 16
  // to 150 bytes) on the buffer the writer keeps (not b.buffer, a runtime
  // call: 547 ns a frame against 599 on the everything server's answers).
  // Frames handed out from a 64 KiB arena with no copy ran 4.5% faster in 3
  // processes of 4 and at half speed in the fourth, which page-faulted
  // freed arenas back in (0.33–0.36 faults a frame); 16 and 32 KiB slabs
  // were no faster. The slab stays at 8 KiB.
  if (n <= 32) for (let i = 0; i < n; i++) out[i] = b[i];
  else out.set(new Uint8Array(from, 0, n));
  return out;
}

/** Writes the escape of an ASCII character JSON.stringify escapes (or DEL, which it does not); returns the new end. */
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

/** Writes the four bytes of a surrogate pair; returns the new end. */
function pair(b: Uint8Array, p: number, high: number, low: number): number {
  const cp = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
  b[p++] = 0xf0 | (cp >> 18);
  b[p++] = 0x80 | ((cp >> 12) & 0x3f);
  b[p++] = 0x80 | ((cp >> 6) & 0x3f);
  b[p++] = 0x80 | (cp & 0x3f);
  return p;
}

/** Whether the first LOOK_AHEAD characters of s need no escape. */
function plainAhead(s: string): boolean {
  for (let i = 0; i < LOOK_AHEAD; i++) {
    const c = charCodeAt.call(s, i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** Whether a byte of the 32-bit word x is one JSON.stringify escapes (hasEscape's test, a word at a time). */
function escapeInWord(x: number): boolean {
  const q = x ^ 0x22222222;
  const r = x ^ 0x5c5c5c5c;
  return ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((r - 0x01010101) & ~r)) & 0x80808080) !== 0;
}

/**
 * Whether b[from, to) holds a byte that JSON.stringify escapes: below 0x20,
 * '"' or '\\'. UTF-8 bytes of non-ASCII characters are all 0x80 or above.
 *
 * PERF NOTES: four bytes at a time, by the bit tricks of Sean Eron
 * Anderson's "Bit Twiddling Hacks" (hasless and haszero, exact for whether
 * any byte matches); about three times the speed of a byte loop or a regex
 * test here, about a tenth of the time encodeInto took to write the bytes. `words` views the same buffer as `b`, so the edges that are not
 * a whole word are looked at byte by byte.
 */
function hasEscape(b: Uint8Array, words: Int32Array, from: number, to: number): boolean {
  let i = from;
  for (; i < to && (i & 3) !== 0; i++) {
    const c = b[i];
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true;
  }
  const end = to >> 2;
  let k = i >> 2;
  // Two words a turn: a fifth less time than one, here.
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
  for (; i < to; i++) {
    const c = b[i];
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true;
  }
  return false;
}

/** The platform's byte order, for DataView writes of words read through an Int32Array. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** One segment of a long string with escapes, as encodeInto writes it, before it is escaped into place (BodyWriter.escapeRaw). */
const RAW = new Uint8Array(3 * CHUNK + 4);
const RAW_WORDS = new Int32Array(RAW.buffer);

/** Writes RAW[from, to) to b at p, a byte at a time, each byte JSON.stringify escapes as its escape; returns the new end. */
function escapeBytes(b: Uint8Array, p: number, from: number, to: number): number {
  for (let j = from; j < to; j++) {
    const c = RAW[j];
    if (c < 0x20 || c === 0x22 || c === 0x5c) p = writeEscape(b, p, c);
    else b[p++] = c;
  }
  return p;
}

/**
 * A plan's verdict on a string just written to b[start, end), quotes
 * included: a blob is checked on those bytes, the same rule as isBase64
 * on the string (base64.ts), with no second encoding of the string.
 */
function stringOk(p: Plan, s: string, b: Uint8Array, start: number, end: number): boolean {
  const kind = p.kind;
  if (kind === STRING || kind === ANY) return true;
  if (kind === BASE64) return isBase64Bytes(b, start + 1, end - 1);
  // An object, an array or a union of objects refuses every primitive.
  return kind === VALUE && (p.node as JudgeNode).ok(s);
}

/** A plan's verdict on a value already written (a primitive, or the copy of a container): its node's, or ANY's. */
function okAs(p: Plan, written: unknown): boolean {
  return p.kind === ANY || (p.node as JudgeNode).ok(written);
}

/** The writer's state for one call; one is kept and reused between calls. */
class BodyWriter {
  buf: Uint8Array = new Uint8Array(0);
  /** buf's buffer, of which buf is the whole (its offset 0). */
  bytes: ArrayBuffer = this.buf.buffer as ArrayBuffer;
  /** The same bytes, four at a time, for the scan of what encodeInto wrote. */
  words: Int32Array = new Int32Array(0);
  /** The same bytes again, for writing a word at any offset (escapeRaw). */
  view: DataView = new DataView(new ArrayBuffer(0));
  pos = 0;
  /** UTF-8 bytes written beyond one per UTF-16 code unit: pos - extra is the text's length in code units, plus the tag. */
  extra = 0;
  /** The arrays and objects being written, outermost first: the cycle check and the depth. */
  readonly open: object[] = [];
  /** path[d] names the member being written inside open[d]. */
  readonly path: PropertyKey[] = [];
  /** The refusal this writer threw, to tell it from an exception thrown by the value's own code. */
  refusal: unknown = null;
  busy = false;
  /** Scratch buffers allocated, for the test that the steady state allocates none. */
  allocations = 0;

  constructor(readonly limits: FrameLimits) {}

  /** Throws `bad`, a refusal of the schema's, as this writer's own. */
  refuseWith(bad: EncodeError): never {
    this.refusal = bad;
    throw bad;
  }

  /**
   * What a call throws for `e`: a refusal of this writer's as it is; else
   * something the value's own code threw (a getter, toJSON, toString, a
   * Proxy trap) or the engine threw on its behalf (a stack overflow in a
   * getter), reported where it happened, with the original as the cause.
   */
  failure(e: unknown): unknown {
    if (e === this.refusal) return e;
    return new EncodeError(REFUSAL.threw(e), this.path.slice(0, this.open.length), { cause: e });
  }

  /** Throws, as an EncodeError at the current path. */
  refuse(message: string): never {
    const error = new EncodeError(message, this.path.slice(0, this.open.length));
    this.refusal = error;
    throw error;
  }

  /** Refuses once what is written, and `more` bytes of one code unit each, would be over a limit. */
  checkLength(more = 0): void {
    if (this.pos + more - this.extra - 1 > this.limits.units) this.refuse(REFUSAL.tooLong(this.limits.units));
    if (this.pos + more > this.limits.bytes) this.refuse(REFUSAL.tooLarge(this.limits.bytes));
  }

  /** Room for `need` bytes in all, growing the buffer by doubling. */
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

  /** The tag, then the body; returns the value as written (what JSON.parse would make of the bytes). */
  frame(tag: number, body: unknown): unknown {
    this.start(tag, body);
    const written = this.value(body, '', false);
    this.checkLength();
    return written;
  }

  /** The tag, then the body under a plan; returns the plan's verdict on the value as written. */
  judgedFrame(tag: number, body: unknown, plan: Plan): boolean {
    this.start(tag, body);
    const ok = this.judged(body, '', false, plan);
    this.checkLength();
    return ok;
  }

  start(tag: number, body: unknown): void {
    this.pos = 0;
    this.extra = 0;
    if (this.buf.length < 16) this.grow(16);
    this.buf[this.pos++] = tag;
    if (body === undefined) this.refuse(REFUSAL.undefinedMember);
  }

  /** SerializeJSONProperty on a value already read: returns the value as written. */
  value(v: unknown, key: string | number, inArray: boolean): unknown {
    // One typeof test at a time, commonest first: 0.4 to 1.5% fewer instructions for encode than a switch on typeof (instructions counted under valgrind).
    if (typeof v === 'string') {
      if (!this.string(v)) this.refuse(REFUSAL.loneSurrogate);
      return v;
    }
    if (typeof v === 'object') {
      if (v === null) {
        this.literal(NULL);
        return null;
      }
      // Read once, as JSON.stringify reads it, and called with the key.
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return this.converted(toJSON.call(v, typeof key === 'number' ? String(key) : key), inArray);
      return this.container(v);
    }
    if (typeof v === 'number') {
      this.number(v);
      return v === 0 ? 0 : v;
    }
    if (typeof v === 'boolean') {
      this.literal(v ? TRUE : FALSE);
      return v;
    }
    if (v === undefined) return this.refuse(inArray ? REFUSAL.undefinedInArray : REFUSAL.undefinedMember);
    return this.other(v, key, inArray);
  }

  /**
   * A BigInt, a function or a symbol. SerializeJSONProperty reads toJSON of
   * a BigInt as of any object, a function included: BigInt.prototype.toJSON
   * is the common way to write BigInts. Without one, JSON.stringify throws (a
   * BigInt) or leaves the value out (a function): refused.
   *
   * PERF NOTES: a method of its own, not a branch at the end of value():
   * there it made encode of the everything server's answers count 9 to 10%
   * more instructions (instructions counted under valgrind), none of them a BigInt.
   */
  other(v: unknown, key: string | number, inArray: boolean): unknown {
    if (typeof v === 'bigint' || typeof v === 'function') {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return this.converted(toJSON.call(v, typeof key === 'number' ? String(key) : key), inArray);
    }
    return this.refuse(REFUSAL.notJson(typeof v));
  }

  /** What toJSON returned: written as it is, toJSON not called again. */
  converted(v: unknown, inArray: boolean): unknown {
    if (typeof v === 'object' && v !== null) return this.container(v);
    if (typeof v === 'bigint' || typeof v === 'function') return this.refuse(REFUSAL.notJson(typeof v));
    return this.value(v, '', inArray);
  }

  /** An array, an object, or a boxed primitive. */
  container(o: object): unknown {
    if (isArray(o)) return this.array(o);
    const proto = protoOf(o);
    if (proto !== objectPrototype && proto !== null) {
      const which = boxed(o, proto);
      if (which !== NONE) return this.unboxed(o, which);
    }
    return this.object(o as Record<string, unknown>);
  }

  /** A boxed primitive (`which` is its kind, from boxed()): writes its primitive and returns it. */
  unboxed(o: object, which: number): unknown {
    switch (which) {
      case BOXED_STRING: {
        // ToString: Symbol.toPrimitive, toString, valueOf, as JSON.stringify calls them.
        const s = `${o}`;
        if (!this.string(s)) this.refuse(REFUSAL.loneSurrogate);
        return s;
      }
      case BOXED_NUMBER: {
        // ToNumber, likewise; a BigInt from valueOf throws, as in JSON.stringify.
        const n = +o;
        this.number(n);
        return n === 0 ? 0 : n;
      }
      case BOXED_BOOLEAN: {
        // The slot itself: JSON.stringify calls nothing here.
        const b = booleanValue.call(o);
        this.literal(b ? TRUE : FALSE);
        return b;
      }
      default:
        return this.refuse(REFUSAL.boxedBigint);
    }
  }

  /**
   * SerializeJSONProperty under a plan (judge-plan.ts): writes as value()
   * writes, reading the value the same way, and returns the plan's verdict
   * on the value as written. Nothing is copied where the plan follows the
   * value; where it does not, value() writes and copies, and the node judges
   * the copy.
   */
  judged(v: unknown, key: string | number, inArray: boolean, p: Plan): boolean {
    const kind = p.kind;
    if (typeof v === 'string') {
      const start = this.pos;
      if (!this.string(v)) this.refuse(REFUSAL.loneSurrogate);
      return stringOk(p, v, this.buf, start, this.pos);
    }
    if (kind >= VALUE) return (p.node as JudgeNode).ok(this.value(v, key, inArray));
    if (typeof v === 'object') {
      if (v === null) {
        this.literal(NULL);
        return kind === ANY || p.nullOk;
      }
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        const written = this.converted(toJSON.call(v, typeof key === 'number' ? String(key) : key), inArray);
        return kind === ANY || (p.node as JudgeNode).ok(written);
      }
      if (isArray(v)) return this.arrayJudged(v, p);
      const proto = protoOf(v);
      if (proto !== objectPrototype && proto !== null) {
        const which = boxed(v, proto);
        if (which !== NONE) {
          this.unboxed(v, which);
          return kind === ANY;
        }
      }
      // Any other object is written as its members, and JSON.parse makes a plain object of them.
      return kind === UNION ? this.unionJudged(v as Record<string, unknown>, p) : this.objectJudged(v as Record<string, unknown>, p);
    }
    if (typeof v === 'number') {
      this.number(v);
      return kind === ANY;
    }
    if (typeof v === 'boolean') {
      this.literal(v ? TRUE : FALSE);
      return kind === ANY;
    }
    if (v === undefined) return this.refuse(inArray ? REFUSAL.undefinedInArray : REFUSAL.undefinedMember);
    const written = this.other(v, key, inArray);
    return kind === ANY || (p.node as JudgeNode).ok(written);
  }

  /** array() under a plan: the verdict of an ARRAY plan (the cap, then each item), ANY's, or false. */
  arrayJudged(a: unknown[], p: Plan): boolean {
    const n = this.enterArray(a);
    const d = this.open.length - 1;
    const path = this.path;
    let ok = p.kind === ARRAY ? n <= p.cap : p.kind === ANY || p.kind === CONTAINER;
    // Once refused, the rest is only written: the refusal is named from the bytes (writeFrame).
    let element = ok && p.kind === ARRAY ? (p.element as Plan) : ANY_PLAN;
    this.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(0x2c);
      path[d] = i;
      const e = a[i];
      if (e === undefined) this.refuse(REFUSAL.undefinedInArray);
      if (!this.judged(e, i, true, element) && ok) {
        ok = false;
        element = ANY_PLAN;
      }
    }
    this.byte(0x5d);
    this.open.pop();
    return ok;
  }

  /**
   * object() under an OBJECT plan: each member by its own plan, then the
   * absent ones; under a RECORD plan, each member by the record's (but
   * `__proto__`, which zod's record passes over); under ANY or CONTAINER,
   * accepted; under an ARRAY plan, refused.
   */
  objectJudged(o: Record<string, unknown>, p: Plan): boolean {
    this.enter(o);
    const d = this.open.length - 1;
    const path = this.path;
    const kind = p.kind;
    const known = kind === OBJECT;
    // zod's record asks that the realm's objects be plain, as the compiled judge does (judge-kit.ts plainObjects).
    let ok = known || kind === ANY || kind === CONTAINER || (kind === RECORD && plainObjects());
    const names = p.names;
    let seen = 0;
    let guess = 0;
    this.byte(0x7b);
    let first = true;
    // As object() enumerates (see its PERF NOTES).
    for (const k in o) {
      if (!ownProperty.call(o, k)) continue;
      path[d] = k;
      const m = o[k];
      if (m === undefined) {
        if (!isWellFormed(k)) this.refuse(REFUSAL.loneSurrogateInName);
        continue;
      }
      if (first) first = false;
      else this.byte(0x2c);
      let child = ANY_PLAN;
      let i = -1;
      if (ok && kind === RECORD) {
        if (k !== '__proto__') child = p.element as Plan;
      } else if (ok && known) {
        // PERF NOTES: members usually come in the schema's order, so the
        // search starts at the name after the last one found; names from
        // for-in and from the generated judges are internalized, so each
        // test is a comparison of pointers, and an object has at most 31
        // members: cheaper than a lookup in p.index.
        const count = names.length;
        for (let j = guess; j < count; j++) {
          if (names[j] === k) {
            i = j;
            break;
          }
        }
        if (i < 0) {
          for (let j = 0; j < guess; j++) {
            if (names[j] === k) {
              i = j;
              break;
            }
          }
        }
        if (i >= 0) {
          child = p.members[i];
          seen |= 1 << i;
          guess = i + 1;
        } else if (p.strict) ok = false;
      }
      if (i >= 0 && p.heads[i].length !== 0) this.head(p.heads[i].length, p.headWords[i]);
      else this.name(k);
      // A string, most members' value, is judged here without a call to judged().
      if (typeof m === 'string') {
        const start = this.pos;
        if (!this.string(m)) this.refuse(REFUSAL.loneSurrogate);
        if (!stringOk(child, m, this.buf, start, this.pos)) ok = false;
      } else if (!this.judged(m, k, false, child)) ok = false;
    }
    this.byte(0x7d);
    this.open.pop();
    return ok && (!known || this.absentOk(p, seen));
  }

  /** Whether an OBJECT plan accepts the members it did not see: none required, each defaulted one judged on undefined. */
  absentOk(p: Plan, seen: number): boolean {
    if ((seen & p.required) !== p.required) return false;
    for (let ask = p.asked & ~seen, i = 0; ask !== 0; ask >>>= 1, i++) if (ask & 1 && !absentOk(p, i)) return false;
    return true;
  }

  /**
   * object() under a UNION plan: the object is walked once, and each member
   * judged under every option still standing. Where the options standing
   * give a member one plan (the same node, or all of them ANY), it is judged
   * once as it is written; where they differ, a primitive is judged by each,
   * and a container is copied and each option's node judges the copy.
   */
  unionJudged(o: Record<string, unknown>, p: Plan): boolean {
    this.enter(o);
    const d = this.open.length - 1;
    const path = this.path;
    const options = p.options;
    const names = p.names;
    const entries = p.entries;
    const count = names.length;
    let guess = 0;
    let alive = p.all;
    // Every option's members, a bit each in one mask (judge-plan.ts unionPlan).
    let seen = 0;
    this.byte(0x7b);
    let first = true;
    for (const k in o) {
      if (!ownProperty.call(o, k)) continue;
      path[d] = k;
      const m = o[k];
      if (m === undefined) {
        if (!isWellFormed(k)) this.refuse(REFUSAL.loneSurrogateInName);
        continue;
      }
      if (first) first = false;
      else this.byte(0x2c);
      this.name(k);
      // Found as objectJudged finds a member: from the name after the last
      // one found, by pointer. PERF NOTES: a Map from names to entries took
      // 4.2% of the CPU samples of encoding the everything server's
      // resources/read answers (FindOrderedHashMapEntry); without it, they
      // took 599 ns a frame against 655 (the median of 5 processes each,
      // taken in turns, pinned).
      let at = -1;
      for (let j = guess; j < count; j++) {
        if (names[j] === k) {
          at = j;
          break;
        }
      }
      if (at < 0) {
        for (let j = 0; j < guess; j++) {
          if (names[j] === k) {
            at = j;
            break;
          }
        }
      }
      let member = p.other as UnionMember;
      if (at >= 0) {
        member = entries[at];
        guess = at + 1;
      }
      seen |= member.bits;
      alive &= ~member.kills;
      if (alive === 0 || member.common !== undefined) {
        // One plan for every option: judged as written, and they stand or fall together.
        if (!this.judged(m, k, false, alive === 0 ? ANY_PLAN : (member.common as Plan))) alive = 0;
        continue;
      }
      const plans = member.plans;
      if (typeof m === 'string') {
        const start = this.pos;
        if (!this.string(m)) this.refuse(REFUSAL.loneSurrogate);
        for (let i = 0; i < plans.length; i++) if ((alive & (1 << i)) !== 0 && !stringOk(plans[i], m, this.buf, start, this.pos)) alive &= ~(1 << i);
        continue;
      }
      let written: unknown = m;
      if (m === null || typeof m === 'boolean') this.judged(m, k, false, ANY_PLAN);
      else if (typeof m === 'number') {
        this.number(m);
        written = m === 0 ? 0 : m;
      } else written = this.value(m, k, false);
      for (let i = 0; i < plans.length; i++) if ((alive & (1 << i)) !== 0 && !okAs(plans[i], written)) alive &= ~(1 << i);
    }
    this.byte(0x7d);
    this.open.pop();
    if (alive === 0) return false;
    const required = p.requiredBits;
    for (let i = 0; i < options.length; i++) if ((alive & (1 << i)) !== 0 && (seen & required[i]) !== required[i]) alive &= ~(1 << i);
    for (const [i, bit, k] of p.askedBits) if ((alive & (1 << i)) !== 0 && (seen & (1 << bit)) === 0 && !absentOk(options[i], k)) alive &= ~(1 << i);
    return alive !== 0;
  }

  enter(o: object): void {
    const open = this.open;
    if (open.includes(o)) this.refuse(REFUSAL.cycle);
    if (open.length >= MAX_DEPTH) this.refuse(REFUSAL.depth);
    open.push(o);
  }

  /** Enters an array (the cycle and depth checks) and returns its length, read once; refused past MAX_ELEMENTS. */
  enterArray(a: unknown[]): number {
    this.enter(a);
    const raw: unknown = a.length;
    const n = typeof raw === 'number' && raw >>> 0 === raw ? raw : toLength(raw);
    if (n > MAX_ELEMENTS) {
      // Refused as a value, at the array's own path, as a cycle or a depth is.
      this.open.pop();
      this.refuse(REFUSAL.tooManyElements(MAX_ELEMENTS));
    }
    return n;
  }

  array(a: unknown[]): unknown[] {
    const n = this.enterArray(a);
    const d = this.open.length - 1;
    const path = this.path;
    const copy: unknown[] = [];
    this.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(0x2c);
      path[d] = i;
      const e = a[i];
      if (e === undefined) this.refuse(REFUSAL.undefinedInArray);
      copy.push(this.value(e, i, true));
    }
    this.byte(0x5d);
    this.open.pop();
    return copy;
  }

  object(o: Record<string, unknown>): Record<string, unknown> {
    this.enter(o);
    const d = this.open.length - 1;
    const path = this.path;
    const copy: Record<string, unknown> = {};
    this.byte(0x7b);
    let first = true;
    // PERF NOTES: for-in with an own-property test gives Object.keys's
    // names in its order, and V8 walks the enumeration cache reading each
    // member by field index, where Object.keys and a keyed read per name
    // go megamorphic: a walk of listing-small's values took 55–58 ns
    // against 88–95, listing-medium's 7.7 µs against 12.1. Object.hasOwn
    // was as slow as Object.keys. What a Proxy sees: "Where it differs".
    for (const k in o) {
      if (!ownProperty.call(o, k)) continue;
      path[d] = k;
      const m = o[k];
      // JSON.stringify leaves the member out; its name is still judged.
      if (m === undefined) {
        if (!isWellFormed(k)) this.refuse(REFUSAL.loneSurrogateInName);
        continue;
      }
      if (first) first = false;
      else this.byte(0x2c);
      this.name(k);
      setMember(copy, k, this.value(m, k, false));
    }
    this.byte(0x7d);
    this.open.pop();
    return copy;
  }

  /**
   * A member's name and the colon after it.
   *
   * PERF NOTES: a loop of its own for a short name with nothing to escape,
   * one capacity check for the quotes and the colon: string() and byte()
   * instead took 4.5–6.4% more instructions for encode; a map from names to
   * their bytes kept between calls took 1.3–3.3% more. Four characters at a
   * time, as string() writes them, was reverted: side by side, the
   * everything server's answers ran at 0.88–1.02× bare against 1.03–1.15×.
   */
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

  /**
   * A member's head, `"name":`, n bytes, from its words (judge-plan.ts):
   * written whole, the zeros after it included, which what comes next
   * writes over.
   *
   * PERF NOTES: a head (8 to 20 bytes for most names) is written a word at
   * a time, not a byte at a time by literal(), which reloaded the views'
   * lengths and data pointers for every byte: 1.8–2.9% fewer instructions
   * on the servers' answers and 10.5% on listing-small; the filesystem
   * server's answers took 2,785 ns a frame against 2,941.
   */
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
      // -0 is 0 here, and written "0", as Number::toString writes it.
      let u = n;
      if (u < 0) {
        b[p++] = 0x2d;
        u = -u;
      }
      // u is at most 2^31, so its tenth fits in 31 bits.
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

  /**
   * The string, quoted and escaped as QuoteJSONString escapes it, as UTF-8.
   * False, with nothing written, for a lone surrogate.
   */
  string(s: string): boolean {
    const n = s.length;
    if (n > LONG) return this.long(s);
    // PERF NOTES: most strings are short and ASCII (names, uris, mime
    // types): one capacity check at six bytes a character, then four
    // characters at a time (one PLAIN load each, one word stored), then one
    // byte per character on one unsigned range test. Four at a time counted
    // 2.8–15.3% fewer instructions on the servers' answers and listing-small
    // (instructions counted under valgrind); read through charCodeAt.call, it keeps
    // encode of the servers' answers at 0.84–1.00× bare where the
    // `s.charCodeAt` form fell to 0.52–0.72× (see charCodeAt above).
    let p = this.pos;
    if (p + 6 * n + 2 > this.buf.length) this.grow(p + 6 * n + 2);
    const b = this.buf;
    const view = this.view;
    b[p++] = 0x22;
    let i = 0;
    let extra = this.extra;
    while (i < n) {
      // Four plain characters at a time, written as one word.
      while (i + 4 <= n) {
        const c0 = charCodeAt.call(s, i);
        const c1 = charCodeAt.call(s, i + 1);
        const c2 = charCodeAt.call(s, i + 2);
        const c3 = charCodeAt.call(s, i + 3);
        if ((PLAIN[c0] & PLAIN[c1] & PLAIN[c2] & PLAIN[c3]) === 0) break;
        view.setInt32(p, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
        p += 4;
        i += 4;
      }
      if (i === n) break;
      let c = charCodeAt.call(s, i);
      // The run of characters written as they are.
      while ((c - 0x20) >>> 0 < 0x5f && c !== 0x22 && c !== 0x5c) {
        b[p++] = c;
        if (++i === n) break;
        c = charCodeAt.call(s, i);
      }
      if (i === n) break;
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
        if (d < 0xdc00 || d > 0xdfff) return false;
        p = pair(b, p, c, d);
        extra += 2;
        i++;
      }
    }
    b[p++] = 0x22;
    this.pos = p;
    this.extra = extra;
    return true;
  }

  /**
   * A long string: the native path, then the JS loop from a segment that
   * is not well formed, which it refuses.
   */
  long(s: string): boolean {
    const n = s.length;
    // Each code unit is at least one byte: refused before anything is allocated for it.
    this.checkLength(n + 2);
    const start = this.pos;
    const extraAtStart = this.extra;
    this.byte(0x22);
    const i = this.native(s);
    if (i < n && !this.loop(s, i)) {
      this.pos = start;
      this.extra = extraAtStart;
      return false;
    }
    this.byte(0x22);
    return true;
  }

  /**
   * Writes s in segments with TextEncoder, for as long as each segment is
   * well formed (encodeInto writes a lone surrogate as U+FFFD); a segment
   * in whose bytes a word-at-a-time scan finds something to escape is
   * rewritten with its escapes (escapeRaw). Returns where it stopped:
   * s.length, or the start of the first segment it could not write. A
   * segment never ends between the two halves of a pair.
   */
  native(s: string): number {
    const n = s.length;
    // Text with an escape near its start likely has more: each segment is
    // written to RAW, then escaped into place, with no view of the scratch
    // buffer made for encodeInto and no scan of its bytes before.
    const viaRaw = !plainAhead(s);
    let i = 0;
    while (i < n) {
      let end = Math.min(n, i + CHUNK);
      const last = charCodeAt.call(s, end - 1);
      if (end < n && last >= 0xd800 && last <= 0xdbff) end--;
      const segment = i === 0 && end === n ? s : s.slice(i, end);
      if (!viaRaw && this.pos + 3 * (end - i) > this.buf.length) this.grow(this.pos + 3 * (end - i));
      // PERF NOTES: the view is made with the constructor on the buffer the
      // writer keeps, as poolOut makes its own: subarray looks up the species
      // constructor, and buf.buffer calls into the engine. The filesystem
      // server's answers, 22 strings of more than LONG characters in 17
      // frames, counted 0.7% fewer instructions for encode (instructions counted under valgrind).
      const { read, written } = utf8.encodeInto(segment, viaRaw ? RAW : new Uint8Array(this.bytes, this.pos));
      // Latin-1 strings are well formed at once: only a string with two-byte characters pays for the check.
      if (read !== end - i || (written !== read && !isWellFormed(segment))) return i;
      // An escape is ASCII, a byte a code unit, as the byte it stands for: extra does not change.
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

  /**
   * Writes RAW[0, n), a segment's UTF-8, at pos with the escapes
   * JSON.stringify writes; returns the new end. A word that holds nothing
   * to escape (escapeInWord) is written whole, the others a byte at a
   * time.
   *
   * PERF NOTES: strings over LONG (128) characters with escapes go through
   * TextEncoder and are escaped here a word at a time, not by string()'s JS
   * loop: the filesystem server's long tool texts took 4.18 ns a character
   * against 5.39 (bare JSON.stringify + encodeInto: 3.34). Strings of 33 to
   * 128 characters keep the JS loop: with LONG at 32 they took 901 ns a
   * frame against 641.
   */
  escapeRaw(n: number): number {
    const pos = this.pos;
    // An escape is at most 6 bytes (\u00XX) for 1.
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

  /** The JS loop of string() from s[i] on, with capacity and the limits checked every CHUNK characters. */
  loop(s: string, i: number): boolean {
    const n = s.length;
    let p = this.pos;
    let extra = this.extra;
    let b = this.buf;
    // PERF NOTES: as in string(); a pair that crosses a chunk's end is
    // covered by the spare bytes of the capacity check.
    while (i < n) {
      const stop = Math.min(n, i + CHUNK);
      if (p + 6 * (stop - i) + 8 > b.length) {
        this.pos = p;
        this.extra = extra;
        this.grow(p + 6 * (stop - i) + 8);
        b = this.buf;
      }
      while (i < stop) {
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
          if (d < 0xdc00 || d > 0xdfff) return false;
          p = pair(b, p, c, d);
          extra += 2;
          i++;
        }
      }
      this.pos = p;
      this.extra = extra;
      this.checkLength();
    }
    return true;
  }

  /**
   * The frame's bytes copied into the caller's `target` when they fit there, and otherwise nothing written.
   * Its length is read after the walk, since the value's own code (a getter, a toJSON) may have detached or
   * shrunk its buffer meanwhile.
   */
  putInto(target: Uint8Array): EncodeIntoResult {
    const n = this.pos;
    if (lengthOf.call(target) < n) return { written: 0, needed: n };
    if (n <= 32) for (let i = 0; i < n; i++) target[i] = this.buf[i]!;
    else setBytes.call(target, new Uint8Array(this.bytes, 0, n));
    return { written: n };
  }

  /** The frame's bytes, copied out at exactly their length: into the slab when short. */
  take(): Uint8Array {
    const n = this.pos;
    return (n < POOLED ? poolOut(this.buf, this.bytes, n) : copyOut(this.buf, n)) ?? this.refuse(REFUSAL.noMemory(n));
  }

  /** Ready for the next call: the stacks emptied, a large scratch buffer let go. */
  reset(): void {
    // After a whole walk the stack is empty already; path keeps names of
    // members, which are short strings, until it is written over.
    if (this.open.length !== 0) this.open.length = 0;
    if (this.refusal !== null) this.refusal = null;
    // words views the same buffer: both go, or neither does.
    if (this.buf.length > KEEP_BYTES) {
      this.buf = new Uint8Array(0);
      this.bytes = this.buf.buffer as ArrayBuffer;
      this.words = new Int32Array(0);
      this.view = new DataView(new ArrayBuffer(0));
    }
    this.busy = false;
  }
}

const TRUE = Uint8Array.from('true', (c) => c.charCodeAt(0));
const FALSE = Uint8Array.from('false', (c) => c.charCodeAt(0));
const NULL = Uint8Array.from('null', (c) => c.charCodeAt(0));

const shared = new BodyWriter(FRAME_LIMITS);

/**
 * Writes a frame: `tag`, then `body` as compact JSON, refusing with an
 * EncodeError what decode would refuse (rule 4.1) and what `judge` refuses
 * in the value as written (the copy the writer builds). Returns a copy of
 * exactly the frame's bytes (a view into a shared slab when shorter than
 * POOLED: see Buffers above). Any exception from the value's own code (a
 * getter, toJSON, a Proxy trap), and a frame too large to allocate, comes
 * out as an EncodeError. `limits` is for tests, which cannot allocate
 * gigabytes.
 */
export function writeFrame(tag: number, body: unknown, judge: (written: unknown) => EncodeError | null, limits = FRAME_LIMITS): Uint8Array {
  const w = writerFor(limits);
  try {
    const bad = judge(w.frame(tag, body));
    if (bad) w.refuseWith(bad);
    return w.take();
  } catch (e) {
    throw w.failure(e);
  } finally {
    w.reset();
  }
}

/**
 * writeFrame with a plan (judge-plan.ts, made from the compiled judge that
 * `judge` runs): the value is judged as it is written, with no copy, and
 * `judge` runs only on a value the plan refuses, to name the fault, on the
 * value parsed back from the bytes (what the copy would have been).
 *
 * PERF NOTES: a function of its own, not a branch of writeFrame: with
 * error frames (written with the copy) and results through one function,
 * encode of listing-small ran at 0.66 of the bare peer in a process that
 * had encoded both, against 1.03 to 1.14 in one that had encoded results
 * only (bench/run.mjs, its paired ratios).
 */
export function writeJudged(
  tag: number,
  body: unknown,
  plan: Plan,
  judge: (written: unknown) => EncodeError | null,
  limits = FRAME_LIMITS,
): Uint8Array {
  const w = writerFor(limits);
  try {
    newJudgement();
    if (!w.judgedFrame(tag, body, plan)) {
      const bad = judge(JSON.parse(utf8Text(w.buf, 1, w.pos)));
      if (bad) w.refuseWith(bad);
    }
    return w.take();
  } catch (e) {
    throw w.failure(e);
  } finally {
    w.reset();
  }
}

/**
 * What encodeInto did: `written` bytes of the frame, from the target's
 * start; or, when the target is shorter than the frame, `written` 0 and
 * the `needed` length, with the target untouched.
 */
export interface EncodeIntoResult {
  readonly written: number;
  readonly needed?: number;
}

/** %TypedArray%.prototype's own accessors: a Uint8Array subclass or a Proxy cannot answer for them. */
const typedArrayPrototype = protoOf(Uint8Array.prototype) as object;
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayPrototype, Symbol.toStringTag)!.get as (this: unknown) => string | undefined;
const lengthOf = Object.getOwnPropertyDescriptor(typedArrayPrototype, 'length')!.get as (this: Uint8Array) => number;
const setBytes = (typedArrayPrototype as { set: (this: Uint8Array, from: Uint8Array) => void }).set;

/**
 * Throws a TypeError unless `target` is a Uint8Array (a Buffer is one), as
 * TextEncoder.encodeInto does: before the frame is read, so that nothing of
 * the caller's value runs for a call that cannot succeed.
 */
export function checkTarget(target: unknown): asserts target is Uint8Array {
  if (typedArrayTag.call(target) !== 'Uint8Array') throw new TypeError('encodeInto: the target is not a Uint8Array');
}

/**
 * writeFrame into the caller's `target`. The frame is written in the
 * writer's scratch buffer, checked and judged whole, and only then copied,
 * so a refusal or a target too short leaves `target` as it was.
 *
 * The other way to never write a partial frame, measuring the frame first
 * and then writing it straight into the target, is a second walk: it reads
 * the caller's value twice, and a getter or a Proxy may answer the second
 * read differently. The copy is what the one walk costs instead.
 */
export function writeFrameInto(
  tag: number,
  body: unknown,
  judge: (written: unknown) => EncodeError | null,
  target: Uint8Array,
  limits = FRAME_LIMITS,
): EncodeIntoResult {
  const w = writerFor(limits);
  try {
    const bad = judge(w.frame(tag, body));
    if (bad) w.refuseWith(bad);
    return w.putInto(target);
  } catch (e) {
    throw w.failure(e);
  } finally {
    w.reset();
  }
}

/** writeJudged into the caller's `target`, as writeFrameInto. */
export function writeJudgedInto(
  tag: number,
  body: unknown,
  plan: Plan,
  judge: (written: unknown) => EncodeError | null,
  target: Uint8Array,
  limits = FRAME_LIMITS,
): EncodeIntoResult {
  const w = writerFor(limits);
  try {
    newJudgement();
    if (!w.judgedFrame(tag, body, plan)) {
      const bad = judge(JSON.parse(utf8Text(w.buf, 1, w.pos)));
      if (bad) w.refuseWith(bad);
    }
    return w.putInto(target);
  } catch (e) {
    throw w.failure(e);
  } finally {
    w.reset();
  }
}

/** The shared writer, or one of its own for a call made while it is busy (from a toJSON or a getter) or under other limits. */
function writerFor(limits: FrameLimits): BodyWriter {
  const w = shared.busy || limits !== FRAME_LIMITS ? new BodyWriter(limits) : shared;
  w.busy = true;
  return w;
}

/**
 * How many scratch buffers the shared writer has allocated, the size of the one it holds, the bytes of every buffer it
 * keeps alive (through any of its views), how many slabs small frames were carved from, and the scratch buffer itself
 * (for tests).
 */
export function scratchStats(): { allocations: number; bytes: number; held: number; slabs: number; buffer: ArrayBuffer } {
  const buffers = new Set<ArrayBufferLike>([shared.buf.buffer, shared.words.buffer]);
  let held = 0;
  for (const b of buffers) held += b.byteLength;
  return { allocations: shared.allocations, bytes: shared.buf.length, held, slabs, buffer: shared.buf.buffer as ArrayBuffer };
}
