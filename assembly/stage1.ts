// Stage 1 of rule 4.1 in the SIMD build: 64-byte blocks of JSON text into bitmasks and a structural index.
//
// The method is that of Langdale and Lemire, "Parsing Gigabytes of JSON per
// Second", VLDB Journal 28(6), 2019, written here from the paper:
//
// - compare each 16-byte quarter of a block against '"', '\\', the six
//   structural characters, the four whitespace bytes and the control bytes,
//   and reduce each compare to one bit per byte: five 64-bit masks;
// - escaped characters are those after a backslash run of odd length. The
//   paper finds the odd runs with two additions: adding a run's start bit
//   carries through the run and lands just past its end, so the starts at
//   even positions that land on odd ones (and odd starts that land on even
//   ones) mark runs of odd length;
// - the unescaped quotes, prefix-XORed (each bit the XOR of all bits up to
//   it), give the bytes inside strings: an opening quote and what follows it,
//   up to but not including its closing quote;
// - the structural index is every structural character outside strings, and
//   the first byte of every other token: a string's opening quote, or the
//   first byte of a number or literal. Stage 2 (./stage2) walks that index.
//
// Within strings, the rules that need no grammar are judged here by mask: a
// control byte inside a string, an escape that is not one of the nine, a \u
// without four hex digits or a lone surrogate. UTF-8 is judged over the
// whole text, a block at a time (./utf8-blocks).
//
// Nothing here says where a fault is. Any fault sets `blockFault`, and the
// caller runs the exact scanner (./json) to find and name the first one.
//
// # Carries between blocks
//
// A block needs four facts about the bytes before it: whether its first byte
// is escaped, whether it starts inside a string, whether the byte before it
// is part of a token (a number or literal going on), and the previous 16
// bytes with their UTF-8 state. They live in globals between calls, so that
// a text can be fed a window at a time.

import { utf8Errors, utf8Incomplete } from './utf8-blocks';

/** Bytes per block: four v128 quarters, one bit each in a u64 mask. */
export const BLOCK: usize = 64;

/** Whether the first byte of the next block is escaped (1 or 0). */
let carryEscaped: u64 = 0;
/** All ones when the next block starts inside a string, else 0. */
let carryInString: u64 = 0;
/** 1 when the byte before the next block continues a token, so the next byte starts none. */
let carryToken: u64 = 0;
/**
 * Three v128s, in memory rather than globals so that the scalar build,
 * which compiles this file's globals but none of its functions, needs no
 * SIMD: the 16 bytes before the next block, nonzero bytes where they end a
 * UTF-8 sequence short, and the OR of every block's UTF-8 error bits.
 */
const vectors: usize = memory.data(48, 16);
const PREVIOUS: usize = 0;
const INCOMPLETE: usize = 16;
const UTF8_ERROR: usize = 32;
/** Where the 'u' of a low surrogate escape already judged with its high half is. */
let pairedLow: usize = 0;

/** Set when a block breaks a rule judged here; the exact scanner then finds which and where. */
export let blockFault: bool = false;

/** Starts a new text. */
export function resetStage1(): void {
  carryEscaped = 0;
  carryInString = 0;
  carryToken = 0;
  memory.fill(vectors, 0, 48);
  pairedLow = 0;
  blockFault = false;
}

/**
 * Whether the text fed so far ends well, as far as stage 1 can tell: not
 * inside a string, with no UTF-8 error and no sequence left unfinished.
 */
export function stage1Ends(): bool {
  return !blockFault && carryInString == 0 && !v128.any_true(v128.or(v128.load(vectors, UTF8_ERROR), v128.load(vectors, INCOMPLETE)));
}

/** One bit per byte of the four quarters' compare results. */
@inline function mask64(a: v128, b: v128, c: v128, d: v128): u64 {
  const low = <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
  const high = <u32>i8x16.bitmask(c) | (<u32>i8x16.bitmask(d) << 16);
  return <u64>low | (<u64>high << 32);
}

