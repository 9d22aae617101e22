// Finding records in chunks split at any byte (WIRE.md section 3): the one record reader, over any backend's scan kernel.
//
// # Who does what
//
// A backend supplies only a scan kernel: given bytes, it finds the whole
// records in them, checks each header (kind, a finish's zero length, the
// frame limit) and, when asked, each response's frame, writes one entry per
// record into a table, and says why it stopped (the end, a record cut by
// the end, a record error, a full table). The kernel of the WebAssembly
// backend does that in the core, in one call per run of bytes; the pure-JS
// kernel does it in place. Everything between chunks happens here, once,
// for both: windows, the record cut across chunks, truncation, the offsets
// in the stream, and delivery to the sink in stream order.
//
// # Checked from the header, before anything is buffered
//
// A cut record's header is judged as soon as it is whole, by the kernel,
// and then by the sink, which knows the open channels (the channel and held
// limits). Only then are its payload bytes kept. A record that is whole
// inside a chunk is handed on where it lies, with no copy.
//
// # Incomplete is not malformed
//
// A record cut at the end of a chunk is waited for. Only end() turns a cut
// record into the record error `truncated`.
//
// PERF NOTES: the bet is that most bytes come in records that are whole in
// their chunk (scanned in one kernel call, delivered with no allocation) or
// in long records cut across many chunks (each chunk appended to one
// reused buffer with one copy, the record scanned once when whole). Per
// record, JS reads six integers from the table and makes one sink call;
// payloads are passed as (bytes, start, length), never as a new view. A
// sink that takes a scan's records at once (the relay) makes no call per
// record at all.

import { Status } from '../wire/status.js';
import { HeldRecord } from './held-record.js';
import { HEADER_SIZE, KIND_FINISH } from './record.js';
import { type RecordFault, recordFault } from './record-error.js';

/** A response's status when the reader was not asked to check frames. */
export const NOT_VERIFIED = -1;

/** i32 fields per table entry: kind, channel, record offset, payload length, status, fault offset. */
export const ENTRY_FIELDS = 6;

/**
 * In place of the fault offset of a response whose frame passes, and as
 * the status of a KIND_RUN: the kernel proved that the reader's schema
 * (ReaderLimits.schema) accepts the frame, or every frame of the run.
 */
export const PROVEN = 1;

/**
 * An entry's kind for a run of folded exchanges (see Fold): its channel
 * field holds how many exchanges, its offset and length their bytes.
 */
export const KIND_RUN = 0x03;

/** Most open channels a Fold carries. */
export const FOLD_MAX = 8;

/**
 * What a kernel needs to fold whole exchanges into runs: a response whose
 * frame passes, followed at once by its finish, on a channel not open, that
 * the limits admit. Such a pair opens and closes its channel, and goes on
 * whole, so the kernel writes one KIND_RUN entry for consecutive pairs in
 * place of two entries each, and every other record as an entry. It tracks
 * the channels those entries open and close from the sink's open channels,
 * which it is given here, and stops folding when they outnumber FOLD_MAX.
 */
export interface Fold {
  /** Channels open now, their ids and payload lengths in the first `count` places; -1 folds nothing. */
  count: number;
  readonly ids: Uint32Array;
  readonly lengths: Float64Array;
  /** Payload bytes the open channels hold, and the two limits (WIRE.md section 6). */
  held: number;
  maxOpen: number;
  maxHeld: number;
}

