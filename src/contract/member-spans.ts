// A JSON object's top-level members, found in its bytes: where each named member's value lies, built and copied never.
//
// # Slice, never reprint
//
// The proxy carries a server's `result` or `error` exactly as it was written
// (key order, number spellings such as `1.0` and `1e2`, escapes, members no
// schema knows), and sends a client's `params` on as the client wrote them.
// So neither message is parsed and printed again: the top-level object is
// walked once, the byte span of each named member's value noted, and only
// the small members read (an id, a method, a channel). The walk only finds
// value boundaries, and refuses text whose top level is not an object of
// members; whoever reads a span holds it to strict JSON. The last of
// duplicate names wins, as in JSON.parse.

/** A value's bytes: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** Why the text is not an object of members, and the byte offset where the walk stopped. */
export interface MembersFault {
  fault: string;
  offset: number;
}

/** Finds a byte from an offset, as TypedArray's indexOf does (`this` the bytes). */
export type ByteIndexOf = (this: Uint8Array, byte: number, from: number) => number;

// Declared here, not imported: on Node 20 a hot loop reads a module's own const faster than an imported one
// (a byte loop over 1 MiB: 1.09 against 1.46 ns a byte).
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** The faults of the object as a whole; the others are of a member. */
export const NOT_AN_OBJECT = 'it does not open with an object';
export const TEXT_AFTER = 'text after the object';

const decoder = new TextDecoder();

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && (b[i] === SPACE || b[i] === TAB || b[i] === LF || b[i] === CR)) i++;
  return i;
}

/** Reads the spans of the members of the object in b[0, end) named in `names` (ASCII names), or why the text is not an object of members. */
export type MemberSpans = <N extends string>(b: Uint8Array, names: ReadonlySet<N>, end?: number) => Partial<Record<N, Span>> | MembersFault;

/**
 * The walk, with `indexOf` finding the quotes that end strings: a faster
 * one than TypedArray's (Buffer's memchr) may be given where the host has
 * it. Each walk's functions close over their own finder, so that its calls
 * stay monomorphic (passed down as an argument, the walk took twice as long).
 */
export function memberWalk(indexOf: ByteIndexOf): MemberSpans {
  /**
   * The offset just past the string whose opening quote is at i, or -1 when
   * it is not closed. A quote ends the string unless an odd run of
   * backslashes stands before it; the run cannot reach back past the opening
   * quote, so it is counted from the quote backwards.
   */
  function stringEnd(b: Uint8Array, i: number, end: number): number {
    for (let from = i + 1; ; ) {
      const q = indexOf.call(b, QUOTE, from);
      if (q < 0 || q >= end) return -1;
      let k = q - 1;
      while (b[k] === BACKSLASH) k--;
      if ((q - 1 - k) % 2 === 0) return q + 1;
      from = q + 1;
    }
  }

  /** The offset just past the value that starts at i, or -1 when brackets or strings do not close. */
  function valueEnd(b: Uint8Array, i: number, end: number): number {
    const first = b[i];
    if (first === QUOTE) return stringEnd(b, i, end);
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      let depth = 0;
      for (; i < end; i++) {
        const c = b[i];
        if (c === QUOTE) {
          i = stringEnd(b, i, end) - 1;
          if (i < 0) return -1;
        } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          if (--depth === 0) return i + 1;
        }
      }
      return -1;
    }
    // A literal or a number: up to the next delimiter.
    const start = i;
    while (i < end) {
      const c = b[i];
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === SPACE || c === TAB || c === LF || c === CR) break;
      i++;
    }
    return i > start ? i : -1;
  }

  return function memberSpans<N extends string>(b: Uint8Array, names: ReadonlySet<N>, end = b.length): Partial<Record<N, Span>> | MembersFault {
    const spans: Partial<Record<N, Span>> = {};
    let i = skipSpace(b, 0, end);
    if (b[i] !== OPEN_OBJECT) return { fault: NOT_AN_OBJECT, offset: i };
    i = skipSpace(b, i + 1, end);
    if (b[i] === CLOSE_OBJECT) return skipSpace(b, i + 1, end) === end ? spans : { fault: TEXT_AFTER, offset: i + 1 };
    for (;;) {
      if (b[i] !== QUOTE) return { fault: 'expected a member name', offset: i };
      const nameEnd = stringEnd(b, i, end);
      if (nameEnd < 0) return { fault: 'unterminated member name', offset: i };
      let name: N | undefined;
      try {
        name = nameIn(b, i, nameEnd, names);
      } catch {
        return { fault: 'bad member name', offset: i };
      }
      i = skipSpace(b, nameEnd, end);
      if (b[i] !== COLON) return { fault: "expected ':'", offset: i };
      i = skipSpace(b, i + 1, end);
      const valueStart = i;
      const stop = i < end ? valueEnd(b, i, end) : -1;
      if (stop < 0) return { fault: 'unterminated value', offset: valueStart };
      if (name !== undefined) spans[name] = { start: valueStart, end: stop };
      i = skipSpace(b, stop, end);
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
        continue;
      }
      if (b[i] === CLOSE_OBJECT) return skipSpace(b, i + 1, end) === end ? spans : { fault: TEXT_AFTER, offset: i + 1 };
      return { fault: "expected ',' or '}'", offset: i };
    }
  };
}

/**
 * Which of `names` the member name at b[start, end) (quotes included) is,
 * or undefined. A name with no escape (the usual case) is compared by its
 * bytes, with no string made; one with an escape is read by JSON.parse.
 */
function nameIn<N extends string>(b: Uint8Array, start: number, end: number, names: ReadonlySet<N>): N | undefined {
  for (let i = start + 1; i < end - 1; i++) {
    if (b[i] === BACKSLASH) {
      const name = JSON.parse(decoder.decode(b.subarray(start, end))) as N;
      return names.has(name) ? name : undefined;
    }
  }
  const length = end - start - 2;
  for (const name of names) {
    if (name.length !== length) continue;
    let k = 0;
    while (k < length && b[start + 1 + k] === name.charCodeAt(k)) k++;
    if (k === length) return name;
  }
  return undefined;
}

/**
 * The walk every host has, finding quotes by a loop: TypedArray's indexOf
 * costs more a call than a short line's strings are long (a 110-byte
 * request line read in 2.7 µs with it, against 1.4 before the walk was shared).
 */
export const memberSpans: MemberSpans = memberWalk(function find(this: Uint8Array, byte: number, from: number): number {
  for (let i = from; i < this.length; i++) if (this[i] === byte) return i;
  return -1;
});

export function isMembersFault(m: object): m is MembersFault {
  return 'fault' in m;
}
