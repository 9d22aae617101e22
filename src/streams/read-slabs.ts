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

/** The size of a slab: what Node reads into for a socket or a file stream. */
export const SLAB_SIZE = 64 * 1024;

/** Free slabs kept for reuse, process-wide: 16 MiB, what 16 connections hold cutting 768 KiB records across reads. */
export const SLABS_KEPT = 256;

const free: ArrayBuffer[] = [];
let made = 0;

/** A slab to read into: a free one, or a fresh one. */
export function takeSlab(): Uint8Array {
  const slab = free.pop();
  if (slab) return new Uint8Array(slab);
  made++;
  return new Uint8Array(SLAB_SIZE);
}

/** Gives back the slab `buffer` is, once nothing refers to it; anything else, or one past SLABS_KEPT, is let go. */
export function giveSlab(buffer: ArrayBufferLike): void {
  if (buffer.byteLength === SLAB_SIZE && buffer instanceof ArrayBuffer && free.length < SLABS_KEPT && !free.includes(buffer)) free.push(buffer);
}

/** How many slabs are free now, and how many were ever made (for the bound tests). */
export function slabCounts(): { free: number; made: number } {
  return { free: free.length, made };
}
