// Target ratios taken side by side: the numerator's case and the
// denominator's, timed in turn in short slices of CPU time, round after
// round, and the ratio taken within each round.
//
// benchmark.js times the two cases of a target minutes apart, and on a
// shared machine the speed of the whole machine moves in between (a
// target's ratio moved by a third between two full runs of one commit).
// Within one round the two run tens of milliseconds apart, and the median
// leaves out the rounds a burst of other work fell into.
//
// - Order: the case timed second in a round pays for collecting the first
//   one's garbage (up to twice as slow on blob-1m decode). So rounds go in
//   twos, one in each order, and a two's ratio is the geometric mean of its
//   rounds': that cost divides one ratio and multiplies the other. The ratio
//   judged is the median of the twos.
// - Warm-up: a pair's rounds start once both cases run at a steady speed,
//   in slices taken in the rounds' order, until neither case's best of its
//   last WARM.window slices beats the window before by more than WARM.gain,
//   nor lost more than WARM.faultShare of its CPU time to page faults (at
//   FAULT_US each), for WARM.min to WARM.max slices. A cold codec's JIT is
//   still at work where the engine's JSON.parse is not, and a process new
//   to a case that returns fresh memory (encode) grows its C heap for a
//   second or two. A case that faults in every slice (fresh memory of 128
//   KiB or more a call) runs all WARM.max: faulting is its steady state.
//   Each round's faults are kept (pairedFaults).
// - The CPU: each round records the CPU it ended on (Linux:
//   /proc/thread-self/stat), since the virtual CPUs of a shared machine are
//   not alike.

import { readFileSync } from 'node:fs';

/** Rounds of each pair (even: a round in each order, in twos), and the CPU time of each slice, in ms. */
export const PAIRED = { rounds: 16, sliceMs: 30, quickRounds: 4, quickSliceMs: 10 };

/**
 * Warm-up: slices of each case at least `min` and at most `max`, ended when the best of the last `window` is within
 * `gain` of the best of the window before, and none of the last `window` lost more than `faultShare` of its CPU time
 * to page faults.
 */
export const WARM = { min: 6, max: 40, window: 3, gain: 0.03, faultShare: 0.02 };

/** The warm-up of a --quick run: a smoke test of the method, not a measurement. */
const QUICK_WARM = { ...WARM, min: 2, max: 8 };

/** The warm-up a run uses: the report reads it from here too, to say what ran. */
export const warmFor = (/** @type {boolean} */ quick) => (quick ? QUICK_WARM : WARM);

/** What a minor page fault costs on the machine the benchmarks were tuned on, in µs (for the warm-up's judgement only). */
export const FAULT_US = 12;

/** Minor page faults of this process so far. */
const faultsNow = () => process.resourceUsage().minorPageFault;

/** This process's CPU time, user and system, in microseconds: the clock of every interleaved measurement. */
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** The CPU this thread last ran on, or -1 where that cannot be read. */
export function currentCpu() {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    // Fields after the command's closing parenthesis start at the third; the CPU is the 39th.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[36]);
  } catch {
    return -1;
  }
}

/**
 * Runs `num` and `den` in turn, a slice each, until both are warm (see
 * Warming up above); returns the slices each ran.
 *
 * @param {() => unknown} num
 * @param {() => unknown} den
 * @param {number} ms
 */
export function warmUp(num, den, ms, warm = WARM) {
  /** @type {{ speed: number, faultShare: number }[][]} */
  const slices = [[], []];
  /** @param {{ speed: number, faultShare: number }[]} xs */
  const settling = (xs) => {
    const w = warm.window;
    if (xs.length < Math.max(warm.min, 2 * w)) return true;
    if (xs.slice(-w).some((x) => x.faultShare > warm.faultShare)) return true;
    const best = (/** @type {{ speed: number }[]} */ ys) => Math.max(...ys.map((y) => y.speed));
    return best(xs.slice(-w)) > (1 + warm.gain) * best(xs.slice(-2 * w, -w));
  };
  // In the rounds' order, one in each order in turn: a case run twice in a row, as the rounds run it, holds more
  // garbage at once than one run between slices of the other (see Warming up above).
  while (slices[0].length < warm.max && (settling(slices[0]) || settling(slices[1]))) {
    if (slices[0].length % 2 === 0) {
      slices[0].push(slice(num, ms));
      slices[1].push(slice(den, ms));
    } else {
      slices[1].push(slice(den, ms));
      slices[0].push(slice(num, ms));
    }
  }
  return slices[0].length;
}

