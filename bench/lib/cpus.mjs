// How fast each CPU of this machine runs one fixed piece of work, each in a
// process of its own pinned to it (Linux, taskset).
//
// This machine's two virtual CPUs are not alike, and not alike for long.
// For stretches of minutes, one runs encode and JSON.stringify 1.6 to 1.8
// times slower than the other, while a loop on registers runs alike on
// both: most likely the host shares the slow one's core with other work.
// Which one is slow changes. Encode of the filesystem server's tool list,
// pinned to each in turn (taskset -c), took 57 µs a frame on one and 33 on
// the other, in three processes each; bare JSON.stringify + encodeInto 46
// against 29. Most of the encode slowdowns seen in stretches of minutes,
// in the build before a change as much as in the build after, were this:
// a process ran slow or fast by the CPU it ran on.
//
// The benchmark runs this probe at its start, before the paired rounds
// (bench/lib/paired.mjs) and at its end, and report.json keeps the result
// (machine.cpuProbe), so that a reader can tell a run made while one CPU
// was slow. The work is neither codec's: a walk of an object graph that
// writes its strings into a byte buffer, and JSON.stringify of the same
// graph, the two kinds of work that encode and its bare peer do.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMicros } from './paired.mjs';

const SELF = fileURLToPath(import.meta.url);

/** CPU time, in ms, each probe process spends on the work. */
const WORK_MS = 150;
/** Processes per CPU, in turns: each CPU's speed is the best of its turns. */
const TURNS = 2;
/** Beyond this many CPUs the probe would take too long (about 0.6 s a CPU): it is skipped. */
const MAX_CPUS = 8;

/** The graph the work walks: 64 objects of 12 members, strings, numbers and an array each, about 19 KB of JSON. */
function graph() {
  return Array.from({ length: 64 }, (_, i) => {
    const o = { id: i, name: `item-${i}`, description: `the ${i}th item of the probe's graph, a sentence long enough to be a real description` };
    for (let k = 0; k < 8; k++) o[`field${k}`] = k % 2 ? `value ${k} of ${i}` : i * k + 0.5;
    o.tags = ['a', 'b', `t${i % 5}`];
    return o;
  });
}

/** Writes every string's characters into `out` and returns how many bytes. */
function walk(v, out, at) {
  if (typeof v === 'string') {
    for (let i = 0; i < v.length; i++) out[at++] = v.charCodeAt(i);
    return at;
  }
  if (typeof v === 'object' && v !== null) {
    for (const k in v) at = walk(v[k], out, walk(k, out, at));
  }
  return at;
}

const cpuMs = () => cpuMicros() / 1000;

/** The work, in this process: rounds (a walk and a JSON.stringify each) a CPU millisecond. */
export function work(ms = WORK_MS) {
  const g = graph();
  const out = new Uint8Array(1 << 16);
  let rounds = 0;
  let sink = 0;
  // Warm: the first rounds run before the JIT has compiled the walk.
  for (let i = 0; i < 200; i++) sink += walk(g, out, 0) + JSON.stringify(g).length;
  const start = cpuMs();
  let spent = 0;
  do {
    for (let i = 0; i < 20; i++) sink += walk(g, out, 0) + JSON.stringify(g).length;
    rounds += 20;
    spent = cpuMs() - start;
  } while (spent < ms);
  if (sink === 0) throw new Error('the probe wrote nothing');
  return rounds / spent;
}

/** Where taskset is, or null. */
function taskset() {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) if (existsSync(`${dir}/taskset`)) return `${dir}/taskset`;
  return null;
}

/**
 * Each CPU's speed on the work (rounds a CPU ms, the best of TURNS pinned
 * processes), and each as a fraction of the fastest; or why it could not
 * be measured (not Linux, one CPU, no taskset, a probe that failed).
 *
 * @returns {{ at: string, speeds: number[], relative: number[] } | { at: string, skipped: string }}
 */
export function probeCpus() {
  const at = new Date().toISOString();
  const n = os.cpus().length;
  if (process.platform !== 'linux') return { at, skipped: 'not Linux' };
  if (n < 2) return { at, skipped: 'one CPU' };
  if (n > MAX_CPUS) return { at, skipped: `${n} CPUs, more than the ${MAX_CPUS} it probes` };
  const pin = taskset();
  if (pin === null) return { at, skipped: 'no taskset (util-linux)' };
  const speeds = new Array(n).fill(0);
  try {
    for (let t = 0; t < TURNS; t++) {
      for (let c = 0; c < n; c++) {
        const out = execFileSync(pin, ['-c', String(c), process.execPath, SELF, '--work'], { encoding: 'utf8', timeout: 30_000 });
        const speed = Number(out.trim());
        if (!(speed > 0)) throw new Error(`CPU ${c}: the probe printed ${JSON.stringify(out)}`);
        speeds[c] = Math.max(speeds[c], speed);
      }
    }
  } catch (error) {
    return { at, skipped: `the probe failed: ${error.message.split('\n')[0]}` };
  }
  const best = Math.max(...speeds);
  const round = (x) => Math.round(x * 1000) / 1000;
  return { at, speeds: speeds.map(round), relative: speeds.map((s) => round(s / best)) };
}

/** One line for a report: each CPU's speed as a fraction of the fastest's. */
export function describeProbe(p) {
  if (p === undefined) return 'not probed';
  if ('skipped' in p) return `not probed (${p.skipped})`;
  return p.relative.map((r, c) => `CPU ${c} ${r.toFixed(2)}`).join(', ');
}

if (process.argv[1] === SELF && process.argv[2] === '--work') process.stdout.write(`${work()}\n`);
