// Rule 4.2 on a frame's bytes: the compiled judges' verdict and first issue,
// reached without building the value first.
//
// # Why judge the bytes
//
// JSON.parse alone can cost far more heap than the text it reads: 16 MiB of
// `[1,1,…]` builds 64 MiB of array, 16 MiB of `[{},{},…]` about 350 MiB.
// A frame that fails the schema must cost at most 4× its size in heap,
// so a large body is judged here first, and JSON.parse runs only once the
// body is accepted (the value is then the caller's result).
//
// # How
//
// The walk follows the compiled schema's plan (judge-plan.ts) over the text, which
// the backend has already accepted as strict JSON (rule 4.1), so it reads
// without checking. A value of at most `small` bytes is parsed and handed
// to the compiled value judge: it costs at most a fixed amount of heap, and
// the value judge is the exact one. A larger value is walked:
//
// - an object: one pass notes where each member the schema knows is (the
//   last one, as JSON.parse keeps the last of a repeated name), then the
//   members are judged in the schema's order, as zod does;
// - an array: its items in order, consecutive small ones parsed together
//   in batches of up to `small` bytes;
// - a union: each option walked in turn, and zod's choice among their
//   faults (judge-kit.ts pickUnion);
// - a string: by its first byte, or isBase64Bytes for a blob, unparsed
//   (a long one by the backend's kit, when the codec lends one);
// - a value of the wrong type: judged through a stand-in of its type (an
//   empty array or object), since the issue depends on the type alone.
//
// Nothing walked is kept as a value. What is held: the member offsets of
// the object being judged; a large record's members, by offset in typed
// arrays (under 3× the record's text: a tool's inputSchema.properties of
// millions of members); the end of every string or container of 1 KiB or
// more met so far, so that each level reads inside what the level above
// skipped without reading it again; and one parsed batch at a time, of at
// most `small` bytes (smallFor: an eighth of the body), whose value JSON.parse
// builds in at most about 22 bytes per byte. The walk is linear in the body.

import { base64AfterRun, isBase64Bytes, LONG_STRING } from './base64.js';
import { SPLICE_MIN } from './json-value.js';
import { NODES } from './generated/judges.js';
import { customFault, type Fault, merge, newJudgement, nonoptional, pickUnion, plainObjects, prefix, type ZodNode } from './judge-kit.js';
import type { JudgeNode } from './judge-node.js';
import { ANY, absentOk, ARRAY, BASE64, CONTAINER, OBJECT, type Plan, planOf, RECORD, STRING, UNION, VALUE } from './judge-plan.js';
import { hexValue } from './json-text.js';
import { skipWhitespace } from './locate.js';
import type { StringKit } from './string-kit.js';
import { utf8Text } from './utf8-text.js';

/** Values up to this many bytes are parsed and judged as values. */
export const SMALL = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** The backend's kit for the walk under way (judgeBytes sets it), or undefined. */
let kit: StringKit | undefined;

/** The offset just past the string whose opening quote is at i. */
function skipString(b: Uint8Array, i: number): number {
  // PERF NOTES: most strings are short (names, URIs): the first 128 bytes
  // are read here, cheaper than a call to indexOf or the core (at 32, a
  // 40-byte URI took two calls of the core, and the 'full' relay 16% more
  // CPU on ~150-byte listings). A longer one goes to the
  // backend's kit (the core finds its end in one SIMD pass, some 20 GB/s on
  // base64), or to indexOf for the next quote, escaped exactly when an odd
  // run of backslashes precedes it: on 1 MiB, a blob 0.46 ms and a text
  // with escaped quotes 1.0 ms, against 1.7 and 2.0 for a byte loop.
  let j = i + 1;
  let spaced = false;
  for (const stop = Math.min(j + 128, b.length); j < stop; j++) {
    const x = b[j];
    if (x === QUOTE) return j + 1;
    if (x === BACKSLASH) j++;
    else if (x === 0x20) spaced = true;
  }
  if (longEnds.size !== 0) {
    const known = longEnds.get(i);
    if (known !== undefined) return known;
  }
  const e = longStringEnd(b, i, j, spaced);
  if (remember && e - i >= KEEP) longEnds.set(i, e);
  return e;
}

/**
 * The end of the string whose opening quote is at i, read up to j (a
 * character boundary in it): by the backend's kit, or by indexOf. A string
 * with no space in its first bytes may be a blob: the kit's alphabet run
 * goes first, and when the string is that run and its padding, the run
 * gives both its end and, for the verdict under way, its base64 verdict,
 * in one pass.
 */
