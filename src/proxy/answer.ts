// The server's answer as a channel's records: the frame sliced from the message, judged by all of WIRE.md section 4 before it is sent.
//
//   [response header: 9][tag: 1][the `result` or `error` member's bytes][finish: 9]
//
// # Judged on its bytes
//
// The frame is the tag and the member's bytes as the server wrote them,
// never parsed and printed again. At 'json' the method's codec checks the
// tag and rule 4.1 (strict JSON text); at 'full', the default, also rules
// 4.2 (the SDK's schema for the method's result, or the error object) and
// 4.3 (a 32-bit code), on the bytes, as the relay's 'full' does. A refusal
// names its rule and its offset into the frame.
//
// # Records in a reused buffer
//
// A large answer's records are written into a buffer of answer-buffers.ts,
// which the connection gives back once the socket is done with it: the
// message itself is only lent (a stdio line's buffer takes the next line).
//
// # A result and an error both
//
// JSON-RPC 2.0 (section 5) has a response hold `result` or `error`, never
// both. Such a message is refused (`result-and-error`, the offset of the
// second member in the message), not read as whichever came last.

import { judgeFrame } from '../frame/build.js';
import type { FrameCodec } from '../frame/frame.js';
import { encodeFinish, encodeResponseHeader, HEADER_SIZE } from '../records/record.js';
import { TAG_ERROR, TAG_RESULT } from '../wire/tags.js';
import { giveAnswerBuffer, takeAnswerBuffer } from './answer-buffers.js';
import type { Envelope } from './message.js';

/** How much of section 4 the proxy holds answers to. */
export type AnswerLevel = 'json' | 'full';

export const ANSWER_LEVELS: readonly AnswerLevel[] = ['json', 'full'];

/** Why an answer is not carried: the rule it broke, and where. */
export interface AnswerRefusal {
  rule: string;
  message: string;
  /** Into the frame (the tag is byte 0) for a rule of section 4; into the server's message for `result-and-error`. */
  offset?: number;
}

/** An answer that passed: the records to send, and the frame within them; give `records` back (giveAnswerBuffer) once written. */
export interface AnswerRecords {
  records: Uint8Array;
  payload: Uint8Array;
  isError: boolean;
}

/** The records of the answer in `message`, or why it is refused. */
export function answerRecords(
  channel: number,
  message: Uint8Array,
  envelope: Envelope,
  codec: FrameCodec<unknown>,
  level: AnswerLevel,
): AnswerRecords | AnswerRefusal {
  const { result, error } = envelope;
  if (result && error) {
    return {
      rule: 'result-and-error',
      message: 'a response holds result or error, never both (JSON-RPC 2.0)',
      offset: Math.max(result.start, error.start),
    };
  }
  const body = (result ?? error)!;
  const isError = error !== undefined;
  const length = body.end - body.start;
  const records = takeAnswerBuffer(HEADER_SIZE + 1 + length + HEADER_SIZE);
  records.set(encodeResponseHeader(channel, 1 + length), 0);
  records[HEADER_SIZE] = isError ? TAG_ERROR : TAG_RESULT;
  records.set(message.subarray(body.start, body.end), HEADER_SIZE + 1);
  const payload = records.subarray(HEADER_SIZE, HEADER_SIZE + 1 + length);
  const verdict = codec.validate(payload) ?? (level === 'full' ? judgeFrame(codec, payload) : null);
  if (verdict) {
    giveAnswerBuffer(records);
    return { rule: verdict.rule ?? verdict.reason, message: verdict.message, offset: verdict.offset };
  }
  records.set(encodeFinish(channel), HEADER_SIZE + 1 + length);
  return { records, payload, isError };
}

export function isAnswerRefusal(answer: AnswerRecords | AnswerRefusal): answer is AnswerRefusal {
  return 'rule' in answer;
}
