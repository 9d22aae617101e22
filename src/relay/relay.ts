// The validating relay: every valid record forwarded byte for byte, nothing
// broken forwarded, no downstream exchange left hanging.
//
// # What reaches downstream (WIRE.md sections 2, 3 and 7)
//
//   a valid response         forwarded as it came, then its finish
//   a response that fails    not forwarded; its finish goes alone: not carried
//   an extra response        dropped; the channel's first answer stands
//   a record error           a finish for every open channel, in opening
//                            order, then the output errors
//   upstream ends            a finish for every open channel, in opening
//                            order, then the output closes
//
// # Views where they pay, copies where they are small
//
// A record that lies whole inside an input chunk goes downstream as a
// subarray of that chunk, and neighbouring forwarded records go as one view.
// A record cut across chunks goes as views of the chunks it came in, kept
// until the reader has the whole record and it has passed. A view costs an
// object of its own whatever its length, so pieces shorter than COPY_BELOW
// are copied instead, into the cut record's buffer or into one outgoing
// chunk with their neighbours: a stream sent a byte at a time, or a flood
// of 9-byte finishes, costs memory and queue slots in proportion to its
// bytes, not to its chunks.

import type { Backend, PublicBackend } from '../backend/backend.js';
import { frameFault } from '../wire/fault.js';
import { Status } from '../wire/status.js';
import { checkBackend, defaultBackend } from '../backend/default.js';
import { type CodecChoice, codecFor, isCodec, judgeFrame } from '../frame/build.js';
import { type FrameErrorJSON, frameErrorJSON } from '../frame/frame-error.js';
import type { FrameCodec } from '../frame/frame.js';
import { resolveLimits, type StreamLimits } from '../records/limits.js';
import { ALREADY_OPEN, OpenChannels } from '../exchange/open-channels.js';
import {
  ENTRY_FIELDS,
  type Fold,
  FOLD_MAX,
  KIND_RUN,
  NOT_VERIFIED,
  PROVEN,
  type RecordReader,
  type RecordSink,
  type Scan,
} from '../records/reader.js';
import { RecordError, type RecordFault } from '../records/record-error.js';
import { asBytes, encodeFinish, HEADER_SIZE, KIND_FINISH, KIND_RESPONSE, readU32 } from '../records/record.js';
import type { RelayFault } from './fault.js';
import { OutputQueue } from './output-queue.js';

/**
 * Codecs chosen per channel by what follows each channel's exchanges (the
 * request lines a relay reads: request-lines.ts), told when each exchange
 * ends: its finish has been forwarded.
 */
export interface ChannelCodecs {
  codecOf(channel: number): FrameCodec<unknown> | undefined;
  finished(channel: number): void;
}

/** The codec of each channel for 'full': one for all, or chosen per channel (none: the channel's frame is refused). */
export type RelayEndpoint = CodecChoice<unknown> | ((channel: number) => FrameCodec<unknown> | undefined) | ChannelCodecs;

function isChannelCodecs(endpoint: unknown): endpoint is ChannelCodecs {
  return typeof endpoint === 'object' && endpoint !== null && typeof (endpoint as ChannelCodecs).codecOf === 'function';
}

/** The refusal of a frame on a channel whose codec no one named (WIRE.md section 8): it cannot be judged by a schema. */
const UNJUDGED: FrameErrorJSON = Object.freeze({
  reason: 'body',
  rule: 'schema',
  offset: 1,
  message: 'no codec for this channel (no request line named its method): its frame cannot be judged by a schema',
}) as FrameErrorJSON;

/** How much the relay checks of each response. */
export type ValidationLevel = 'json' | 'full' | 'none';

export const VALIDATION_LEVELS: readonly ValidationLevel[] = ['json', 'full', 'none'];

export interface RelayOptions extends StreamLimits {
  /** 'json' (default): tag and strict JSON text; 'full': also the endpoint's schema; 'none': records and sequences only. */
  validate?: ValidationLevel;
  /**
   * The endpoint codec for 'full', one for all channels or chosen per
   * channel. A choice that gives none for a channel refuses its frame: it
   * cannot be judged by a schema.
   */
  endpoint?: RelayEndpoint;
  /** The backend that checks bytes; the default backend if left out. */
  backend?: PublicBackend;
  /** Called once per fault, synchronously, in stream order. */
  onFault?: (fault: RelayFault) => void;
  /**
   * Memory the output's waiting chunks may keep alive before the input
   * waits: each buffer counted once, whole, however little of it a waiting
   * view shows (a forwarded record is a view of its input chunk). Default
   * 1 MiB; 0 lets one chunk wait at a time.
   */
  highWaterMark?: number;
}

