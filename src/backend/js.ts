// The pure-JS backend: the fallback for hosts without WebAssembly, and the
// baseline the core is measured against and must agree with.
//
// Its scan kernel finds records where they lie, in the caller's bytes, and
// writes the same table the core writes (src/records/reader.ts), so the one
// record reader serves both backends. assembly/records.ts is the same scan in
// the core: the same checks in the same order.

import { validateJsonText } from '../contract/json-text.js';
import { ENTRY_FIELDS, type Scan, type ScanKernel } from '../records/reader.js';
import { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE } from '../records/record.js';
import { type Backend, SCREENED } from './backend.js';
import { screenJsonText } from '../contract/screen.js';
import { EMPTY_PAYLOAD, type Fault, UNKNOWN_TAG } from '../wire/fault.js';
import { Status } from '../wire/status.js';
import { TAG_ERROR, TAG_RESULT } from '../wire/tags.js';
import { RecordReader } from '../records/reader.js';

/** Tag dispatch, then the JSON text after the tag. */
function verifyFrame(payload: Uint8Array): Fault | null {
  if (payload.length === 0) return EMPTY_PAYLOAD;
  const tag = payload[0];
  if (tag !== TAG_RESULT && tag !== TAG_ERROR) return UNKNOWN_TAG;
  return validateJsonText(payload, 1, payload.length);
}

/** The screen of src/contract/screen.ts, then verifyFrame where it does not pass (Backend.screenFrame). */
function screenFrame(payload: Uint8Array, text: string): Fault | null | typeof SCREENED {
  const tag = payload[0];
  if (payload.length !== 0 && (tag === TAG_RESULT || tag === TAG_ERROR) && screenJsonText(payload, 1, payload.length, text)) return SCREENED;
  return verifyFrame(payload);
}

/** Entries one scan writes before it stops with Status.TableFull, as in the core. */
const TABLE_CAPACITY = 4096;

/**
 * Entry tables, lent to one scan at a time, as the core's memory is: a
 * reader holds none between chunks (so a thousand idle streams cost no
 * tables), and a scan started from inside another's sink gets its own.
 */
const freeTables: Int32Array[] = [];

/**
 * A scan kernel over JS bytes: one per reader, and its own Scan (a reader
 * reads one scan's entries before it starts the next).
 */
class JsKernel implements ScanKernel, Scan {
  table: Int32Array = EMPTY_TABLE;
  readonly stop = new Int32Array(5);
  count = 0;
  bytes: Uint8Array = EMPTY;
  base = 0;
  private to = 0;
  private maxFrame = 0;
  private verify = false;

  window(): number {
    return Number.POSITIVE_INFINITY;
  }

  scan(bytes: Uint8Array, from: number, to: number, maxFrame: number, verify: boolean): Scan {
    this.table = freeTables.pop() ?? new Int32Array(TABLE_CAPACITY * ENTRY_FIELDS);
    this.bytes = bytes;
    this.to = to;
    this.maxFrame = maxFrame;
    this.verify = verify;
    this.run(from);
    return this;
  }

  more(): void {
    this.run(this.base + (this.stop[1] >>> 0));
  }

  done(): void {
    if (this.table === EMPTY_TABLE) return;
    if (freeTables.length < 2) freeTables.push(this.table);
    this.table = EMPTY_TABLE;
    this.bytes = EMPTY;
  }

  /** Scans bytes[from, to): whole records into the table, then why it stopped. Offsets are relative to `from`. */
  private run(from: number): void {
    const { bytes, to, table } = this;
    this.base = from;
    let i = from;
    let n = 0;
    let stop: number;
    let cut = 0;
    let cutChannel = 0;
    let cutLength = 0;
    for (;;) {
      if (i >= to) {
        stop = Status.Ok;
        break;
      }
      if (n === TABLE_CAPACITY) {
        stop = Status.TableFull;
        break;
      }
      const kind = bytes[i];
      if (kind !== KIND_RESPONSE && kind !== KIND_FINISH) {
        stop = Status.BadKind;
        break;
      }
      if (to - i < HEADER_SIZE) {
        stop = Status.Incomplete;
        break;
      }
      const channel = (bytes[i + 1] | (bytes[i + 2] << 8) | (bytes[i + 3] << 16) | (bytes[i + 4] << 24)) >>> 0;
      const length = (bytes[i + 5] | (bytes[i + 6] << 8) | (bytes[i + 7] << 16) | (bytes[i + 8] << 24)) >>> 0;
      if (kind === KIND_FINISH && length !== 0) {
        stop = Status.BadFinish;
        break;
      }
      if (kind === KIND_RESPONSE) {
        if (length > this.maxFrame) {
          stop = Status.Oversize;
          break;
        }
        if (length > to - i - HEADER_SIZE) {
          stop = Status.Incomplete;
          cut = 1;
          cutChannel = channel;
          cutLength = length;
          break;
        }
      }
      const e = n * ENTRY_FIELDS;
      table[e] = kind;
      table[e + 1] = channel;
      table[e + 2] = i - from;
      table[e + 3] = length;
      table[e + 4] = Status.Ok;
      table[e + 5] = 0;
      if (kind === KIND_RESPONSE && this.verify) this.verifyInPlace(i + HEADER_SIZE, length, e);
      n++;
      i += HEADER_SIZE + length;
    }
    this.count = n;
    const s = this.stop;
    s[0] = stop;
    s[1] = i - from;
    s[2] = cut;
    s[3] = cutChannel;
    s[4] = cutLength;
  }

  /** verifyFrame over the payload bytes[start, start + length) where it lies, into entry e; offsets relative to the payload. */
  private verifyInPlace(start: number, length: number, e: number): void {
    const { bytes, table } = this;
    let fault: Fault | null;
    if (length === 0) fault = EMPTY_PAYLOAD;
    else if (bytes[start] !== TAG_RESULT && bytes[start] !== TAG_ERROR) fault = UNKNOWN_TAG;
    else {
      const text = validateJsonText(bytes, start + 1, start + length);
      fault = text && { status: text.status, offset: text.offset - start };
    }
    if (!fault) return;
    table[e + 4] = fault.status;
    table[e + 5] = fault.offset;
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_TABLE = new Int32Array(0);

export const jsBackend: Backend = {
  name: 'js',
  verifyFrame,
  screenFrame,
  createKernel: () => new JsKernel(),
  createReader: (limits, sink) => new RecordReader(new JsKernel(), limits, sink),
};