export interface ReaderLimits {
  /** The largest payload a response may declare (WIRE.md section 6). */
  readonly maxFrameBytes: number;
  /**
   * Whether to check each response's frame (tag and rule 4.1) as it is
   * read: the kernel does it in the same pass. Default true; a relay that
   * validates nothing turns it off.
   */
  readonly verify?: boolean;
  /**
   * The schema of every result frame, where the kernel can judge it in the
   * same pass (the core, in its SIMD build): entries then say which frames
   * it proved (PROVEN). A proof only ever says "accepted"; what it leaves
   * unproven, the sink judges. Only with verify.
   */
  readonly schema?: object;
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
   * A whole response at stream offset `offset`. Its payload is
   * `bytes[start, start + length)`, valid only during the call (it may lie
   * in the caller's chunk, or in memory the reader reuses). `status` is the
   * frame's verdict (Status.Ok or a frame fault, whose payload offset is
   * `faultOffset`), or NOT_VERIFIED. For Status.Ok, `faultOffset` is
   * PROVEN where the kernel proved the reader's schema accepts the frame.
   */
  response(channel: number, offset: number, bytes: Uint8Array, start: number, length: number, status: number, faultOffset: number): void;
  /** A finish for `channel` at stream offset `offset`. */
  finish(channel: number, offset: number): void;
  /**
   * Optional: takes a scan's records all at once, in place of one admit(),
   * response() or finish() call each, with the same verdicts in the same
   * order; `streamBase` is the stream offset of the scan's offset 0 and
   * `verify` whether the entries' statuses are verdicts (else each is
   * NOT_VERIFIED). Returns how many entries it took: all of them, or fewer
   * when the next is a response whose header admit() refuses (the reader
   * asks admit() again, for the record error, and stops there).
   */
  records?(scan: Scan, streamBase: number, verify: boolean): number;
  /**
   * Optional, with records(): the sink's open channels before each scan of
   * whole records, for a kernel that folds exchanges (KIND_RUN entries then
   * reach records()); null to fold nothing in that scan.
   */
  fold?(): Fold | null;
  /**
   * Optional: the records of one scan have all been handed over, and the
   * bytes their payloads lie in are about to go back (to the caller, or to
   * a buffer or core the reader reuses). A sink that keeps a payload past
   * this copies it now.
   */
  settle?(): void;
}

/** What one kernel call found: entries in `table`, offsets relative to where the scan started. */
export interface Scan {
  /** Entries written. */
  count: number;
  /** count × ENTRY_FIELDS integers. */
  readonly table: Int32Array;
  /** Why the scan stopped: a status; the stop offset; and for a response cut after its header, 1, its channel and its length. */
  readonly stop: Int32Array;
  /** Where the scanned bytes lie now, and the index in it where the scan started. */
  readonly bytes: Uint8Array;
  readonly base: number;
  /** Scans on from the stop offset (after Status.TableFull), over the same bytes. */
  more(): void;
  /** The entries were read: the kernel may reuse its memory. Calling it again does nothing. */
  done(): void;
}

/** A record cut across chunks, held by the kernel where it will scan it. */
export interface InPlaceRecord {
  /** Bytes held so far. */
  readonly length: number;
  append(bytes: Uint8Array, start: number, end: number): void;
  /** Scans the whole record where it lies; the Scan's done() lets the place go. */
  scan(maxFrame: number, verify: boolean): Scan;
  /** Lets the place go without scanning (the stream stopped). */
  release(): void;
}

/** A backend's record scanner. */
export interface ScanKernel {
  /** Scans the records in bytes[from, to); a kernel may fold exchanges, asking `fold` before each call of the core. */
  scan(bytes: Uint8Array, from: number, to: number, maxFrame: number, verify: boolean, fold?: (() => Fold | null) | null): Scan;
  /** The most bytes one scan should take, for this frame limit; a record never spans two windows of a chunk. */
  window(maxFrame: number): number;
  /**
   * Optional: holds a long cut record where the kernel scans, starting with
   * prefix[start, end), so that its bytes are copied once. null when it
   * cannot now; the reader then holds the record itself.
   */
  holdInPlace?(prefix: Uint8Array, start: number, end: number): InPlaceRecord | null;
}

/** A cut record this long or longer is held by the kernel in place, when it can. */
const IN_PLACE_FROM = 64 * 1024;

export class RecordReader {
  /** Stream offset of the next byte not yet in a whole record or the held record. */
  private base = 0;
  /** The record cut across chunks, as it arrives: in the reader's buffer, or in the kernel's place. */
  private readonly held = new HeldRecord();
  private inPlace: InPlaceRecord | null = null;
  /** The held record's whole size once its header is judged, else 0 (fewer than 9 bytes held). */
  private need = 0;
  private failed: RecordFault | null = null;
  private readonly verify: boolean;
  /** The sink's open channels, for a kernel that folds exchanges; null when the sink takes no runs. */
  private readonly fold: (() => Fold | null) | null;