/** What a relay has done so far: live counters, read at any time. */
export interface RelayStats {
  /** Input chunks and bytes taken. */
  chunksIn: number;
  bytesIn: number;
  /** Records read: responses and finishes. */
  responsesIn: number;
  finishesIn: number;
  /** Records sent downstream: forwarded responses and finishes, and the finishes the relay added. */
  responsesOut: number;
  finishesOut: number;
  /** Output chunks and bytes the reader has taken (see also the queue's own counters). */
  chunksOut: number;
  bytesOut: number;
  /** Chunks and bytes waiting in the output queue now, and the most chunks that ever waited. */
  queuedChunks: number;
  queuedBytes: number;
  maxQueuedChunks: number;
  /** Memory the waiting chunks keep alive: each buffer they are views of, whole and once (what highWaterMark bounds). */
  queuedBufferBytes: number;
  /** Bytes the relay copied: small pieces gathered into one chunk (everything else goes as views). */
  bytesCopied: number;
  /** Faults reported, in all and by reason. */
  faults: number;
  faultsByReason: Partial<Record<RelayFault['reason'], number>>;
  /** Channels open now, and the payload bytes their responses hold (WIRE.md section 6). */
  openChannels: number;
  heldBytes: number;
  /**
   * The relay's time per response, measured per input chunk and divided:
   * the seconds spent taking each chunk (reading its records, checking
   * their frames, handing on what passes) are shared equally among the
   * responses that chunk completed; a chunk that completes none passes its
   * time on to the next that does. `validationSeconds` is the sum of that
   * time; `validationBuckets[k]` counts the responses whose share fell at
   * or below VALIDATION_BUCKETS[k] and above the bound before it (the last
   * entry: above every bound). Counted once per chunk, never per record.
   */
  validationSeconds: number;
  validationBuckets: number[];
}

/**
 * Upper bounds, in seconds, of the buckets of the per-response time: from
 * 100 ns (an 80-byte listing in a 64 KiB chunk) to 250 ms (a 16 MiB frame
 * on the JS path), about three to a decade.
 */
export const VALIDATION_BUCKETS: readonly number[] = [
  1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25,
];

export interface Relay {
  readonly writable: WritableStream<Uint8Array>;
  readonly readable: ReadableStream<Uint8Array>;
  /** Live counters. */
  readonly stats: Readonly<RelayStats>;
  /** Whether upstream is inside a record: part of one has arrived and the rest has not (an idle timer should run). */
  readonly inRecord: boolean;
}

/** Pieces shorter than this are copied (and sent with their neighbours); longer ones go as views. */
export const COPY_BELOW = 4096;

/** The output chunk small pieces are gathered in; at least COPY_BELOW, so any small piece fits after a flush. */
const GATHER_SIZE = 16 * 1024;

/** Most chunks the output may queue: the byte bound alone would let 9-byte finishes pile up by the hundred thousand. */
const MAX_QUEUED_CHUNKS = 1024;

function newStats(): RelayStats {
  return {
    chunksIn: 0,
    bytesIn: 0,
    responsesIn: 0,
    finishesIn: 0,
    responsesOut: 0,
    finishesOut: 0,
    chunksOut: 0,
    bytesOut: 0,
    queuedChunks: 0,
    queuedBytes: 0,
    maxQueuedChunks: 0,
    queuedBufferBytes: 0,
    bytesCopied: 0,
    faults: 0,
    faultsByReason: {},
    openChannels: 0,
    heldBytes: 0,
    validationSeconds: 0,
    validationBuckets: new Array<number>(VALIDATION_BUCKETS.length + 1).fill(0),
  };
}

/** Adds `count` responses of `seconds` each to the stats' per-response time. */
function countTime(stats: RelayStats, seconds: number, count: number): void {
  let k = 0;
  while (k < VALIDATION_BUCKETS.length && seconds > VALIDATION_BUCKETS[k]) k++;
  stats.validationBuckets[k] += count;
  stats.validationSeconds += seconds * count;
}

/** Whether view `b` starts where view `a` ends, in the same memory. */
function adjacent(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset + a.byteLength === b.byteOffset;
}

/** One view over two adjacent ones. */
function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength + b.byteLength);
}

