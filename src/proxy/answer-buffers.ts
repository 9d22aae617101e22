// Buffers for large answers' records, used again once their bytes have left for the client.
//
// # Memory the kernel has already given
//
// A fresh buffer of a MiB is fresh pages: a page fault for each 4 KiB of
// it when the answer is copied in, and again when it is freed and the next
// one is made. So the records of an answer of LARGE bytes or more go into a
// buffer taken from a few free ones, and the connection gives it back once
// the socket has written it (or dropped it); a smaller answer gets a buffer
// of its own, which costs about nothing.
//
// # Bounded
//
// Free buffers are kept up to FREE_BYTES in all, and a buffer is taken for
// an answer only when it is less than twice the answer's size, so a few
// outsized answers do not pin memory that later ones cannot use.
//
// PERF NOTE: filling a fresh 1 MiB buffer and writing it to a loopback
// socket cost 2.1 to 2.5 ms of CPU, a reused one 0.3 ms.

/** Answers' records from this size up are written into reused buffers. */
export const LARGE = 64 * 1024;
/** Sizes are rounded up to a multiple of this, so answers of about one size share buffers. */
const GRAIN = 64 * 1024;
/** The most bytes kept in free buffers, all together. */
const FREE_BYTES = 16 * 1024 * 1024;

const free: ArrayBuffer[] = [];
let freeBytes = 0;
/** Buffers made for large answers, ever (for the bound tests). */
let made = 0;

/** A buffer of exactly `size` bytes: a view of a free buffer when `size` is LARGE or more and one fits, else a new one. */
export function takeAnswerBuffer(size: number): Uint8Array {
  if (size < LARGE) return new Uint8Array(size);
  let best = -1;
  for (let k = 0; k < free.length; k++) {
    const length = free[k].byteLength;
    if (length >= size && length < 2 * size && (best < 0 || length < free[best].byteLength)) best = k;
  }
  if (best < 0) {
    made++;
    return new Uint8Array(new ArrayBuffer(Math.ceil(size / GRAIN) * GRAIN), 0, size);
  }
  const buffer = free[best];
  free[best] = free[free.length - 1];
  free.pop();
  freeBytes -= buffer.byteLength;
  return new Uint8Array(buffer, 0, size);
}

/**
 * Gives back the buffer `bytes` lies in, once nothing refers to it: kept
 * when it was taken for a large answer and there is room, else let go.
 * Past FREE_BYTES, the smallest free buffers are let go first.
 */
export function giveAnswerBuffer(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (bytes.byteLength < LARGE || !(buffer instanceof ArrayBuffer) || buffer.byteLength > FREE_BYTES || free.includes(buffer)) return;
  while (freeBytes + buffer.byteLength > FREE_BYTES) {
    let smallest = 0;
    for (let k = 1; k < free.length; k++) if (free[k].byteLength < free[smallest].byteLength) smallest = k;
    freeBytes -= free[smallest].byteLength;
    free[smallest] = free[free.length - 1];
    free.pop();
  }
  free.push(buffer);
  freeBytes += buffer.byteLength;
}

/** How many buffers are free now, their bytes, and how many were ever made (for the bound tests). */
export function answerBufferCounts(): { free: number; bytes: number; made: number } {
  return { free: free.length, bytes: freeBytes, made };
}
