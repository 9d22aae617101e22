// Read buffers that go back to a shared pool once nothing refers to them (Node only).
//
// A socket or file stream reads each chunk into a buffer of its own, and
// that buffer is freed once the chunk has been written on. Freed memory
// goes back to the C heap, which glibc trims, so the next read lands in
// fresh pages: a page fault for every 4 KiB read. A relay that reads into
// slabs of this pool instead, and gives each slab back when nothing refers
// to it any more, reads into the same few pages again and again.
//
// Who gives a slab back: the reader takes one for each read, and hands the
// chunk it read on; the relay gives the slab back once the chunk's bytes
// have left the process and the relay keeps no view of them (pipe.ts).
// A slab that is never given back (a stream destroyed with a read in
// flight) is an ordinary garbage-collected buffer.
//
// PERF NOTE: reading into a fresh buffer each read, the TCP relay took 7.5
// to 9.8 page faults a MiB under 16 clients (88% of them in those buffers),
// the CLI relay about 100 a MiB of a file. With slabs, no fresh slab is made
// once warm: the TCP relay takes 0.8 to 2.6 a MiB (V8's young generation
// and each new connection's state), and the CLI relay of a 96 MiB file a
// quarter less CPU.

/** The size of a slab for a read that may come back short: what Node reads a socket into. */
export const SLAB_SIZE = 64 * 1024;

/**
 * The size of a slab for a read that will likely fill it: a file, or a
 * socket whose last read filled a small slab (more was waiting).
 *
 * PERF NOTE: much of the relay's cost is per chunk, not per byte: V8
 * compiled 259 ms of code for the CLI relay of 96 MiB of 16 KiB listings
 * in 64 KiB reads, against 101 ms for blobs. In 256 KiB reads that relay
 * took 0.36-0.38 s of CPU against 0.59-0.67 s (a bare 64 KiB pipe: 0.41
 * s), and under 16 TCP clients its CPU a byte fell by 27-44% (small,
 * listing and blob frames, back to back). 1 MiB reads gained little more
 * over TCP.
 */
export const LARGE_SLAB_SIZE = 256 * 1024;

/**
 * Free memory the pool keeps for reuse, process-wide, in slabs of both
 * sizes together: what 16 connections hold at once cutting 768 KiB records
 * across reads, with their writes in flight (70 large slabs, measured).
 */
export const SLAB_BYTES_KEPT = 32 * 1024 * 1024;

interface Pool {
  readonly size: number;
  readonly free: ArrayBuffer[];
  made: number;
}

const small: Pool = { size: SLAB_SIZE, free: [], made: 0 };
const large: Pool = { size: LARGE_SLAB_SIZE, free: [], made: 0 };

/** The bytes of every free slab, of both sizes. */
function freeBytes(): number {
  return small.free.length * small.size + large.free.length * large.size;
}

/** A slab to read into, small or large: a free one, or a fresh one. */
export function takeSlab(isLarge = false): Uint8Array {
  const pool = isLarge ? large : small;
  const slab = pool.free.pop();
  if (slab) return new Uint8Array(slab);
  pool.made++;
  return new Uint8Array(pool.size);
}

/**
 * Gives back the slab `buffer` is, once nothing refers to it; anything
 * else is let go. Past SLAB_BYTES_KEPT, free slabs of the other size are
 * let go to make room, so the pool follows the reads of the moment;
 * one past the bound in slabs of its own size is let go itself.
 */
export function giveSlab(buffer: ArrayBufferLike): void {
  const pool = buffer.byteLength === SLAB_SIZE ? small : buffer.byteLength === LARGE_SLAB_SIZE ? large : null;
  if (!pool || !(buffer instanceof ArrayBuffer) || pool.free.includes(buffer)) return;
  const other = pool === small ? large : small;
  while (freeBytes() + pool.size > SLAB_BYTES_KEPT && other.free.length > 0) other.free.pop();
  if (freeBytes() + pool.size <= SLAB_BYTES_KEPT) pool.free.push(buffer);
}

/** How many slabs of one size are free now, and how many were ever made (for the bound tests). */
export function slabCounts(isLarge = false): { free: number; made: number } {
  const pool = isLarge ? large : small;
  return { free: pool.free.length, made: pool.made };
}