/**
 * The gathering buffer no relay holds bytes in. Gathered bytes are sent at
 * the latest when the relay is done with its input chunk, so relays take
 * turns with one buffer; one that stopped mid-chunk (a callback threw)
 * keeps its own until it sends, and the next relay makes a new one. A
 * buffer per relay cost each TCP connection four fresh pages.
 */
let spareGather: Uint8Array | null = null;

function takeGatherBuffer(): Uint8Array {
  const buffer = spareGather ?? new Uint8Array(GATHER_SIZE);
  spareGather = null;
  return buffer;
}

/**
 * Where forwarded bytes go: long pieces on as views, short ones copied into
 * one gathering chunk. Each piece waits until the next comes, so that
 * views lying side by side in one buffer (the chunks of a record cut
 * across chunks sliced from one buffer, or the runs of one chunk) go on as
 * one; everything waiting is sent, in order, when the relay is done with
 * the current input chunk. A short piece that is all that goes out for a
 * chunk, and holds at least half of its buffer, goes on as a view too.
 *
 * PERF NOTES: a short piece that is all a chunk sends goes on as a view,
 * not a copy: a relay fed one small record per chunk spent 26% of its work
 * per 168-byte chunk in TypedArray slice (cpu profile, listing-small). The
 * half-its-buffer rule keeps such a view from holding more than twice its
 * bytes alive; a long view may keep far more alive, which the output queue
 * counts against its high-water mark, each buffer once (output-queue.ts).
 */
class Gatherer {
  /** The gathering buffer, while it holds bytes: taken from the spare, given back when they are sent. */
  private buffer: Uint8Array | null = null;
  private fill = 0;
  /** The last piece, not yet sent or copied. */
  private view: Uint8Array | null = null;

  constructor(
    private readonly send: (bytes: Uint8Array) => void,
    private readonly stats: RelayStats,
  ) {}

  put(bytes: Uint8Array): void {
    const view = this.view;
    if (view !== null) {
      if (adjacent(view, bytes)) {
        this.view = joined(view, bytes);
        return;
      }
      this.settle(view);
    }
    this.view = bytes;
  }

  /** The waiting piece leaves its place: a long one goes on, after the gathered bytes; a short one is gathered. */
  private settle(view: Uint8Array): void {
    this.view = null;
    if (view.length >= COPY_BELOW) {
      this.sendGathered();
      this.send(view);
      return;
    }
    if (this.fill + view.length > GATHER_SIZE) this.sendGathered();
    this.buffer ??= takeGatherBuffer();
    this.buffer.set(view, this.fill);
    this.fill += view.length;
    this.stats.bytesCopied += view.length;
  }

  private sendGathered(): void {
    const buffer = this.buffer;
    if (buffer === null) return;
    // The gathered bytes leave as a copy of their own: the buffer is reused.
    const gathered = this.fill > 0 ? buffer.slice(0, this.fill) : null;
    this.buffer = null;
    this.fill = 0;
    spareGather = buffer;
    if (gathered) this.send(gathered);
  }

  flush(): void {
    const view = this.view;
    if (view !== null) {
      if (this.fill === 0 && view.length < COPY_BELOW && 2 * view.length >= view.buffer.byteLength) {
        this.view = null;
        this.send(view);
        return;
      }
      this.settle(view);
    }
    this.sendGathered();
  }
}

/**
 * The bytes of a record cut across chunks so far: views of long pieces, and
 * short pieces copied into a buffer that grows with what arrives (at most
 * twice that), so its cost follows its bytes, whatever the chunking.
 */
class CutRecord {
  private parts: Uint8Array[] = [];
  private small: Uint8Array | null = null;
  private smallFill = 0;
  /** Where the unsealed part of `small` starts. */
  private smallStart = 0;

  constructor(private readonly stats: RelayStats) {}

  add(bytes: Uint8Array): void {
    if (bytes.length >= COPY_BELOW) {
      this.seal();
      const last = this.parts.length > 0 ? this.parts[this.parts.length - 1] : null;
      if (last && last.buffer !== this.small?.buffer && adjacent(last, bytes)) this.parts[this.parts.length - 1] = joined(last, bytes);
      else this.parts.push(bytes);
      return;
    }
    const need = this.smallFill + bytes.length;
    if (this.small === null || need > this.small.length) {
      // A new buffer: the bytes still unsealed move with it.
      const grown = new Uint8Array(Math.max(need - this.smallStart, (this.small?.length ?? 0) * 2, 64));
      if (this.small) grown.set(this.small.subarray(this.smallStart, this.smallFill));
      this.smallFill -= this.smallStart;
      this.smallStart = 0;
      this.small = grown;
    }
    this.small.set(bytes, this.smallFill);
    this.smallFill += bytes.length;
    this.stats.bytesCopied += bytes.length;
  }

