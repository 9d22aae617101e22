// The validating relay: every valid record forwarded byte for byte, nothing
// broken forwarded, no downstream exchange left hanging.
//
// # What reaches downstream (WIRE.md sections 2 and 3)
//
//   a valid response         forwarded as it came, then its finish
//   a response that fails    not forwarded; its finish goes alone: not carried
//   an extra response        dropped; the channel's first answer stands
//   a record error           a finish for every open channel, in opening
//                            order, then the output errors
//   upstream ends            a finish for every open channel, in opening
//                            order, then the output closes
//
// # Views, not copies
//
// A record that lies whole inside an input chunk goes downstream as a
// subarray of that chunk, and neighbouring forwarded records go as one view.
// A record cut across chunks goes downstream as the views of the chunks it
// came in, kept until the reader has the whole record and it has passed:
// the relay itself copies nothing. (The reader holds its own copy of a cut
// record to check it whole; that is the copy the chunking forces.)

import type { Backend } from '../backend/backend.js';
import { defaultBackend } from '../backend/default.js';
import { toFrameError } from '../frame/codec.js';
import type { FrameCodec } from '../frame/codec.js';
import { FrameError } from '../frame/frame-error.js';
import { resolveLimits, type StreamLimits } from '../records/limits.js';
import type { RecordReader, RecordSink } from '../records/reader.js';
import { RecordError, type RecordFault } from '../records/record-error.js';
import { encodeFinish, HEADER_SIZE } from '../records/record.js';
import type { FrameFault } from '../backend/backend.js';
import type { RelayFault } from './fault.js';
import { OutputQueue } from './output-queue.js';

/** How much the relay checks of each response. */
export type ValidationLevel = 'json' | 'full' | 'none';

const LEVELS: readonly ValidationLevel[] = ['json', 'full', 'none'];

export interface RelayOptions extends StreamLimits {
  /** 'json' (default): tag and strict JSON text; 'full': also the endpoint's schema; 'none': records and sequences only. */
  validate?: ValidationLevel;
  /** The endpoint codec for 'full', one for all channels or chosen per channel. */
  endpoint?: FrameCodec<unknown> | ((channel: number) => FrameCodec<unknown>);
  /** The backend that checks bytes; the default backend if left out. */
  backend?: Backend;
  /** Called once per fault, synchronously, in stream order. */
  onFault?: (fault: RelayFault) => void;
  /** Bytes the output may queue before the input waits. Default 1 MiB. */
  highWaterMark?: number;
}

export interface Relay {
  readonly writable: WritableStream<Uint8Array>;
  readonly readable: ReadableStream<Uint8Array>;
}

interface OpenChannel {
  /** Offset of the response that opened the channel. */
  offset: number;
}

/** The relay's state machine, apart from the streams around it. */
export class RelayCore implements RecordSink {
  private readonly reader: RecordReader;
  private readonly open = new Map<number, OpenChannel>();
  private readonly maxOpenChannels: number;
  private readonly level: ValidationLevel;
  /** How many faults were reported. */
  faultCount = 0;
  /** The chunk being read, and its offset in the stream. */
  private chunk: Uint8Array = new Uint8Array(0);
  private chunkBase = 0;
  /** A run of forwarded bytes in the chunk, not yet handed on. */
  private runStart = 0;
  private runEnd = 0;
  /** Stream offset just past the last whole record. */
  private lastEnd = 0;
  /** Views of the input that hold the cut record's bytes so far. */
  private pending: Uint8Array[] = [];
  /** Set once upstream ended, failed, or stopped on a record error: nothing more is read. */
  private done = false;
  private stopped: RecordFault | null = null;

  constructor(
    private readonly options: RelayOptions,
    private readonly backend: Backend,
    private readonly forward: (bytes: Uint8Array) => void,
  ) {
    const limits = resolveLimits(options);
    this.maxOpenChannels = limits.maxOpenChannels;
    this.level = options.validate ?? 'json';
    if (!LEVELS.includes(this.level)) throw new RangeError(`validate must be one of ${LEVELS.join(', ')}, not '${String(this.level)}'`);
    if (this.level === 'full' && !options.endpoint) throw new TypeError("validate 'full' needs an endpoint codec to judge results by");
    this.reader = backend.createReader({ maxFrameBytes: limits.maxFrameBytes, verify: this.level !== 'none' }, this);
  }

  private report(fault: RelayFault): void {
    this.faultCount++;
    this.options.onFault?.(fault);
  }

  /** Reads a chunk; forwards what it may. Returns the record error that stopped the stream, or null. */
  push(chunk: Uint8Array): RecordFault | null {
    if (this.done) return this.stopped;
    this.chunk = chunk;
    this.runStart = this.runEnd = 0;
    const fault = this.reader.push(chunk);
    this.flush();
    const chunkEnd = this.chunkBase + chunk.length;
    if (this.lastEnd < chunkEnd) {
      // A record is cut at the end of this chunk: keep its bytes as views.
      if (this.lastEnd >= this.chunkBase) this.pending = [chunk.subarray(this.lastEnd - this.chunkBase)];
      else this.pending.push(chunk);
    }
    this.chunkBase = chunkEnd;
    this.chunk = new Uint8Array(0);
    if (fault) this.stop(fault);
    return fault;
  }

