// A record stream in, channel outcomes out: the incremental decoder.
//
// Feed it chunks split at any byte with push(), then call end(). Each call
// returns the events that became known during it, in order: outcomes as
// their finishes arrive, and at the end (or at a record error) the
// incomplete channels in opening order, then exactly one StreamEnd. After a
// record error the decoder takes nothing more.
//
// A chunk is a Uint8Array (a Buffer is one); any other view of bytes, or an
// ArrayBuffer, is read as its bytes, and anything else is a TypeError: a
// string or an ArrayBuffer read as no bytes at all ended a stream of records
// 'ok'. A callback of the caller's (onRecord, an endpoint function) that
// throws stops the decoder where it threw: push() throws it, and every call
// after throws it again, since the records after it were never read and the
// outcomes it would give (a channel not carried whose response came, a
// stream 'ok') would be false.

import type { Backend, PublicBackend } from '../backend/backend.js';
import { checkBackend, defaultBackend } from '../backend/default.js';
import { resolveLimits, type StreamLimits } from '../records/limits.js';
import type { RecordReader } from '../records/reader.js';
import type { RecordFault } from '../records/record-error.js';
import { asBytes } from '../records/record.js';
import { type CodecChoice, isCodec } from '../frame/build.js';
import { ChannelSequence, type RecordInfo } from './sequence.js';
import type { StreamEvent } from './outcome.js';

export interface StreamDecoderOptions<R> extends StreamLimits {
  /** The codec for every channel, or a function choosing one per channel. */
  endpoint: CodecChoice<R>;
  /** The backend that checks bytes; the default backend if left out. */
  backend?: PublicBackend;
  /** Told of every record as it is read, before its outcome: for metrics and logs. */
  onRecord?: (record: RecordInfo) => void;
}

export class StreamDecoder<R = unknown> {
  private readonly reader: RecordReader;
  private readonly sequence: ChannelSequence<R>;
  private events: StreamEvent<R>[] = [];
  private done = false;
  /** What a callback threw, once one has: the decoder stops there. */
  private broken: { error: unknown } | null = null;
  /** The backend that checks this stream's bytes. */
  readonly backend: PublicBackend;
  private readonly checks: Backend;

  constructor(options: StreamDecoderOptions<R>) {
    const limits = resolveLimits(options);
    const { endpoint } = options;
    if (typeof endpoint !== 'function' && !isCodec(endpoint)) {
      throw new TypeError('endpoint must be a codec, or a function choosing one per channel');
    }
    // One that is no function broke the decoder at the first record, with "onRecord is not a function".
    if (options.onRecord !== undefined && typeof options.onRecord !== 'function') {
      throw new TypeError(`onRecord must be a function, not ${typeof options.onRecord}`);
    }
    this.checks = options.backend == null ? defaultBackend() : checkBackend(options.backend, 'the backend option');
    this.backend = this.checks;
    this.sequence = new ChannelSequence<R>(options.endpoint, this.checks, limits, (o) => this.events.push(o), options.onRecord);
    this.reader = this.checks.createReader({ maxFrameBytes: limits.maxFrameBytes }, this.sequence);
  }

  /** Bytes of the stream taken in so far. */
  get position(): number {
    return this.reader.position;
  }

  /** Reads a chunk; returns the events it made known. */
  push(chunk: Uint8Array): StreamEvent<R>[] {
    if (this.broken) throw this.broken.error;
    if (this.done) return [];
    const bytes = asBytes(chunk);
    const fault = this.guard(() => this.reader.push(bytes));
    if (fault) this.stop(fault);
    return this.take();
  }

  /** The stream ended; returns the last events, ending with the StreamEnd. */
  end(): StreamEvent<R>[] {
    if (this.broken) throw this.broken.error;
    if (this.done) return [];
    this.stop(this.guard(() => this.reader.end()));
    return this.take();
  }

  /**
   * The stream's source failed (a reset, a read error) after what was
   * pushed: every open channel is incomplete, in opening order, and the
   * StreamEnd names the failure. Whatever record was partly read is lost
   * with the source; it is no record error of the stream's.
   */
  fail(error: unknown): StreamEvent<R>[] {
    if (this.broken) throw this.broken.error;
    if (this.done) return [];
    this.done = true;
    this.guard(() => this.sequence.close());
    this.events.push({ end: 'input-error', error });
    return this.take();
  }

  /** Runs `step`; what a callback throws in it breaks the decoder, and goes on to the caller. */
  private guard<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.broken = { error };
      this.done = true;
      this.events = [];
      throw error;
    }
  }

  private stop(fault: RecordFault | null): void {
    this.done = true;
    this.guard(() => this.sequence.close());
    this.events.push(fault ? { end: 'record-error', reason: fault.reason, offset: fault.offset } : { end: 'ok' });
  }

  private take(): StreamEvent<R>[] {
    const out = this.events;
    this.events = [];
    return out;
  }
}

/** Decodes a whole stream held in memory, or given as chunks. */
export function decodeStream<R>(chunks: Uint8Array | Iterable<Uint8Array>, options: StreamDecoderOptions<R>): StreamEvent<R>[] {
  const decoder = new StreamDecoder<R>(options);
  const events: StreamEvent<R>[] = [];
  for (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) for (const e of decoder.push(chunk)) events.push(e);
  for (const e of decoder.end()) events.push(e);
  return events;
}
