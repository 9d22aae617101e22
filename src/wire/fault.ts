// Why some bytes are not what they should be: a status from the one enum, and where.
//
// One shape for every fault a scanner reports, the JS path's and the
// core's alike: the JSON text scanner's, a frame's (tag and body), a
// record's. Offsets follow assembly/status.ts: into the payload for a frame
// (the tag is byte 0, and -1 for an empty payload), into the stream for a
// record.

import { Status } from './status.js';

export interface Fault {
  readonly status: Status;
  readonly offset: number;
}

/** The fault of an empty payload, the same from every backend. */
export const EMPTY_PAYLOAD: Fault = { status: Status.Empty, offset: -1 };
/** The fault of a payload whose first byte is no tag, the same from every backend. */
export const UNKNOWN_TAG: Fault = { status: Status.UnknownTag, offset: 0 };

/** The fault a frame's status names (null for Status.Ok): the shared objects for the two frame faults, a new one for a body fault. */
export function frameFault(status: number, offset: number): Fault | null {
  if (status === Status.Ok) return null;
  if (status === Status.Empty) return EMPTY_PAYLOAD;
  if (status === Status.UnknownTag) return UNKNOWN_TAG;
  return { status: status as Status, offset };
}
