// Why a record stream stops: the record errors of WIRE.md section 3.
//
// Each is fatal, because after one a decoder can never find the next record
// boundary. Each names the offset of the record's first byte in the stream.

import { isRecordError, statusName } from '../wire/status.js';

export type RecordErrorReason = 'bad-kind' | 'bad-finish' | 'oversize' | 'too-many-channels' | 'held-limit' | 'truncated';

export interface RecordFault {
  readonly reason: RecordErrorReason;
  /** Offset of the record's first byte in the stream. */
  readonly offset: number;
}

export function recordFault(status: number, offset: number): RecordFault {
  const reason = isRecordError(status) ? (statusName(status) as RecordErrorReason) : undefined;
  if (!reason) throw new Error(`mcp-frames: status ${status} is not a record error`);
  return { reason, offset };
}

const TEXT: Record<RecordErrorReason, string> = {
  'bad-kind': 'a kind byte other than 0x01 (response) or 0x02 (finish)',
  'bad-finish': 'a finish whose length is not 0',
  oversize: 'a length above the frame limit',
  'too-many-channels': 'a response would open more channels than the limit',
  'held-limit': 'a response would make the stream hold more payload bytes than the held limit',
  truncated: 'the stream ends inside a record',
};

/** A record error as a thrown Error, for APIs that throw. */
export class RecordError extends Error {
  override readonly name = 'RecordError';
  readonly reason: RecordErrorReason;
  readonly offset: number;
  constructor(fault: RecordFault) {
    super(`record error at offset ${fault.offset}: ${TEXT[fault.reason]} (WIRE.md section 3)`);
    this.reason = fault.reason;
    this.offset = fault.offset;
  }
}

export function describeRecordFault(fault: RecordFault): string {
  return TEXT[fault.reason];
}
