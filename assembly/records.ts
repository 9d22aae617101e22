// Finding records in a run of bytes (WIRE.md section 3), in the core.
//
// Layout of a record:
//
//   offset 0  size 1       kind: 0x01 channel response, 0x02 channel response finish
//   offset 1  size 4       channel id, unsigned 32-bit, little-endian
//   offset 5  size 4       payload length, unsigned 32-bit, little-endian
//   offset 9  size length  payload: the frame (response); nothing (finish)
//
// # One call per chunk
//
// scanRecords walks every whole record in the bytes it is given, checks each
// response's frame in the same call when asked, and writes one entry per
// record into a table that JS reads through an Int32Array. It stops at the
// end, at a record cut by the end of the bytes (INCOMPLETE: JS keeps the
// tail for the next chunk), at a record error, or when the table is full.
// In the SIMD build, runs of small frames are checked in bulk (./bulk),
// with the verdicts each would get alone.
// Header checks come first, so a record that is too large is refused before
// JS buffers a byte of its payload. Channel state (who is open, the open
// channel limit) is sequence state, kept by src/exchange/open-channels.ts for both
// backends alike.
//
// # Folded exchanges
//
// A relay's stream is mostly whole exchanges: a response whose frame passes,
// then at once its finish, on a channel not open. Such a pair changes no
// channel state and is forwarded whole, so JS needs no entry for it. When JS
// hands in its open channels (the fold block: at most FOLD_MAX of them, with
// their lengths, the held bytes and both limits), the scan applies the
// sequence rules itself: it tracks what the entries it writes open and close,
// folds each such pair that the limits admit into a RUN entry (one for
// consecutive pairs: their count and their bytes), and writes every other
// record as an entry, as without the block. When more than FOLD_MAX channels
// are open it stops folding for the rest of the scan; JS, which keeps the
// table, judges those entries as always.

import { OK, INCOMPLETE, BAD_KIND, BAD_FINISH, OVERSIZE, TABLE_FULL } from './status';
import { verifyFrame, frameFaultOffset, TAG_RESULT } from './frame';
import { proveRun, runEnd, BULK_BODY_MAX, judged as bulkJudged } from './bulk';
import { judgeWith, walkProven, resetProven } from './stage2';
import { provenDeferred } from './judge';
import { KIND_RESPONSE, KIND_FINISH, HEADER_SIZE } from './record-layout';

/** A run of folded exchanges (entries only): count, offset and length of whole pairs. */
export const KIND_RUN: i32 = 0x03;

/** Entries the table holds; a longer scan stops with TABLE_FULL and goes on in the next call. */
export const TABLE_CAPACITY: i32 = 4096;
/**
 * i32 fields per entry: kind, channel, record offset, payload length,
 * status, fault offset. With a plan, a response whose frame passes has 1
 * in place of its fault offset where the plan proved its schema, and a RUN
 * has 1 as its status where the plan proved every frame in it.
 */
export const ENTRY_FIELDS: i32 = 6;
/** The record table, read by JS. */
export const table: usize = memory.data(TABLE_CAPACITY * ENTRY_FIELDS * 4, 16);

/**
 * Where and why the last scan stopped, read by JS: status, stop offset, and
 * for a response cut after its header, its kind, channel and length.
 */
export const stop: usize = memory.data(8 * 4, 16);

/** Most open channels the fold block carries; with more, nothing is folded. */
export const FOLD_MAX: i32 = 8;
/**
 * The fold block, written by JS before a scan: i32 count of open channels
 * (-1: no folding), u32 open channel limit, f64 held bytes, f64 held limit,
 * then FOLD_MAX u32 channel ids and FOLD_MAX f64 payload lengths.
 */
export const fold: usize = memory.data(24 + FOLD_MAX * 12, 16);
const FOLD_IDS: usize = 24;
const FOLD_LENGTHS: usize = 24 + <usize>FOLD_MAX * 4;

