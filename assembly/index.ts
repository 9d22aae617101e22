// The core's whole ABI: integers in, integers out, over one memory shared with JS.
//
// # The memory
//
//   [static data: number table, container stacks, record table, stop block,
//    the SIMD stages' tables, structural index (64 KiB), padded block,
//    and a bulk run's saved header bytes (16 KiB)]
//   [scratch: from scratch(), 16-aligned, up to the end of memory]
//
// JS writes input bytes straight into the scratch region and grows the
// memory itself, in steps, when a chunk does not fit (src/backend/wasm).
// Nothing here allocates, and nothing throws: AssemblyScript compiles
// `throw` to `abort`, which would kill the instance, so every answer is a
// status from ./status.

import { verifyFrame as verifyFrameAt, frameFaultOffset, TAG_ERROR, TAG_RESULT } from './frame';
import { scanRecords as scanRecordsAt, table, stop, fold, TABLE_CAPACITY, ENTRY_FIELDS, FOLD_MAX } from './records';
import { textValid } from './text-simd';
import { alphabetRun, base64Valid } from './base64';
import { stringEnd as stringEndAt } from './string-end';
import { screenText } from './screen';
import { takeProven } from './bulk';
import { provenBody, provenRun } from './judge';
import { planArea, PLAN_BYTES } from './plan';

/** The first byte JS may use as scratch. */
export function scratch(): usize {
  return (__heap_base + 15) & ~15;
}

/** The record table's address; TABLE_CAPACITY entries of ENTRY_FIELDS i32s. */
export function recordTable(): usize {
  return table;
}

/** The stop block's address: status, offset, and a cut response's kind, channel, length. */
export function stopBlock(): usize {
  return stop;
}

export function tableCapacity(): i32 {
  return TABLE_CAPACITY;
}

export function entryFields(): i32 {
  return ENTRY_FIELDS;
}

/** How many open channels the fold block holds. */
export function foldMax(): i32 {
  return FOLD_MAX;
}

/** Tag dispatch and rule 4.1 over one payload; the fault's offset via faultOffset(). */
export function verifyFrame(ptr: usize, length: usize): i32 {
  return verifyFrameAt(ptr, length);
}

/** The payload offset of the last verifyFrame fault (-1 for an empty payload). */
export function faultOffset(): i32 {
  return frameFaultOffset;
}

/**
 * 1 when JSON.parse's verdict on the payload's body is rule 4.1's (see
 * ./screen): a result or error tag, then a body in which nothing JSON.parse
 * lets through can be. 0 says only that verifyFrame must judge it.
 */
export function screenFrame(ptr: usize, length: usize): i32 {
  if (length == 0) return 0;
  const tag = load<u8>(ptr);
  if (tag != TAG_RESULT && tag != TAG_ERROR) return 0;
  return screenText(ptr + 1, ptr + length) ? 1 : 0;
}

/** The fold block's address, written by JS before each scan; see ./records. */
export function foldBlock(): usize {
  return fold;
}

/** Scans records in [ptr, ptr + length), judging result frames by the table at `plan` where it is not 0; see ./records. */
export function scanRecords(ptr: usize, length: usize, maxFrame: u32, verify: bool, plan: usize): i32 {
  return scanRecordsAt(ptr, length, maxFrame, verify, plan);
}

/**
 * The SIMD build's two stages alone, over one payload's body (after the
 * tag): 1 when they find it strict JSON text, 0 when they find a fault
 * (verifyFrame then names it with the exact scanner), -1 in the scalar
 * build, which has no such stages. For tests, which hold the stages to the
 * exact scanner's verdict: never valid where it is not, and never a fault
 * where it finds none (that would be right, but slow).
 */
export function stagedVerdict(ptr: usize, length: usize): i32 {
  if (!ASC_FEATURE_SIMD) return -1;
  if (length == 0) return 0;
  return textValid(ptr + 1, ptr + length) ? 1 : 0;
}

/**
 * How many response bodies scanRecords has proven valid in bulk runs
 * (./bulk) since the last call; 0 in the scalar build, which has none. For
 * tests, which check that a stream of small frames takes the runs.
 */
export function bulkProven(): i32 {
  if (!ASC_FEATURE_SIMD) return 0;
  return takeProven();
}

/**
 * Whether atob accepts the string [ptr, ptr + length): 1 or 0. With `json`
 * 1 the bytes are a JSON string's content (between its quotes, escapes and
 * all), with the verdict of src/contract/base64.ts isBase64Bytes on every
 * input; with `json` 0 they are the string itself, as UTF-8, and a
 * backslash is only a byte atob refuses.
 */
export function checkBase64(ptr: usize, length: usize, json: bool): i32 {
  return base64Valid(ptr, ptr + length, json) ? 1 : 0;
}

/**
 * The offset, from ptr, just past the quote that ends the JSON string the
 * text [ptr, ptr + length) starts inside (at a character boundary); -1 when
 * none ends it there. See ./string-end.
 */
export function stringEnd(ptr: usize, length: usize): i32 {
  const at = stringEndAt(ptr, ptr + length);
  return at == 0 ? -1 : <i32>(at - ptr);
}

/**
 * The offset, from ptr, of the first byte of [ptr, ptr + length) that is
 * not of the base64 alphabet (A-Z a-z 0-9 + /); length when all are. A
 * blob is one such run up to its padding or its closing quote, so the byte
 * judge finds a blob's end and its verdict in this one pass.
 */
export function base64Run(ptr: usize, length: usize): i32 {
  return <i32>(alphabetRun(ptr, ptr + length) - ptr);
}

/** The plan area's address: JS writes schema tables there (src/contract/judge-table.ts). */
export function planBlock(): usize {
  return planArea;
}

/** The plan area's size in bytes. */
export function planCapacity(): i32 {
  return PLAN_BYTES;
}

/**
 * How many of the `count` exchanges folded from ptr the table at `plan`
 * proves the schema accepts, from the first (see ./judge): what it does not
 * prove, JS judges.
 */
export function judgeRun(ptr: usize, count: i32, plan: usize): i32 {
  return provenRun(ptr, count, plan);
}

/** 1 when the table at `plan` proves the schema accepts the body [ptr, ptr + length), which rule 4.1 accepts; 0 when it proves nothing. */
export function judgeBody(ptr: usize, length: usize, plan: usize): i32 {
  return provenBody(ptr, ptr + length, plan) ? 1 : 0;
}
