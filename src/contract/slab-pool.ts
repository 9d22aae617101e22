// Frames shorter than POOLED bytes are copied into a shared slab, as Node's
// Buffer.from carves its pool: an ArrayBuffer of their own would cost ~0.5
// µs on V8, as long as writing a small listing. Such a frame is a view
// (`byteOffset`, `byteLength`); transferring its buffer detaches its
// neighbours, and a transferred slab (byteLength 0) makes the next frame
// start a new one.

/** Frames shorter than this are carved from a shared slab. */
export const POOLED = 4096;
/** Twice POOLED, as Node's Buffer pool. */
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

/** The first n bytes of b (a view of all of `from`), n below POOLED, copied into the slab; null when no slab can be allocated. */
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
  // PERF NOTES: set() from a constructed view, not subarray (61–74 ns
  // against 75–129) or b.buffer (547 ns a frame against 599). Frames from a
  // 64 KiB arena with no copy ran at half speed in 1 process of 4 (page
  // faults); 16 and 32 KiB slabs were no faster.
  if (n <= 32) for (let i = 0; i < n; i++) out[i] = b[i];
  else out.set(new Uint8Array(from, 0, n));
  return out;
}

/** Slabs allocated so far, for the test that small frames share them. */
export function slabCount(): number {
  return slabs;
}
