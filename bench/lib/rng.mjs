// A small seeded generator, so that every run builds the same fixtures.
//
// mulberry32: 32 bits of state, good enough for picking words and bytes,
// and the same sequence on every engine. Nothing here is for security.

export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    /** A float in [0, 1). */
    next,
    /** An integer in [0, n). */
    int: (n) => Math.floor(next() * n),
    /** An integer in [lo, hi]. */
    range: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    /** One element of `list`. */
    pick: (list) => list[Math.floor(next() * list.length)],
    /** true with probability p. */
    chance: (p) => next() < p,
    /** n pseudo-random bytes. */
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i += 4) {
        const v = (next() * 4294967296) >>> 0;
        out[i] = v;
        if (i + 1 < n) out[i + 1] = v >>> 8;
        if (i + 2 < n) out[i + 2] = v >>> 16;
        if (i + 3 < n) out[i + 3] = v >>> 24;
      }
      return out;
    },
  };
}
