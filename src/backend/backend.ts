// What a backend does: the byte-level checks, JS or WebAssembly.
//
// A backend answers two questions about bytes without building JS values:
// is this payload a frame whose body is strict JSON text (verifyFrame), and
// where are the records in these bytes (its scan kernel, which the one
// record reader of src/records/reader.ts drives). Everything that builds
// values (JSON.parse, the SDK schema) is shared TypeScript on top, so the
// backends can differ only where the differential test looks.

import { Status } from './status.js';
import type { ReaderLimits, RecordReader, RecordSink, ScanKernel } from '../records/reader.js';

export type BackendName = 'js' | 'wasm-simd' | 'wasm-scalar';

/** Why a payload is not a frame with a strict JSON body; null means it is. */
export interface FrameFault {
  readonly status: Status;
  /** Offset into the payload (tag = 0); -1 for an empty payload. */
  readonly offset: number;
}

/** The fault of an empty payload, the same from every backend. */
export const EMPTY_PAYLOAD: FrameFault = { status: Status.Empty, offset: -1 };
/** The fault of a payload whose first byte is no tag, the same from every backend. */
export const UNKNOWN_TAG: FrameFault = { status: Status.UnknownTag, offset: 0 };

export interface Backend {
  readonly name: BackendName;
  /** Tag dispatch and rule 4.1 over a whole payload. null when both hold. */
  verifyFrame(payload: Uint8Array): FrameFault | null;
  /** A scan kernel for one reader. */
  createKernel(): ScanKernel;
  /** A reader for one record stream over this backend's kernel, reporting to `sink`. */
  createReader(limits: ReaderLimits, sink: RecordSink): RecordReader;
}

/** The fault a status names (null for Status.Ok): the shared objects for the two frame faults, a new one for a body fault. */
export function frameFault(status: number, offset: number): FrameFault | null {
  if (status === Status.Ok) return null;
  if (status === Status.Empty) return EMPTY_PAYLOAD;
  if (status === Status.UnknownTag) return UNKNOWN_TAG;
  return { status: status as Status, offset };
}