  constructor(
    private readonly kernel: ScanKernel,
    private readonly limits: ReaderLimits,
    private readonly sink: RecordSink,
  ) {
    this.verify = limits.verify ?? true;
    this.fold = sink.records && sink.fold ? () => sink.fold!() : null;
  }

  /** Bytes of the stream taken in so far. */
  get position(): number {
    return this.base + this.heldLength();
  }

  private heldLength(): number {
    return this.inPlace ? this.inPlace.length : this.held.length;
  }

  /** Bytes of memory the reader's own buffer holds now (for the bound tests; a record held in place is the kernel's). */
  get heldCapacity(): number {
    return this.held.capacity;
  }

  private fail(status: number, offset: number): RecordFault {
    this.failed = recordFault(status, offset);
    this.held.clear();
    this.inPlace?.release();
    this.inPlace = null;
    return this.failed;
  }

  /** Reads a chunk. Returns the record error that stops the stream, or null. */
  push(chunk: Uint8Array): RecordFault | null {
    if (this.failed) return this.failed;
    let from = this.heldLength() > 0 ? this.fillHeld(chunk) : 0;
    if (this.failed || this.heldLength() > 0) return this.failed;
    const window = this.kernel.window(this.limits.maxFrameBytes);
    const chunkBase = this.base - from;
    while (from < chunk.length && !this.failed) {
      const to = chunk.length - from <= window ? chunk.length : from + window;
      from = this.scanRun(chunk, from, to, chunkBase);
    }
    return this.failed;
  }

  /**
   * Scans chunk[from, to), delivers its records, and holds a record cut at
   * the chunk's end. Returns where the next run starts: `to`, or the start
   * of a record the window cut.
   */
  private scanRun(chunk: Uint8Array, from: number, to: number, chunkBase: number): number {
    const scan = this.kernel.scan(chunk, from, to, this.limits.maxFrameBytes, this.verify, this.fold);
    try {
      for (let start = from; ; ) {
        if (!this.deliver(scan, chunkBase + start)) return to;
        const stop = scan.stop;
        const at = start + (stop[1] >>> 0);
        switch (stop[0]) {
          case Status.TableFull:
            start = at;
            scan.more();
            continue;
          case Status.Ok:
            this.base = chunkBase + to;
            return to;
          case Status.Incomplete: {
            this.base = chunkBase + at;
            // A window cut it, not the chunk: the next window starts there, unless the
            // record starts this window, and so is longer than any window (a frame past
            // 2^31 - 9 bytes under a limit raised that far): the next window would start
            // where this one did, for ever. It is held as a record cut by the chunk is,
            // up to its end or the chunk's, and scanned whole once it is whole.
            // (A header is 9 bytes and a window at least 1 MiB: a header the window cuts never starts it.)
            if (to < chunk.length && (at > from || stop[2] === 0)) return at;
            if (stop[2] !== 0 && !this.admit(stop[3] >>> 0, stop[4] >>> 0, this.base)) return to;
            this.need = stop[2] !== 0 ? HEADER_SIZE + (stop[4] >>> 0) : 0;
            const end = to < chunk.length ? Math.min(chunk.length, at + this.need) : to;
            // The scan's memory goes back first: the kernel may hold the record in it.
            scan.done();
            this.hold(chunk, at, end);
            if (to < chunk.length && this.heldLength() === this.need) this.completeHeld();
            return end;
          }
          default:
            this.fail(stop[0], chunkBase + at);
            return to;
        }
      }
    } finally {
      scan.done();
    }
  }

  /** Starts holding a cut record with bytes[start, end): in the kernel's place when it is long and the kernel can. */
  private hold(bytes: Uint8Array, start: number, end: number): void {
    if (this.need >= IN_PLACE_FROM && this.kernel.holdInPlace) this.inPlace = this.kernel.holdInPlace(bytes, start, end);
    this.held.begin();
    if (!this.inPlace) this.held.append(bytes, start, end);
  }

  /** The sink's verdict on a response header; false (and failed) when it refuses. */
  private admit(channel: number, length: number, offset: number): boolean {
    const status = this.sink.admit(channel, length);
    if (status === Status.Ok) return true;
    this.fail(status, offset);
    return false;
  }

