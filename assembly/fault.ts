// Where a scan of the text stopped, and why: the status and position of the last fault.
//
// Scanning functions return the position after what they read, or 0 for a
// fault (no position in this memory is 0: data starts above it), leaving
// the status and the position here. It sits below every scanner (json.ts,
// stage2.ts, number.ts), so that each can fail and none imports another
// to do so.

import { OK } from './status';

/** The status of the last fault. */
export let faultStatus: i32 = OK;
/** Where the last fault is, as a position in memory. */
export let faultAt: usize = 0;

/** Records a fault; returns 0, a scanner's "no position". */
@inline export function fail(status: i32, at: usize): usize {
  faultStatus = status;
  faultAt = at;
  return 0;
}
