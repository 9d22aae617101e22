// Small frames judged in bulk, in the SIMD build: stage 1 once over a run of bodies, stage 2 per body.
//
// A frame of 150 bytes pays the stages' fixed cost (starting a text, the
// call of stage 1 and its padded last block) once for each body. Run over
// many bodies at once, as simdjson's parse_many runs stage 1 over a batch
// of documents (Langdale and Lemire, "Parsing Gigabytes of JSON per
// Second", VLDB Journal 28(6), 2019, and simdjson's documentation of
// parse_many), that cost is paid once a run.
//
// # The bytes between bodies
//
// The bodies of consecutive records lie in the chunk with their records'
// headers and tags between them: binary bytes that stage 1 must not read
// as JSON. For the length of the run those gap bytes are saved, and each
// gap is written as a comma and then spaces; the run is then one text,
// every body followed by its comma. After the walks every gap is written
// back from what was saved, before this returns: the chunk leaves as it
// came. No body is copied.
//
// # Why a body the run proves valid is valid alone
//
// Each body's walk (stage 2's walkValue) must read one value and then, at
// depth 0, find its own comma as the next structural position. Bodies are
// proven in order and the run stops at the first that is not:
//
// - the body before was proven, so its comma was outside every string, and
//   the spaces after it carry no string, escape, token or UTF-8 state into
//   this body: its bytes get the masks and positions they get alone;
// - a string left open at the body's end hides the comma, and a value that
//   reads past the body reads the comma, so either fails the walk; a number
//   or literal ended by the comma is ended as it is by the end of a text;
// - escapes, control bytes and UTF-8 (a sequence cut by the body's end
//   meets the comma) are judged over the whole run: any fault anywhere in
//   it sets stage 1's fault, the window then has no positions, and the run
//   proves nothing.
//
// What the run does not prove is judged body by body (./frame), which names
// the fault and its offset as always; bytes go through one run at most, so
// hostile input costs at most the run's stage 1 on top.
//
// PERF NOTES: pipeRelay over ~150-byte frames takes 156-164 ns a frame
// with runs, against 185-195 with each body judged alone. Bodies stay where
// they lie: a gap's 19 header bytes are saved and written back instead.

import { TAG_ERROR, TAG_RESULT } from './frame';
import { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE } from './record-layout';
import { blockFault } from './stage1';
import { startWalk, walkJudged, walkProven, walkValue } from './stage2';
import { provenDeferred } from './judge';
import { startText } from './windows';

/** A body longer than this is judged alone: its stages' fixed cost is small beside its bytes. */
export const BULK_BODY_MAX: u32 = 1024;
/** At most this many bodies a run. */
const RUN_BODIES: i32 = 256;
/** The run's text, first body to last comma, stays within one window of stage 1 (./windows). */
const RUN_SPAN: usize = 16384;

/** Each body's first byte (after its tag) and its end, where its comma goes. */
const starts: usize = memory.data(RUN_BODIES * 4, 16);
const ends: usize = memory.data(RUN_BODIES * 4, 16);
/** Per body: 1 for a result (its tag), before the walks; then 1 where the plan proved it. */
export const judged: usize = memory.data(RUN_BODIES, 16);
/** The gap bytes of a run, end to end; they lie inside its span, so a span's worth is room enough. */
const saved: usize = memory.data(<i32>RUN_SPAN, 16);

/** The end, as an offset like the scan's, of the bytes the last run gathered: no new run starts before it. */
export let runEnd: usize = 0;

/** Bodies proven by runs since the last takeProven(). */
let provenBodies: i32 = 0;

/** How many bodies runs have proven valid since the last call; for tests, which check that runs are taken. */
export function takeProven(): i32 {
  const n = provenBodies;
  provenBodies = 0;
  return n;
}

/**
 * Copies `n` bytes from `from` to `to`, which do not overlap: 16 at a time,
 * the last 16 ending at the end (a gap is 19 bytes between whole exchanges).
 */
@inline function copyBytes(to: usize, from: usize, n: usize): void {
  if (n < 16) {
    for (let k: usize = 0; k < n; k++) store<u8>(to + k, load<u8>(from + k));
    return;
  }
  const last = v128.load(from + n - 16);
  for (let k: usize = 0; k + 16 < n; k += 16) v128.store(to + k, v128.load(from + k));
  v128.store(to + n - 16, last);
}

