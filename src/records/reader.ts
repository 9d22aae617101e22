// Finding records in chunks split at any byte (WIRE.md section 3), on the
// pure-JS path.
//
// # Checked from the header, before anything is buffered
//
// A record whose header is all in hand is judged at once: its kind, a
// finish's zero length, the frame limit, and (through the sink, which knows
// the open channels) the channel and held limits. Only then is a payload that runs past
// the chunk held (src/records/held-bytes.ts). A record that is
// whole inside a chunk is handed on as a view of that chunk, with no copy.
//
// # Incomplete is not malformed
//
// A record cut at the end of a chunk is waited for. Only end() turns a cut
// record into the record error `truncated`.

import { Status } from '../backend/status.js';
import type { FrameFault } from '../backend/backend.js';
import { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE, readU32 } from './record.js';
import { recordFault, type RecordFault } from './record-error.js';
import { HeldBytes } from './held-bytes.js';

export interface ReaderLimits {
  /** The largest payload a response may declare (WIRE.md section 6). */
  readonly maxFrameBytes: number;
  /**
   * Whether the reader should check each response's frame as it reads it,
   * when it can do so cheaply (the core can, in the same call). Default
   * true; a relay that validates nothing turns it off.
   */
  readonly verify?: boolean;
}

/** Where a reader reports the records it finds, in stream order. */
export interface RecordSink {
  /**
   * A response header for `channel` declaring `length` payload bytes was
   * read: Status.Ok lets it in; Status.TooManyChannels or Status.HeldLimit
   * stops the stream there. Called before any byte of the payload is held;
   * it may be called again for the same header, and changes nothing.
   */
  admit(channel: number, length: number): number;
  /**
   * A whole response. `payload` may be a view into the caller's chunk: it is
   * valid only during the call. `fault` is the backend's verdict on the
   * frame when the reader checked it, or undefined when it did not.
   */
  response(channel: number, payload: Uint8Array, offset: number, fault: FrameFault | null | undefined): void;
  /** A finish for `channel`. */
  finish(channel: number, offset: number): void;
}

export interface RecordReader {
  /** Reads a chunk. Returns the record error that stops the stream, or null. */
  push(chunk: Uint8Array): RecordFault | null;
  /** The stream ended: `truncated` when a record was cut, else null. */
  end(): RecordFault | null;
  /** Bytes of the stream taken in so far. */
  readonly position: number;
}

export class JsRecordReader implements RecordReader {
  /** Stream offset of the record being read (the next one, between records). */
  private recordOffset = 0;
  private readonly header = new Uint8Array(HEADER_SIZE);
  private headerFill = 0;
  /** The payload of a response that runs past a chunk, as it arrives. */
  private payload: HeldBytes | null = null;
  private channel = 0;
  private failed: RecordFault | null = null;

  constructor(
    private readonly limits: ReaderLimits,
    private readonly sink: RecordSink,
  ) {}

  get position(): number {
    return this.recordOffset + (this.payload ? HEADER_SIZE + this.payload.length : this.headerFill);
  }

  private fail(status: number): RecordFault {
    this.failed = recordFault(status, this.recordOffset);
    return this.failed;
  }

  /**
   * Judges a whole header: a status, and the payload length to read, which
   * is -1 for a finish.
   */
  private judge(kind: number, channel: number, length: number): { status: number; length: number } {
    if (kind === KIND_FINISH) {
      if (length !== 0) return { status: Status.BadFinish, length };
      return { status: Status.Ok, length: -1 };
    }
    if (length > this.limits.maxFrameBytes) return { status: Status.Oversize, length };
    return { status: this.sink.admit(channel, length), length };
  }

  push(chunk: Uint8Array): RecordFault | null {
    if (this.failed) return this.failed;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.payload !== null) {
        // Filling a payload that was cut.
        const take = Math.min(this.payload.missing, n - i);
        this.payload.append(chunk.subarray(i, i + take));
        i += take;
        if (this.payload.missing === 0) {
          const payload = this.payload.bytes();
          this.payload = null;
          this.completeResponse(payload);
        }
        continue;
      }

      let kind: number;
      let channel: number;
      let length: number;
      if (this.headerFill === 0 && n - i >= HEADER_SIZE) {
        // The whole header is in this chunk.
        kind = chunk[i];
        if (kind !== KIND_RESPONSE && kind !== KIND_FINISH) return this.fail(Status.BadKind);
        channel = readU32(chunk, i + 1);
        length = readU32(chunk, i + 5);
        i += HEADER_SIZE;
      } else {
        // A header cut across chunks: gather it byte by byte.
        while (this.headerFill < HEADER_SIZE && i < n) this.header[this.headerFill++] = chunk[i++];
        kind = this.header[0];
        if (kind !== KIND_RESPONSE && kind !== KIND_FINISH) return this.fail(Status.BadKind);
        if (this.headerFill < HEADER_SIZE) break;
        channel = readU32(this.header, 1);
        length = readU32(this.header, 5);
        this.headerFill = 0;
      }

      const verdict = this.judge(kind, channel, length);
      if (verdict.status !== Status.Ok) return this.fail(verdict.status);
      if (verdict.length < 0) {
        this.sink.finish(channel, this.recordOffset);
        this.recordOffset += HEADER_SIZE;
        continue;
      }
      this.channel = channel;
      if (n - i >= length) {
        // The whole payload is in this chunk: a view, no copy.
        i += length;
        this.completeResponse(chunk.subarray(i - length, i));
      } else {
        this.payload = new HeldBytes(length);
      }
    }
    return null;
  }

  private completeResponse(payload: Uint8Array): void {
    const offset = this.recordOffset;
    this.recordOffset += HEADER_SIZE + payload.length;
    this.sink.response(this.channel, payload, offset, undefined);
  }

  end(): RecordFault | null {
    if (this.failed) return this.failed;
    if (this.headerFill > 0 || this.payload !== null) return this.fail(Status.Truncated);
    return null;
  }
}