  /** Ends the run of copied bytes: they become one part, in order. */
  private seal(): void {
    if (this.small && this.smallFill > this.smallStart) {
      this.parts.push(this.small.subarray(this.smallStart, this.smallFill));
      this.smallStart = this.smallFill;
    }
  }

  /** Whether a part is a view of `buffer`. */
  holds(buffer: ArrayBufferLike): boolean {
    for (const part of this.parts) if (part.buffer === buffer) return true;
    return false;
  }

  /** The pieces, in order; the record is forgotten. */
  take(): Uint8Array[] {
    this.seal();
    const parts = this.parts;
    this.clear();
    return parts;
  }

  clear(): void {
    this.parts = [];
    this.small = null;
    this.smallFill = this.smallStart = 0;
  }
}

/**
 * The relay's limits and level with defaults filled in: a RangeError for a
 * value out of range. Checked where the options are given (the TCP relay
 * checks them when it is created, not at its first connection, where a
 * throw would stop its process).
 */
export function resolveRelayOptions(options: Omit<RelayOptions, 'onFault'>): { limits: Required<StreamLimits>; level: ValidationLevel } {
  const limits = resolveLimits(options);
  const level = options.validate ?? 'json';
  if (!VALIDATION_LEVELS.includes(level)) {
    throw new RangeError(`validate must be one of ${VALIDATION_LEVELS.join(', ')}, not '${String(level)}'`);
  }
  const { endpoint } = options;
  if (level === 'full' && !endpoint) throw new TypeError("validate 'full' needs an endpoint codec to judge results by");
  // A name or a hand-made object passed here failed only at the first response, and stopped the relay there.
  if (endpoint !== undefined && typeof endpoint !== 'function' && !isCodec(endpoint) && !isChannelCodecs(endpoint)) {
    throw new TypeError('endpoint must be a codec, or a function choosing one per channel');
  }
  if (options.backend != null) checkBackend(options.backend, 'the backend option');
  return { limits, level };
}

/** The backend the options name, checked, or the default. */
export function backendOf(options: { backend?: PublicBackend }): Backend {
  return options.backend == null ? defaultBackend() : checkBackend(options.backend, 'the backend option');
}

/** The relay's state machine, apart from the streams around it. */
export class RelayState implements RecordSink {
  readonly stats: RelayStats;
  private readonly reader: RecordReader;
  /** The open channels, each with the offset of the response that opened it. */
  private readonly open: OpenChannels<number>;
  private readonly level: ValidationLevel;
  private readonly out: Gatherer;
  /** The chunk being read, and its offset in the stream. */
  private chunk: Uint8Array = new Uint8Array(0);
  private chunkBase = 0;
  /** A run of forwarded bytes in the chunk, not yet handed on. */
  private runStart = 0;
  private runEnd = 0;
  /** Stream offset just past the last whole record. */
  private lastEnd = 0;
  /** The cut record's bytes so far. */
  private readonly pending: CutRecord;
  /** Set once upstream ended, failed, or stopped on a record error: nothing more is read. */
  private done = false;
  private stopped: RecordFault | null = null;
  /** Milliseconds spent on chunks that completed no response yet: the next response-completing chunk shares them out. */
  private carriedMs = 0;
  /** The open channels as a kernel folds exchanges against them. */
  private readonly folding: Fold;

  constructor(
    private readonly options: RelayOptions,
    private readonly backend: Backend,
    forward: (bytes: Uint8Array) => void,
    stats: RelayStats = newStats(),
  ) {
    const { limits, level } = resolveRelayOptions(options);
    if (options.onFault !== undefined && typeof options.onFault !== 'function')
      throw new TypeError(`onFault must be a function, not ${typeof options.onFault}`);
    this.level = level;
    this.stats = stats;
    this.open = new OpenChannels(limits.maxOpenChannels, limits.maxHeldBytes);
    this.out = new Gatherer(forward, stats);
    this.pending = new CutRecord(stats);
    this.folding = {
      count: 0,
      ids: new Uint32Array(FOLD_MAX),
      lengths: new Float64Array(FOLD_MAX),
      held: 0,
      maxOpen: limits.maxOpenChannels,
      maxHeld: limits.maxHeldBytes,
    };
    // At 'full' with one codec, the core judges its schema in the scan where it can (PROVEN), and the codec judges the rest.
    const endpoint = this.options.endpoint;
    const schema = this.level === 'full' && isCodec(endpoint) ? endpoint.schema : undefined;
    this.reader = backend.createReader({ maxFrameBytes: limits.maxFrameBytes, verify: this.level !== 'none', schema }, this);
  }

