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

import { utf8Block, utf8Incomplete, utf8Vector } from './utf8-blocks';

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

/** Whether the text is inside a string, with no escape pending: where plainBlocks may go on. */
export function inPlainString(): bool {
  return carryInString != 0 && carryEscaped == 0;
}

/** Starts a new text. */
export function resetStage1(): void {
  carryEscaped = 0;
  carryInString = 0;
  carryToken = 0;
  // Three stores: memory.fill is a call out of the module in V8, a cost every small text paid.
  const zero = i64x2.splat(0);
  v128.store(vectors, zero, PREVIOUS);
  v128.store(vectors, zero, INCOMPLETE);
  v128.store(vectors, zero, UTF8_ERROR);
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
@inline export function mask64(a: v128, b: v128, c: v128, d: v128): u64 {
  const low = <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
  const high = <u32>i8x16.bitmask(c) | (<u32>i8x16.bitmask(d) << 16);
  return <u64>low | (<u64>high << 32);
}

/** Bits set from each set bit up to the next one, exclusive: the XOR of all bits up to each. */
@inline export function prefixXor(x: u64): u64 {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

export const EVEN: u64 = 0x5555555555555555;
export const ODD: u64 = 0xaaaaaaaaaaaaaaaa;

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

/** The code unit of the four hex digits at p, or -1 when one is not a hex digit (also base64.ts's, for \u escapes in a blob). */
@inline export function hex4(p: usize): i32 {
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

// plainBlocks is the loop of a long plain string (text, base64), tried
// between calls of stage1 when the text is inside a string with no escape
// pending. One test per block: a quote, a backslash or a control byte in
// it? Six operations per quarter and one bitmask per block; if none, only
// its UTF-8 needs judging. The first block that has one is left to stage1.
//
// PERF NOTES: 0.05 ns a byte (20 GB/s) on base64, against 0.06 for the old
// 16-byte string loop; 0.09 on Cyrillic and CJK prose, plus the UTF-8
// lookups. Handing strings to it from inside a chunk too (stage1 returning
// after 2 to 8 plain blocks) ran more instructions on every document: 8%
// on gsoc-2018.json, 1 to 3% on twitter.json, citm_catalog.json and
// listing-medium (cachegrind).

/**
 * From `p`, passes over the blocks before `stop` that go on with the
 * string the text is in (no quote, backslash or control byte), judging
 * their UTF-8; returns where the first other block starts. Only for a text
 * inside a string with no escape pending (inPlainString).
 */
export function plainBlocks(p: usize, stop: usize): usize {
  let prev = v128.load(vectors, PREVIOUS);
  let incomplete = v128.load(vectors, INCOMPLETE);
  let errors = v128.load(vectors, UTF8_ERROR);
  const quote = v128.load(CONSTANTS, 0);
  const backslash = v128.load(CONSTANTS, 16);
  const lastControl = v128.load(CONSTANTS, 112);
  for (; p < stop; p += BLOCK) {
    const v0 = v128.load(p);
    const v1 = v128.load(p, 16);
    const v2 = v128.load(p, 32);
    const v3 = v128.load(p, 48);
    const s0 = v128.or(v128.or(i8x16.eq(v0, quote), i8x16.eq(v0, backslash)), i8x16.eq(i8x16.min_u(v0, lastControl), v0));
    const s1 = v128.or(v128.or(i8x16.eq(v1, quote), i8x16.eq(v1, backslash)), i8x16.eq(i8x16.min_u(v1, lastControl), v1));
    const s2 = v128.or(v128.or(i8x16.eq(v2, quote), i8x16.eq(v2, backslash)), i8x16.eq(i8x16.min_u(v2, lastControl), v2));
    const s3 = v128.or(v128.or(i8x16.eq(v3, quote), i8x16.eq(v3, backslash)), i8x16.eq(i8x16.min_u(v3, lastControl), v3));
    if (i8x16.bitmask(v128.or(v128.or(s0, s1), v128.or(s2, s3))) != 0) break;
    if (i8x16.bitmask(v128.or(v128.or(v0, v1), v128.or(v2, v3))) != 0) {
      errors = v128.or(errors, utf8Block(prev, p));
      incomplete = utf8Incomplete(v3);
    } else {
      errors = v128.or(errors, incomplete);
      incomplete = i64x2.splat(0);
    }
    prev = v3;
  }
  v128.store(vectors, prev, PREVIOUS);
  v128.store(vectors, incomplete, INCOMPLETE);
  v128.store(vectors, errors, UTF8_ERROR);
  if (v128.any_true(errors)) blockFault = true;
  return p;
}

// PERF NOTES: the exact scanner's loop for non-ASCII text: 16 bytes a step,
// three compares and a bitmask for a quote, a backslash or a control byte,
// stage 1's UTF-8 lookups for a step with a non-ASCII byte. Entered only at
// a non-ASCII byte: run at every string's start, it cost short ASCII
// strings 17%. On Cyrillic and CJK, 51–179 bytes in 53–83 ns against the
// scalar build's 83–261; a fault at the end of 300 KB of prose is named at
// 2.4 GB/s against 0.73.

/**
 * For the exact scanner (./json): from p, the first byte of a character
 * inside a string, passes over 16-byte steps of plain string (no quote,
 * backslash or control byte) with well-formed UTF-8. Returns where the
 * scanner should go on: at the first special or non-ASCII byte of the step
 * that stopped it when the step before ended a character, else at the
 * first byte of the character the last step cut; p itself when no step
 * passed. A UTF-8 error stops it too, for the scanner's byte loop to place.
 */
export function plainText(p: usize, end: usize): usize {
  const quote = v128.load(CONSTANTS, 0);
  const backslash = v128.load(CONSTANTS, 16);
  const lastControl = v128.load(CONSTANTS, 112);
  const from = p;
  // The 16 bytes before p as far as UTF-8 goes: p starts a character.
  let prev = i64x2.splat(0);
  let prevWide = false;
  while (p + 16 <= end) {
    const v = v128.load(p);
    const special = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.eq(i8x16.min_u(v, lastControl), v)));
    const high = i8x16.bitmask(v);
    if (special != 0) {
      if (!prevWide) return p + <usize>ctz(special | high);
      break;
    }
    const wide = high != 0;
    if ((wide || prevWide) && v128.any_true(utf8Vector(prev, v))) break;
    prev = v;
    prevWide = wide;
    p += 16;
  }
  // Back to the first byte of a character the last step began.
  if (p > from) {
    if (load<u8>(p - 1) >= 0xc0) return p - 1;
    if (load<u8>(p - 2) >= 0xe0) return p - 2;
    if (load<u8>(p - 3) >= 0xf0) return p - 3;
  }
  return p;
}

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
  // 64: 0x60, which sets the high bit of every byte but the control bytes (by saturating addition)
  0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60,
  // 80: structural characters by low nibble, as they are once ORed with 0x20: ':' '{' ',' '}'
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0x7b, 0x2c, 0x7d, 0, 0,
  // 96: whitespace by low nibble: ' ' tab newline return
  0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0,
  // 112: the last control byte
  0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f,
], 16);