/** Bits set from each set bit up to the next one, exclusive: the XOR of all bits up to each. */
@inline function prefixXor(x: u64): u64 {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

const EVEN: u64 = 0x5555555555555555;
const ODD: u64 = 0xaaaaaaaaaaaaaaaa;

/** The nine escape letters after a backslash, as one flag per byte value (1: simple, 2: 'u'). */
const ESCAPES: usize = memory.data<u8>([
  // 0x00..0x2f: '"' (0x22) and '/' (0x2f)
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  // 0x40..0x5f: '\\' (0x5c)
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
  // 0x60..0x7f: b f n r t, and u (2)
  0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0,
  0, 0, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);

/** 16 + digit value for a hex digit byte, else 0: nonzero when hex. */
const HEX: usize = memory.data<u8>([
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 0, 0, 0, 0, 0, 0,
  0, 26, 27, 28, 29, 30, 31, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 26, 27, 28, 29, 30, 31, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);

/** The code unit of the four hex digits at p, or -1 when one is not a hex digit. */
@inline function hex4(p: usize): i32 {
  const a = <i32>load<u8>(HEX + <usize>load<u8>(p));
  const b = <i32>load<u8>(HEX + <usize>load<u8>(p, 1));
  const c = <i32>load<u8>(HEX + <usize>load<u8>(p, 2));
  const d = <i32>load<u8>(HEX + <usize>load<u8>(p, 3));
  if ((a & b & c & d & 16) == 0) return -1;
  return ((a & 15) << 12) | ((b & 15) << 8) | ((c & 15) << 4) | (d & 15);
}

/**
 * Judges the escaped bytes (inside strings) of one block: `bits` in the
 * block whose first byte is at `at` in the text, which ends at `end`. A \u
 * escape reads its hex digits, and a high surrogate its low half, from the
 * text itself, past the block when need be. False on any fault.
 */
function escapesValid(bits: u64, at: usize, end: usize): bool {
  while (bits != 0) {
    const p = at + <usize>ctz(bits);
    bits &= bits - 1;
    const kind = load<u8>(ESCAPES + <usize>load<u8>(p));
    if (kind == 1) continue;
    if (kind == 0) return false;
    // \u: p is at the 'u'.
    if (p == pairedLow) continue;
    if (p + 5 > end) return false;
    const unit = hex4(p + 1);
    if (unit < 0) return false;
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit >= 0xdc00) return false;
    // A high surrogate: a whole low surrogate escape must follow at once.
    const j = p + 5;
    if (j + 6 > end || load<u8>(j) != 0x5c || load<u8>(j, 1) != 0x75) return false;
    const low = hex4(j + 2);
    if (low < 0xdc00 || low > 0xdfff) return false;
    pairedLow = j + 1;
  }
  return true;
}

/** Writes the positions of the set bits of `bits` (plus `base`) at `out`; returns the new end. */
@inline function flatten(out: usize, bits: u64, base: u32): usize {
  if (bits == 0) return out;
  const count = <usize>popcnt(bits);
  // Eight at a time without looking: the index has room past its capacity
  // for the extra writes, and the count says which are real.
  let o = out;
  let b = bits;
  while (true) {
    store<u32>(o, base + <u32>ctz(b));
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 4);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 8);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 12);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 16);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 20);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 24);
    b &= b - 1;
    store<u32>(o, base + <u32>ctz(b), 28);
    b &= b - 1;
    o += 32;
    if (b == 0) break;
  }
  return out + (count << 2);
}

// PERF NOTES: stage 1's loop, the part of the SIMD build that touches every
// byte. Per block it always takes three masks (quotes, backslashes, control
// bytes: a compare and a bitmask per quarter), then branches once: a block
// wholly inside a string (long text, base64) is done, and any other block
// takes two lookups per quarter for structural characters and whitespace,
// a dozen 64-bit operations for strings and tokens, and writes its
// structural positions eight at a time. Three things are rare and sit
// behind a branch: backslashes (the odd-run additions run only for blocks
// that hold one), escapes inside strings (judged one by one), and non-ASCII
// bytes (the UTF-8 lookups run only for blocks that hold one; a block of
// ASCII checks only that the one before did not end a sequence short).
// Faults are not branched on per block: they are ORed together and looked
// at once per call.