  /** How many faults were reported. */
  get faultCount(): number {
    return this.stats.faults;
  }

  private report(fault: RelayFault): void {
    const stats = this.stats;
    stats.faults++;
    stats.faultsByReason[fault.reason] = (stats.faultsByReason[fault.reason] ?? 0) + 1;
    this.options.onFault?.(fault);
  }

  /**
   * Reads a chunk; forwards what it may. Returns the record error that stopped the stream, or null.
   *
   * PERF NOTES: called once per input chunk (64 or 256 KiB from a socket or a
   * file, or a byte from a hostile writer). The bet is that two clock reads and a walk
   * of 21 bucket bounds cost little beside reading any chunk: about 0.2 µs
   * here (75-80 ns a clock read), where a 64 KiB chunk takes the core 8 µs
   * or more. Nothing here is per record; the records are counted where they
   * are read.
   */
  push(chunk: Uint8Array): RecordFault | null {
    if (this.done) return this.stopped;
    const started = performance.now();
    const responsesBefore = this.stats.responsesIn;
    const fault = this.take(chunk);
    // A chunk whose callback threw is not timed: the exception goes on as it came.
    this.carriedMs += performance.now() - started;
    const responses = this.stats.responsesIn - responsesBefore;
    if (responses > 0) {
      countTime(this.stats, this.carriedMs / 1000 / responses, responses);
      this.carriedMs = 0;
    }
    return fault;
  }

  private take(input: Uint8Array): RecordFault | null {
    const chunk = asBytes(input);
    this.stats.chunksIn++;
    this.stats.bytesIn += chunk.length;
    this.chunk = chunk;
    this.runStart = this.runEnd = 0;
    const fault = this.reader.push(chunk);
    this.flushRun();
    const chunkEnd = this.chunkBase + chunk.length;
    if (!fault && this.lastEnd < chunkEnd) {
      // A record is cut at the end of this chunk: keep its bytes.
      this.pending.add(this.lastEnd >= this.chunkBase ? chunk.subarray(this.lastEnd - this.chunkBase) : chunk);
    }
    this.chunkBase = chunkEnd;
    this.chunk = EMPTY;
    if (fault) this.stop(fault);
    this.out.flush();
    return fault;
  }

  /** Whether part of a record has been read and the rest has not: the stream is inside a record. */
  get inRecord(): boolean {
    return !this.done && this.lastEnd < this.chunkBase;
  }

  /** Whether the relay keeps a view of `buffer` (an input chunk's) between chunks: a long part of a cut record, until it has passed. */
  holds(buffer: ArrayBufferLike): boolean {
    return !this.done && this.pending.holds(buffer);
  }

  /** Upstream ended. Returns the record error when it ended inside a record. */
  end(): RecordFault | null {
    if (this.done) return this.stopped;
    const fault = this.reader.end();
    if (fault) this.stop(fault);
    else this.finishOpenChannels(true);
    return fault;
  }

  /**
   * Upstream failed: finish every open channel downstream, each reported
   * incomplete. `report` false: the reader of the output went away, so no
   * finish can reach anyone, and no exchange is left waiting on our side.
   */
  abort(report = true): void {
    if (!this.done) this.finishOpenChannels(report);
  }

  /**
   * A record error: every open channel is finished downstream; the record
   * error is reported, then each channel the relay finished, incomplete
   * (WIRE.md section 7: each is reported once).
   */
  private stop(fault: RecordFault): void {
    this.stopped = fault;
    const open = this.finishOpenChannels(false);
    this.report({ reason: fault.reason, offset: fault.offset });
    for (const [channel, offset] of open) this.report({ reason: 'incomplete', channel, offset });
  }