/**
 * The twos of a run of per-round ratios taken in alternating order (see
 * above): each two's ratio is the geometric mean of its two rounds', and
 * the result their median, lowest and highest. A last round without a
 * partner is left out.
 *
 * @param {number[]} ratios
 * @returns {{ median: number, min: number, max: number }}
 */
export function twosOf(ratios) {
  const twos = [];
  for (let r = 0; r + 1 < ratios.length; r += 2) twos.push(Math.sqrt(ratios[r] * ratios[r + 1]));
  twos.sort((x, y) => x - y);
  const mid = twos.length >> 1;
  const median = twos.length % 2 ? twos[mid] : Math.sqrt(twos[mid - 1] * twos[mid]);
  return { median, min: twos[0], max: twos[twos.length - 1] };
}

/**
 * Calls per CPU second of `fn`, over at least `ms` of CPU time, and the
 * share of that time its page faults took at FAULT_US each. The clock (a
 * getrusage call, about a microsecond) is read once per batch of calls,
 * and batches double until one takes 200 µs, so that reading it costs under
 * 1% of what is measured even for a call of a few hundred nanoseconds.
 *
 * @param {() => unknown} fn
 * @param {number} ms
 */
function slice(fn, ms) {
  const budget = ms * 1000;
  let calls = 0;
  let batch = 1;
  const faults = faultsNow();
  const start = cpuMicros();
  let spent = 0;
  do {
    const before = spent;
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    spent = cpuMicros() - start;
    if (spent - before < 200) batch *= 2;
  } while (spent < budget);
  return { speed: (calls * 1e6) / spent, faultShare: ((faultsNow() - faults) * FAULT_US) / spent };
}

/**
 * For each [numerator, denominator] pair of cases, the ratio numerator ÷
 * denominator (speeds): the median of the twos' ratios (see above), their
 * lowest and highest, every round's ratio in the order run (`each`:
 * numerator first in rounds 0, 2, 4 and so on), the CPU each round ended
 * on (`cpus`), the share of each round's slices lost to page faults
 * (`faultShares`: numerator's, denominator's), and the slices of warm-up
 * each case ran (`warmSlices`).
 * `pairs` holds keys of `cases` (`name@backend`).
 *
 * @param {string[][]} pairs
 * @param {Map<string, { fn: () => unknown }>} cases
 * @param {{ quick?: boolean, progress?: (line: string) => void }} [options]
 */
export function pairedRatios(pairs, cases, { quick = false, progress = (_line) => {} } = {}) {
  const rounds = quick ? PAIRED.quickRounds : PAIRED.rounds;
  const ms = quick ? PAIRED.quickSliceMs : PAIRED.sliceMs;
  /** @type {Map<string, { median: number, min: number, max: number, rounds: number, sliceMs: number, each: number[], cpus: number[], faultShares: number[][], warmSlices: number }>} */
  const out = new Map();
  let done = 0;
  for (const [numKey, denKey] of pairs) {
    const num = cases.get(numKey);
    const den = cases.get(denKey);
    if (!num || !den) continue;
    progress(`paired ratios: ${++done} of ${pairs.length}, ${numKey} ÷ ${denKey}`);
    // Warm first, so that no round pays for a cold JIT (see Warming up above).
    const warmSlices = warmUp(num.fn, den.fn, ms, warmFor(quick));
    const ratios = [];
    const cpus = [];
    const faultShares = [];
    for (let r = 0; r < rounds; r++) {
      let a;
      let b;
      if (r % 2 === 0) {
        a = slice(num.fn, ms);
        b = slice(den.fn, ms);
      } else {
        b = slice(den.fn, ms);
        a = slice(num.fn, ms);
      }
      ratios.push(a.speed / b.speed);
      faultShares.push([a.faultShare, b.faultShare]);
      cpus.push(currentCpu());
    }
    out.set(`${numKey}|${denKey}`, { ...twosOf(ratios), rounds, sliceMs: ms, each: ratios, cpus, faultShares, warmSlices });
  }
  return out;
}
