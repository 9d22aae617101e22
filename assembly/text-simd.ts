// Rule 4.1 in the SIMD build: is a text strict JSON, in two stages over 64-byte blocks, a window at a time.
//
// Stage 1 (./stage1) turns a window of the text into bitmasks and a
// structural index; stage 2 (./stage2) walks the index, and asks for the
// next window when it runs out. The answer is only "valid" or "not": on
// "not", ./json runs its exact scanner over the text to name the first
// fault and its offset, so every build and the JS path give one answer.
// Faults are rare; valid text is what must be fast.
//
// The windows and their index are ./windows (the memory they take is said
// there); stage 2 asks that file for positions, so neither imports this one.

import { stage1Ends } from './stage1';
import { walk } from './stage2';
import { startText } from './windows';

/**
 * Texts shorter than this go to the exact scanner alone: below it, the
 * stages' fixed cost (a call of stage 1 and the padded last block) is more
 * than the exact scanner's whole work. Measured (core alone, CPU time, one
 * frame over and over): at 30 and 80 bytes the exact scanner took 50 and
 * 77 ns against the stages' 64 and 90; from about 120 bytes the stages
 * win on dense text (a 150-byte listing 111 ns against 119, 29 one-letter
 * strings 165 against 302) and tie on prose and numbers (within 10%).
 * It was 192 before the last block's copy took 16 bytes a step.
 */
export const STAGED_MIN: usize = 128;

/** Whether [start, end) is strict JSON text. False says only that some rule is broken. */
export function textValid(start: usize, end: usize): bool {
  startText(start, end);
  return walk(end) && stage1Ends();
}
