#!/usr/bin/env node
// The relay with validate 'full' on a long stream of listings: what the 'full' relay target measures, interleaved round by round.
//
// relay/long-stream/F with validate 'full': createRelay in this process
// over 64 KiB chunks of bench/lib/wire.mjs's 96 MiB stream F (listing: 16
// KiB listResources pages of 100 resources; small: listings of about 80
// bytes), the output read to the end. Each round runs, one after the other
// so that they share the moment of a noisy machine: the relay with 'full'
// and with 'json' on each backend. Figures are MB/s of wall time (mean over
// the rounds) and of this process's CPU time; the ratio full/json says what
// the schema costs on top of the JSON checks.
//
// It also times, per frame and interleaved in CPU time, the two ways a
// relay can judge a frame under 'full': the codec's build (JSON.parse and
// the value judge; what the relay did before) and the codec's judge alone
// (the byte judge, no value built; what it does now), so that the speedup
// is a ratio taken side by side in one run.
//
//   node bench/relay-full.mjs [fixtures] [rounds] [--baseline DIR]
//   node bench/relay-full.mjs listing,small 5
//   node bench/relay-full.mjs listing 5 --baseline /tmp/old/dist
//
// --baseline times another build's createRelay with 'full' in the same
// rounds (DIR is its dist/, e.g. of the commit before a change, built with
// its own `npm run build`): "before" and "after" side by side in one run.
//
// Every case is checked before it is timed: the output is the input byte for
// byte (SHA-256), with no fault; a stream with one frame broken for the
// schema forwards everything but that response, with one 'schema' fault.
//
// "by-build full" is today's relay with a codec whose judge builds every
// frame and throws it away, which is what 'full' did before (see
// bench/lib/decode-targets.mjs buildingCodec): the "before" of the target,
// side by side, with no other build needed.

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createRelay, listResources, loadBackend } from '../dist/runtime/node.js';
import { buildFrame, judgeFrame } from '../dist/frame/build.js';
import { FrameError } from '../dist/frame/frame-error.js';
import { buildWireFixtures, through } from './lib/wire.mjs';
import { brokenForSchema, buildingCodec } from './lib/decode-targets.mjs';
import { SEED } from './lib/fixtures.mjs';
import { cpuMicros } from './lib/paired.mjs';

const args = process.argv.slice(2);
const baselineAt = args.indexOf('--baseline');
const baselineDir = baselineAt >= 0 ? args.splice(baselineAt, 2)[1] : undefined;
const names = (args[0] || 'listing').split(',');
const rounds = Number(args[1] ?? 5);
/** The other build's library, for its 'full' relay side by side; its loadBackend gives its own backends. */
const baseline = baselineDir ? await import(pathToFileURL(`${baselineDir.replace(/\/$/, '')}/runtime/node.js`).href) : undefined;

/** CPU seconds of this process. */
const cpu = () => cpuMicros() / 1e6;

/** The stream through createRelay (this build's, or `lib`'s) in 64 KiB chunks; resolves with the output's length, its SHA-256 (when asked) and the faults. */
async function relay(backend, validate, stream, hash, lib = { createRelay, listResources }) {
  const faults = [];
  const r = lib.createRelay({ backend, validate, endpoint: lib.listResources, onFault: (f) => faults.push(f) });
  return { ...(await through(r, stream, hash)), faults };
}

const fixtures = buildWireFixtures(SEED, names);
const backends = [loadBackend('auto'), loadBackend('js')];
/**
 * The relays timed: [name, backend, validate, library]; the baseline's 'full' on its own backends, when given.
 * @type {[string, any, 'full' | 'json', any][]}
 */
const cases = backends.flatMap((backend) => [
  /** @type {[string, any, 'full' | 'json', any]} */ ([`full@${backend.name}`, backend, 'full', undefined]),
  /** @type {[string, any, 'full' | 'json', any]} */ ([`json@${backend.name}`, backend, 'json', undefined]),
  /** @type {[string, any, 'full' | 'json', any]} */ ([
    `by-build full@${backend.name}`,
    backend,
    'full',
    { createRelay, listResources: buildingCodec() },
  ]),
]);
if (baseline)
  for (const name of ['auto', 'js']) {
    const backend = baseline.loadBackend(name);
    cases.push([`baseline full@${backend.name}`, backend, 'full', baseline]);
  }

