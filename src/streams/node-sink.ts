// Writing to a Node writable (a socket, stdout, a file) at the pace it takes bytes, and knowing when it failed.
//
// # Await the drain, never buffer ahead
//
// While `write` answers false the writer waits for 'drain' (drained()), so
// what is in flight stays within the writable's own high-water mark. The
// wait also ends on 'error' and 'close': a writable that has gone away
// never drains. The CLI's line writer and the relay's pipe both wait so.
//
// # A failed write is an error, not an end
//
// A writable that errors (ENOSPC on a full disk, EIO, EPIPE when the reader
// of a pipe has gone) or closes early is reported as SinkFailed, carrying
// the writable's own error, so that a caller can tell "the output went
// away" from "everything was written" and choose its exit status: quiet for
// EPIPE, an I/O error for the rest.

import type { Writable } from 'node:stream';

/** The writable failed or closed before everything was written. `cause` is its error, if it gave one. */
export class SinkFailed extends Error {
  override readonly name = 'SinkFailed';
  /** The system's error code ('EPIPE', 'ENOSPC', ...), when the writable gave one. */
  readonly code?: string;
  constructor(cause: Error | null) {
    super(cause ? cause.message : 'the output was closed before everything was written', cause ? { cause } : undefined);
    const code = (cause as { code?: unknown } | null)?.code;
    if (typeof code === 'string') this.code = code;
  }
}

/** The part of a Node writable this file uses. */
export type Sink = Pick<Writable, 'write' | 'on' | 'off' | 'destroyed' | 'errored'>;

/**
 * Watches `sink` for 'error' and 'close' until `stop()`: `failure()` is the
 * SinkFailed to report once either has happened, else null.
 */
export function watchSink(sink: Sink): { failure(): SinkFailed | null; stop(): void } {
  let failure: SinkFailed | null = null;
  const onError = (error: Error) => {
    failure ??= new SinkFailed(error);
  };
  const onClose = () => {
    failure ??= new SinkFailed(null);
  };
  sink.on('error', onError);
  sink.on('close', onClose);
  return {
    // A writable destroyed by an error is `destroyed` at once, and emits 'error' only on the next tick.
    failure: () => failure ?? (sink.destroyed ? new SinkFailed(sink.errored ?? null) : null),
    stop() {
      sink.off('error', onError);
      sink.off('close', onClose);
    },
  };
}

/** Resolves once `sink` drains, errors or closes (whichever comes first). */
export function drained(sink: Sink): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      sink.off('drain', settle);
      sink.off('error', settle);
      sink.off('close', settle);
      resolve();
    };
    sink.on('drain', settle);
    sink.on('error', settle);
    sink.on('close', settle);
  });
}
