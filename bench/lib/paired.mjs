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
// leaves out the rounds that a burst of other work fell into. The order
// alternates from round to round, so that neither case always runs warm
// from the other. This is the method of bench/interleaved.mjs, applied to
// every target whose two cases are functions timed in this process.

/** Rounds of each pair, and the CPU time of each slice, in ms. */
export const PAIRED = { rounds: 15, sliceMs: 30, quickRounds: 3, quickSliceMs: 10 };

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Calls per CPU second of `fn`, over at least `ms` of CPU time. The clock
 * (a getrusage call, about a microsecond) is read once per batch of calls,
 * and batches double until one takes 200 µs, so that reading it costs under
 * 1% of what is measured even for a call of a few hundred nanoseconds.
 */
function speed(fn, ms) {
  const budget = ms * 1000;
  let calls = 0;
  let batch = 1;
  const start = cpuMicros();
  let spent = 0;
  do {
    const before = spent;
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    spent = cpuMicros() - start;
    if (spent - before < 200) batch *= 2;
  } while (spent < budget);
  return (calls * 1e6) / spent;
}

/**
 * The median, lowest and highest of the per-round ratios numerator ÷
 * denominator (speeds), for each [numerator, denominator] pair of cases.
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
  /** @type {Map<string, { median: number, min: number, max: number, rounds: number, sliceMs: number }>} */
  const out = new Map();
  let done = 0;
  for (const [numKey, denKey] of pairs) {
    const num = cases.get(numKey);
    const den = cases.get(denKey);
    if (!num || !den || num.defer || den.defer) continue;
    progress(`paired ratios: ${++done} of ${pairs.length}, ${numKey} ÷ ${denKey}`);
    // A slice of each first, so that neither round 1 pays for a cold JIT.
    speed(num.fn, ms);
    speed(den.fn, ms);
    const ratios = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        const a = speed(num.fn, ms);
        ratios.push(a / speed(den.fn, ms));
      } else {
        const b = speed(den.fn, ms);
        ratios.push(speed(num.fn, ms) / b);
      }
    }
    ratios.sort((x, y) => x - y);
    out.set(`${numKey}|${denKey}`, { median: ratios[ratios.length >> 1], min: ratios[0], max: ratios[ratios.length - 1], rounds, sliceMs: ms });
  }
  return out;
}
