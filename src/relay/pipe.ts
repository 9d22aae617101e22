// The relay between two Node streams, with no Web Streams in the way: the CLI's files and pipes, the TCP relay's sockets.
//
// # Why not createRelay
//
// A Web Streams pipe costs Node 15 to 35 µs per chunk in promises and
// queues, whatever the chunk holds: more than the core takes to check a
// 64 KiB chunk. Between two Node streams none of it is needed. Chunks come
// in 'data' events and go straight into the relay's state machine
// (RelayState), whose forwarded pieces go straight to the writable's
// write(); when write() says the writable is full, reading pauses until
// 'drain'. Everything between one input chunk's 'data' and the next is
// written in one corked batch (one writev for a socket).
//
// # How it ends
//
// `done` settles once, with how the input ended: cleanly, on a record error,
// with a read error (a close with no end counts as one), with the output
// failing, aborted by the caller (the TCP relay's timeouts), or with the
// relay itself unable to go on: the caller's onFault threw, or memory for a
// record could not be had. In every case but a failed output, each channel
// still open has been given its finish first. The output is left open: the
// caller ends it, or resets it.
//
// Nothing thrown inside the relay escapes into the input's event handlers,
// where it would take the process down (a socket's 'data' handler has no
// caller to catch it) and leave the relay half way through a chunk.

import type { Readable, Writable } from 'node:stream';
import type { RecordFault } from '../records/record-error.js';
import { SinkFailed, watchSink } from '../streams/node-sink.js';
import { giveSlab } from '../streams/read-slabs.js';
import { backendOf, RelayState, type RelayOptions, type RelayStats } from './relay.js';

/** How a piped relay ended. */
export type PipeEnd =
  /** The input ended at a record boundary; open channels were finished. */
  | { end: 'ended' }
  /** A record error stopped the stream (already reported as a fault); open channels were finished. */
  | { end: 'record-error'; fault: RecordFault }
  /** Reading the input failed; open channels were finished, each reported incomplete. */
  | { end: 'input-error'; error: unknown }
  /** The output failed or went away; nothing more could be written. */
  | { end: 'output-error'; failure: SinkFailed }
  /** The caller aborted (a timeout, a signal); open channels were finished, each reported incomplete. */
  | { end: 'aborted'; reason: unknown }
  /**
   * The relay could not go on: `error` was thrown by the caller's onFault,
   * or is the RangeError of memory a record needed and could not have.
   * Open channels were finished, each reported incomplete (to an onFault
   * that may throw again: that changes nothing now).
   */
  | { end: 'relay-error'; error: unknown };

export interface PipedRelay {
  /** Settles once, with how it ended. */
  readonly done: Promise<PipeEnd>;
  /** Live counters, as createRelay's. */
  readonly stats: Readonly<RelayStats>;
  /** Whether the input has stopped inside a record: part of it read, the rest not yet. */
  readonly inRecord: boolean;
  /** Stops reading, finishes the open channels downstream (each reported incomplete), and settles `done` as aborted. */
  abort(reason: unknown): void;
  /**
   * Ends the relay here as if its input had ended cleanly, when nothing is
   * owed downstream (no channel open, no record partly read): `done`
   * settles as ended. False, changing nothing, when something is owed or
   * the relay has already ended.
   */
  endIdle(): boolean;
}

/**
 * Relays the record stream read from `input` into `output`. `onChunk` is
 * called for each input chunk before it is read (the TCP relay's idle timer).
 */
export function pipeRelay(input: Readable, output: Writable, options: RelayOptions = {}, onChunk?: () => void): PipedRelay {
  return pipeWith(input, output, options, { onChunk });
}

/** How the package's own relays drive pipeRelay. */
export interface PipeHooks {
  /** Called for each input chunk before it is read. */
  onChunk?: () => void;
  /**
   * Every chunk, whether it comes as 'data' or through feed(), is a view of
   * a slab from read-slabs.ts that its reader has let go of: the relay gives
   * each slab back once its bytes have left through the output and the relay
   * keeps no view of them.
   */
  slabs?: boolean;
}

/** A piped relay that can also be handed chunks directly: what a socket's onread callback reads. */
export interface FedRelay extends PipedRelay {
  /** Takes one input chunk, as a 'data' event would. */
  feed(chunk: Uint8Array): void;
}

/**
 * pipeRelay, with the hooks the CLI and the TCP relay use.
 *
 * # When a slab goes back
 *
 * A chunk's bytes leave the relay as views of it: forwarded records, and
 * the parts of a record cut across chunks, held until the rest arrives. So
 * a slab is lent out when its chunk has been read, and goes back at the
 * first moment the output holds no unwritten byte (writableLength 0: the
 * kernel or the file has taken every write) and no cut record still held
 * has a part in it. Both are looked at after each chunk and at each
 * completed write. An output that has failed or been destroyed gets
 * nothing back: its slabs are left to the garbage collector.
 */
export function pipeWith(input: Readable, output: Writable, options: RelayOptions, hooks: PipeHooks): FedRelay {
  return new Pipe(input, output, options, hooks);
}