// The structural and whitespace masks are one lookup each (Langdale and
// Lemire classify with two lookups and an AND; one is enough here): the
// table holds, at each low nibble, the one byte of the class with that low
// nibble, and a byte is in the class when the lookup gives it back. '[' and
// ']' share low nibbles with '{' and '}', so the structural lookup compares
// against the byte ORed with 0x20, which also lets through 0x0c and 0x1a.
// Those are control bytes: inside a string they are refused anyway, and
// outside one, stage 2 refuses whatever it finds that is not punctuation.

// Stage 1's loop touches every byte of structured text. Per block, always:
// quotes and control bytes (a compare, or one saturating add, and a bitmask
// per quarter), and backslashes (one bitmask; the full mask and the odd-run
// additions only for a block that holds one). A block inside a string end
// to end is then done; any other takes one table lookup per quarter for
// structural characters and one for whitespace, a dozen 64-bit operations
// for strings and tokens, and writes its structural positions eight at a
// time. A block with a non-ASCII byte adds the UTF-8 lookups; escapes are
// judged one by one. Faults are ORed together and looked at once per call.
//
// PERF NOTES: no call and no second loop inside this loop, since either
// made V8 spill its vectors (5 to 10% slower on dense text), so long strings
// go to plainBlocks between calls; the v128 constants load from CONSTANTS
// once a call, as V8 rebuilds one from immediates at every use. A call
// costs about 35 ns before its first block, so texts under STAGED_MIN skip
// the stages. Core alone: 0.25 ns a byte on twitter.json and citm_catalog,
// 0.36 on listing-medium (writing the index 35% of that, UTF-8 16%).

