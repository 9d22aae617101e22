#!/usr/bin/env node
// Typed decode against bare TextDecoder + JSON.parse on a shared, noisy machine: interleaved round by round, in CPU time.
//
// The decode target is a ratio: typed decode on wasm within 1.3× of a bare
// `JSON.parse(new TextDecoder().decode(body))`, on every frame fixture and
// on the real-server captures. Timed one case after the other on the wall
// clock (`npm run bench`), such a ratio swings by a third when another
// process takes a core. Here each round times bare, then decode on each
// backend, on one fixture, a fraction of a second each, in this process's
// CPU time; the ratios are taken within a round, the rounds go in twos (the
// columns in one order, then in the other, since whatever runs second pays
// for collecting what ran first made), and a ratio is summed up as the
// median and range of the twos' geometric means (bench/lib/paired.mjs). It
// is also taken between each column's fastest round (the one other work
// disturbed least). As bench/interleaved.mjs does for validate-only.
//
//   node bench/decode-interleaved.mjs [fixtures] [rounds] [backends]
//   node bench/decode-interleaved.mjs blob-48k,blob-1m 16 wasm-simd
//
// Fixtures: the frame fixtures of bench/lib/fixtures.mjs (listing-small,
// listing-medium, text-48k, text-1m, blob-48k, blob-1m, error) and the
// real-server captures of test/fixtures/servers/, one fixture per server
// (servers-everything, servers-filesystem, servers-memory), each capture
// decoded with its method's codec. Every fixture is checked before it is
// timed: decode deep-equals JSON.parse of the same body on every backend.

import { deepStrictEqual, ok } from 'node:assert/strict';
import { loadBackend } from '../dist/runtime/node.js';
import { ENDPOINTS } from '../dist/frame/endpoints.js';
import { locate } from '../dist/contract/locate.js';
import { buildFixtures, SEED, TAG_RESULT } from './lib/fixtures.mjs';
import { loadServerFrames } from '../test/fixtures/servers/frames.mjs';
import { cpuMicros as cpu, twosOf } from './lib/paired.mjs';

const decoder = new TextDecoder();

const FRAME_FIXTURES = ['listing-small', 'listing-medium', 'text-48k', 'text-1m', 'blob-48k', 'blob-1m', 'error'];
const SERVER_FIXTURES = ['servers-everything', 'servers-filesystem', 'servers-memory'];

const names = (process.argv[2] || [...FRAME_FIXTURES, ...SERVER_FIXTURES].join(',')).split(',');
// An even number of rounds: every round has its partner in the other order.
const rounds = 2 * Math.ceil(Number(process.argv[3] ?? 10) / 2);
const backendNames = (process.argv[4] ?? 'wasm-simd,wasm-scalar,js').split(',');

/** One fixture per server: each captured answer as a frame (its result or error member, byte for byte, behind its tag). */
function serverFixtures() {
  const byFile = new Map();
  for (const f of loadServerFrames(locate)) {
    if (!byFile.has(f.file)) byFile.set(f.file, []);
    byFile.get(f.file).push({ bytes: f.frame, endpoint: f.endpoint });
  }
  return [...byFile].map(([file, frames]) => {
    const total = frames.reduce((a, f) => a + f.bytes.length, 0);
    return { name: `servers-${file}`, frames, bytesPerOp: total / frames.length };
  });
}

const ENDPOINT_OF_FIXTURE = { 'list-resources': 'list-resources', 'read-resource': 'read-resource' };
const fixtures = [
  ...buildFixtures(SEED)
    .filter((f) => f.kind === 'frame')
    .map((f) => ({
      name: f.name,
      bytesPerOp: f.bytesPerOp,
      frames: f.variants.map((v) => ({ bytes: v.bytes, endpoint: ENDPOINT_OF_FIXTURE[f.endpoint] })),
    })),
  ...serverFixtures(),
].filter((f) => names.includes(f.name));
const missing = names.filter((n) => !fixtures.some((f) => f.name === n));
if (missing.length) throw new Error(`unknown fixtures: ${missing.join(', ')}`);

