// Stage 2 of rule 4.1 in the SIMD build: the JSON grammar over the structural index only.
//
// Stage 1 (./stage1) leaves one position per structural character and per
// token start; strings have been judged there, whole. This walks those
// positions (Langdale and Lemire, "Parsing Gigabytes of JSON per Second",
// VLDB Journal 28(6), 2019, section 5) in the shape of the exact scanner of
// ./json: each turn reads one value, then the punctuation after it. Each
// test sits at its own place in the grammar, so the branch predictor learns
// a document's rhythm (key, colon, value, comma) as it would the exact
// scanner's. Numbers and literals are read here in full, and must end at
// whitespace, a structural character or the end of the text, since any
// other byte there is one that the grammar refuses.
//
// The walk asks for positions one at a time; when the index runs out it
// has stage 1 index the next window of the text. Like stage 1, it only
// says that something is wrong; the exact scanner says what and where.

import { scanNumber } from './number';

/** Rule 4.1's nesting limit, counting the outermost container. */
const MAX_DEPTH: i32 = 127;

const OBJECT: u8 = 1;
const ARRAY: u8 = 2;

/** One byte per open container: OBJECT or ARRAY. */
const stack: usize = memory.data(MAX_DEPTH + 1);

/** Whitespace and structural characters: what may follow a number or a literal. */
const ENDS_SCALAR: usize = memory.data<u8>([
  0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);

// PERF NOTES: the digits of a number, the hot loop of canada.json: eight
// bytes per step, so its typical 17-digit numbers take three steps.

/** How many ASCII digits start at p, before `end`. */
@inline function digits(p: usize, end: usize): usize {
  const start = p;
  // Eight at a time: XOR with '0' leaves digits as 0..9; adding 0x76 sets
  // the high bit of a byte of 10 or more, and OR with the byte itself
  // catches bytes that had it set. A carry out of such a byte only spoils
  // the bytes after the first non-digit, which are not counted.
  while (p + 8 <= end) {
    const x = load<u64>(p) ^ 0x3030303030303030;
    const t = ((x + 0x7676767676767676) | x) & 0x8080808080808080;
    if (t != 0) return p - start + <usize>(ctz(t) >> 3);
    p += 8;
  }
  while (p < end && <u32>load<u8>(p) - 0x30 < 10) p++;
  return p - start;
}

/**
 * The end of the number that starts at p, or 0 for a fault. Plain numbers
 * (no exponent, fewer than 309 integer digits: finite whatever their
 * digits) are read here, digits eight at a time; anything else goes to the
 * exact scanner's scanNumber, which this agrees with on the plain ones.
 */
function numberEnd(p: usize, end: usize): usize {
  const start = p;
  if (load<u8>(p) == 0x2d) p++;
  const whole = digits(p, end);
  if (whole == 0 || whole >= 309 || (whole > 1 && load<u8>(p) == 0x30)) return scanNumber(start, end);
  p += whole;
  if (p < end && load<u8>(p) == 0x2e) {
    const fraction = digits(p + 1, end);
    if (fraction == 0) return 0;
    p += 1 + fraction;
  }
  if (p < end && (<u32>load<u8>(p) | 0x20) == 0x65) return scanNumber(start, end);
  return p;
}

/** Whether the scalar value (number or literal) starting at p is whole and well ended. */
function scalarValid(p: usize, end: usize): bool {
  const c = <u32>load<u8>(p);
  let q: usize;
  if (c == 0x74) {
    // "true"
    if (p + 4 > end || load<u32>(p) != 0x65757274) return false;
    q = p + 4;
  } else if (c == 0x66) {
    // "false"
    if (p + 5 > end || load<u32>(p, 1) != 0x65736c61) return false;
    q = p + 5;
  } else if (c == 0x6e) {
    // "null"
    if (p + 4 > end || load<u32>(p) != 0x6c6c756e) return false;
    q = p + 4;
  } else if (c == 0x2d || c - 0x30 < 10) {
    q = numberEnd(p, end);
    if (q == 0) return false;
  } else {
    return false;
  }
  return q == end || load<u8>(ENDS_SCALAR + <usize>load<u8>(q)) != 0;
}

/** Where the walk finds the next positions, and how far they go. */
import { index, refill, SENTINEL } from './windows';

// Stage 2 makes one test per structural position, at its own place in the
// grammar, as the exact scanner does. A position costs an index load and a
// byte load; strings and punctuation nothing more. Numbers are read digits
// eight at a time, literals as one 32-bit compare. The index runs out once
// per window of 16 KiB, where one predictable test calls for the next.
//
// PERF NOTES: branches on the data, so that the predictor learns the
// document's rhythm. A table-driven machine (no branch on the data) was
// slower: its chain of dependent loads and the 45 instructions of V8's
// branch-free push and pop cost more than the mispredictions it saved.
// 1.3 ns a position on twitter.json, 1.7 on citm_catalog.json, 4.1 on
// canada.json, where a third of the positions are numbers.

/**
 * Where the exact scanner may resume when the walk fails: the first byte of
 * a value, its depth, and the kinds of the containers around it (as the
 * exact scanner keeps them), or 0 when there is none. Taken at the first
 * value after each new window: all the text before it has passed both
 * stages (stage 1 gives no positions from a window with a fault), so the
 * first fault is at or after it, and the exact scanner, started there in
 * that state, finds the one it would have found from the start.
 */
export let resumeAt: usize = 0;
export let resumeDepth: i32 = 0;
export const resumeStack: usize = memory.data(MAX_DEPTH + 1);

/** The walk's place in the index between calls of walkValue: the next position, and the end of the window's. */
let cursor: usize = 0;
let cursorStop: usize = 0;

/** Whether the structural positions of the text make one value, walked as the exact scanner walks bytes. */
export function walk(end: usize): bool {
  startWalk();
  return walkValue(end, SENTINEL);
}

/** Puts the walk at the start of the index, for a text that startText has just begun. */
export function startWalk(): void {
  cursor = index;
  cursorStop = index;
  resumeAt = 0;
}

/**
 * Walks one value from the walk's place in the index, and says whether the
 * position after it, at depth 0, is `after`: SENTINEL for a whole text, a
 * separator for a value in a run of them (./bulk). On true the place is
 * just past `after`, where the next value of a run starts.
 */
export function walkValue(end: usize, after: usize): bool {
  let at = cursor;
  let stop = cursorStop;
  let depth: i32 = 0;
  let p: usize;
  // Set when a new window's positions came: the next value is a resume point.
  let fresh = false;
  // Each "next position" below is these three lines: the index, or the next window's.
  if (at == stop) { stop = refill(); at = index; }
  p = <usize>load<u32>(at);
  at += 4;
  // Each turn reads one value at p, then the punctuation after it.
  while (true) {
    if (fresh) {
      fresh = false;
      if (p != SENTINEL) {
        resumeAt = p;
        resumeDepth = depth;
        memory.copy(resumeStack, stack, <usize>depth + 1);
      }
    }
    let c = <u32>load<u8>(p);
    if (c == 0x22) {
      // A string: stage 1 has judged it.
    } else if (c == 0x7b) {
      // '{': an object; its first key, or its end.
      if (++depth > MAX_DEPTH) return false;
      store<u8>(stack + <usize>depth, OBJECT);
      if (at == stop) { stop = refill(); at = index; fresh = true; }
      p = <usize>load<u32>(at);
      at += 4;
      c = <u32>load<u8>(p);
      if (c == 0x7d) {
        depth--;
      } else {
        if (c != 0x22) return false;
        if (at == stop) { stop = refill(); at = index; fresh = true; }
        p = <usize>load<u32>(at);
        at += 4;
        if (load<u8>(p) != 0x3a) return false;
        if (at == stop) { stop = refill(); at = index; fresh = true; }
        p = <usize>load<u32>(at);
        at += 4;
        continue;
      }
    } else if (c == 0x5b) {
      // '[': an array; its first value, or its end.
      if (++depth > MAX_DEPTH) return false;
      store<u8>(stack + <usize>depth, ARRAY);
      if (at == stop) { stop = refill(); at = index; fresh = true; }
      p = <usize>load<u32>(at);
      at += 4;
      if (load<u8>(p) != 0x5d) continue;
      depth--;
    } else if (!scalarValid(p, end)) {
      return false;
    }

    // After a value: close containers until a ',' leads to the next value.
    while (true) {
      if (at == stop) { stop = refill(); at = index; fresh = true; }
      p = <usize>load<u32>(at);
      at += 4;
      if (depth == 0) {
        cursor = at;
        cursorStop = stop;
        return p == after;
      }
      c = <u32>load<u8>(p);
      const kind = load<u8>(stack + <usize>depth);
      if (c == 0x2c) {
        if (at == stop) { stop = refill(); at = index; fresh = true; }
        p = <usize>load<u32>(at);
        at += 4;
        if (kind == OBJECT) {
          if (load<u8>(p) != 0x22) return false;
          if (at == stop) { stop = refill(); at = index; fresh = true; }
          p = <usize>load<u32>(at);
          at += 4;
          if (load<u8>(p) != 0x3a) return false;
          if (at == stop) { stop = refill(); at = index; fresh = true; }
          p = <usize>load<u32>(at);
          at += 4;
        }
        break;
      }
      if (c != (kind == OBJECT ? 0x7d : 0x5d)) return false;
      depth--;
    }
  }
  return false; // not reached: the loop only returns
}