/**
 * The loop's v128 constants, in memory: V8 rematerializes a v128 constant
 * at every use (three instructions), but keeps a loaded value in a
 * register or in one spill slot.
 */
const CONSTANTS: usize = memory.data<u8>([
  // 0: '"'
  0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
  // 16: '\\'
  0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c,
  // 32: the low nibble
  0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f,
  // 48: 0x20, which makes '[' and ']' into '{' and '}'
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  // 64: the last control byte
  0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f,
  // 80: structural characters by low nibble, as they are once ORed with 0x20: ':' '{' ',' '}'
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0x7b, 0x2c, 0x7d, 0, 0,
  // 96: whitespace by low nibble: ' ' tab newline return
  0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0,
], 16);

// The structural and whitespace masks are one lookup each (Langdale and
// Lemire classify with two lookups and an AND; one is enough here): the
// table holds, at each low nibble, the one byte of the class with that low
// nibble, and a byte is in the class when the lookup gives it back. '[' and
// ']' share low nibbles with '{' and '}', so the structural lookup compares
// against the byte ORed with 0x20, which also lets through 0x0c and 0x1a.
// Those are control bytes: inside a string they are refused anyway, and
// outside one, stage 2 refuses whatever it finds that is not punctuation.

/**
 * Classifies the blocks in [src, srcEnd) (whole blocks), whose bytes stand
 * for the text at src + delta, and writes their structural positions, as
 * text addresses, at `out`. `end` is the end of the text, for escapes that
 * read past their block. Returns the new end of the index; sets
 * `blockFault` on a fault.
 */