const backends = backendNames.map((name) => loadBackend(/** @type {any} */ (name)));

/**
 * The columns of one fixture: bare, then decode on each backend; each checked first.
 * @returns {[string, (frame: any) => unknown][]}
 */
function columnsOf(f) {
  /** @type {[string, (frame: any) => unknown][]} */
  const columns = [['bare', (frame) => JSON.parse(decoder.decode(frame.bytes.subarray(1)))]];
  for (const backend of backends) {
    const codecs = new Map();
    const codecOf = (endpoint) => {
      let c = codecs.get(endpoint);
      if (!c) {
        c = ENDPOINTS[endpoint].withBackend(backend);
        codecs.set(endpoint, c);
      }
      return c;
    };
    for (const frame of f.frames) {
      const got = codecOf(frame.endpoint).decode(frame.bytes);
      const value = JSON.parse(decoder.decode(frame.bytes.subarray(1)));
      deepStrictEqual(frame.bytes[0] === TAG_RESULT ? got.result : got.error, value, `${backend.name} on ${f.name}: the value differs`);
    }
    const bound = f.frames.map((frame) => [codecOf(frame.endpoint), frame.bytes]);
    let k = 0;
    columns.push([
      backend.name,
      () => {
        const [codec, bytes] = bound[k];
        k = k + 1 === bound.length ? 0 : k + 1;
        return codec.decode(bytes);
      },
    ]);
  }
  return columns;
}

let sink;
/** Microseconds per frame, by fixture and column, one entry per round. */
const times = new Map();
const prepared = fixtures.map((f) => ({ f, columns: columnsOf(f) }));
for (let r = 0; r < rounds; r++) {
  for (const { f, columns } of prepared) {
    const bytes = f.bytesPerOp * f.frames.length;
    // About 8 MB per column per round, and at least two passes over the fixture's frames.
    const reps = Math.max(2, Math.round(8e6 / bytes));
    for (const [column, run] of r % 2 ? [...columns].reverse() : columns) {
      let k = 0;
      const next = () => {
        const frame = f.frames[k];
        k = k + 1 === f.frames.length ? 0 : k + 1;
        return frame;
      };
      for (let i = 0; i < f.frames.length; i++) sink = run(next());
      const t = cpu();
      for (let i = 0; i < reps * f.frames.length; i++) sink = run(next());
      const us = (cpu() - t) / (reps * f.frames.length);
      const key = `${f.name}|${column}`;
      times.set(key, [...(times.get(key) ?? []), us]);
    }
  }
}
ok(sink !== undefined);

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
process.stdout.write(
  `typed decode against bare TextDecoder + JSON.parse: µs per frame of CPU time (median of ${rounds} rounds); the slowdown decode/bare within rounds, in twos of one round in each order: median (range) of the twos; and that of the fastest rounds, the least disturbed by other work\n\n`,
);
const columns = (label) => backends.map((b) => label(b.name)).join(' | ');
process.stdout.write(
  `| fixture | bytes/frame | bare | ${columns((n) => n)} | ${columns((n) => `${n}/bare`)} | ${columns((n) => `fastest ${n}/bare`)} |\n`,
);
process.stdout.write(`| --- | ---: | ---: | ${columns(() => '---: | ---: | ---:')} |\n`);
for (const { f } of prepared) {
  const bare = times.get(`${f.name}|bare`);
  const cells = backends.map((b) => median(times.get(`${f.name}|${b.name}`)).toFixed(2));
  const ratios = backends.map((b) => {
    const t = twosOf(times.get(`${f.name}|${b.name}`).map((x, i) => x / bare[i]));
    return `${t.median.toFixed(2)} (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;
  });
  const fastest = backends.map((b) => (Math.min(...times.get(`${f.name}|${b.name}`)) / Math.min(...bare)).toFixed(2));
  process.stdout.write(
    `| ${f.name} | ${Math.round(f.bytesPerOp)} | ${median(bare).toFixed(2)} | ${cells.join(' | ')} | ${ratios.join(' | ')} | ${fastest.join(' | ')} |\n`,
  );
}