function longStringEnd(b: Uint8Array, i: number, j: number, spaced: boolean): number {
  if (kit !== undefined) {
    let from = j;
    if (!spaced) {
      const run = kit.alphabetRun(b, i + 1);
      if (run >= 0) {
        const verdict = base64AfterRun(b, i + 1, run);
        if (verdict !== -2) {
          const end = verdict >= 0 ? verdict : skipPadding(b, run);
          if (remember) blobVerdicts.set(i, verdict >= 0);
          return end;
        }
        // All before the run's end is alphabet: a character boundary outside any escape.
        from = Math.max(run, j);
      }
    }
    const e = kit.stringEnd(b, from);
    if (e >= 0) return e;
  }
  for (let q = b.indexOf(QUOTE, j); ; q = b.indexOf(QUOTE, q + 1)) {
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
  }
}

/**
 * The ends of strings of KEEP bytes or more met in the verdict under way,
 * by start, while `remember` is set (acceptsBytes): a union reads a long
 * string once for each option it tries (a blob item is first tried as a
 * text item, which steps over the blob as a member it does not know).
 */
const longEnds = new Map<number, number>();
let remember = false;
/** The base64 verdicts of long strings whose alphabet run found their end, by start, while `remember` is set. */
const blobVerdicts = new Map<number, boolean>();
/**
 * Where acceptsBytes notes the blobs it accepted whose alphabet run found
 * their end (so whose content is the alphabet and '=' alone), of
 * SPLICE_MIN bytes or more: the opening quote's offset and the offset past
 * the closing one, for each. The caller may build their strings itself
 * (json-value.ts), faster than JSON.parse reads them.
 */
let plainBlobs: number[] | undefined;

/** Just past the closing quote of a string whose content, from `run` on, is only '=' (base64AfterRun said so). */
function skipPadding(b: Uint8Array, run: number): number {
  let k = run;
  while (b[k] === 0x3d) k++;
  return k + 1;
}

/** The offset just past the number or literal that starts at i. */
function skipScalar(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const x = b[i];
    if (x === COMMA || x === CLOSE_OBJECT || x === CLOSE_ARRAY || x === 0x20 || x === 0x0a || x === 0x0d || x === 0x09) break;
    i++;
  }
  return i;
}

/** Values at least this long have their end kept once found, so that no level of the walk reads them again. */
const KEEP = 1024;

/** Where the containers being skipped opened: JSON nests at most 127 deep (rule 4.1). */
const opens = new Int32Array(128);

/** The value of the text b[s, e). */
function parse(b: Uint8Array, s: number, e: number): unknown {
  return JSON.parse(utf8Text(b, s, e));
}

/** The string whose JSON text is b[s, e), quotes included. */
function parseString(b: Uint8Array, s: number, e: number): string {
  return b.subarray(s + 1, e - 1).indexOf(BACKSLASH) < 0 ? utf8Text(b, s + 1, e - 1) : (JSON.parse(utf8Text(b, s, e)) as string);
}

// ---------------------------------------------------------------------------
// Member names, compared as the strings JSON.parse would make of them
// without making them: read unit by unit (UTF-16, as JS compares strings),
// through escapes and multi-byte UTF-8.

/** The reader's state: the next unit, where the text goes on, and a low surrogate owed. */
let unit = 0;
let owed = -1;

