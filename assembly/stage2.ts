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
import { base64Valid } from './base64';
import {
  enumHas,
  K_ANY,
  K_ARRAY,
  K_BASE64,
  K_BOOLEAN,
  K_CONTAINER,
  K_ENUM,
  K_NUMBER,
  K_OBJECT,
  K_OPTIONS,
  K_RECORD,
  K_STRING,
  memberChild,
  memberOf,
  membersMet,
  NULL_OK,
  number,
  quoteOrSlash,
  skipString,
  strictObject,
  usePlan,
  word,
} from './plan';

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
import { index, refill, SENTINEL, textAt } from './windows';

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
  return judgePlan != 0 ? walkJudged(end, SENTINEL) : walkValue(end, SENTINEL);
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
  return walkCore(end, after, false);
}

/**
 * walkValue, judging the value by the plan set with judgeWith() in the
 * same pass; on true, `walkProven` says whether the plan accepts it,
 * once the values left in `deferred` are proven too (./judge).
 */
export function walkJudged(end: usize, after: usize): bool {
  usePlan(judgePlan);
  refused = false;
  deferredCount = 0;
  const valid = walkCore(end, after, true);
  walkProven = valid && !refused;
  return valid;
}

// # The plan, judged in the walk
//
// A schema plan (./plan) names, for each value, the node that judges it.
// The walk keeps the node of each open container beside its kind, and the
// members met so far (an object) or the count of elements (an array); a
// member's name is the bytes between its quote and the quote before its
// colon, and its value is judged by the member's node at the next turn.
// A value the plan asks nothing of, and all inside it, is FREE. Options
// tried in turn are left to the byte walk of ./judge, run once the grammar
// holds (`deferred`). Where the plan refuses, or asks what the walk does
// not carry (an escaped name, a BAIL), the value is not proven; the walk
// goes on to its grammar verdict, which is the same as walkValue's.
//
// PERF NOTES: pipeRelay at 'full' over ~150-byte listings (64 KiB chunks,
// CPU in process) took 173 ns a frame with the schema judged here, against
// 215 with the byte walk of ./judge after the grammar's, and 120 at 'json';
// over 16 KiB listings, 1.02 ns a byte against 1.48, and 0.72. The judging
// helpers are inlined into this walk: as calls they cost 40% more.

/** The plan the judged walk follows: an address in the plan area. */
let judgePlan: usize = 0;
/** Whether the last judged walk that found its value valid proved it by the plan (deferred values aside). */
export let walkProven = false;
/** Set where the plan refuses a value or cannot say: the walk's value is not proven. */
let refused = false;

/** The node of a value the plan asks nothing of, nor of anything inside it. */
const FREE: usize = <usize>-1;
/** Per open container: the node judging it, and its members met (a bit each) or elements counted. */
const nodes: usize = memory.data((MAX_DEPTH + 1) * 4, 16);
const counts: usize = memory.data((MAX_DEPTH + 1) * 4, 16);

/** Values left to the byte walk: the most a walk keeps, and each one's node and address in the text. */
export const DEFERRED_MAX: i32 = 64;
export const deferred: usize = memory.data(DEFERRED_MAX * 8, 16);
export let deferredCount: i32 = 0;

/** Makes the table at `plan` the one walkJudged follows; 0 makes walk() judge the grammar alone. */
export function judgeWith(plan: usize): void {
  judgePlan = plan;
}

/** Forgets the last judged walk's verdict, before a text that may not be walked at all. */
export function resetProven(): void {
  walkProven = false;
}


/** Leaves the value at position p, and what the plan at `node` asks of it, to the byte walk. */
@inline function defer(node: usize, p: usize): void {
  if (deferredCount == DEFERRED_MAX) {
    refused = true;
    return;
  }
  const at = deferred + (<usize>deferredCount << 3);
  store<u32>(at, <u32>node);
  store<u32>(at, <u32>textAt(p), 4);
  deferredCount++;
}

/** The node that judges the contents of the container opened by c at p, where the plan asks `want` of it. */
@inline function containerNode(want: usize, p: usize, c: u32): usize {
  if (want == FREE) return FREE;
  const kind = word(want, 0) & 0xff;
  if (c == 0x7b ? kind == K_OBJECT || kind == K_RECORD : kind == K_ARRAY) return want;
  if (kind == K_OPTIONS) defer(want, p);
  else if (kind != K_ANY && kind != K_CONTAINER) refused = true;
  return FREE;
}

/** Judges the string or scalar whose first byte c is at p, where the plan asks `want` of it. */
@inline function judgeScalar(want: usize, p: usize, c: u32, end: usize): void {
  if (want == FREE) return;
  const head = word(want, 0);
  if (c == 0x6e && (head & NULL_OK) != 0) return;
  const kind = head & 0xff;
  if (kind == K_STRING) {
    if (c != 0x22) refused = true;
  } else if (kind == K_NUMBER) {
    // Its grammar is the walk's; only a bound or an integer asked needs the number read.
    if (!(c == 0x2d || c - 0x30 < 10) || (word(want, 1) != 0 && number(want, textAt(p), end) == 0)) refused = true;
  } else if (kind == K_BOOLEAN) {
    if (c != 0x74 && c != 0x66) refused = true;
  } else if (kind == K_ENUM || kind == K_BASE64) {
    const s = textAt(p);
    const e = c == 0x22 ? skipString(s, end) : 0;
    if (e == 0 || !(kind == K_ENUM ? enumHas(want, s + 1, e - s - 2, end) : base64Valid(s + 1, e - 1, true))) refused = true;
  } else if (kind == K_OPTIONS) {
    defer(want, p);
  } else if (kind != K_ANY) {
    refused = true;
  }
}