export function stage1(src: usize, srcEnd: usize, delta: usize, end: usize, out: usize): usize {
  let escapedCarry = carryEscaped;
  let stringCarry = carryInString;
  let tokenCarry = carryToken;
  let prev = v128.load(vectors, PREVIOUS);
  let incomplete = v128.load(vectors, INCOMPLETE);
  let errors = v128.load(vectors, UTF8_ERROR);
  let controlInString: u64 = 0;

  const quote = v128.load(CONSTANTS, 0);
  const backslash = v128.load(CONSTANTS, 16);
  const lowNibble = v128.load(CONSTANTS, 32);
  const bit5 = v128.load(CONSTANTS, 48);
  const lastControl = v128.load(CONSTANTS, 64);
  const opTable = v128.load(CONSTANTS, 80);
  const spaceTable = v128.load(CONSTANTS, 96);

  for (let p = src; p < srcEnd; p += BLOCK) {
    // Quotes, backslashes and control bytes: one quarter at a time, so
    // that few vectors are live at once.
    let v = v128.load(p);
    let quotes = <u64><u32>i8x16.bitmask(i8x16.eq(v, quote));
    let backslashes = <u64><u32>i8x16.bitmask(i8x16.eq(v, backslash));
    let controls = <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.min_u(v, lastControl), v));
    let any = v;
    v = v128.load(p, 16);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 16;
    backslashes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, backslash)) << 16;
    controls |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.min_u(v, lastControl), v)) << 16;
    any = v128.or(any, v);
    v = v128.load(p, 32);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 32;
    backslashes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, backslash)) << 32;
    controls |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.min_u(v, lastControl), v)) << 32;
    any = v128.or(any, v);
    v = v128.load(p, 48);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 48;
    backslashes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, backslash)) << 48;
    controls |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.min_u(v, lastControl), v)) << 48;
    any = v128.or(any, v);

    // Escaped bytes: those after a backslash run of odd length.
    let escaped = escapedCarry;
    if (backslashes == 0) {
      escapedCarry = 0;
    } else {
      // A backslash escaped from the block before starts no run.
      const b = backslashes & ~escapedCarry;
      const starts = b & ~(b << 1);
      const evenEnds = (b + (starts & EVEN)) & ~b;
      const oddCarries = b + (starts & ODD);
      const oddEnds = oddCarries & ~b;
      escaped |= (evenEnds & ODD) | (oddEnds & EVEN);
      // A run that starts at an odd bit and overflows has odd length: byte 64 is escaped.
      escapedCarry = oddCarries < b ? 1 : 0;
    }

    const unescaped = quotes & ~escaped;
    let inString: u64;
    if ((stringCarry & ~unescaped) == ~<u64>0) {
      // Inside a string from end to end (long text, base64): no token
      // starts here, and structural characters and whitespace need no masks.
      inString = stringCarry;
      tokenCarry = 1;
    } else {
      inString = prefixXor(unescaped) ^ stringCarry;
      stringCarry = <u64>(<i64>inString >> 63);
      v = v128.load(p);
      let n = v128.and(v, lowNibble);
      let ops = <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(opTable, n), v128.or(v, bit5)));
      let spaces = <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(spaceTable, n), v));
      v = v128.load(p, 16);
      n = v128.and(v, lowNibble);
      ops |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(opTable, n), v128.or(v, bit5))) << 16;
      spaces |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(spaceTable, n), v)) << 16;
      v = v128.load(p, 32);
      n = v128.and(v, lowNibble);
      ops |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(opTable, n), v128.or(v, bit5))) << 32;
      spaces |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(spaceTable, n), v)) << 32;
      v = v128.load(p, 48);
      n = v128.and(v, lowNibble);
      ops |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(opTable, n), v128.or(v, bit5))) << 48;
      spaces |= <u64><u32>i8x16.bitmask(i8x16.eq(i8x16.swizzle(spaceTable, n), v)) << 48;

      // Tokens: bytes of strings (both quotes), and bytes outside strings that
      // are neither structural nor whitespace. A token starts where a token
      // byte follows a byte that does not continue one: not a token byte, or
      // a closing quote (so that `"a"b` shows b, and `"a""b"` the second string).
      const closing = unescaped & ~inString;
      const token = ~(ops | spaces) | inString | unescaped;
      const continues = token & ~closing;
      const starts = token & ~((continues << 1) | tokenCarry);
      tokenCarry = continues >> 63;
      out = flatten(out, (ops & ~inString) | starts, <u32>(p + delta));
    }

    controlInString |= controls & inString;
    const escapes = escaped & inString;
    if (escapes != 0 && !escapesValid(escapes, p + delta, end)) blockFault = true;

    if (i8x16.bitmask(any) != 0) {
      const v0 = v128.load(p);
      const v1 = v128.load(p, 16);
      const v2 = v128.load(p, 32);
      const v3 = v128.load(p, 48);
      const h0 = v128.and(i16x8.shr_u(v0, 4), lowNibble);
      const h1 = v128.and(i16x8.shr_u(v1, 4), lowNibble);
      const h2 = v128.and(i16x8.shr_u(v2, 4), lowNibble);
      const h3 = v128.and(i16x8.shr_u(v3, 4), lowNibble);
      errors = v128.or(errors, utf8Errors(prev, v0, v128.and(i16x8.shr_u(prev, 4), lowNibble), h0));
      errors = v128.or(errors, utf8Errors(v0, v1, h0, h1));
      errors = v128.or(errors, utf8Errors(v1, v2, h1, h2));
      errors = v128.or(errors, utf8Errors(v2, v3, h2, h3));
      incomplete = utf8Incomplete(v3);
      prev = v3;
    } else {
      errors = v128.or(errors, incomplete);
      incomplete = i64x2.splat(0);
      prev = v128.load(p, 48);
    }
  }

  carryEscaped = escapedCarry;
  carryInString = stringCarry;
  carryToken = tokenCarry;
  v128.store(vectors, prev, PREVIOUS);
  v128.store(vectors, incomplete, INCOMPLETE);
  v128.store(vectors, errors, UTF8_ERROR);
  if (controlInString != 0) blockFault = true;
  return out;
}