/** The index in the fold block of `channel`, or -1. */
@inline function foldFind(count: i32, channel: u32): i32 {
  for (let k = 0; k < count; k++) if (load<u32>(fold + FOLD_IDS + <usize>(k << 2)) == channel) return k;
  return -1;
}

function setStop(status: i32, at: usize, kind: i32, channel: u32, length: u32): void {
  store<i32>(stop, status);
  store<u32>(stop, <u32>at, 4);
  store<i32>(stop, kind, 8);
  store<u32>(stop, channel, 12);
  store<u32>(stop, length, 16);
}

@inline function setEntry(n: i32, kind: i32, channel: u32, at: usize, length: u32, status: i32, faultOffset: i32): void {
  const e = table + <usize>(n * ENTRY_FIELDS * 4);
  store<i32>(e, kind);
  store<u32>(e, channel, 4);
  store<u32>(e, <u32>at, 8);
  store<u32>(e, length, 12);
  store<i32>(e, status, 16);
  store<i32>(e, faultOffset, 20);
}

/**
 * Whether the result frame verified at `at` ([at, at + size)), under the
 * plan given to stage 2, was proven by it: its walk, then the values the
 * walk left to the byte walk.
 */
@inline function frameProven(at: usize, size: u32): bool {
  return walkProven && provenDeferred(at + <usize>size);
}

// A scan's place among the bodies of bulk runs (./bulk): responses before
// `proven` have bodies a run proved valid, no run starts before `gathered`,
// and `body` is the next one's number in the last run's `judged` flags.
let proven: usize = 0;
let gathered: usize = 0;
let body: usize = 0;
/** The last response verifyResponse checked: its fault offset, and whether the plan proved its frame. */
let verifiedFault: i32 = 0;
let verifiedSure = false;

/**
 * Checks the frame of the response of `size` bytes at offset i (tag and
 * rule 4.1), in a bulk run or alone, and with a `plan` its schema where
 * the walk can; returns its status, and sets verifiedFault and verifiedSure.
 */
@inline function verifyResponse(ptr: usize, i: usize, length: usize, maxFrame: u32, size: u32, plan: usize): i32 {
  const at = ptr + i + HEADER_SIZE;
  let status = OK;
  verifiedFault = 0;
  verifiedSure = false;
  if (i >= proven) {
    // A small frame starts a run judged in bulk (./bulk), unless it lies in the last run gathered.
    if (ASC_FEATURE_SIMD && i >= gathered && size - 1 <= BULK_BODY_MAX) {
      judgeWith(plan);
      proven = proveRun(ptr, i, length, maxFrame, plan != 0);
      gathered = runEnd;
      body = 0;
    }
    if (i >= proven) {
      const result = plan != 0 && size > 1 && load<u8>(at) == TAG_RESULT;
      judgeWith(result ? plan : 0);
      resetProven();
      status = verifyFrame(at, size);
      verifiedFault = frameFaultOffset;
      verifiedSure = result && status == OK && frameProven(at, size);
    }
  }
  if (i < proven) verifiedSure = load<u8>(bulkJudged + body++) == 1;
  return status;
}

/**
 * Scans the records in [ptr, ptr + length). Returns the number of table
 * entries written; the stop block says why it stopped. With `verify`, each
 * response's frame is checked (tag and rule 4.1) and its status stored;
 * with a `plan` too (a table in the plan area, or 0), each result frame is
 * judged by it in the same walk where the SIMD build can, and the entries
 * say which frames it proved.
 */
export function scanRecords(ptr: usize, length: usize, maxFrame: u32, verify: bool, plan: usize): i32 {
  const n = scan(ptr, length, maxFrame, verify, plan);
  judgeWith(0);
  return n;
}