/** Reads the unit at i of valid JSON string content (after an opening quote); returns where the next one starts. */
function readUnit(b: Uint8Array, i: number): number {
  if (owed >= 0) {
    unit = owed;
    owed = -1;
    return i;
  }
  const x = b[i];
  if (x < 0x80) {
    if (x !== BACKSLASH) {
      unit = x;
      return i + 1;
    }
    const e = b[i + 1];
    switch (e) {
      case 0x62:
        unit = 0x08;
        return i + 2;
      case 0x66:
        unit = 0x0c;
        return i + 2;
      case 0x6e:
        unit = 0x0a;
        return i + 2;
      case 0x72:
        unit = 0x0d;
        return i + 2;
      case 0x74:
        unit = 0x09;
        return i + 2;
      case 0x75:
        unit = hexValue(b, i + 2);
        return i + 6;
      default:
        unit = e; // \" \\ \/
        return i + 2;
    }
  }
  let cp: number;
  if (x < 0xe0) {
    cp = ((x & 0x1f) << 6) | (b[i + 1] & 0x3f);
    i += 2;
  } else if (x < 0xf0) {
    cp = ((x & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
    i += 3;
  } else {
    cp = ((x & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
    i += 4;
  }
  if (cp > 0xffff) {
    cp -= 0x10000;
    unit = 0xd800 | (cp >> 10);
    owed = 0xdc00 | (cp & 0x3ff);
  } else unit = cp;
  return i;
}

/** FNV-1a over the units of the name whose quotes are at ks and ke - 1. */
function hashName(b: Uint8Array, ks: number, ke: number): number {
  let h = 0x811c9dc5;
  owed = -1;
  for (let i = ks + 1; i < ke - 1 || owed >= 0; ) {
    i = readUnit(b, i);
    h = Math.imul(h ^ unit, 0x01000193);
  }
  return h | 0;
}

/** Whether the name whose quotes are at ks and ke - 1 is the string s. */
function nameIs(b: Uint8Array, ks: number, ke: number, s: string): boolean {
  owed = -1;
  let k = 0;
  for (let i = ks + 1; i < ke - 1 || owed >= 0; k++) {
    i = readUnit(b, i);
    if (k >= s.length || unit !== s.charCodeAt(k)) return false;
  }
  return k === s.length;
}

/** Whether the names whose opening quotes are at p and q are the same string. */
function sameName(b: Uint8Array, p: number, q: number): boolean {
  const pe = skipString(b, p) - 1;
  const qe = skipString(b, q) - 1;
  let i = p + 1;
  let j = q + 1;
  let oi = -1;
  let oj = -1;
  while (i < pe || oi >= 0) {
    if (j >= qe && oj < 0) return false;
    owed = oi;
    i = readUnit(b, i);
    const u = unit;
    oi = owed;
    owed = oj;
    j = readUnit(b, j);
    oj = owed;
    if (u !== unit) return false;
  }
  return j >= qe && oj < 0;
}

/** The value of a name if it is an array index (canonical decimal below 2^32 - 1), which Reflect.ownKeys lists first; else -1. */
function arrayIndex(b: Uint8Array, ks: number, ke: number): number {
  owed = -1;
  let n = 0;
  let digits = 0;
  for (let i = ks + 1; i < ke - 1 || owed >= 0; digits++) {
    i = readUnit(b, i);
    const d = unit - 0x30;
    if (d < 0 || d > 9 || digits === 10 || (digits === 1 && n === 0)) return -1;
    n = n * 10 + d;
  }
  return digits > 0 && n < 4294967295 ? n : -1;
}

/**
 * A value of the same type as the large value at s, for judging a value of
 * the wrong type: the issue zod raises then depends on the type alone.
 * Strings and numbers are parsed (at most twice their size in heap).
 */
function standIn(b: Uint8Array, s: number, e: number): unknown {
  const c = b[s];
  if (c === OPEN_ARRAY) return [];
  if (c === OPEN_OBJECT) return {};
  return c === QUOTE ? parseString(b, s, e) : parse(b, s, e);
}

/** Judges with the value judge: the value at b[s, e) parsed. */
function byValue(node: JudgeNode, b: Uint8Array, s: number, e: number): Fault | undefined {
  const v = parse(b, s, e);
  return node.ok(v) ? undefined : node.why(v);
}

class Walk {
  constructor(
    readonly b: Uint8Array,
    readonly small: number,
    readonly keep: number,
  ) {}

  /** The ends of long values found so far, by their start. */
  private readonly ends = new Map<number, number>();

  /**
   * The offset just past the value that starts at i. Each level of the walk
   * skips what it does not judge, and the level below then reads inside it;
   * so the end of every long string and container met on the way is kept,
   * and the text is read about once whatever the depth.
   */
  skip(i: number): number {
    const b = this.b;
    const ends = this.ends;
    const c = b[i];
    if (c === QUOTE) {
      const known = ends.get(i);
      if (known !== undefined) return known;
      const e = skipString(b, i);
      if (e - i >= this.keep) ends.set(i, e);
      return e;
    }
    if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return skipScalar(b, i);
    const known = ends.get(i);
    if (known !== undefined) return known;
    let depth = 0;
    // PERF NOTES: a byte loop over structure; strings go to skipString, and a
    // string or container whose end is kept is stepped over whole.
    for (let j = i; ; ) {
      const x = b[j];
      if (x === QUOTE) {
        const e = (ends.size !== 0 ? ends.get(j) : undefined) ?? skipString(b, j);
        if (e - j >= this.keep) ends.set(j, e);
        j = e;
      } else if (x === OPEN_OBJECT || x === OPEN_ARRAY) {
        const e = depth !== 0 && ends.size !== 0 ? ends.get(j) : undefined;
        if (e !== undefined) j = e;
        else opens[depth++] = j++;
      } else if (x === CLOSE_OBJECT || x === CLOSE_ARRAY) {
        const start = opens[--depth];
        j++;
        if (j - start >= this.keep) ends.set(start, j);
        if (depth === 0) return j;
      } else j++;
    }
  }

  /** The first fault of the value at b[s, e), trimmed, under the plan `p`. */
  node(p: Plan, s: number, e: number): Fault | undefined {
    const b = this.b;
    const c = b[s];
    // First the plans whose verdict the first byte gives, whatever the size.
    switch (p.kind) {
      case ANY:
        return undefined;
      case CONTAINER:
        if (c === OPEN_OBJECT || c === OPEN_ARRAY) return undefined;
        break;
      case STRING:
        if (c === QUOTE) return undefined;
        break;
      case BASE64:
        if (c !== QUOTE) break;
        if (kit !== undefined && e - s >= LONG_STRING ? kit.base64Bytes(b, s + 1, e - 1) : isBase64Bytes(b, s + 1, e - 1)) return undefined;
        return customFault((p.inner!.zod._zod.def.checks as ZodNode[])[0], p.inner!.zod, parseString(b, s, e));
    }
    if (c === 0x6e && p.nullOk) return undefined;
    const node = p.node!;
    if (e - s <= this.small) return byValue(node, b, s, e);
    switch (p.kind) {
      case OBJECT:
        return c === OPEN_OBJECT ? this.object(p, s) : node.why(standIn(b, s, e));
      case ARRAY:
        return c === OPEN_ARRAY ? this.array(p, s) : node.why(standIn(b, s, e));
      case RECORD:
        return c === OPEN_OBJECT ? this.record(p, s) : node.why(standIn(b, s, e));
      case UNION:
        break;
      case VALUE:
        if (p.options.length !== 0) break;
        // An island: the SDK's schema on the parsed value; a leaf as below.
        return p.leaf ? node.why(standIn(b, s, e)) : byValue(node, b, s, e);
      default:
        // A large value of a type these refuse: the issue depends on the type alone.
        return node.why(standIn(b, s, e));
    }
    // A union: each option in turn, and zod's choice among their faults.
    const faults: Fault[] = [];
    for (const option of p.options) {
      const f = this.node(option, s, e);
      if (f === undefined) return undefined;
      faults.push(f);
    }
    // The union's own issue names no input in any message; a stand-in of its type will do.
    return pickUnion(c === OPEN_ARRAY ? [] : c === OPEN_OBJECT ? {} : c === QUOTE ? '' : 0, p.inner!.zod, faults);
  }

  /** Calls `member(keyStart, keyEnd, valueStart, valueEnd)` for each member of the object at s, in order. */
  private members(s: number, member: (ks: number, ke: number, vs: number, ve: number) => void): void {
    const b = this.b;
    let i = skipWhitespace(b, s + 1);
    if (b[i] === CLOSE_OBJECT) return;
    for (;;) {
      const ks = i;
      const ke = skipString(b, i);
      i = skipWhitespace(b, skipWhitespace(b, ke) + 1); // past ':'
      const vs = i;
      const ve = this.skip(i);
      member(ks, ke, vs, ve);
      i = skipWhitespace(b, ve);
      if (b[i] !== COMMA) return;
      i = skipWhitespace(b, i + 1);
    }
  }

  private object(p: Plan, s: number): Fault | undefined {
    const b = this.b;
    const { names, hashes } = p;
    const starts = new Array<number>(names.length).fill(-1);
    const ends = new Array<number>(names.length).fill(-1);
    // PERF NOTES: one pass over the members; a name is hashed as it is read
    // and compared only with the shape's names of the same hash.
    this.members(s, (ks, ke, vs, ve) => {
      const h = hashName(b, ks, ke);
      for (let k = 0; k < names.length; k++) {
        if (hashes[k] === h && nameIs(b, ks, ke, names[k])) {
          starts[k] = vs;
          ends[k] = ve;
        }
      }
    });
    let first: Fault | undefined;
    for (let k = 0; k < names.length; k++) {
      const mode = p.modes[k];
      let f: Fault | undefined;
      if (starts[k] >= 0) f = this.node(p.members[k], starts[k], ends[k]);
      else if (mode === 'B') f = p.own[k].why(undefined) ?? nonoptional();
      else if (mode === 'C') f = p.own[k].why(undefined);
      if (f !== undefined) {
        first = merge(first, prefix(f, names[k]));
        if (first.aborted) return first;
      }
    }
    if (p.strict) {
      // zod's unrecognized_keys names every unknown member; the value judge words it from the parsed object.
      const f = p.node!.why(parse(b, s, this.skip(s)));
      if (f !== undefined && first === undefined) return f;
    }
    return first;
  }

  private array(p: Plan, s: number): Fault | undefined {
    const b = this.b;
    const small = this.small;
    const element = p.element!;
    const judge = element.node;
    if (judge === undefined && p.cap === Infinity) return undefined;
    if (p.cap !== Infinity) {
      // zod's capSize judges no element of an array past its cap; it reads only the length.
      const count = this.count(s);
      if (count > p.cap) return p.node!.why(lengthOnly(count));
    }
    let first: Fault | undefined;
    // A batch: consecutive small items b[batchStart, batchEnd), the first of them item batchIndex.
    let batchStart = -1;
    let batchEnd = -1;
    let batchIndex = 0;
    const flush = (): boolean => {
      if (batchStart < 0) return false;
      const values = JSON.parse(`[${utf8Text(b, batchStart, batchEnd)}]`) as unknown[];
      batchStart = -1;
      for (let k = 0; k < values.length; k++) {
        if (judge === undefined || judge.ok(values[k])) continue;
        const f = judge.why(values[k]);
        if (f === undefined) continue;
        first = merge(first, prefix(f, batchIndex + k));
        if (first.aborted) return true;
      }
      return false;
    };
    let i = skipWhitespace(b, s + 1);
    if (b[i] === CLOSE_ARRAY) return undefined;
    for (let index = 0; ; index++) {
      const ie = this.skip(i);
      if (ie - i <= small) {
        if (batchStart >= 0 && ie - batchStart > small && flush()) return first;
        if (batchStart < 0) {
          batchStart = i;
          batchIndex = index;
        }
        batchEnd = ie;
      } else {
        if (flush()) return first;
        const f = this.node(element, i, ie);
        if (f !== undefined) {
          first = merge(first, prefix(f, index));
          if (first.aborted) return first;
        }
      }
      i = skipWhitespace(b, ie);
      if (b[i] !== COMMA) break;
      i = skipWhitespace(b, i + 1);
    }
    flush();
    return first;
  }

  /** How many items the array at s holds. */
  private count(s: number): number {
    const b = this.b;
    let i = skipWhitespace(b, s + 1);
    if (b[i] === CLOSE_ARRAY) return 0;
    for (let n = 1; ; n++) {
      i = skipWhitespace(b, this.skip(i));
      if (b[i] !== COMMA) return n;
      i = skipWhitespace(b, i + 1);
    }
  }

  private record(p: Plan, s: number): Fault | undefined {
    // A JSON object is a plain object with string keys: only the values can fail, unless zod's
    // isPlainObject refuses every object (judge-kit.ts plainObjects), which a stand-in shows.
    if (!plainObjects()) return p.node!.why({});
    const value = p.element!;
    if (value.kind === ANY) return undefined;
    const b = this.b;
    let count = 0;
    this.members(s, () => {
      count++;
    });
    const names = new NameTable(b, count);
    this.members(s, (ks, ke, vs) => names.set(ks, ke, vs));
    let first: Fault | undefined;
    for (const entry of names.ownKeysOrder()) {
      const vs = names.value[entry];
      const f = this.node(value, vs, this.skip(vs));
      if (f !== undefined) {
        const ks = names.key[entry];
        first = merge(first, prefix(f, parseString(b, ks, skipString(b, ks))));
        if (first.aborted) return first;
      }
    }
    return first;
  }
}

/**
 * A record's members by name, as JSON.parse would key them: a repeated
 * name keeps its first place and its last value. Held in typed arrays sized
 * once from the member count (12 bytes per member, and 4 per slot of a hash
 * at most 3/4 full), not as strings: a member is at least 7 bytes of text
 * (`"a":{},`), so this costs under 3 times the record's text.
 */
class NameTable {
  readonly key: Int32Array;
  readonly value: Int32Array;
  readonly hash: Int32Array;
  count = 0;
  private readonly slots: Int32Array; // entry + 1; 0 is empty

  constructor(
    private readonly b: Uint8Array,
    members: number,
  ) {
    this.key = new Int32Array(members);
    this.value = new Int32Array(members);
    this.hash = new Int32Array(members);
    let size = 16;
    while (size * 3 < members * 4) size *= 2;
    this.slots = new Int32Array(size);
  }

  set(ks: number, ke: number, vs: number): void {
    const b = this.b;
    const h = hashName(b, ks, ke);
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot] - 1;
      if (e < 0) break;
      if (this.hash[e] === h && sameName(b, this.key[e], ks)) {
        this.value[e] = vs;
        return;
      }
    }
    // JSON.parse makes "__proto__" an own member, and zod's record skips it.
    if (nameIs(b, ks, ke, '__proto__')) return;
    const e = this.count++;
    this.key[e] = ks;
    this.value[e] = vs;
    this.hash[e] = h;
    let slot = h & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = e + 1;
  }

  /** The entries in Reflect.ownKeys order: array indices ascending, then the other names by first appearance. */
  ownKeysOrder(): Int32Array {
    const b = this.b;
    const order = new Int32Array(this.count);
    const numbers = new Float64Array(this.count);
    let indices = 0;
    for (let e = 0; e < this.count; e++) {
      const ks = this.key[e];
      numbers[e] = arrayIndex(b, ks, skipString(b, ks));
      if (numbers[e] >= 0) order[indices++] = e;
    }
    order.subarray(0, indices).sort((x, y) => numbers[x] - numbers[y]);
    let at = indices;
    for (let e = 0; e < this.count; e++) if (numbers[e] < 0) order[at++] = e;
    return order;
  }
}

/**
 * What zod's cap check reads of an array (that it is one, and its length)
 * without the memory of its items: an empty array behind a proxy that
 * answers `length`. (Setting the length of a real array allocates it.)
 */
function lengthOnly(n: number): unknown[] {
  return new Proxy([], { get: (target, key) => (key === 'length' ? n : Reflect.get(target, key)) });
}

/** How the byte judge works, for tests that want every path taken on small inputs. */
export interface ByteJudgeOptions {
  /** Values up to this many bytes are parsed and judged as values; smallFor(size) unless given. */
  small?: number;
  /** The table the node's children are numbered in: the SDK's judges unless given. */
  nodes?: readonly JudgeNode[];
  /** Values at least this long have their end kept (KEEP unless given). */
  keep?: number;
  /** A backend's kit for long strings: their ends and their base64 check, where the bytes lie. */
  strings?: StringKit;
}

/**
 * The first fault of the JSON text b[start, end) under a compiled judge, or
 * undefined when the value it holds passes. The text must be one JSON value
 * that the backend accepted (whitespace around it is allowed).
 */
export function judgeBytes(node: JudgeNode, b: Uint8Array, start: number, end: number, options: ByteJudgeOptions = {}): Fault | undefined {
  const s = skipWhitespace(b, start);
  let e = end;
  while (e > s && (b[e - 1] === 0x20 || b[e - 1] === 0x0a || b[e - 1] === 0x0d || b[e - 1] === 0x09)) e--;
  const outer = kit;
  kit = options.strings;
  newJudgement();
  try {
    return new Walk(b, options.small ?? smallFor(end - start), options.keep ?? KEEP).node(planOf(node, options.nodes ?? NODES), s, e);
  } finally {
    kit = outer;
  }
}

/**
 * The most bytes parsed at once when judging a body of `size` bytes: SMALL,
 * or an eighth of the body when that is less. JSON.parse costs at most about
 * 22 bytes of heap per byte of text (16 MiB of `[{},{},…]` built about 350
 * MiB), so a parse of an eighth keeps the walk within 3 times the body.
 */
function smallFor(size: number): number {
  return Math.min(SMALL, Math.max(256, size >> 3));
}

// ---------------------------------------------------------------------------
// The verdict alone, in one pass.
//
// What the relay's 'full' level needs of a frame, and what decoding needs
// before it parses a large body, is first whether the compiled judges
// accept the value, which nearly every frame does. acceptsBytes answers
// that in one pass over the text, in document order, building nothing but
// the scalars a leaf judges (a number, or a string a leaf checks beyond its
// type). It may refuse a value the judges accept (a schema it does not
// follow here), never the other way round: every refusal goes to the exact
// path (the value judge, or judgeBytes above), which then names the first
// fault, or accepts after all.
//
// Why document order is safe for the verdict: every member a schema knows
// is judged wherever it stands, each time it stands there. When a name
// repeats, JSON.parse keeps the last value; judging every one of them can
// only refuse more, never accept what the last would fail. Members the
// schema does not know are stepped over (a strict object refuses them).

/** The offset just past the value at i, read once: strings by skipString, containers by their depth. */
function skipOnce(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return skipScalar(b, i);
  let depth = 0;
  // PERF NOTES: a byte loop over structure, strings stepped over whole (see skipString).
  for (let j = i; ; ) {
    const x = b[j];
    if (x === QUOTE) j = skipString(b, j);
    else {
      if (x === OPEN_OBJECT || x === OPEN_ARRAY) depth++;
      else if ((x === CLOSE_OBJECT || x === CLOSE_ARRAY) && --depth === 0) return j + 1;
      j++;
    }
  }
}

/** Powers of ten a double holds exactly: 10^0 to 10^22. */
const EXACT_POWERS = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** The number whose JSON text starts at i (in text rule 4.1 accepted), as JSON.parse makes it. */
export function numberFrom(b: Uint8Array, i: number): number {
  return numberAt(b, i, skipScalar(b, i));
}

/** The number whose JSON text is b[s, e), as JSON.parse makes it. */
export function numberAt(b: Uint8Array, s: number, e: number): number {
  // Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers
  // Accurately", PLDI 1990): up to 15 significant digits and no exponent,
  // the digits make an integer a double holds exactly, and dividing it by
  // an exact power of ten rounds once, correctly, to the value JSON.parse
  // gives. Anything else is left to the text's own conversion.
  const negative = b[s] === 0x2d;
  let i = negative ? s + 1 : s;
  if (e - i <= 16) {
    let n = 0;
    let point = -1;
    for (; i < e; i++) {
      const d = b[i] - 0x30;
      if (d >= 0 && d <= 9) n = n * 10 + d;
      else if (d === 0x2e - 0x30 && point < 0) point = i;
      else break;
    }
    if (i === e && e - s - (negative ? 1 : 0) - (point < 0 ? 0 : 1) <= 15) {
      const value = point < 0 ? n : n / EXACT_POWERS[e - point - 1];
      return negative ? -value : value;
    }
  }
  // JSON's number grammar is a part of Number's, and both round correctly.
  return Number(latin1(b, s, e));
}

/** The text b[s, e) of ASCII bytes as a string. */
function latin1(b: Uint8Array, s: number, e: number): string {
  return e - s <= 64 ? String.fromCharCode.apply(null, b.subarray(s, e) as unknown as number[]) : utf8Text(b, s, e);
}

/** The string whose JSON text is b[s, e), quotes included: ASCII with no escape read as it stands, anything else by parseString. */
function stringAt(b: Uint8Array, s: number, e: number): string {
  if (e - s <= 66) {
    let k = s + 1;
    while (k < e - 1 && b[k] < 0x80 && b[k] !== BACKSLASH) k++;
    if (k === e - 1) return latin1(b, s + 1, e - 1);
  }
  return parseString(b, s, e);
}

/** -1, or past `null` where the plan takes it: what a plan answers a value of a type it refuses. */
function orNull(plan: Plan, c: number, i: number): number {
  return c === 0x6e && plan.nullOk ? i + 4 : -1;
}

/** The end of the value at i if the plan accepts it, else -1 (see above: -1 may be a refusal the exact judges would not make). */
function accepts(plan: Plan, b: Uint8Array, i: number): number {
  const c = b[i];
  switch (plan.kind) {
    case ANY:
      return skipOnce(b, i);
    case STRING:
      return c === QUOTE ? skipString(b, i) : orNull(plan, c, i);
    case OBJECT:
      return c === OPEN_OBJECT ? acceptsObject(plan, b, i) : orNull(plan, c, i);
    case ARRAY:
      return c === OPEN_ARRAY ? acceptsArray(plan, b, i) : orNull(plan, c, i);
    case RECORD:
      // zod's isPlainObject refuses every object while Object.prototype is not as it expects (judge-kit.ts plainObjects).
      return c === OPEN_OBJECT ? (plainObjects() ? acceptsRecord(plan, b, i) : -1) : orNull(plan, c, i);
    case CONTAINER:
      return c === OPEN_OBJECT || c === OPEN_ARRAY ? skipOnce(b, i) : orNull(plan, c, i);
    case BASE64: {
      if (c !== QUOTE) return orNull(plan, c, i);
      const e = skipString(b, i);
      // A blob's alphabet run may have given its verdict already, on the way to its end.
      const known = blobVerdicts.size !== 0 ? blobVerdicts.get(i) : undefined;
      const ok =
        known !== undefined ? known : kit !== undefined && e - i >= LONG_STRING ? kit.base64Bytes(b, i + 1, e - 1) : isBase64Bytes(b, i + 1, e - 1);
      // Known, its content is the alphabet and '=' alone, ASCII with no escape: what JSON.parse would read it as, byte for byte.
      if (ok && known !== undefined && plainBlobs !== undefined && e - i >= SPLICE_MIN) plainBlobs.push(i, e);
      return ok ? e : -1;
    }
  }
  const node = plan.node!;
  if (plan.options.length !== 0) {
    for (const option of plan.options) {
      const e = accepts(option, b, i);
      if (e >= 0) return e;
    }
    return orNull(plan, c, i);
  }
  if (!plan.leaf) {
    // An island (or an object of too many members): the SDK's schema on the parsed value, when that is small; a large one is left to the exact path.
    const e = skipOnce(b, i);
    return e - i <= SMALL && node.ok(parse(b, i, e)) ? e : -1;
  }
  // A leaf judges a string, a number, a literal or an enum: never an object or an array.
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) return -1;
  if (c !== QUOTE) {
    const e = skipScalar(b, i);
    return node.ok(c === 0x74 ? true : c === 0x66 ? false : c === 0x6e ? null : numberAt(b, i, e)) ? e : -1;
  }
  const e = skipString(b, i);
  if (plan.values.length === 0) return node.ok(stringAt(b, i, e)) ? e : -1;
  // A leaf that takes only some strings: compared by their UTF-8, then, not one of them as written, an escape may still spell one.
  const n = e - i - 2;
  for (const value of plan.values) {
    if (value.length !== n) continue;
    let p = 0;
    while (p < n && value[p] === b[i + 1 + p]) p++;
    if (p === n) return e;
  }
  return b.subarray(i + 1, e - 1).includes(BACKSLASH) && node.ok(parseString(b, i, e)) ? e : -1;
}

/** The index of the shape's member whose name, with no escape, is the key whose opening quote is at ks; -1 when none. */
function knownName(plan: Plan, b: Uint8Array, ks: number): number {
  const candidates = plan.byFirst[b[ks + 1]];
  if (candidates === undefined) return -1;
  for (let m = 0; m < candidates.length; m++) {
    const name = plan.bytes[candidates[m]];
    const n = name.length;
    // The name's bytes, then the closing quote: no escape can stand in between, since a name holds no backslash.
    if (b[ks + 1 + n] !== QUOTE) continue;
    let p = 1;
    while (p < n && name[p] === b[ks + 1 + p]) p++;
    if (p >= n) return candidates[m];
  }
  return -1;
}

/** Whitespace, where there is any: compact text has none, and a call costs more than the test. */
function ws(b: Uint8Array, i: number): number {
  return b[i] > 0x20 ? i : skipWhitespace(b, i);
}

function acceptsObject(plan: Plan, b: Uint8Array, s: number): number {
  const members = plan.members;
  let met = 0;
  let i = ws(b, s + 1);
  if (b[i] !== CLOSE_OBJECT) {
    // PERF NOTES: a name the shape knows is found by its first byte and
    // compared where it lies, up to its closing quote, without reading it
    // first; any other name is read once, and decoded when it holds an
    // escape (which may spell a known name).
    for (;;) {
      const ks = i;
      let k = knownName(plan, b, ks);
      let ke: number;
      if (k >= 0) ke = ks + plan.bytes[k].length + 2;
      else {
        let j = ks + 1;
        let escaped = false;
        for (let x = b[j]; x !== QUOTE; x = b[++j]) {
          if (x === BACKSLASH) {
            escaped = true;
            j++;
          }
        }
        ke = j + 1;
        if (escaped) {
          const name = parseString(b, ks, ke);
          k = plan.names.indexOf(name);
        }
      }
      i = ws(b, ws(b, ke) + 1); // past ':'
      let e: number;
      if (k >= 0) {
        e = accepts(members[k], b, i);
        if (e < 0) return -1;
        met |= 1 << k;
      } else {
        if (plan.strict) return -1;
        e = skipOnce(b, i);
      }
      i = ws(b, e);
      if (b[i] !== COMMA) break;
      i = ws(b, i + 1);
    }
  }
  // Members the text lacks: a required one refuses, a defaulted one is judged as undefined.
  if ((plan.required & ~met) !== 0) return -1;
  for (let ask = plan.asked & ~met, k = 0; ask !== 0; ask >>>= 1, k++) if (ask & 1 && !absentOk(plan, k)) return -1;
  return i + 1;
}

function acceptsArray(plan: Plan, b: Uint8Array, s: number): number {
  const element = plan.element!;
  let i = ws(b, s + 1);
  if (b[i] === CLOSE_ARRAY) return i + 1;
  for (let count = 1; ; count++) {
    if (count > plan.cap) return -1;
    const e = accepts(element, b, i);
    if (e < 0) return -1;
    i = ws(b, e);
    if (b[i] !== COMMA) return i + 1;
    i = ws(b, i + 1);
  }
}

function acceptsRecord(plan: Plan, b: Uint8Array, s: number): number {
  const value = plan.element!;
  if (value.kind === ANY) return skipOnce(b, s);
  // Every member's value is judged, `__proto__` too (which zod's record passes over): a refusal goes to the exact path.
  let i = ws(b, s + 1);
  if (b[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    i = ws(b, ws(b, skipString(b, i)) + 1);
    const e = accepts(value, b, i);
    if (e < 0) return -1;
    i = ws(b, e);
    if (b[i] !== COMMA) return i + 1;
    i = ws(b, i + 1);
  }
}

/**
 * Whether the compiled judge `node` accepts the value of the JSON text
 * b[start, end), which a backend accepted (rule 4.1). True only when the
 * value judge would accept it; false when it would not, and sometimes when
 * it would (see above): then ask judgeBytes or the value judge. With
 * `blobs`, the blobs it read whose text JSON.parse need not read are noted
 * there (see plainBlobs), for parseBody.
 */
export function acceptsBytes(
  node: JudgeNode,
  b: Uint8Array,
  start: number,
  end: number,
  options: Pick<ByteJudgeOptions, 'nodes' | 'strings'> & { blobs?: number[] } = {},
): boolean {
  const plan = planOf(node, options.nodes ?? NODES);
  const outer = kit;
  kit = options.strings;
  remember = true;
  newJudgement();
  plainBlobs = options.blobs;
  try {
    const e = accepts(plan, b, skipWhitespace(b, start));
    return e >= 0 && skipWhitespace(b, e) >= end;
  } finally {
    kit = outer;
    remember = false;
    plainBlobs = undefined;
    // Map.clear() allocates a new table even for an empty map: a cost per frame the relay's small frames felt.
    if (longEnds.size !== 0) longEnds.clear();
    if (blobVerdicts.size !== 0) blobVerdicts.clear();
  }
}
