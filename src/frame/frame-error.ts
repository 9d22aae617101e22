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
    return new FrameError('empty', 'empty payload: a frame needs at least its tag byte (WIRE.md section 1)', {});
  }

  static unknownTag(tag: number): FrameError {
    const hex = `0x${tag.toString(16).padStart(2, '0')}`;
    return new FrameError('unknown-tag', `unknown tag ${hex}: a frame starts with 0x00 (result) or 0x01 (error) (WIRE.md section 1)`, {
      tag,
      offset: 0,
    });
  }

  static body(rule: BodyRule, offset: number, detail?: string): FrameError {
    const text = `body at offset ${offset}: ${RULE_TEXT[rule]}${detail ? `: ${detail}` : ''}`;
    return new FrameError('body', text, { offset, rule });
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
  const rule = bodyRule(fault.status);
  if (rule === undefined) throw new Error(`mcp-frames: status ${fault.status} is not a frame error`);
  return FrameError.body(rule, fault.offset);
}