/** Writes a comma, then spaces, over the `n` bytes at `at` (n >= 1), as copyBytes writes. */
@inline function fillGap(at: usize, n: usize): void {
  if (n < 16) {
    for (let k: usize = 1; k < n; k++) store<u8>(at + k, 0x20);
  } else {
    const spaces = i8x16.splat(0x20);
    for (let k: usize = 0; k + 16 < n; k += 16) v128.store(at + k, spaces);
    v128.store(at + n - 16, spaces);
  }
  store<u8>(at, 0x2c);
}

/** The bytes of gap `k` of a run of `count` bodies, from its body's end `gap` to the next body's start; one byte after the last body. */
@inline function gapLength(k: i32, count: i32, gap: usize): usize {
  return k + 1 < count ? <usize>load<u32>(starts + (<usize>(k + 1) << 2)) - gap : 1;
}

/**
 * Gathers the run of records from offset `i` of [ptr, ptr + length) whose
 * responses are small frames under a result or error tag, with finishes
 * between them, and proves as many of their bodies valid as it can, in
 * order. Returns the offset just past the payload of the last response
 * proven (at most `i`: none); every response from `i` before it has a body
 * that rule 4.1 accepts. With `plan`, each result's body is judged in the
 * same walk by the plan that stage 2 was given (judgeWith), and `judged`
 * says which it proved. Sets runEnd. Header rules are not judged here:
 * the scan judges every record itself, and a run ends at the first record
 * that is not one of these.
 */
export function proveRun(ptr: usize, i: usize, length: usize, maxFrame: u32, plan: bool): usize {
  let count: i32 = 0;
  let j = i;
  let first: usize = 0;
  while (count < RUN_BODIES && length - j >= HEADER_SIZE) {
    const at = ptr + j;
    const kind = load<u8>(at);
    const size = load<u32>(at, 5);
    if (kind == KIND_FINISH) {
      if (size != 0) break;
      j += HEADER_SIZE;
      continue;
    }
    if (kind != KIND_RESPONSE || size < 2 || size - 1 > BULK_BODY_MAX || size > maxFrame) break;
    // The payload, and one byte after it for the comma, in the chunk.
    if (<u64>size >= <u64>(length - j - HEADER_SIZE)) break;
    const tag = load<u8>(at + HEADER_SIZE);
    if (tag != TAG_RESULT && tag != TAG_ERROR) break;
    const start = at + HEADER_SIZE + 1;
    const end = at + HEADER_SIZE + <usize>size;
    if (count == 0) first = start;
    else if (end + 1 - first > RUN_SPAN) break;
    store<u32>(starts + (<usize>count << 2), <u32>start);
    store<u32>(ends + (<usize>count << 2), <u32>end);
    store<u8>(judged + <usize>count, tag == TAG_RESULT ? 1 : 0);
    count++;
    j += HEADER_SIZE + <usize>size;
  }
  runEnd = j;
  if (count < 2) return i;

  // Save each gap, then write it as a comma and spaces.
  let s = saved;
  for (let k = 0; k < count; k++) {
    const gap = <usize>load<u32>(ends + (<usize>k << 2));
    const n = gapLength(k, count, gap);
    copyBytes(s, gap, n);
    fillGap(gap, n);
    s += n;
  }

  const textEnd = <usize>load<u32>(ends + (<usize>(count - 1) << 2)) + 1;
  startText(first, textEnd);
  startWalk();
  let proven: i32 = 0;
  while (proven < count) {
    const bodyEnd = <usize>load<u32>(ends + (<usize>proven << 2));
    // A result's body is judged by the plan in the same walk; an error's, and all without a plan, by the grammar alone.
    const result = plan && load<u8>(judged + <usize>proven) == 1;
    if (!(result ? walkJudged(textEnd, bodyEnd) : walkValue(textEnd, bodyEnd))) break;
    store<u8>(judged + <usize>proven, result && walkProven && provenDeferred(bodyEnd) ? 1 : 0);
    proven++;
  }
  // A fault anywhere in the run leaves the window without positions, so the
  // first walk fails; this says so without relying on it.
  if (blockFault) proven = 0;
  provenBodies += proven;

  s = saved;
  for (let k = 0; k < count; k++) {
    const gap = <usize>load<u32>(ends + (<usize>k << 2));
    const n = gapLength(k, count, gap);
    copyBytes(gap, s, n);
    s += n;
  }
  return proven == 0 ? i : <usize>load<u32>(ends + (<usize>(proven - 1) << 2)) - ptr;
}