/**
 * The node that judges the value of the member whose name's quote is at
 * position p and whose colon is at q, in the container at `depth`.
 */
@inline function memberNode(depth: i32, p: usize, q: usize, end: usize): usize {
  const node = <usize>load<u32>(nodes + (<usize>depth << 2));
  if (node == FREE) return FREE;
  if ((word(node, 0) & 0xff) == K_RECORD) return <usize>word(node, 1);
  const s = textAt(p) + 1;
  // The name's closing quote: the colon's, or before the whitespace between them.
  let e = textAt(q) - 1;
  while (e >= s && load<u8>(e) != 0x22) e--;
  const n = <usize>word(node, 4);
  const k = e >= s ? memberOf(node, s, e - s, end) : n;
  if (k < n) {
    const at = counts + (<usize>depth << 2);
    store<u32>(at, load<u32>(at) | (1 << <u32>k));
    return memberChild(node, k);
  }
  // A name the plan does not know; one with an escape may spell one it knows.
  if (e < s || strictObject(node) || quoteOrSlash(s, e) != e) refused = true;
  return FREE;
}

/** The node that judges the next element of the array at `depth`. */
@inline function elementNode(depth: i32): usize {
  const node = <usize>load<u32>(nodes + (<usize>depth << 2));
  if (node == FREE) return FREE;
  const at = counts + (<usize>depth << 2);
  const count = load<u32>(at) + 1;
  store<u32>(at, count);
  const cap = <i32>word(node, 2);
  if (cap >= 0 && <i32>count > cap) refused = true;
  return <usize>word(node, 1);
}

/** Judges the members met by the object closing at `depth`. */
@inline function objectClosed(depth: i32): void {
  const node = <usize>load<u32>(nodes + (<usize>depth << 2));
  if (node != FREE && (word(node, 0) & 0xff) == K_OBJECT && !membersMet(node, load<u32>(counts + (<usize>depth << 2)))) refused = true;
}

/** A container opened at depth: its node (FREE when not judged) and a count of none. */
@inline function opened(depth: i32, node: usize): void {
  store<u32>(nodes + (<usize>depth << 2), <u32>node);
  store<u32>(counts + (<usize>depth << 2), 0);
}

/** The walk of walkValue, and with `judged` (a constant, so each copy has only its own tests) of walkJudged. */
@inline function walkCore(end: usize, after: usize, judged: bool): bool {
  let at = cursor;
  let stop = cursorStop;
  let depth: i32 = 0;
  let p: usize;
  // The plan's node for the value at p: the root, for the value walked.
  let want: usize = 0;
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
      if (judged) judgeScalar(want, p, c, end);
    } else if (c == 0x7b) {
      // '{': an object; its first key, or its end.
      if (++depth > MAX_DEPTH) return false;
      store<u8>(stack + <usize>depth, OBJECT);
      if (judged) opened(depth, containerNode(want, p, c));
      if (at == stop) { stop = refill(); at = index; fresh = true; }
      p = <usize>load<u32>(at);
      at += 4;
      c = <u32>load<u8>(p);
      if (c == 0x7d) {
        if (judged) objectClosed(depth);
        depth--;
      } else {
        if (c != 0x22) return false;
        const key = p;
        if (at == stop) { stop = refill(); at = index; fresh = true; }
        p = <usize>load<u32>(at);
        at += 4;
        if (load<u8>(p) != 0x3a) return false;
        if (judged) want = memberNode(depth, key, p, end);
        if (at == stop) { stop = refill(); at = index; fresh = true; }
        p = <usize>load<u32>(at);
        at += 4;
        continue;
      }
    } else if (c == 0x5b) {
      // '[': an array; its first value, or its end.
      if (++depth > MAX_DEPTH) return false;
      store<u8>(stack + <usize>depth, ARRAY);
      if (judged) opened(depth, containerNode(want, p, c));
      if (at == stop) { stop = refill(); at = index; fresh = true; }
      p = <usize>load<u32>(at);
      at += 4;
      if (load<u8>(p) != 0x5d) {
        if (judged) want = elementNode(depth);
        continue;
      }
      depth--;
    } else if (!scalarValid(p, end)) {
      return false;
    } else if (judged) {
      judgeScalar(want, p, c, end);
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
          const key = p;
          if (at == stop) { stop = refill(); at = index; fresh = true; }
          p = <usize>load<u32>(at);
          at += 4;
          if (load<u8>(p) != 0x3a) return false;
          if (judged) want = memberNode(depth, key, p, end);
          if (at == stop) { stop = refill(); at = index; fresh = true; }
          p = <usize>load<u32>(at);
          at += 4;
        } else if (judged) {
          want = elementNode(depth);
        }
        break;
      }
      if (c != (kind == OBJECT ? 0x7d : 0x5d)) return false;
      if (judged && kind == OBJECT) objectClosed(depth);
      depth--;
    }
  }
  return false; // not reached: the loop only returns
}
