// Bytes in use, measured after a full garbage collection: how the bound tests see memory.
//
// vitest runs without --expose-gc, so the flag is set from inside (V8
// reads it when a new context is made) and gc() taken from a fresh context.

import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap plus ArrayBuffer bytes in use, after a full collection. */
export function bytesInUse(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** ArrayBuffer bytes in use, after a full collection. */
export function arrayBuffersInUse(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

export const MiB = 1024 * 1024;
