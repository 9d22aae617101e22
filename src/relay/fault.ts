// What went wrong on the way through a relay: one report per fault.
//
// # Each fault once
//
// A frame that fails, an extra response, and a channel the relay finishes
// (upstream ended, failed or stopped with the channel open) are one fault
// each, on their channel. A record error is one fault for the whole stream,
// reported before the channels it leaves the relay to finish (WIRE.md
// section 7: each channel finished by the relay, and each record error, is
// reported once).

import type { FrameErrorJSON } from '../frame/frame-error.js';
import type { RecordErrorReason } from '../records/record-error.js';

export type RelayFault =
  /** A response whose frame failed: not forwarded; its finish goes alone (not carried). */
  | { reason: 'frame-error'; channel: number; offset: number; frame: FrameErrorJSON }
  /** A second (or later) response before the finish: dropped. */
  | { reason: 'sequence-violation'; channel: number; offset: number }
  /** Upstream ended, failed or stopped on a record error with the channel open: the relay sent its finish downstream. `offset` is the response that opened it. */
  | { reason: 'incomplete'; channel: number; offset: number }
  /** The stream stopped: every open channel got its finish (each then reported incomplete), then the output errored. */
  | { reason: RecordErrorReason; offset: number };
