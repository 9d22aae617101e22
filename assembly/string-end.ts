// Where a JSON string ends: the first quote that no backslash escapes, in text the core already accepted (rule 4.1).
//
// The byte judge (src/contract/judge-bytes.ts) steps over long strings it
// does not judge: a text of a megabyte, or a blob before its base64 check.
// In JS that is indexOf and a count of the backslashes before each quote
// found, at about 1 GB/s on text with an escape every 60 bytes; here it is
// one pass at the speed of the SIMD build's loads.
//
// The search starts at a character boundary inside the string: just past
// its opening quote, or anywhere after that which is not inside an escape's
// first two bytes (the hex digits of a \u escape are neither a quote nor a
// backslash, so they may be started in). A backslash escapes the byte after
// it, whatever that is; a quote not escaped ends the string.

/** One bit per byte of the four quarters' compare results. */
@inline function mask64(a: v128, b: v128, c: v128, d: v128): u64 {
  const low = <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
  const high = <u32>i8x16.bitmask(c) | (<u32>i8x16.bitmask(d) << 16);
  return <u64>low | (<u64>high << 32);
}

/** Ones in each byte: the SWAR constants of the scalar build. */
const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** Nonzero when some byte of x is zero (Hacker's Delight, section 6-1): exact as a yes or no. */
@inline function hasZeroByte(x: u64): u64 {
  return (x - ONES) & ~x & HIGHS;
}

/**
 * The position just past the quote that ends the string, searching from p
 * (a character boundary inside it) up to end; 0 when no quote ends it
 * before end (text that is not strict JSON).
 */
export function stringEnd(p: usize, end: usize): usize {
  if (ASC_FEATURE_SIMD) {
    // PERF NOTES: 64 bytes a turn, two compares per quarter and two bitmasks.
    // A block with no backslash ends at its first quote, or not at all; a
    // block with backslashes is resolved bit by bit, each backslash
    // striking out the byte after it (the bit of the next block's first
    // byte carries over). Text has an escape every few dozen bytes, base64
    // none: both cost a few operations per escape on top of the loads.
    const quote = i8x16.splat(0x22);
    const backslash = i8x16.splat(0x5c);
    let carry: u64 = 0;
    while (p + 64 <= end) {
      const v0 = v128.load(p);
      const v1 = v128.load(p, 16);
      const v2 = v128.load(p, 32);
      const v3 = v128.load(p, 48);
      let quotes = mask64(i8x16.eq(v0, quote), i8x16.eq(v1, quote), i8x16.eq(v2, quote), i8x16.eq(v3, quote)) & ~carry;
      let slashes = mask64(i8x16.eq(v0, backslash), i8x16.eq(v1, backslash), i8x16.eq(v2, backslash), i8x16.eq(v3, backslash)) & ~carry;
      carry = 0;
      if (slashes == 0) {
        if (quotes != 0) return p + <usize>ctz(quotes) + 1;
        p += 64;
        continue;
      }
      let bits = quotes | slashes;
      while (bits != 0) {
        const at = ctz(bits);
        const bit = (<u64>1) << at;
        if ((quotes & bit) != 0) return p + <usize>at + 1;
        // A backslash: the byte after it is escaped, in this block or the next.
        if (at == 63) carry = 1;
        else bits &= ~(bit << 1);
        bits &= ~bit;
      }
      p += 64;
    }
    // The last bytes: the carry says whether the first of them is escaped.
    if (carry != 0) p++;
  } else {
    // PERF NOTES: the scalar build, 8 bytes a turn while none is a quote or
    // a backslash (two zero-byte tests on a 64-bit word), then a byte at a
    // time through the word that has one.
    const quotes: u64 = ONES * 0x22;
    const slashes: u64 = ONES * 0x5c;
    while (p + 8 <= end) {
      const x = load<u64>(p);
      if ((hasZeroByte(x ^ quotes) | hasZeroByte(x ^ slashes)) != 0) {
        const stop = p + 8;
        while (p < stop) {
          const c = load<u8>(p);
          if (c == 0x22) return p + 1;
          p += c == 0x5c ? 2 : 1;
        }
      } else p += 8;
    }
  }
  while (p < end) {
    const c = load<u8>(p);
    if (c == 0x22) return p + 1;
    p += c == 0x5c ? 2 : 1;
  }
  return 0;
}