function scan(ptr: usize, length: usize, maxFrame: u32, verify: bool, plan: usize): i32 {
  let i: usize = 0;
  let n: i32 = 0;
  // The fold block's state, updated as the entries written open and close channels.
  let open: i32 = load<i32>(fold);
  const maxOpen = load<u32>(fold, 4);
  let held = load<f64>(fold, 8);
  const maxHeld = load<f64>(fold, 16);
  // The RUN entry that pairs are being added to, or -1.
  let run: i32 = -1;
  proven = 0;
  gathered = 0;
  body = 0;
  if (!verify || !ASC_FEATURE_SIMD) plan = 0;
  while (true) {
    if (i >= length) {
      setStop(OK, i, 0, 0, 0);
      return n;
    }
    if (n == TABLE_CAPACITY) {
      setStop(TABLE_FULL, i, 0, 0, 0);
      return n;
    }
    const at = ptr + i;
    const kind = load<u8>(at);
    if (kind != KIND_RESPONSE && kind != KIND_FINISH) {
      setStop(BAD_KIND, i, 0, 0, 0);
      return n;
    }
    if (length - i < HEADER_SIZE) {
      setStop(INCOMPLETE, i, 0, 0, 0);
      return n;
    }
    const channel = load<u32>(at, 1);
    const size = load<u32>(at, 5);
    if (kind == KIND_FINISH) {
      if (size != 0) {
        setStop(BAD_FINISH, i, 0, 0, 0);
        return n;
      }
      if (open > 0) {
        const k = foldFind(open, channel);
        if (k >= 0) {
          // Closed: the last entry moves into its place.
          held -= load<f64>(fold + FOLD_LENGTHS + (<usize>k << 3));
          open--;
          store<u32>(fold + FOLD_IDS + (<usize>k << 2), load<u32>(fold + FOLD_IDS + (<usize>open << 2)));
          store<f64>(fold + FOLD_LENGTHS + (<usize>k << 3), load<f64>(fold + FOLD_LENGTHS + (<usize>open << 3)));
        }
      }
      setEntry(n++, kind, channel, i, 0, OK, 0);
      run = -1;
      i += HEADER_SIZE;
      continue;
    }
    if (size > maxFrame) {
      setStop(OVERSIZE, i, 0, 0, 0);
      return n;
    }
    if (<u64>size > <u64>(length - i - HEADER_SIZE)) {
      setStop(INCOMPLETE, i, kind, channel, size);
      return n;
    }
    const status = verify ? verifyResponse(ptr, i, length, maxFrame, size, plan) : OK;
    // Whether the plan proved this frame.
    const sure = verify && verifiedSure;
    const end = i + HEADER_SIZE + <usize>size;
    if (open >= 0) {
      const known = open > 0 && foldFind(open, channel) >= 0;
      const admitted = <u32>open < maxOpen && held + <f64>size <= maxHeld;
      if (
        status == OK &&
        !known &&
        admitted &&
        length - end >= HEADER_SIZE &&
        load<u8>(ptr + end) == KIND_FINISH &&
        load<u32>(ptr + end, 1) == channel &&
        load<u32>(ptr + end, 5) == 0
      ) {
        // A whole exchange: folded, into a run of exchanges the plan proved or one of those it did not.
        if (run >= 0 && load<i32>(table + <usize>(run * ENTRY_FIELDS * 4), 16) != <i32>sure) run = -1;
        if (run < 0) {
          run = n;
          setEntry(n++, KIND_RUN, 0, i, 0, <i32>sure, 0);
        }
        const e = table + <usize>(run * ENTRY_FIELDS * 4);
        store<u32>(e, load<u32>(e, 4) + 1, 4);
        store<u32>(e, <u32>(end + HEADER_SIZE - <usize>load<u32>(e, 8)), 12);
        i = end + HEADER_SIZE;
        continue;
      }
      if (!known) {
        if (!admitted || open == FOLD_MAX) {
          // JS stops the stream here, or keeps more channels than the block holds: no more folding.
          open = -1;
        } else {
          store<u32>(fold + FOLD_IDS + (<usize>open << 2), channel);
          store<f64>(fold + FOLD_LENGTHS + (<usize>open << 3), <f64>size);
          open++;
          held += <f64>size;
        }
      }
    }
    setEntry(n++, kind, channel, i, size, status, status == OK ? <i32>sure : verifiedFault);
    run = -1;
    i = end;
  }
  return n; // not reached
}