/** One input piped through a relay into one output: the state, and a named handler for each event of either stream. */
class Pipe implements FedRelay {
  readonly done: Promise<PipeEnd>;
  private settle!: (end: PipeEnd) => void;
  private finished = false;
  /** The output said it is full: reading pauses after this chunk, until 'drain'. */
  private full = false;
  private readonly state: RelayState;
  private readonly slabs: boolean;
  private readonly onChunk: (() => void) | undefined;
  /** Slabs whose chunks have been read, not yet given back. */
  private readonly lent: ArrayBufferLike[] = [];
  private readonly watch: ReturnType<typeof watchSink>;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: RelayOptions,
    hooks: PipeHooks,
  ) {
    this.onChunk = hooks.onChunk;
    this.slabs = hooks.slabs ?? false;
    this.done = new Promise<PipeEnd>((resolve) => {
      this.settle = resolve;
    });
    // The relay first: it refuses bad options, and nothing is attached to the output before it has.
    this.state = new RelayState(options, backendOf(options), (bytes) => this.forward(bytes));
    this.watch = watchSink(output);
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('error', this.onError);
    input.on('close', this.onClose);
    output.once('error', this.onOutputGone);
    output.once('close', this.onOutputGone);
  }

  get stats(): Readonly<RelayStats> {
    return this.state.stats;
  }

  get inRecord(): boolean {
    return this.state.inRecord;
  }

  /** What the relay hands on goes straight to the output's write(). */
  private forward(bytes: Uint8Array): void {
    const stats = this.state.stats;
    stats.chunksOut++;
    stats.bytesOut += bytes.length;
    if (!(this.slabs ? this.output.write(bytes, this.written) : this.output.write(bytes))) this.full = true;
  }

  private giveBack(): void {
    const lent = this.lent;
    if (lent.length === 0 || this.output.writableLength !== 0) return;
    if (this.output.destroyed || this.output.errored) {
      lent.length = 0;
      return;
    }
    let kept = 0;
    for (const buffer of lent) {
      if (this.state.holds(buffer)) lent[kept++] = buffer;
      else giveSlab(buffer);
    }
    lent.length = kept;
  }

  private readonly written = (error?: Error | null): void => {
    if (error) this.lent.length = 0;
    else this.giveBack();
  };

  private finish(end: PipeEnd): void {
    if (this.finished) return;
    this.finished = true;
    const { input, output } = this;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('error', this.onError);
    input.off('close', this.onClose);
    output.off('drain', this.onDrain);
    this.watch.stop();
    // Nothing more is read: what a cut record held goes back as soon as the output has taken its writes.
    this.giveBack();
    // Stop reading; a socket or file is the caller's to close, but nothing more is read from it.
    input.pause();
    this.settle(end);
  }

  /**
   * Runs `step` (which may forward) in one corked batch. Settles when the
   * output has failed, and returns false; returns what `step` threw, if
   * anything, for the caller to decide; else true.
   */
  private batch(step: () => void): boolean | { thrown: unknown } {
    this.output.cork();
    let thrown: { thrown: unknown } | null = null;
    try {
      step();
    } catch (error) {
      thrown = { thrown: error };
    } finally {
      this.output.uncork();
    }
    const failure = this.watch.failure();
    if (failure) {
      try {
        this.state.abort(false);
      } catch {
        // nothing is reported with abort(false): a throw here is the relay's own, and the output is gone anyway
      }
      this.finish({ end: 'output-error', failure });
      return false;
    }
    return thrown ?? true;
  }

  /** The relay threw mid-step: the open channels get their finishes (each reported incomplete), and it ends there. */
  private relayFailed(error: unknown): void {
    if (this.batch(() => this.state.abort()) !== false) this.finish({ end: 'relay-error', error });
  }

  private readonly onData = (chunk: Uint8Array): void => {
    this.onChunk?.();
    let fault: RecordFault | null = null;
    const ran = this.batch(() => {
      fault = this.state.push(chunk);
    });
    if (this.slabs) this.lent.push(chunk.buffer);
    if (ran === false) return;
    // Stopped mid-chunk, the relay still has views of this chunk and of the cut record's to send: its abort
    // sends them, and finish() gives the slabs back once they are written.
    if (ran !== true) {
      this.relayFailed(ran.thrown);
      return;
    }
    if (this.slabs) this.giveBack();
    if (fault) {
      this.finish({ end: 'record-error', fault });
      return;
    }
    if (this.full) {
      this.full = false;
      this.input.pause();
      this.output.once('drain', this.onDrain);
    }
  };

  private readonly onDrain = (): void => {
    if (!this.finished) this.input.resume();
  };

  private readonly onEnd = (): void => {
    let fault: RecordFault | null = null;
    const ran = this.batch(() => {
      fault = this.state.end();
    });
    if (ran === false) return;
    if (ran !== true) {
      this.relayFailed(ran.thrown);
      return;
    }
    this.finish(fault ? { end: 'record-error', fault } : { end: 'ended' });
  };

  /** The input's own failure is what ended it, whatever an onFault reporting its channels throws. */
  private readonly onError = (error: unknown): void => {
    if (this.batch(() => this.state.abort()) !== false) this.finish({ end: 'input-error', error });
  };

  /** Destroyed with no 'end' and no 'error' (stream.finished calls it a premature close): upstream failed. */
  private readonly onClose = (): void => {
    if (this.finished) return;
    const error = Object.assign(new Error('mcp-frames: the input closed before it ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    this.onError(error);
  };

  /** The output closed or errored while the input was idle: stop now, not at the next chunk. */
  private readonly onOutputGone = (): void => {
    const failure = this.watch.failure();
    if (failure && !this.finished) {
      this.state.abort(false);
      this.finish({ end: 'output-error', failure });
    }
  };

  abort(reason: unknown): void {
    if (this.finished) return;
    if (this.batch(() => this.state.abort()) !== false) this.finish({ end: 'aborted', reason });
  }

  endIdle(): boolean {
    if (this.finished || this.state.inRecord || this.state.stats.openChannels > 0) return false;
    this.onEnd();
    return true;
  }

  feed(chunk: Uint8Array): void {
    if (!this.finished) this.onData(chunk);
    // Read after the end: nothing refers to it.
    else if (this.slabs) giveSlab(chunk.buffer);
  }
}

export { SinkFailed };
