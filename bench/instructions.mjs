#!/usr/bin/env node
// Instructions per round of encode or decode, counted under valgrind: a
// measure that a shared, noisy machine does not move.
//
//   node bench/instructions.mjs [--op encode|decode] [--sets a,b] [--dist DIR]... [--rounds N]
//
// On this machine two full benchmark runs of one commit differ by 20 to 30%
// on a case, and two copies of the same code timed side by side in one
// process by up to 15%: a change worth 3% cannot be seen in time. Counted
// instructions can. Each build is run twice under cachegrind (no cache
// simulation), N1 and N2 rounds after the same warm-up; the difference
// divided by N2 - N1 is one round, with everything before the rounds
// (start-up, loading, compiling, warm-up) cancelled out. V8 runs
// single-threaded and predictable (fixed seeds, no concurrent compilation),
// with a young generation large enough that no collection falls inside the
// rounds, after two forced ones. Counts of one build then agree within
// about 0.5% (three counts of listing-small: 4,681,008 to 4,689,772).
// Compare builds at one --rounds: a longer window can take in a late
// compilation or collection, and the count a round moves with it (the
// everything server's answers, decode: 3.07 million a round over 20
// rounds, 3.41 over 100, 3.78 over 200, 3.54 over 400).
//
// Instructions are not time: a cache miss or a page fault costs no more
// here than an add, a call from JS into the engine's C++ counts only the
// instructions it runs, and since no collection falls in the window, what
// a change allocates costs nothing here. Writing 24- to 128-character
// strings with TextEncoder.encodeInto instead of the JS loop counted 1 to
// 4.5% fewer instructions and took 8 to 20% more time. Use it to compare
// builds on CPU-bound JS that allocates the same, and check a change that
// calls out or allocates with time (the other scripts).
//
// Each --dist is a build's dist/ folder (default: this checkout's); with
// two or more, each row also gives the ratio to the first. The sets are the
// frames of the report's generated fixtures and of the real-server
// captures, written to a temporary file that each counted run reads.
//
// Needs valgrind (Debian: apt install valgrind). Exits 2 without it.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFixtures, SEED } from './lib/fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');

const SETS = ['listing-small', 'listing-medium', 'error', 'servers-everything', 'servers-filesystem', 'servers-memory'];
/** Frames taken from a generated fixture: enough for a round of a few million instructions. */
const TAKE = { 'listing-small': 400, 'listing-medium': 16, error: 400 };

function usage(message) {
  if (message) console.error(`instructions: ${message}`);
  console.error('usage: node bench/instructions.mjs [--op encode|decode] [--sets a,b] [--dist DIR]... [--rounds N]');
  console.error(`sets: ${SETS.join(', ')}`);
  process.exit(2);
}

/** @type {{ op: string, sets: string[], dists: string[], rounds: number }} */
const options = { op: 'encode', sets: SETS, dists: [], rounds: 20 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  const next = () => argv[++i] ?? usage(`${arg} needs a value`);
  if (arg === '--op') options.op = next();
  else if (arg === '--sets') options.sets = next().split(',');
  else if (arg === '--dist') options.dists.push(resolve(next()));
  else if (arg === '--rounds') options.rounds = Number(next());
  else if (arg === '--help' || arg === '-h') usage();
  else usage(`unknown argument ${arg}`);
}
if (!['encode', 'decode'].includes(options.op)) usage(`--op is encode or decode, not ${options.op}`);
for (const s of options.sets) if (!SETS.includes(s)) usage(`no set ${s}`);
if (!(Number.isInteger(options.rounds) && options.rounds > 0)) usage('--rounds is a positive integer');
if (options.dists.length === 0) options.dists.push(join(root, 'dist'));

if (spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status !== 0) {
  console.error('instructions: valgrind is not installed (Debian: apt install valgrind); nothing was counted');
  process.exit(2);
}

/** The frames of each set, as [endpoint, base64 of the frame]. */
async function frames() {
  const { locate } = await import(pathToFileURL(join(options.dists[0], 'contract/locate.js')).href);
  const { loadServerFrames } = await import(pathToFileURL(join(root, 'test/fixtures/servers/frames.mjs')).href);
  const out = {};
  const fixtures = buildFixtures(SEED);
  for (const name of ['listing-small', 'listing-medium', 'error']) {
    const f = fixtures.find((x) => x.name === name);
    if (!f) throw new Error(`no fixture ${name}`);
    out[name] = f.variants.slice(0, TAKE[name]).map((v) => ['list-resources', Buffer.from(v.bytes).toString('base64')]);
  }
  for (const f of loadServerFrames(locate)) {
    const name = `servers-${f.file}`;
    out[name] ??= [];
    out[name].push([f.endpoint, Buffer.from(f.frame).toString('base64')]);
  }
  return out;
}

// --no-liftoff: single-threaded, V8 never tiers WebAssembly up from its
// baseline compiler, so without it decode counted the core's Liftoff code:
// the filesystem server's answers took 1,803,286 instructions a round
// against 1,308,035 with TurboFan's, which is what runs in a process that
// has decoded for a while.
const NODE_FLAGS = [
  '--single-threaded',
  '--no-liftoff',
  '--predictable',
  '--hash-seed=1',
  '--random-seed=1',
  '--max-semi-space-size=1024',
  '--min-semi-space-size=1024',
  '--expose-gc',
];

/** Instructions of one counted run. */
function count(dist, set, rounds, file) {
  const child = join(here, 'lib/instructions-child.mjs');
  const args = [
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    process.execPath,
    ...NODE_FLAGS,
    child,
    dist,
    file,
    set,
    String(rounds),
    options.op,
  ];
  return new Promise((done, fail) => {
    const p = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-20000);
    });
    p.on('error', fail);
    p.on('close', (status) => {
      const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (status !== 0 || !m) fail(new Error(`counting ${set} on ${dist} failed (status ${status}):\n${stderr.slice(-2000)}`));
      else done(Number(m[1].replaceAll(',', '')));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-instructions-'));
try {
  const file = join(dir, 'sets.json');
  writeFileSync(file, JSON.stringify(await frames()));
  const first = 5;
  const last = first + options.rounds;
  console.log(`${options.op}: instructions per round, ${options.rounds} rounds counted (valgrind cachegrind; node ${NODE_FLAGS.join(' ')})`);
  for (const set of options.sets) {
    const row = [];
    for (const dist of options.dists) {
      const started = Date.now();
      // The two runs side by side, one per core.
      const [long, short] = await Promise.all([count(dist, set, last, file), count(dist, set, first, file)]);
      const perRound = (long - short) / options.rounds;
      row.push(perRound);
      const ratio = row.length > 1 ? `  ${(perRound / row[0]).toFixed(4)} of the first` : '';
      console.log(
        `${set.padEnd(20)} ${Math.round(perRound).toLocaleString('en').padStart(14)}  ${dist}${ratio}  (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
