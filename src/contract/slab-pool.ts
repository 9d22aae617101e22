// Frames shorter than POOLED bytes are views into a shared slab, as Node's
// Buffer.from makes them (a buffer of their own costs ~0.5 µs); a transferred
// slab detaches its neighbours, and the next frame starts a new one.

export const POOLED = 4096;
/** Twice POOLED, as in Node's pool. */
const SLAB = 8192;

export function copyOut(b: Uint8Array, n: number): Uint8Array | null {
  try {
    return b.slice(0, n);
  } catch {
    return null;
  }
}

let slab: ArrayBuffer = new ArrayBuffer(0);
let slabUsed = 0;
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
  slabUsed = (slabUsed + n + 7) & ~7;
  // PERF NOTES: set() from a constructed view, not subarray (61–74 ns
  // against 75–129) or b.buffer (547 ns a frame against 599). Frames from a
  // 64 KiB arena with no copy ran at half speed in 1 process of 4 (page
  // faults); 16 and 32 KiB slabs were no faster.
  if (n <= 32) for (let i = 0; i < n; i++) out[i] = b[i];
  else out.set(new Uint8Array(from, 0, n));
  return out;
}

/** Slabs allocated so far (for tests). */
export function slabCount(): number {
  return slabs;
}