  /**
   * Feeds the held record from the chunk's start: first its header (judged
   * by the kernel once it is whole), then its payload. Delivers it when it
   * is whole. Returns how many bytes of the chunk it took.
   */
  private fillHeld(chunk: Uint8Array): number {
    let i = 0;
    if (this.need === 0) {
      i = Math.min(HEADER_SIZE - this.held.length, chunk.length);
      this.held.append(chunk, 0, i);
      if (this.held.length < HEADER_SIZE) return i;
      // The header is whole: the kernel judges it as it judges any record.
      if (!this.judgeHeldHeader()) return i;
      if (this.heldLength() === 0) return i; // it was a whole record by itself (a finish, an empty response)
    }
    const take = Math.min(this.need - this.heldLength(), chunk.length - i);
    if (this.inPlace) this.inPlace.append(chunk, i, i + take);
    else this.held.append(chunk, i, i + take);
    i += take;
    if (this.heldLength() === this.need) this.completeHeld();
    return i;
  }

  /** Judges the held header; sets `need`, or delivers a header-only record. False when the stream stopped. */
  private judgeHeldHeader(): boolean {
    const scan = this.kernel.scan(this.held.buffer, 0, HEADER_SIZE, this.limits.maxFrameBytes, this.verify);
    try {
      if (!this.deliver(scan, this.base)) return false;
      const stop = scan.stop;
      if (stop[0] === Status.Ok) {
        this.base += HEADER_SIZE;
        this.held.reset();
        return true;
      }
      if (stop[0] !== Status.Incomplete) {
        this.fail(stop[0], this.base);
        return false;
      }
      if (!this.admit(stop[3] >>> 0, stop[4] >>> 0, this.base)) return false;
      this.need = HEADER_SIZE + (stop[4] >>> 0);
      // The header is all that is held so far; a long record moves to the kernel's place now.
      if (this.need >= IN_PLACE_FROM && this.kernel.holdInPlace) this.hold(this.held.buffer, 0, HEADER_SIZE);
      return true;
    } finally {
      scan.done();
    }
  }

  /** The held record is whole: scan it (the frame is checked now) and deliver it. */
  private completeHeld(): void {
    const inPlace = this.inPlace;
    this.inPlace = null;
    const scan = inPlace
      ? inPlace.scan(this.limits.maxFrameBytes, this.verify)
      : this.kernel.scan(this.held.buffer, 0, this.need, this.limits.maxFrameBytes, this.verify);
    try {
      if (!this.deliver(scan, this.base)) return;
      if (scan.stop[0] !== Status.Ok) {
        this.fail(scan.stop[0], this.base);
        return;
      }
    } finally {
      scan.done();
    }
    this.base += this.need;
    this.need = 0;
    this.held.reset();
  }

  /** Hands the scan's entries to the sink, in order. False when the sink stopped the stream. */
  private deliver(scan: Scan, streamBase: number): boolean {
    const { table, count, bytes, base } = scan;
    const sink = this.sink;
    const verify = this.verify;
    if (sink.records) {
      const taken = sink.records(scan, streamBase, verify);
      if (taken < count) {
        const e = taken * ENTRY_FIELDS;
        if (!this.admit(table[e + 1] >>> 0, table[e + 3] >>> 0, streamBase + (table[e + 2] >>> 0))) return false;
        throw new Error(`mcp-frames: a sink took ${taken} of ${count} records, and admits the next`);
      }
      sink.settle?.();
      return true;
    }
    for (let k = 0, e = 0; k < count; k++, e += ENTRY_FIELDS) {
      const channel = table[e + 1] >>> 0;
      const at = table[e + 2] >>> 0;
      if (table[e] === KIND_FINISH) {
        sink.finish(channel, streamBase + at);
        continue;
      }
      const length = table[e + 3] >>> 0;
      if (!this.admit(channel, length, streamBase + at)) return false;
      sink.response(channel, streamBase + at, bytes, base + at + HEADER_SIZE, length, verify ? table[e + 4] : NOT_VERIFIED, table[e + 5]);
    }
    sink.settle?.();
    return true;
  }

  /** The stream ended: `truncated` when a record was cut, else null. */
  end(): RecordFault | null {
    if (this.failed) return this.failed;
    if (this.heldLength() > 0) return this.fail(Status.Truncated, this.base);
    // Nothing more is read: the buffer can serve another stream.
    this.held.clear();
    return null;
  }
}
