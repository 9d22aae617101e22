// A server's JSON-RPC message, read for its envelope: where each top-level member's value lies in the bytes.
//
// The proxy never parses a message and prints it again (src/contract/member-spans.ts says why): the spans of
// `result` or `error` are judged by the frame's codec (WIRE.md section 4), which holds them to strict JSON, and
// only the small members are parsed (`id`, `method`).

import { type ByteIndexOf, isMembersFault, type MembersFault, memberWalk, NOT_AN_OBJECT, type Span, TEXT_AFTER } from '../contract/member-spans.js';

export type { Span };

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
export type EnvelopeFault = MembersFault;

const MEMBERS: ReadonlySet<keyof Envelope> = new Set(['id', 'method', 'result', 'error', 'params', 'jsonrpc']);
const decoder = new TextDecoder();

/**
 * PERF NOTE: quotes are found by Buffer's indexOf (memchr), not TypedArray's:
 * on the bench's 1 MiB text answer (escaped quotes and line feeds all
 * through it) the walk took 1.2 to 1.3 ms a byte at a time, 0.13 ms so;
 * TypedArray's own indexOf is no memchr: 0.34 ms a MiB, against 0.013.
 */
const memberSpans = memberWalk(Buffer.prototype.indexOf as ByteIndexOf);

/** The envelope of the message in b[0, end), or why it is not one. */
export function readEnvelope(b: Uint8Array, end = b.length): Envelope | EnvelopeFault {
  const spans = memberSpans(b, MEMBERS, end);
  if (!isMembersFault(spans)) return spans;
  if (spans.fault === NOT_AN_OBJECT) return { fault: 'not a JSON-RPC message: it does not open with an object', offset: spans.offset };
  if (spans.fault === TEXT_AFTER) return { fault: 'text after the message', offset: spans.offset };
  return spans;
}

export function isEnvelopeFault(e: Envelope | EnvelopeFault): e is EnvelopeFault {
  return 'fault' in e;
}

/** JSON.parse of a small member's value (an id, a method name). */
export function parseSpan(b: Uint8Array, span: Span): unknown {
  return JSON.parse(decoder.decode(b.subarray(span.start, span.end)));
}