/**
 * Classifies the blocks in [src, srcEnd) (whole blocks), whose bytes stand
 * for the text at src + delta, then, if `tailSrc` is not 0, the one block
 * there, which stands for the text at tailSrc + tailDelta (the text's last
 * bytes, padded: one call rather than two, which matters for small texts).
 * Writes their structural positions, as text addresses, at `out`. `end` is
 * the end of the text, for escapes that read past their block. Returns the
 * new end of the index; sets `blockFault` on a fault.
 */
export function stage1(src: usize, srcEnd: usize, delta: usize, end: usize, out: usize, tailSrc: usize, tailDelta: usize): usize {
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
  const above = v128.load(CONSTANTS, 64);
  const opTable = v128.load(CONSTANTS, 80);
  const spaceTable = v128.load(CONSTANTS, 96);

  let p = src;
  let stopAt = srcEnd;
  let d = delta;
  let t = tailSrc;
  // The blocks of [src, srcEnd), then the padded last block, if given.
  while (true) {
  for (; p < stopAt; p += BLOCK) {
    // Quotes, backslashes and control bytes: one quarter at a time, so
    // that few vectors are live at once.
    let v = v128.load(p);
    let quotes = <u64><u32>i8x16.bitmask(i8x16.eq(v, quote));
    let b0 = i8x16.eq(v, backslash);
    let notControls = <u64><u32>i8x16.bitmask(i8x16.add_sat_u(v, above));
    let any = v;
    v = v128.load(p, 16);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 16;
    let b1 = i8x16.eq(v, backslash);
    notControls |= <u64><u32>i8x16.bitmask(i8x16.add_sat_u(v, above)) << 16;
    any = v128.or(any, v);
    v = v128.load(p, 32);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 32;
    let b2 = i8x16.eq(v, backslash);
    notControls |= <u64><u32>i8x16.bitmask(i8x16.add_sat_u(v, above)) << 32;
    any = v128.or(any, v);
    v = v128.load(p, 48);
    quotes |= <u64><u32>i8x16.bitmask(i8x16.eq(v, quote)) << 48;
    let b3 = i8x16.eq(v, backslash);
    notControls |= <u64><u32>i8x16.bitmask(i8x16.add_sat_u(v, above)) << 48;
    any = v128.or(any, v);

    // Escaped bytes: those after a backslash run of odd length.
    let escaped = escapedCarry;
    if (i8x16.bitmask(v128.or(v128.or(b0, b1), v128.or(b2, b3))) == 0) {
      escapedCarry = 0;
    } else {
      const backslashes =
        <u64><u32>i8x16.bitmask(b0) |
        (<u64><u32>i8x16.bitmask(b1) << 16) |
        (<u64><u32>i8x16.bitmask(b2) << 32) |
        (<u64><u32>i8x16.bitmask(b3) << 48);
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
      out = flatten(out, (ops & ~inString) | starts, <u32>(p + d));
    }

    controlInString |= inString & ~notControls;
    const escapes = escaped & inString;
    if (escapes != 0 && !escapesValid(escapes, p + d, end)) blockFault = true;

    if (i8x16.bitmask(any) != 0) {
      errors = v128.or(errors, utf8Block(prev, p));
      prev = v128.load(p, 48);
      incomplete = utf8Incomplete(prev);
    } else {
      errors = v128.or(errors, incomplete);
      incomplete = i64x2.splat(0);
      prev = v128.load(p, 48);
    }
  }
  if (t == 0) break;
  p = t;
  stopAt = t + BLOCK;
  d = tailDelta;
  t = 0;
  }

  carryEscaped = escapedCarry;
  carryInString = stringCarry;
  carryToken = tokenCarry;
  v128.store(vectors, prev, PREVIOUS);
  v128.store(vectors, incomplete, INCOMPLETE);
  v128.store(vectors, errors, UTF8_ERROR);
  // UTF-8 errors too, at the end of each call, so that a walk given this
  // call's positions knows everything before them is clean (see stage2's
  // resume point).
  if (controlInString != 0 || v128.any_true(errors)) blockFault = true;
  return out;
}
