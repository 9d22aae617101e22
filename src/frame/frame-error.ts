// Why a payload is not a frame: empty, an unknown tag, or a body that breaks
// a rule of WIRE.md section 4.
//
// # Three reasons, one of them JSON
//
// `reason` is what callers branch on, and it has exactly the three values
// WIRE.md section 1 names. A body error also says which rule it broke
// (`rule`) and where (`offset`, an index into the payload, where the tag is
// byte 0). The offset is exact for rule 4.1 and best effort for the schema:
// it points at the value the schema's first complaint is about, or at the
// nearest enclosing one that exists.

import type { Fault } from '../wire/fault.js';
import { Status } from '../wire/status.js';
import { bodyRule, RULE_TEXT, type BodyRule } from '../contract/rules.js';

export type FrameErrorReason = 'empty' | 'unknown-tag' | 'body';

/** A FrameError as plain data, in the order the CLI prints its members. */
export interface FrameErrorJSON {
  reason: FrameErrorReason;
  tag?: number;
  rule?: BodyRule;
  message: string;
  offset?: number;
}

/**
 * Makes an Error with no stack captured. A FrameError is data first (an
 * outcome of tryDecode, of the stream decoder, of the relay), and V8
 * captures the stack of every Error it makes, about 5 µs here: a stream of
 * 18-byte bad frames decoded at 3.6 MB/s. So none is captured, and decode,
 * which throws one, captures it where it throws (captureStack).
 */
function withoutStack<T>(make: () => T): T {
  const E = Error as { stackTraceLimit?: unknown };
  const limit = E.stackTraceLimit;
  // Only where the engine has the knob (V8, JavaScriptCore), and only when it may be turned (not frozen).
  if (typeof limit !== 'number' || !Reflect.set(E, 'stackTraceLimit', 0)) return make();
  try {
    return make();
  } finally {
    E.stackTraceLimit = limit;
  }
}

/** Gives `error` the stack of the code that called `from`, where the engine can (V8's captureStackTrace): for a FrameError about to be thrown. */
export function captureStack(error: Error, from: (...args: never[]) => unknown): void {
  const capture = (Error as { captureStackTrace?: (e: object, f: unknown) => void }).captureStackTrace;
  if (typeof capture === 'function') capture(error, from);
}

const EMPTY_MESSAGE = 'empty payload: a frame needs at least its tag byte (WIRE.md section 1)';
const unknownTagMessage = (tag: number) =>
  `unknown tag 0x${tag.toString(16).padStart(2, '0')}: a frame starts with 0x00 (result) or 0x01 (error) (WIRE.md section 1)`;
const bodyMessage = (rule: BodyRule, offset: number, detail?: string) => `body at offset ${offset}: ${RULE_TEXT[rule]}${detail ? `: ${detail}` : ''}`;

export class FrameError extends Error {
  override readonly name = 'FrameError';
  readonly reason: FrameErrorReason;
  /** The unknown tag byte (reason 'unknown-tag' only). */
  readonly tag?: number;
  /** Where in the payload the rule broke; the tag is offset 0. */
  readonly offset?: number;
  /** Which body rule broke (reason 'body' only). */
  readonly rule?: BodyRule;

  private constructor(reason: FrameErrorReason, message: string, extra: { tag?: number; offset?: number; rule?: BodyRule }) {
    super(message);
    this.reason = reason;
    if (extra.tag !== undefined) this.tag = extra.tag;
    if (extra.offset !== undefined) this.offset = extra.offset;
    if (extra.rule !== undefined) this.rule = extra.rule;
  }

  static empty(): FrameError {
    return withoutStack(() => new FrameError('empty', EMPTY_MESSAGE, {}));
  }

  static unknownTag(tag: number): FrameError {
    return withoutStack(() => new FrameError('unknown-tag', unknownTagMessage(tag), { tag, offset: 0 }));
  }

  static body(rule: BodyRule, offset: number, detail?: string): FrameError {
    return withoutStack(() => new FrameError('body', bodyMessage(rule, offset, detail), { offset, rule }));
  }

  /** The plain-data form the CLI prints and the vectors compare. */
  toJSON(): FrameErrorJSON {
    const out: Partial<FrameErrorJSON> = { reason: this.reason };
    if (this.tag !== undefined) out.tag = this.tag;
    if (this.rule !== undefined) out.rule = this.rule;
    out.message = this.message;
    if (this.offset !== undefined) out.offset = this.offset;
    return out as FrameErrorJSON;
  }
}

/** The FrameError for a backend's fault. */
export function toFrameError(fault: Fault, payload: Uint8Array): FrameError {
  if (fault.status === Status.Empty) return FrameError.empty();
  if (fault.status === Status.UnknownTag) return FrameError.unknownTag(payload[0]);
  return FrameError.body(ruleOf(fault), fault.offset);
}

/**
 * What toFrameError(fault, payload).toJSON() gives, with no Error made on
 * the way: for the relay, which reports faults as data and may meet hostile
 * frames by the million (a stream of empty responses is 18 bytes each).
 */
export function frameErrorJSON(fault: Fault, payload: Uint8Array): FrameErrorJSON {
  if (fault.status === Status.Empty) return { reason: 'empty', message: EMPTY_MESSAGE };
  if (fault.status === Status.UnknownTag) {
    const tag = payload[0];
    return { reason: 'unknown-tag', tag, message: unknownTagMessage(tag), offset: 0 };
  }
  const rule = ruleOf(fault);
  return { reason: 'body', rule, message: bodyMessage(rule, fault.offset), offset: fault.offset };
}

function ruleOf(fault: Fault): BodyRule {
  const rule = bodyRule(fault.status);
  if (rule === undefined) throw new Error(`mcp-frames: status ${fault.status} is not a frame error`);
  return rule;
}