  /** Upstream ended. Returns the record error when it ended inside a record. */
  end(): RecordFault | null {
    if (this.done) return this.stopped;
    const fault = this.reader.end();
    if (fault) this.stop(fault);
    else this.finishOpenChannels(true);
    return fault;
  }

  /** Upstream failed: finish every open channel downstream, each reported incomplete. */
  abort(): void {
    if (!this.done) this.finishOpenChannels(true);
  }

  /** A record error: every open channel is finished downstream, and only the record error is reported. */
  private stop(fault: RecordFault): void {
    this.stopped = fault;
    this.finishOpenChannels(false);
    this.report({ reason: fault.reason, offset: fault.offset });
  }

  /** Sends a finish for every open channel, in opening order; the stream takes nothing more. */
  private finishOpenChannels(reportEach: boolean): void {
    this.done = true;
    this.flush(); // records already passed in this chunk go first (a callback may have thrown mid-chunk)
    this.pending = [];
    const open = [...this.open];
    this.open.clear();
    // Every finish goes out before any report, so a callback that throws cannot leave a channel hanging.
    for (const [channel] of open) this.forward(encodeFinish(channel));
    if (reportEach) for (const [channel, { offset }] of open) this.report({ reason: 'incomplete', channel, offset });
  }

  // The sink: called by the reader in stream order.

  admits(channel: number): boolean {
    return this.open.size < this.maxOpenChannels || this.open.has(channel);
  }

  response(channel: number, payload: Uint8Array, offset: number, fault: FrameFault | null | undefined): void {
    this.lastEnd = offset + HEADER_SIZE + payload.length;
    if (this.open.has(channel)) {
      this.report({ reason: 'sequence-violation', channel, offset });
      this.drop();
      return;
    }
    this.open.set(channel, { offset });
    const failed = this.judge(channel, payload, fault);
    if (failed) {
      this.report({ reason: 'frame-error', channel, offset, frame: failed.toJSON() });
      this.drop();
      return;
    }
    this.pass(offset, HEADER_SIZE + payload.length);
  }

  finish(channel: number, offset: number): void {
    this.lastEnd = offset + HEADER_SIZE;
    this.open.delete(channel);
    this.pass(offset, HEADER_SIZE);
  }

  /** The frame's failure, or null when it passes at the configured level. */
  private judge(channel: number, payload: Uint8Array, fault: FrameFault | null | undefined): FrameError | null {
    const level = this.level;
    if (level === 'none') return null;
    const verdict = fault === undefined ? this.backend.verifyFrame(payload) : fault;
    if (verdict) return toFrameError(verdict, payload);
    if (level === 'json') return null;
    const endpoint = this.options.endpoint!;
    const codec = typeof endpoint === 'function' ? endpoint(channel) : endpoint;
    const frame = codec.build(payload, null);
    return frame instanceof FrameError ? frame : null;
  }

  /** A record that is not forwarded: forget the views of its earlier bytes. */
  private drop(): void {
    this.pending = [];
  }

  /**
   * Forwards the record at stream offset `offset` as views of the input:
   * the views kept for its earlier bytes when it began in an earlier chunk,
   * and its bytes in this chunk as part of the current run.
   */
  private pass(offset: number, length: number): void {
    let start = offset - this.chunkBase;
    if (start < 0) {
      this.flush();
      for (const view of this.pending) this.forward(view);
      this.pending = [];
      this.runStart = this.runEnd = start = 0;
      length = offset + length - this.chunkBase;
    }
    if (start !== this.runEnd) {
      this.flush();
      this.runStart = start;
    }
    this.runEnd = start + length;
  }

  private flush(): void {
    if (this.runEnd > this.runStart) this.forward(this.chunk.subarray(this.runStart, this.runEnd));
    this.runStart = this.runEnd;
  }
}

/**
 * A relay: write record bytes to `writable`, read the validated stream from
 * `readable`. Use it as a TransformStream (`source.pipeThrough(relay)`).
 */
export function createRelay(options: RelayOptions = {}): Relay {
  const highWaterMark = options.highWaterMark ?? 1 << 20;
  if (!(highWaterMark >= 0) || !Number.isFinite(highWaterMark))
    throw new RangeError(`highWaterMark must be a finite number of bytes, not ${highWaterMark}`);
  const output = new OutputQueue(highWaterMark);
  const core = new RelayCore(options, options.backend ?? defaultBackend(), (bytes) => output.enqueue(bytes));

  /** The output ends in `error`, after a finish for every open channel; the input then errors too. */
  const fail = (error: unknown): never => {
    try {
      core.abort();
    } catch {
      // an onFault that throws again changes nothing now
    }
    output.errorAfterDrain(error);
    throw error;
  };
  const stopIfCancelled = () => {
    if (output.cancelled) fail(output.cancelled.reason);
  };

  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      stopIfCancelled();
      let fault: RecordFault | null;
      try {
        fault = core.push(chunk);
      } catch (error) {
        return fail(error);
      }
      if (fault) {
        const error = new RecordError(fault);
        output.errorAfterDrain(error);
        throw error;
      }
      await output.room();
      stopIfCancelled();
    },
    close() {
      let fault: RecordFault | null;
      try {
        fault = core.end();
      } catch (error) {
        return fail(error);
      }
      if (fault) output.errorAfterDrain(new RecordError(fault));
      else output.close();
    },
    abort(reason) {
      try {
        core.abort();
      } finally {
        output.errorAfterDrain(reason);
      }
    },
  });
  return { writable, readable: output.readable };
}
