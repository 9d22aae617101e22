// Frames shorter than POOLED bytes, copied out of the writer's scratch
// buffer into a slab of SLAB bytes shared with the frames written before
// them, as Node's Buffer.from carves its pool: an ArrayBuffer of its own
// would cost about 0.5 µs on V8 (a typed array over 64 bytes keeps its
// bytes off the heap), as long as writing a listing of three resources
// takes. Such a frame is a view: its `buffer` is the slab, `byteOffset` and
// `byteLength` say where it lies, and transferring that buffer detaches the
// frames beside it (the next frame then starts a new slab). A frame of
// POOLED bytes or more has an ArrayBuffer of its own, of exactly its length.

/** Frames shorter than this are carved from a shared slab. */
export const POOLED = 4096;
/** The slab small frames are carved from: twice POOLED, as Node's Buffer pool. */
const SLAB = 8192;

/** The first n bytes of b, copied; null when they cannot be allocated. */
export function copyOut(b: Uint8Array, n: number): Uint8Array | null {
  try {
    return b.slice(0, n);
  } catch {
    return null;
  }
}

/** The slab small frames are carved from, and how much of it is taken. */
let slab: ArrayBuffer = new ArrayBuffer(0);
let slabUsed = 0;
/** Slabs allocated, for the test that small frames share them. */
let slabs = 0;

/**
 * The first n bytes of b, a view of all of `from`, copied into the slab,
 * for n below POOLED; null when a new slab cannot be allocated. A slab
 * whose buffer was transferred has a byteLength of 0, so the next frame
 * starts a new one.
 */
export function poolOut(b: Uint8Array, from: ArrayBuffer, n: number): Uint8Array | null {
  if (slabUsed + n > slab.byteLength) {
    try {
      slab = new ArrayBuffer(SLAB);
    } catch {
      return null;
    }
    slabs++;
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, n);
  // Each frame starts on an 8-byte boundary, as in Node's pool.
  slabUsed = (slabUsed + n + 7) & ~7;
  // PERF NOTES: the copy is a loop up to 32 bytes, else set() from a view
  // made with the constructor (not subarray: 61–74 ns against 75–129 for 16
  // to 150 bytes) on the buffer the writer keeps (not b.buffer, a runtime
  // call: 547 ns a frame against 599 on the everything server's answers).
  // Frames handed out from a 64 KiB arena with no copy ran 4.5% faster in 3
  // processes of 4 and at half speed in the fourth, which page-faulted
  // freed arenas back in (0.33–0.36 faults a frame); 16 and 32 KiB slabs
  // were no faster. The slab stays at 8 KiB.
  if (n <= 32) for (let i = 0; i < n; i++) out[i] = b[i];
  else out.set(new Uint8Array(from, 0, n));
  return out;
}

/** Slabs allocated so far, for the test that small frames share them. */
export function slabCount(): number {
  return slabs;
}
