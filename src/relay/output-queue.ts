// The relay's output side: a byte queue with backpressure that can end in
// an error without losing what was queued before it.
//
// # Why not a TransformStream
//
// Erroring a stream controller discards the chunks still queued. On a record
// error the relay must first deliver a finish for every open channel, and
// only then error, or downstream exchanges would hang without their finish.
// So the readable side is a ReadableStream whose error waits until its queue
// has drained: the next pull() after the last chunk was read raises it.

export class OutputQueue {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private pendingError: { reason: unknown } | null = null;
  private finished = false;
  /** Why the reader cancelled the output, once it has: the writer must stop. */
  cancelled: { reason: unknown } | null = null;
  private waiting: (() => void) | null = null;

  constructor(private readonly highWaterMark: number) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          this.wake();
          this.raiseIfDrained();
        },
        cancel: (reason) => {
          this.finished = true;
          this.cancelled = { reason: reason ?? new Error('mcp-frames: the relay output was cancelled') };
          this.wake();
        },
      },
      { highWaterMark, size: (chunk) => chunk.byteLength },
    );
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private drained(): boolean {
    return this.controller.desiredSize === this.highWaterMark;
  }

  private raiseIfDrained(): void {
    if (this.pendingError && this.drained()) {
      const { reason } = this.pendingError;
      this.pendingError = null;
      this.controller.error(reason);
    }
  }

  enqueue(bytes: Uint8Array): void {
    if (this.finished || bytes.length === 0) return;
    this.controller.enqueue(bytes);
  }

  /** Resolves when the queue is below its high-water mark (at once if it is). */
  room(): Promise<void> {
    if (this.finished || (this.controller.desiredSize ?? 0) > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    if (this.finished) return;
    this.finished = true;
    this.controller.close();
  }

  /** Errors the readable once everything queued so far has been read. */
  errorAfterDrain(reason: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.pendingError = { reason };
    this.raiseIfDrained();
  }
}