  /** Sends a finish for every open channel, in opening order; the stream takes nothing more. Returns the channels finished, with the offsets of the responses that opened them. */
  private finishOpenChannels(reportEach: boolean): [number, number][] {
    this.done = true;
    this.flushRun(); // records already passed in this chunk go first (a callback may have thrown mid-chunk)
    this.pending.clear();
    const open = this.open.closeAll();
    this.stats.openChannels = 0;
    this.stats.heldBytes = 0;
    // Every finish goes out before any report, so a callback that throws cannot leave a channel hanging.
    for (const [channel] of open) this.out.put(encodeFinish(channel));
    this.stats.finishesOut += open.length;
    this.out.flush();
    if (reportEach) for (const [channel, offset] of open) this.report({ reason: 'incomplete', channel, offset });
    return open;
  }

  // The sink: called by the reader in stream order.

  /** The open channels for a kernel that folds whole exchanges (RecordSink.fold). */
  fold(): Fold {
    const folding = this.folding;
    folding.count = this.open.list(folding.ids, folding.lengths, FOLD_MAX);
    folding.held = this.open.held;
    return folding;
  }

  /**
   * A scan's records at once: admit, response and finish below, record
   * after record, with the same verdicts and faults, and no call per record
   * (RecordSink.records). Returns how many it took; it stops before a
   * response whose header breaks a limit, which the reader then reports.
   *
   * PERF NOTE: per record, admit(), has() and open() were three probes of
   * the channel table and the reader's four calls; take() is one probe.
   * ~140-byte frames in 64 KiB chunks (wasm-simd, 'json', CPU a frame in
   * process): 183 ns before, against 140 ns for the reader alone.
   */
  records(scan: Scan, streamBase: number, verify: boolean): number {
    const { table, count, bytes, base } = scan;
    const stats = this.stats;
    let k = 0;
    try {
      for (let e = 0; k < count; k++, e += ENTRY_FIELDS) {
        const kind = table[e];
        const channel = table[e + 1] >>> 0;
        const at = table[e + 2] >>> 0;
        if (kind === KIND_RUN) {
          // `channel` whole exchanges the kernel folded: each a valid response and its finish, forwarded as they came.
          // At 'full' the schema judges each frame first, and a run with a refusal in it is taken record by record.
          if (this.level === 'full' && table[e + 4] !== PROVEN && !this.runPasses(bytes, base + at, channel)) {
            this.recordByRecord(bytes, base + at, streamBase + at, channel);
            continue;
          }
          const length = table[e + 3] >>> 0;
          if (this.level === 'full' && isChannelCodecs(this.options.endpoint)) this.runFinished(this.options.endpoint, bytes, base + at, channel);
          stats.responsesIn += channel;
          stats.responsesOut += channel;
          stats.finishesIn += channel;
          stats.finishesOut += channel;
          this.lastEnd = streamBase + at + length;
          this.pass(streamBase + at, length);
          continue;
        }
        const taken = this.record(
          kind,
          channel,
          streamBase + at,
          bytes,
          base + at,
          table[e + 3] >>> 0,
          verify ? table[e + 4] : NOT_VERIFIED,
          table[e + 5],
        );
        if (!taken) break; // a record error: the reader reports it
      }
    } finally {
      stats.openChannels = this.open.size;
      stats.heldBytes = this.open.held;
    }
    return k;
  }

  /** Whether the schema accepts every frame of the `count` exchanges folded from bytes[at]. */
  private runPasses(bytes: Uint8Array, at: number, count: number): boolean {
    // One codec for every channel: the core proves the run in one call, and only what it leaves is judged here.
    const endpoint = this.options.endpoint;
    const backend = this.backend;
    const one = backend.provenRun !== undefined && isCodec(endpoint);
    const proven = one ? backend.provenRun!(endpoint.schema, bytes, at, count) : 0;
    if (proven === count) return true;
    for (let n = 0; n < count; n++) {
      const start = at + HEADER_SIZE;
      const end = start + readU32(bytes, at + 5);
      if (n >= proven) {
        const codec = one ? endpoint : this.codecOf(readU32(bytes, at + 1));
        if (codec === undefined) return false;
        // The core's proof where it may have one (the first frame it left, it could not prove), else the codec's judge.
        const sure = (n > proven || !one) && backend.provenFrame?.(codec.schema, bytes, start, end) === true;
        if (!sure && judgeFrame(codec, bytes, start, end) !== null) return false;
      }
      at = end + HEADER_SIZE;
    }
    return true;
  }

  /** The `count` exchanges folded from bytes[at] have been forwarded whole: each has ended. */
  private runFinished(codecs: ChannelCodecs, bytes: Uint8Array, at: number, count: number): void {
    for (let n = 0; n < count; n++) {
      codecs.finished(readU32(bytes, at + 1));
      at += 2 * HEADER_SIZE + readU32(bytes, at + 5);
    }
  }