for (const f of fixtures) {
  // Checks.
  const broken = brokenForSchema(f);
  for (const [name, backend, validate, lib] of cases) {
    const got = await relay(backend, validate, f.stream, true, lib);
    ok(got.bytes === f.stream.length && got.sha256 === f.sha256 && got.faults.length === 0, `${f.name} ${name}: output is not the input`);
    if (validate !== 'full') continue;
    const bad = await relay(backend, 'full', broken.stream, true, lib);
    strictEqual(bad.faults.length, 1, `${f.name} ${name}: faults on the broken stream`);
    strictEqual(bad.faults[0].frame?.rule, 'schema', `${f.name} ${name}: the broken frame's rule`);
    strictEqual(bad.sha256, createHash('sha256').update(broken.expected).digest('hex'), `${f.name} ${name}: broken stream output`);
  }
  for (const frame of f.frames.slice(0, 64)) {
    strictEqual(judgeFrame(listResources, frame), null, 'judgeFrame refused a frame of the fixture');
    ok(!(buildFrame(listResources, frame, null) instanceof FrameError), 'buildFrame refused a frame of the fixture');
  }

  // The relay, in rounds.
  const wall = new Map();
  const cpus = new Map();
  for (let r = 0; r < rounds; r++) {
    for (const [key, backend, validate, lib] of cases) {
      const c0 = cpu();
      const t0 = performance.now();
      const got = await relay(backend, validate, f.stream, false, lib);
      const seconds = (performance.now() - t0) / 1000;
      const cpuSeconds = cpu() - c0;
      ok(got.bytes === f.stream.length && got.faults.length === 0, `${key}: output or faults while timed`);
      wall.set(key, [...(wall.get(key) ?? []), seconds]);
      cpus.set(key, [...(cpus.get(key) ?? []), cpuSeconds]);
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  /** The median over rounds of the speed of `num` over that of `den`, in CPU time, with the range. */
  const ratio = (num, den) => {
    const rs = cpus.get(num).map((x, i) => cpus.get(den)[i] / x);
    return `${median(rs).toFixed(2)} (${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)})`;
  };
  const mb = f.stream.length / 1e6;
  process.stdout.write(`\nrelay/long-stream/${f.name} (${mb.toFixed(0)} MB, ${f.frames.length} responses), ${rounds} rounds\n\n`);
  process.stdout.write(
    '| case | MB/s (wall) | MB/s (CPU) | full/json (CPU) | full/by-build full (CPU) | full/baseline full (CPU) |\n| --- | ---: | ---: | ---: | ---: | ---: |\n',
  );
  for (const [key, backend, validate, lib] of cases) {
    const full = validate === 'full' && !lib;
    const against = `baseline full@${backend.name}`;
    process.stdout.write(
      `| ${key} | ${(mb / mean(wall.get(key))).toFixed(0)} | ${(mb / mean(cpus.get(key))).toFixed(0)} | ${full ? ratio(key, `json@${backend.name}`) : ''} | ${full ? ratio(key, `by-build full@${backend.name}`) : ''} | ${full && cpus.has(against) ? ratio(key, against) : ''} |\n`,
    );
  }

  // The two ways to judge one frame, side by side.
  const frames = f.frames.slice(0, 256);
  /** @type {Record<'build' | 'judge', number[]>} */
  const per = { build: [], judge: [] };
  /** @type {[ 'build' | 'judge', (frame: Uint8Array) => unknown][]} */
  const ways = [
    ['build', (frame) => buildFrame(listResources, frame, null)],
    ['judge', (frame) => judgeFrame(listResources, frame)],
  ];
  let sink;
  for (let r = 0; r < rounds * 2; r++) {
    for (const [way, run] of ways) {
      const reps = Math.max(1, Math.round(16e6 / (frames.length * f.frames[0].length)));
      const c0 = cpu();
      for (let k = 0; k < reps; k++) for (const frame of frames) sink = run(frame);
      per[way].push((cpu() - c0) / (reps * frames.length));
    }
  }
  deepStrictEqual(sink, null);
  const speedups = per.build.map((b, i) => b / per.judge[i]).sort((a, b) => a - b);
  process.stdout.write(
    `\nper frame (CPU): build ${(per.build.slice().sort((a, b) => a - b)[rounds] * 1e6).toFixed(1)} µs, judge ${(per.judge.slice().sort((a, b) => a - b)[rounds] * 1e6).toFixed(1)} µs; build/judge median ${speedups[rounds].toFixed(2)} (${speedups[0].toFixed(2)}–${speedups[speedups.length - 1].toFixed(2)})\n`,
  );
}
