// A server's JSON-RPC message, read for its envelope: where each top-level member's value lies in the bytes.
//
// # Slice, never reprint
//
// A frame carries the server's `result` or `error` member exactly as it was
// written: key order, number spellings (`1.0`, `1e2`), escapes and members no
// schema knows. So the proxy never parses a message and prints it again; it
// walks the top-level object once, notes the byte span of each member's value,
// and parses only the small members it needs (`id`, `method`). The span of
// `result` or `error` is then judged by the frame's codec (WIRE.md section 4),
// which holds it to strict JSON; this walk only has to find value boundaries,
// and refuses a line whose envelope is not an object of members.

/** A value's bytes within the message: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** A message's envelope: the spans of the members the proxy reads. The last of duplicate names wins, as in JSON.parse. */
export interface Envelope {
  id?: Span;
  method?: Span;
  result?: Span;
  error?: Span;
  params?: Span;
  jsonrpc?: Span;
}

/** Why a line is not a JSON-RPC message, and the byte offset where the walk stopped. */
export interface EnvelopeFault {
  fault: string;
  offset: number;
}

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

const MEMBERS = new Set(['id', 'method', 'result', 'error', 'params', 'jsonrpc']);
const decoder = new TextDecoder();

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && (b[i] === SPACE || b[i] === TAB || b[i] === LF || b[i] === CR)) i++;
  return i;
}

const indexOf = Buffer.prototype.indexOf;

/**
 * The offset just past the string whose opening quote is at i, or -1 when
 * it is not closed. A quote ends the string unless an odd run of
 * backslashes stands before it; the run cannot reach back past the opening
 * quote, so it is counted from the quote backwards.
 *
 * PERF NOTE: quotes are found by Buffer's indexOf (memchr), not a loop in
 * JS: on the bench's 1 MiB text answer (escaped quotes and line feeds all
 * through it) the walk took 1.2 to 1.3 ms a byte at a time, 0.13 ms so.
 * TypedArray's own indexOf is no memchr: 0.34 ms a MiB, against 0.013.
 */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (let from = i + 1; ; ) {
    const q: number = indexOf.call(b, QUOTE, from);
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

/** A member name's text: its bytes when it has no escape (the usual case), else JSON.parse's reading. */
function nameOf(b: Uint8Array, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) if (b[i] === BACKSLASH) return JSON.parse(decoder.decode(b.subarray(start, end))) as string;
  return decoder.decode(b.subarray(start + 1, end - 1));
}

/** The envelope of the message in b[0, end), or why it is not one. */
export function readEnvelope(b: Uint8Array, end = b.length): Envelope | EnvelopeFault {
  const envelope: Envelope = {};
  let i = skipSpace(b, 0, end);
  if (b[i] !== OPEN_OBJECT) return { fault: 'not a JSON-RPC message: it does not open with an object', offset: i };
  i = skipSpace(b, i + 1, end);
  if (b[i] === CLOSE_OBJECT) return skipSpace(b, i + 1, end) === end ? envelope : { fault: 'text after the message', offset: i + 1 };
  for (;;) {
    if (b[i] !== QUOTE) return { fault: 'expected a member name', offset: i };
    const nameEnd = stringEnd(b, i, end);
    if (nameEnd < 0) return { fault: 'unterminated member name', offset: i };
    let name: string;
    try {
      name = nameOf(b, i, nameEnd);
    } catch {
      return { fault: 'bad member name', offset: i };
    }
    i = skipSpace(b, nameEnd, end);
    if (b[i] !== COLON) return { fault: "expected ':'", offset: i };
    i = skipSpace(b, i + 1, end);
    const valueStart = i;
    const stop = i < end ? valueEnd(b, i, end) : -1;
    if (stop < 0) return { fault: 'unterminated value', offset: valueStart };
    if (MEMBERS.has(name)) envelope[name as keyof Envelope] = { start: valueStart, end: stop };
    i = skipSpace(b, stop, end);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1, end);
      continue;
    }
    if (b[i] === CLOSE_OBJECT) return skipSpace(b, i + 1, end) === end ? envelope : { fault: 'text after the message', offset: i + 1 };
    return { fault: "expected ',' or '}'", offset: i };
  }
}

export function isEnvelopeFault(e: Envelope | EnvelopeFault): e is EnvelopeFault {
  return 'fault' in e;
}

/** JSON.parse of a small member's value (an id, a method name). */
export function parseSpan(b: Uint8Array, span: Span): unknown {
  return JSON.parse(decoder.decode(b.subarray(span.start, span.end)));
}