  /** The `count` exchanges folded from bytes[at] (stream offset `offset`), one record at a time. */
  private recordByRecord(bytes: Uint8Array, at: number, offset: number, count: number): void {
    for (let n = 0; n < count; n++) {
      const channel = readU32(bytes, at + 1);
      const length = readU32(bytes, at + 5);
      // The kernel folds only a response the limits admit on a channel not open: take() admits it as well.
      this.record(KIND_RESPONSE, channel, offset, bytes, at, length, Status.Ok, 0);
      at += HEADER_SIZE + length;
      offset += HEADER_SIZE + length;
      this.record(KIND_FINISH, channel, offset, bytes, at, 0, Status.Ok, 0);
      at += HEADER_SIZE;
      offset += HEADER_SIZE;
    }
  }

  /** One record of a scan, its header at bytes[at] and stream offset `offset`; false at a record error, which the reader reports. */
  private record(
    kind: number,
    channel: number,
    offset: number,
    bytes: Uint8Array,
    at: number,
    length: number,
    status: number,
    faultOffset: number,
  ): boolean {
    const open = this.open;
    const stats = this.stats;
    if (kind === KIND_FINISH) {
      const endpoint = this.options.endpoint;
      if (isChannelCodecs(endpoint)) endpoint.finished(channel);
      stats.finishesIn++;
      this.lastEnd = offset + HEADER_SIZE;
      open.close(channel);
      stats.finishesOut++;
      this.pass(offset, HEADER_SIZE);
      return true;
    }
    const verdict = open.take(channel, length, offset);
    if (verdict > 0) return false;
    stats.responsesIn++;
    this.lastEnd = offset + HEADER_SIZE + length;
    if (verdict === ALREADY_OPEN) {
      stats.openChannels = open.size;
      stats.heldBytes = open.held;
      this.report({ reason: 'sequence-violation', channel, offset });
      this.pending.clear();
      return true;
    }
    const level = this.level;
    if (level !== 'none' && (status !== Status.Ok || level === 'full')) {
      // Counted open before the verdict, as response() counts it: an onFault that throws sees the channel open.
      stats.openChannels = open.size;
      stats.heldBytes = open.held;
      const failed = this.judge(channel, bytes, at + HEADER_SIZE, length, status, faultOffset);
      if (failed) {
        this.report({ reason: 'frame-error', channel, offset, frame: failed });
        this.pending.clear();
        return true;
      }
    }
    stats.responsesOut++;
    this.pass(offset, HEADER_SIZE + length);
    return true;
  }

  admit(channel: number, length: number): number {
    return this.open.admit(channel, length);
  }

  response(channel: number, offset: number, bytes: Uint8Array, start: number, length: number, status: number, faultOffset: number): void {
    this.stats.responsesIn++;
    this.lastEnd = offset + HEADER_SIZE + length;
    if (this.open.has(channel)) {
      this.report({ reason: 'sequence-violation', channel, offset });
      this.pending.clear();
      return;
    }
    this.open.open(channel, length, offset);
    this.stats.openChannels = this.open.size;
    this.stats.heldBytes = this.open.held;
    const failed = this.judge(channel, bytes, start, length, status, faultOffset);
    if (failed) {
      this.report({ reason: 'frame-error', channel, offset, frame: failed });
      this.pending.clear();
      return;
    }
    this.stats.responsesOut++;
    this.pass(offset, HEADER_SIZE + length);
  }

  finish(channel: number, offset: number): void {
    const endpoint = this.options.endpoint;
    if (isChannelCodecs(endpoint)) endpoint.finished(channel);
    this.stats.finishesIn++;
    this.lastEnd = offset + HEADER_SIZE;
    this.open.close(channel);
    this.stats.openChannels = this.open.size;
    this.stats.heldBytes = this.open.held;
    this.stats.finishesOut++;
    this.pass(offset, HEADER_SIZE);
  }

