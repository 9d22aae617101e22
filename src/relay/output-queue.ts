// The relay's output side: a queue of byte chunks with backpressure, bounded
// in bytes and in chunks, that can end in an error without losing what was
// queued before it.
//
// # Why not a TransformStream
//
// Erroring a stream controller discards the chunks still queued. On a record
// error the relay must first deliver a finish for every open channel, and
// only then error, or downstream exchanges would hang without their finish.
// So the chunks wait here, and the error is raised only when the reader asks
// for more after the last of them.
//
// # Why the chunks wait here and not in the stream's own queue
//
// A ReadableStream's queue is an array that readers shift from the front,
// which costs its length on every read: a queue of many small chunks (the
// 9-byte finishes of a flood of dropped responses) made relaying quadratic.
// Here the ReadableStream's own high-water mark is 0, so it holds at most
// the one chunk a pending read is waiting for, and the rest wait in a list
// read from a moving head: O(1) per chunk. The queue is bounded twice: in
// memory (the high-water mark) and in chunks (maxChunks), and the writer
// waits for room() while either is reached.
//
// # Memory, not bytes
//
// The relay forwards long pieces as views of its input chunks, and a view
// keeps its whole buffer alive: a 4 KiB record cut out of a 1 MiB chunk
// holds the MiB. So the high-water mark bounds the memory the queued chunks
// keep alive, each buffer counted once however many of its views wait
// (queuedBufferBytes), as well as the bytes they show (queuedBytes: one
// buffer written again and again is kept alive once, and shows its bytes
// each time). Counted by the bytes they show alone, a reader that had
// stopped let the queue keep 256 times its mark: 255 chunks of 1 MiB, each
// kept alive by its first 4 KiB. A mark of 0 lets one chunk wait at a
// time: the writer goes on once the reader has taken everything.

/** Counters a test or an operator reads: how full the queue is, and has been. */
export interface QueueStats {
  /** Chunks waiting to be read now. */
  queuedChunks: number;
  /** Bytes waiting to be read now. */
  queuedBytes: number;
  /** Memory the waiting chunks keep alive: the byteLength of each buffer they are views of, once each. */
  queuedBufferBytes: number;
  /** The most chunks that ever waited at once. */
  maxQueuedChunks: number;
  /** Chunks handed to the reader so far. */
  chunksOut: number;
  /** Bytes handed to the reader so far. */
  bytesOut: number;
}

export class OutputQueue {
  readonly readable: ReadableStream<Uint8Array>;
  readonly stats: QueueStats = { queuedChunks: 0, queuedBytes: 0, queuedBufferBytes: 0, maxQueuedChunks: 0, chunksOut: 0, bytesOut: 0 };
  /** How many waiting chunks are views of each buffer: a buffer counts in queuedBufferBytes while it has one. */
  private readonly buffers = new Map<ArrayBufferLike, number>();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** The chunks, read from `head`; compacted when the read part is large. */
  private chunks: Uint8Array[] = [];
  private head = 0;
  /** A pull that found the queue empty, waiting for the next chunk or the end. */
  private pulling: (() => void) | null = null;
  /** How the output ends once the queue is drained: closed, or errored with a reason. */
  private ending: { error: false } | { error: true; reason: unknown } | null = null;
  /** Nothing more is taken: ending was set, or the reader cancelled. */
  private finished = false;
  /** Why the reader cancelled the output, once it has: the writer must stop. */
  cancelled: { reason: unknown } | null = null;
  private waiting: (() => void) | null = null;

  constructor(
    private readonly highWaterMark: number,
    private readonly maxChunks: number,
  ) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          if (this.deliver()) return;
          return new Promise<void>((resolve) => {
            this.pulling = resolve;
          });
        },
        cancel: (reason) => {
          this.finished = true;
          this.cancelled = { reason: reason ?? new Error('mcp-frames: the relay output was cancelled') };
          this.chunks = [];
          this.head = 0;
          this.buffers.clear();
          this.stats.queuedChunks = this.stats.queuedBytes = this.stats.queuedBufferBytes = 0;
          this.wake();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Hands the reader the next chunk, or the end once the queue is empty. False when there is nothing yet. */
  private deliver(): boolean {
    if (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head];
      this.chunks[this.head++] = EMPTY;
      if (this.head >= 1024 && this.head * 2 >= this.chunks.length) {
        this.chunks = this.chunks.slice(this.head);
        this.head = 0;
      }
      const stats = this.stats;
      stats.queuedChunks--;
      stats.queuedBytes -= chunk.byteLength;
      this.release(chunk.buffer);
      stats.chunksOut++;
      stats.bytesOut += chunk.byteLength;
      this.controller.enqueue(chunk);
      if (this.hasRoom()) this.wake();
      return true;
    }
    if (this.ending) {
      if (this.ending.error) this.controller.error(this.ending.reason);
      else this.controller.close();
      this.ending = null;
      return true;
    }
    return false;
  }

  /** Whether the queue is below both of its bounds, or empty, or finished: a writer may go on. */
  hasRoom(): boolean {
    const stats = this.stats;
    return (
      this.finished ||
      stats.queuedChunks === 0 ||
      (stats.queuedBytes < this.highWaterMark && stats.queuedBufferBytes < this.highWaterMark && stats.queuedChunks < this.maxChunks)
    );
  }

  /** One more waiting view of `buffer`. */
  private retain(buffer: ArrayBufferLike): void {
    const views = this.buffers.get(buffer);
    if (views === undefined) {
      this.buffers.set(buffer, 1);
      this.stats.queuedBufferBytes += buffer.byteLength;
    } else this.buffers.set(buffer, views + 1);
  }

  /** One waiting view of `buffer` fewer: the buffer stops counting with its last. */
  private release(buffer: ArrayBufferLike): void {
    const views = this.buffers.get(buffer);
    if (views === undefined) return;
    if (views > 1) {
      this.buffers.set(buffer, views - 1);
      return;
    }
    this.buffers.delete(buffer);
    this.stats.queuedBufferBytes -= buffer.byteLength;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  /** A pull is waiting and something arrived: serve it. */
  private servePull(): void {
    const pulling = this.pulling;
    if (!pulling) return;
    this.pulling = null;
    this.deliver();
    pulling();
  }

  enqueue(bytes: Uint8Array): void {
    if (this.finished || bytes.byteLength === 0) return;
    this.chunks.push(bytes);
    const stats = this.stats;
    stats.queuedChunks++;
    stats.queuedBytes += bytes.byteLength;
    this.retain(bytes.buffer);
    if (stats.queuedChunks > stats.maxQueuedChunks) stats.maxQueuedChunks = stats.queuedChunks;
    this.servePull();
  }

  /** Resolves when the queue is below both of its bounds (at once if it is). */
  room(): Promise<void> {
    if (this.hasRoom()) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    if (this.finished) return;
    this.finished = true;
    this.ending = { error: false };
    this.servePull();
  }

  /** Errors the readable once everything queued so far has been read. */
  errorAfterDrain(reason: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.ending = { error: true, reason };
    this.servePull();
  }
}

const EMPTY = new Uint8Array(0);
