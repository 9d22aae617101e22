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
// A short frame is copied out into a shared slab (slab-pool.ts).

import { isBase64Bytes } from './base64.js';
import { type EncodeError, REFUSAL } from './encode-rules.js';
import { MAX_DEPTH } from './json-text.js';
import { newJudgement, plainObjects } from './judge-kit.js';
import type { JudgeNode } from './judge-node.js';
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
import { copyOut, POOLED, poolOut, slabCount } from './slab-pool.js';
import { FALSE, FRAME_LIMITS, type FrameLimits, isWellFormed, NULL, TRUE, Utf8Writer } from './utf8-writer.js';
import { utf8Text } from './utf8-text.js';

export { FRAME_LIMITS, POOLED };

/** The largest scratch buffer kept between calls: the default frame limit. */
const KEEP_BYTES = 16 * 1024 * 1024;

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

/** The writer's walk over a value, on the output of utf8-writer.ts; one is kept and reused between calls. */
class BodyWriter extends Utf8Writer {
  busy = false;

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
  return { allocations: shared.allocations, bytes: shared.buf.length, held, slabs: slabCount(), buffer: shared.buf.buffer as ArrayBuffer };
}
