// Target ratios taken side by side: the numerator's case and the
// denominator's, timed in turn in short slices of CPU time, round after
// round, and the ratio taken within each round.
//
// benchmark.js times each case alone, one after another, so the two cases of
// a target ratio are timed minutes apart. On a machine that other work
// shares, the speed of the whole machine moves in between: two full runs of
// one commit gave the same case 1,435 and 953 MB/s, and a target's ratio
// moved by a third with no code changed. Within one round the two cases run
// a few tens of milliseconds apart, and the median of the rounds' ratios
// leaves out the rounds that a burst of other work fell into. This is the
// method of bench/interleaved.mjs, applied to every target whose two cases
// are functions timed in this process.
//
// # The order within a round
//
// The case timed second in a round pays for collecting the garbage the
// first one made. On blob-1m decode (a MiB string per call), whichever case
// ran second ran up to twice as slow as when it ran first, so the rounds'
// ratios fell in two groups, one per order, and a median of them landed on
// one side or the other. So the rounds go in twos, one in each order, and
// the ratio of a two is the geometric mean of its rounds' ratios: a
// slowdown of whichever case runs second divides one round's ratio and
// multiplies the other's, and cancels in their mean when it is the same
// factor both ways. Where the two cases leave different amounts of
// garbage, each pays once in a two for the other's, which is still fairer
// than one order's verdict. The ratio judged is the median of the twos.
// A full collection before each slice was tried instead: it made the slice
// after it 8 to 30% slower (listing-small decode), more for some cases
// than others.
//
// # Warming up
//
// A pair's rounds start once both cases run at a steady speed. A case
// warmed by the benchmark.js pass is steady after a few slices. One that
// runs cold, as every case of a --filter run of the captures does in its
// pair, is not: timed after one slice of warm-up, typed decode of the
// everything server's answers gave rounds from 5.16 down to 1.07 (median
// 1.61; 1.21 to 1.30 after 3 s of warm-up), and encode from 0.35 up to
// 0.82 (0.70 to 0.93 after), the codec's JIT still at work while bare
// JSON.parse and JSON.stringify, built into the engine, were not. So
// warm-up goes on in slices, in turn, until neither case's best of its
// last WARM.window slices beats the best of the window before by more
// than WARM.gain, for at least WARM.min slices each and at most WARM.max.
//
// Nor until neither case's last WARM.window slices lost more than
// WARM.faultShare of their CPU time to page faults (at FAULT_US each, what
// a minor fault costs on this VM). A process new to a case that returns
// fresh memory grows its C heap in steps for a second or two: encode
// returns its frames in ArrayBuffers (an 8 KiB slab shared by small ones,
// a buffer of its own for a frame over 4 KiB), which come from the C heap,
// where bare JSON.stringify's strings come from the engine's young
// generation, long since faulted in. In a process that ran only the
// filesystem server's answers (the pair alone, pinned), the slices where
// encode took 0.19 to 0.25 faults a call (memset of new backing stores,
// and malloc growing the heap: perf) ran at 0.42 to 0.50× bare, those
// without faults at 0.90 to 0.97×. The resident size rose from 95 to 107
// MB and then stayed, and no slice took faults after the 30th round, in
// two processes of 60 rounds. A slice that catches the growth times the
// process settling in, not the case: a server pays it once. The faults
// came in the rounds that timed encode first, right after the round
// before had timed it last: two slices of encode in a row hold more of its
// frames at once, before the collector frees them, than one between
// slices of bare. So the warm-up runs its slices in the rounds' order, a
// pair in each order in turn. Each round's faults are kept in the report
// (pairedFaults), so that a reader can see which rounds paid any.
//
// A case that faults in every slice, however long it runs, never meets
// this, and its warm-up runs all WARM.max slices: one that makes fresh
// memory of 128 KiB or more on every call, as typed decode of the 1 MiB
// fixtures and the bare peers on them do (those slices lost 25 to 97% of
// their time to faults in the first full run with this; encode of them
// lost none), faults in its steady state, and that is part of what it
// costs. In that run 11 pairs of 74 ran the 40 slices, about 2.4 s each.
//
// # The CPU
//
// Each round records the CPU it ended on (Linux: /proc/thread-self/stat).
// This machine's two virtual CPUs are not alike: for stretches of minutes,
// one ran encode of the filesystem server's answers at 168 to 177 calls a
// millisecond against 297 to 312 on the other, and bare JSON.stringify at
// 308 to 408 against 413 to 418 (one process pinned to each, taskset).
// Paired runs pinned to each, warmed, gave alike ratios (the captures'
// encode, 0.85 to 1.02 on one and 0.76 to 0.91 on the other), so a
// round's ratio need not move with its CPU; report.json says which ran it,
// for when one does. It does for encode: pinned in turns, the
// filesystem server's tool list ran at 0.82× bare on the slow CPU and 0.88×
// on the other. The report also gives how fast each CPU ran a fixed piece of
// work at the start, before these rounds and at the end (bench/lib/cpus.mjs).

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
export const cpuMicros = () => {
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
 * `pairs` holds keys of `cases` (`name@backend`); a case must be a plain
 * function (not deferred).
 *
 * @param {string[][]} pairs
 * @param {Map<string, { fn: () => unknown, defer?: boolean }>} cases
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
    if (!num || !den || num.defer || den.defer) continue;
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
