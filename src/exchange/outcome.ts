// What an exchange on a channel came to (WIRE.md section 2).
//
// An outcome is known when the channel's finish arrives, or when the stream
// ends or stops with the channel still open.

import type { ErrorObject } from '../frame/frame.js';
import type { FrameError } from '../frame/frame-error.js';
import type { RecordErrorReason } from '../records/record-error.js';

export type Outcome<R = unknown> =
  /** A response, then the finish: the result. */
  | { channel: number; outcome: 'result'; result: R }
  /** A response, then the finish: the MCP server's error, as sent. */
  | { channel: number; outcome: 'error'; error: ErrorObject }
  /** A response, then the finish: a payload that is not a frame. */
  | { channel: number; outcome: 'frame-error'; fault: FrameError }
  /** A finish with no response before it: the exchange was not carried. */
  | { channel: number; outcome: 'not-carried' }
  /** Two responses or more before the finish. */
  | { channel: number; outcome: 'sequence-violation' }
  /** The stream ended or stopped with the channel open. */
  | { channel: number; outcome: 'incomplete' };

/**
 * How a stream ended: cleanly, stopped by a record error, or cut by its
 * source failing (a connection reset, a read error: `error` is what the
 * source threw), after the records it had given.
 */
export type StreamEnd = { end: 'ok' } | { end: 'record-error'; reason: RecordErrorReason; offset: number } | { end: 'input-error'; error: unknown };

/** What a stream decoder reports, in the order it becomes known. */
export type StreamEvent<R = unknown> = Outcome<R> | StreamEnd;

export function isEnd<R>(event: StreamEvent<R>): event is StreamEnd {
  return 'end' in event;
}
