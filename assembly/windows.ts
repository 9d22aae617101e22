// Stage 1 a window at a time: the structural index that stage 2 walks, refilled when it runs out.
//
// The index holds one window's positions and is reused for the next
// window, so a text of any length costs the same fixed memory: the index,
// the stack of stage 2 and a block of padding, all static, allocated once
// with the module. A window is 16 KiB of text: its bytes and its index stay
// in the first-level cache between the two stages. This sits below stage 2
// (./stage2), which asks it for positions, and the driver (./text-simd),
// which starts a text and walks it.

import { BLOCK, resetStage1, stage1, blockFault, inPlainString, plainBlocks } from './stage1';

/** A byte 0 that stands for the end of the text: no test of the grammar accepts it. */
export const SENTINEL: usize = memory.data(16, 16);

/** Bytes of text per window. */
const WINDOW: usize = 16384;
/**
 * Bytes of text per call of stage1, between which a long string may be
 * passed over by plainBlocks. A call costs about 35 ns before its first
 * block: at 8 KiB that is nothing; at 2 KiB it cost gsoc-2018.json 8% and
 * at 512 bytes 19% (measured).
 */
const CHUNK: usize = 8192;
/** A window has at most one structural position per byte; stage 1 may write up to 7 more. */
export const index: usize = memory.data(<i32>(WINDOW + BLOCK) * 4, 16);
/**
 * The text's last bytes, padded with spaces to a whole block: loads never
 * pass the end of the text. 16 bytes before it take the spill of the copy
 * (see copyTail). Also the decode screen's (./screen), which runs before
 * or after a text is staged, never during.
 */
export const tail: usize = memory.data(<i32>BLOCK + 16, 16) + 16;

/**
 * Copies the text's bytes [from, end), fewer than a block, to the start of
 * `tail`, whose other bytes are spaces. 16 bytes at a time, the last 16
 * ending at `end`, so nothing is read past the text; for fewer than 16
 * that last copy spills into the 16 bytes before `tail`, which are there
 * for it. Those 16 may start before the text itself (a text under 16 bytes,
 * in the screen): texts lie in scratch, above the core's data, so they are
 * in memory, and what they hold lands in the spill. A byte loop here cost a
 * small text up to 63 loads and stores.
 */
@inline export function copyTail(from: usize, end: usize): void {
  const spaces = i8x16.splat(0x20);
  v128.store(tail, spaces);
  v128.store(tail, spaces, 16);
  v128.store(tail, spaces, 32);
  v128.store(tail, spaces, 48);
  const r = end - from;
  let k: usize = 0;
  for (; k + 16 <= r; k += 16) v128.store(tail + k, v128.load(from + k));
  if (k < r) v128.store(tail + r - 16, v128.load(end - 16));
}

/** The next window's first byte, the end of the text's whole blocks, and the text's end. */
let next: usize = 0;
let whole: usize = 0;
let textEnd: usize = 0;
let tailDone = false;

/**
 * Indexes the next window that has a structural position, and returns the
 * end of its positions in `index`. At the end of the text, or after a fault
 * in stage 1, the index holds one position, SENTINEL, which stage 2 refuses
 * wherever a value or punctuation is due.
 */
export function refill(): usize {
  while (!blockFault && !tailDone) {
    const stop = whole - next > WINDOW ? next + WINDOW : whole;
    let out: usize = index;
    let p = next;
    // A chunk at a time; where one ends inside a string, the plain rest of
    // that string is passed over by plainBlocks, four times faster. The
    // last chunk takes the padded last block with it.
    while (true) {
      if (p < stop && inPlainString()) p = plainBlocks(p, stop);
      const chunkEnd = stop - p > CHUNK ? p + CHUNK : stop;
      const last = chunkEnd == whole;
      if (p < chunkEnd || last) out = stage1(p, chunkEnd, 0, textEnd, out, last ? tail : 0, whole - tail);
      if (blockFault) break;
      p = chunkEnd;
      if (last) {
        tailDone = true;
        break;
      }
      if (p >= stop) break;
    }
    next = stop;
    // A window with a fault gives no positions: the walk stops at SENTINEL,
    // and every position it was given came from clean windows.
    if (out != index && !blockFault) return out;
  }
  store<u32>(index, <u32>SENTINEL);
  return index + 4;
}

/**
 * The address in the text of the byte at structural position q: positions
 * in the last block point into `tail`, the padded copy of it.
 */
@inline export function textAt(q: usize): usize {
  return q - tail < BLOCK ? whole + (q - tail) : q;
}

/** Makes [start, end) the text that refill() indexes, from its first window. */
export function startText(start: usize, end: usize): void {
  resetStage1();
  next = start;
  whole = start + ((end - start) & ~(BLOCK - 1));
  textEnd = end;
  tailDone = false;
  // Spaces are whitespace and ASCII: they add no token, no string byte and no UTF-8 state.
  copyTail(whole, end);
}