  /** The frame's failure, or null when it passes at the configured level. On a valid frame it builds no value ('full' judges the bytes). */
  private judge(channel: number, bytes: Uint8Array, start: number, length: number, status: number, faultOffset: number): FrameErrorJSON | null {
    const level = this.level;
    if (level === 'none') return null;
    if (status === Status.Ok) {
      if (level === 'json' || faultOffset === PROVEN) return null;
      const codec = this.codecOf(channel);
      if (codec === undefined) return UNJUDGED;
      // The core's proof of acceptance first, where the bytes lie in it; the codec judges what it does not prove.
      if (this.backend.provenFrame?.(codec.schema, bytes, start, start + length)) return null;
      return judgeFrame(codec, bytes, start, start + length)?.toJSON() ?? null;
    }
    const payload = bytes.subarray(start, start + length);
    const verdict = status === NOT_VERIFIED ? this.backend.verifyFrame(payload) : frameFault(status, faultOffset);
    // As data: the report needs no Error, whose stack would cost more than the frame (frame-error.ts).
    if (verdict) return frameErrorJSON(verdict, payload);
    if (level === 'json') return null;
    const codec = this.codecOf(channel);
    return codec ? (judgeFrame(codec, payload)?.toJSON() ?? null) : UNJUDGED;
  }

  /** The codec 'full' judges `channel` by: undefined when the choice gives none. */
  private codecOf(channel: number): FrameCodec<unknown> | undefined {
    const endpoint = this.options.endpoint;
    if (isChannelCodecs(endpoint)) return endpoint.codecOf(channel);
    return codecFor(endpoint as CodecChoice<unknown>, channel) as FrameCodec<unknown> | undefined;
  }

  /**
   * Forwards the record at stream offset `offset`: the bytes kept for it
   * when it began in an earlier chunk, and its bytes in this chunk as part
   * of the current run.
   */
  private pass(offset: number, length: number): void {
    let start = offset - this.chunkBase;
    if (start < 0) {
      this.flushRun();
      for (const part of this.pending.take()) this.out.put(part);
      this.runStart = this.runEnd = start = 0;
      length = offset + length - this.chunkBase;
    }
    if (start !== this.runEnd) {
      this.flushRun();
      this.runStart = start;
    }
    this.runEnd = start + length;
  }

  private flushRun(): void {
    const { chunk, runStart, runEnd } = this;
    // A chunk with no fault and nothing cut at either end goes on as the chunk itself.
    if (runEnd > runStart) this.out.put(runStart === 0 && runEnd === chunk.length ? chunk : chunk.subarray(runStart, runEnd));
    this.runStart = runEnd;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * A relay: write record bytes to `writable`, read the validated stream from
 * `readable`. Use it as a TransformStream (`source.pipeThrough(relay)`).
 */
export function createRelay(options: RelayOptions = {}): Relay {
  const highWaterMark = options.highWaterMark ?? 1 << 20;
  if (!(highWaterMark >= 0) || !Number.isFinite(highWaterMark))
    throw new RangeError(`highWaterMark must be a finite number of bytes, not ${highWaterMark}`);
  const output = new OutputQueue(highWaterMark, MAX_QUEUED_CHUNKS);
  const core = new RelayState(options, backendOf(options), (bytes) => output.enqueue(bytes));
  const stats = core.stats;
  const queue = output.stats;

  /** The output ends in `error`, after a finish for every open channel; the input then errors too. */
  const fail = (error: unknown, report = true): never => {
    try {
      core.abort(report);
    } catch {
      // an onFault that throws again changes nothing now
    }
    output.errorAfterDrain(error);
    throw error;
  };
  const stopIfCancelled = () => {
    if (output.cancelled) fail(output.cancelled.reason, false);
  };

  const writable = new WritableStream<Uint8Array>({
    // Not async: while the output has room, a write settles with no promise of its own to wait for.
    write(chunk) {
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
      if (!output.hasRoom()) return output.room().then(stopIfCancelled);
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
        core.abort(!output.cancelled);
      } finally {
        output.errorAfterDrain(reason);
      }
    },
  });

  // The queue keeps its own counters; the relay's stats read them live.
  Object.defineProperties(stats, {
    chunksOut: { get: () => queue.chunksOut, enumerable: true },
    bytesOut: { get: () => queue.bytesOut, enumerable: true },
    queuedChunks: { get: () => queue.queuedChunks, enumerable: true },
    queuedBytes: { get: () => queue.queuedBytes, enumerable: true },
    maxQueuedChunks: { get: () => queue.maxQueuedChunks, enumerable: true },
    queuedBufferBytes: { get: () => queue.queuedBufferBytes, enumerable: true },
  });
  return {
    writable,
    readable: output.readable,
    stats,
    get inRecord() {
      return core.inRecord;
    },
  };
}
