#!/usr/bin/env node
// Validate-only ratios on a shared, noisy machine: backends and native simdjson interleaved round by round, timed in CPU time.
//
// `npm run bench` times one case after another on the wall clock: when
// another process takes a core for a few seconds, the case running then
// loses, and a ratio of two cases can swing by 30% from run to run. This
// takes the ratios the issue's targets need another way: each round times
// every backend on every fixture in turn, a fraction of a second each, in
// this process's CPU time (which time spent descheduled does not count),
// and the ratios are taken within a round. The rounds go in twos, the
// columns in one order and then in the other, since whatever runs second
// pays for collecting what ran first made; a two's ratio is the geometric
// mean of its rounds' (bench/lib/paired.mjs), and a ratio is summed up as
// the median and range of the twos. It is a check on the report's ratios,
// not a replacement for it.
//
//   node bench/interleaved.mjs [fixtures] [rounds]
//   node bench/interleaved.mjs twitter,citm_catalog,gsoc-2018,prose-300k 10
//
// Fixtures are the benchmark's own (bench/lib/fixtures.mjs, documents.mjs),
// checked before they are timed: every variant accepted, both broken twins
// refused at their offset. Native simdjson is built as `npm run bench`
// builds it (bench/lib/native.mjs), for documents only.

import { deepStrictEqual, ok } from 'node:assert/strict';
import { readResource } from '../dist/runtime/node.js';
// The backends' own calls are internal: loaded where they are made, not through the entry.
import { loadBackend } from '../dist/backend/disk.js';
import { buildDocuments } from './lib/documents.mjs';
import { buildFixtures, SEED } from './lib/fixtures.mjs';
import { loadNative } from './lib/native.mjs';
import { cpuMicros as cpu, twosOf } from './lib/paired.mjs';

const names = (process.argv[2] ?? 'twitter,citm_catalog,gsoc-2018,prose-300k,listing-small,listing-medium').split(',');
// An even number of rounds: every round has its partner in the other order.
const rounds = 2 * Math.ceil(Number(process.argv[3] ?? 8) / 2);

const native = loadNative();
if (!native.native) process.stderr.write(`native simdjson left out: ${native.error}\n`);
const fixtures = [...buildFixtures(SEED), ...buildDocuments(SEED, native.padding || 64)].filter((f) => names.includes(f.name));
const missing = names.filter((n) => !fixtures.some((f) => f.name === n));
if (missing.length) throw new Error(`unknown fixtures: ${missing.join(', ')}`);

/** @type {Record<string, (f: any) => ((v: any) => boolean) | null>} */
const runners = {};
for (const name of ['wasm-simd', 'wasm-scalar', 'js']) {
  const backend = loadBackend(/** @type {any} */ (name));
  const codec = readResource.withBackend(backend);
  runners[name] = (f) => {
    for (const v of f.variants) ok(codec.validate(v.bytes) === null, `${name} refused ${f.name}`);
    for (const t of f.broken)
      deepStrictEqual(backend.verifyFrame(t.bytes), { status: t.status, offset: t.offset }, `${name} on ${f.name}'s ${t.label} twin`);
    return (v) => codec.validate(v.bytes) === null;
  };
}
runners.native = (f) => {
  if (!native.native || !f.variants[0].padded) return null;
  const isValid = /** @type {(bytes: Uint8Array, length: number) => boolean} */ (native.isValid);
  for (const v of f.variants) ok(isValid(v.padded, v.bytes.length - 1), `native simdjson refused ${f.name}`);
  for (const t of f.broken) ok(!isValid(t.padded, t.bytes.length - 1), `native simdjson accepted ${f.name}'s ${t.label} twin`);
  return (v) => isValid(v.padded, v.bytes.length - 1);
};

const columns = Object.keys(runners);
/** @type {Map<string, Map<string, number[]>>} */
const speeds = new Map();
for (let r = 0; r < rounds; r++) {
  for (const f of fixtures) {
    for (const column of r % 2 ? [...columns].reverse() : columns) {
      const run = runners[column](f);
      if (!run) continue;
      const bytes = f.bytesPerOp * f.variants.length;
      // About 25 MB for the fast columns and 6 MB for the slow ones, per round.
      const reps = Math.max(1, Math.round((column === 'js' || column === 'wasm-scalar' ? 6e6 : 25e6) / bytes));
      const t = cpu();
      let accepted = 0;
      for (let i = 0; i < reps; i++) for (const v of f.variants) if (run(v)) accepted++;
      const us = cpu() - t;
      ok(accepted === reps * f.variants.length, `${column} refused ${f.name} while timed`);
      const list = speeds.get(f.name) ?? new Map();
      speeds.set(f.name, list);
      list.set(column, [...(list.get(column) ?? []), (bytes * reps) / us]);
    }
  }
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const ratio = (a, b) => {
  if (!a || !b) return '—';
  const t = twosOf(a.map((x, i) => x / b[i]));
  return `${t.median.toFixed(2)} (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;
};
process.stdout.write(
  `validate-only, MB per CPU-second (median of ${rounds} rounds), and ratios within rounds, in twos of one round in each order: median (range) of the twos${native.native ? `; native simdjson ${native.version}, ${native.kernel} kernel` : ''}\n\n`,
);
process.stdout.write('| fixture | wasm-simd | wasm-scalar | js | native | wasm-simd/native | wasm-simd/js | wasm-simd/wasm-scalar |\n');
process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
for (const f of fixtures) {
  const s = /** @type {Map<string, number[]>} */ (speeds.get(f.name));
  const cell = (c) => (s.get(c) ? median(/** @type {number[]} */ (s.get(c))).toFixed(0) : '—');
  process.stdout.write(
    `| ${f.name} | ${cell('wasm-simd')} | ${cell('wasm-scalar')} | ${cell('js')} | ${cell('native')} | ${ratio(s.get('wasm-simd'), s.get('native'))} | ${ratio(s.get('wasm-simd'), s.get('js'))} | ${ratio(s.get('wasm-simd'), s.get('wasm-scalar'))} |\n`,
  );
}
