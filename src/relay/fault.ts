// What went wrong on the way through a relay: one report per fault.
//
// # Each fault once
//
// A frame that fails, an extra response, and a channel left open when
// upstream ends are one fault each, on their channel. A record error is one
// fault for the whole stream: the channels it closes get their finishes
// downstream but are not reported again.

import type { FrameErrorJSON } from '../frame/frame-error.js';
import type { RecordErrorReason } from '../records/record-error.js';

export type RelayFault =
  /** A response whose frame failed: not forwarded; its finish goes alone (not carried). */
  | { reason: 'frame-error'; channel: number; offset: number; frame: FrameErrorJSON }
  /** A second (or later) response before the finish: dropped. */
  | { reason: 'sequence-violation'; channel: number; offset: number }
  /** Upstream ended with the channel open: a finish was sent downstream. `offset` is the response that opened it. */
  | { reason: 'incomplete'; channel: number; offset: number }
  /** The stream stopped: every open channel got its finish, then the output errored. */
  | { reason: RecordErrorReason; offset: number };
