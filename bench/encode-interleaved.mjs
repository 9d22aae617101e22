#!/usr/bin/env node
// Encode against bare JSON.stringify + encodeInto on a shared, noisy machine: interleaved round by round, in CPU time.
//
// The encode target is a ratio: codec.encode at least 0.9× the speed
// of `JSON.stringify(value)` then `TextEncoder.encodeInto` a buffer
// allocated once, on every frame fixture and on the real-server captures.
// Here each round times bare, then bare with a copy out, then encode of each
// build given, on one fixture, a fraction of a second each, in this
// process's CPU time; the ratios are taken within a round, in twos of one
// round in each order (bench/lib/paired.mjs), as
// bench/decode-interleaved.mjs does for decode.
//
// Bare keeps nothing: the next call writes over its bytes. Encode returns a
// frame the caller keeps, copied out of its scratch buffer. "Bare + copy" is bare, then that same copy made by Node's Buffer.from:
// under 4 KiB into a shared 8 KiB pool, above it into an ArrayBuffer of its
// own, which is the scheme encode's copy follows
// (src/contract/body-writer.ts). It is not a target's peer; it shows what
// the copy costs bare, for reading encode's ratio to bare.
// With two or more builds (--dist), it is also the way to time a change
// against the code before it, side by side in one process.
//
//   node bench/encode-interleaved.mjs [--fixtures a,b] [--rounds N] [--ballast MB] [--dist DIR]...
//   node bench/encode-interleaved.mjs --fixtures servers-everything --dist dist --dist /work/main/old-dist
//
// Each --dist is a build's dist/ folder (default: this checkout's); it must
// lie inside this checkout, so that its imports of the SDK resolve. Every
// fixture is checked before it is timed: each build's encode writes the
// fixture's bytes exactly, as bare does.

import { ok } from 'node:assert/strict';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFixtures, SEED, TAG_RESULT } from './lib/fixtures.mjs';
import { loadServerFrames } from '../test/fixtures/servers/frames.mjs';
import { cpuMicros as cpu, twosOf } from './lib/paired.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const FRAME_FIXTURES = ['listing-small', 'listing-medium', 'text-48k', 'text-1m', 'blob-48k', 'blob-1m', 'error'];
const SERVER_FIXTURES = ['servers-everything', 'servers-filesystem', 'servers-memory'];

function usage(message) {
  if (message) console.error(`encode-interleaved: ${message}`);
  console.error('usage: node bench/encode-interleaved.mjs [--fixtures a,b] [--rounds N] [--dist DIR]...');
  console.error(`fixtures: ${[...FRAME_FIXTURES, ...SERVER_FIXTURES].join(', ')}`);
  process.exit(2);
}

/** @type {{ fixtures: string[], rounds: number, dists: string[], ballast: number }} */
const options = { fixtures: [...FRAME_FIXTURES, ...SERVER_FIXTURES], rounds: 10, dists: [], ballast: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  const next = () => argv[++i] ?? usage(`${arg} needs a value`);
  if (arg === '--fixtures') options.fixtures = next().split(',');
  else if (arg === '--rounds') options.rounds = Number(next());
  else if (arg === '--dist') options.dists.push(resolve(next()));
  else if (arg === '--ballast') options.ballast = Number(next());
  else if (arg === '--help' || arg === '-h') usage();
  else usage(`unknown argument ${arg}`);
}
if (!(Number.isInteger(options.rounds) && options.rounds > 0)) usage('--rounds is a positive integer');
for (const f of options.fixtures) if (![...FRAME_FIXTURES, ...SERVER_FIXTURES].includes(f)) usage(`no fixture ${f}`);
if (options.dists.length === 0) options.dists.push(join(root, 'dist'));
for (const d of options.dists) if (relative(root, d).startsWith('..')) usage(`${d} is outside this checkout`);
// An even number of rounds: every round has its partner in the other order.
const rounds = 2 * Math.ceil(options.rounds / 2);

const builds = await Promise.all(
  options.dists.map(async (d, k) => {
    const { ENDPOINTS } = await import(pathToFileURL(join(d, 'frame/endpoints.js')).href);
    return { name: options.dists.length > 1 ? `encode[${k}]` : 'encode', ENDPOINTS };
  }),
);
const { locate } = await import(pathToFileURL(join(options.dists[0], 'contract/locate.js')).href);

const ENDPOINT_OF_FIXTURE = { 'list-resources': 'list-resources', 'read-resource': 'read-resource' };

/** A frame to encode: its value as the caller holds it, its bytes, its codec's endpoint. */
const asFrame = (bytes, endpoint) => {
  const value = JSON.parse(decoder.decode(bytes.subarray(1)));
  return { bytes, endpoint, frame: bytes[0] === TAG_RESULT ? { kind: 'result', result: value } : { kind: 'error', error: value } };
};

function serverFixtures() {
  const byFile = new Map();
  for (const f of loadServerFrames(locate)) {
    if (!byFile.has(f.file)) byFile.set(f.file, []);
    byFile.get(f.file).push(asFrame(f.frame, f.endpoint));
  }
  return [...byFile].map(([file, frames]) => ({
    name: `servers-${file}`,
    frames,
    bytesPerOp: frames.reduce((a, f) => a + f.bytes.length, 0) / frames.length,
  }));
}

const fixtures = [
  ...buildFixtures(SEED)
    .filter((f) => f.kind === 'frame')
    .map((f) => ({ name: f.name, bytesPerOp: f.bytesPerOp, frames: f.variants.map((v) => asFrame(v.bytes, ENDPOINT_OF_FIXTURE[f.endpoint])) })),
  ...serverFixtures(),
].filter((f) => options.fixtures.includes(f.name));

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** @returns {[string, (frame: any) => unknown][]} */
function columnsOf(f) {
  const out = new Uint8Array(1 + 3 * Math.max(...f.frames.map((x) => x.bytes.length)));
  const bare = (x) => {
    const value = x.frame.kind === 'result' ? x.frame.result : x.frame.error;
    out[0] = x.bytes[0];
    return 1 + encoder.encodeInto(JSON.stringify(value), out.subarray(1)).written;
  };
  for (const x of f.frames) ok(same(out.subarray(0, bare(x)), x.bytes), `bare on ${f.name}: the bytes differ`);
  const bareCopy = (x) => Buffer.from(out.subarray(0, bare(x)));
  for (const x of f.frames) ok(same(bareCopy(x), x.bytes), `bare + copy on ${f.name}: the bytes differ`);
  /** @type {[string, (frame: any) => unknown][]} */
  const columns = [
    ['bare', bare],
    ['bare + copy', bareCopy],
  ];
  for (const b of builds) {
    const codecs = f.frames.map((x) => b.ENDPOINTS[x.endpoint]);
    for (const [k, x] of f.frames.entries()) ok(same(codecs[k].encode(x.frame), x.bytes), `${b.name} on ${f.name}: the bytes differ`);
    let k = 0;
    columns.push([
      b.name,
      (x) => {
        const c = codecs[k];
        k = k + 1 === codecs.length ? 0 : k + 1;
        return c.encode(x.frame);
      },
    ]);
  }
  return columns;
}

// A heap the size of the full benchmark's (its fixtures and what earlier cases left): a full collection costs more
// there, and what a case allocates outside the young generation (ArrayBuffers) is paid for in full collections.
const ballast = [];
for (let mb = 0; mb < options.ballast; mb++) ballast.push(Array.from({ length: 16384 }, (_, i) => ({ i, s: `${i}` })));

let sink;
const times = new Map();
const prepared = fixtures.map((f) => ({ f, columns: columnsOf(f) }));
for (let r = 0; r < rounds; r++) {
  for (const { f, columns } of prepared) {
    const reps = Math.max(2, Math.round(4e6 / (f.bytesPerOp * f.frames.length)));
    for (const [column, run] of r % 2 ? [...columns].reverse() : columns) {
      // Each column walks the frames from the first, so that a build's codec matches its frame.
      const pass = () => {
        for (let i = 0; i < f.frames.length; i++) sink = run(f.frames[i]);
      };
      pass();
      const t = cpu();
      for (let i = 0; i < reps; i++) pass();
      const us = (cpu() - t) / (reps * f.frames.length);
      const key = `${f.name}|${column}`;
      times.set(key, [...(times.get(key) ?? []), us]);
    }
  }
}
ok(sink !== undefined && ballast.length === options.ballast);

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const names = builds.map((b) => b.name);
const peers = ['bare', 'bare + copy'];
const against = names.flatMap((n) => peers.map((p) => [p, n]));
process.stdout.write(
  `encode against bare JSON.stringify + encodeInto, and against bare with a copy out (Buffer.from): µs per frame of CPU time (median of ${rounds} rounds); the speed peer/encode within rounds, in twos of one round in each order: median (range) of the twos\n\n`,
);
process.stdout.write(
  `| fixture | bytes/frame | ${peers.join(' | ')} | ${names.join(' | ')} | ${against.map(([p, n]) => `${p} / ${n}`).join(' | ')} |\n`,
);
process.stdout.write(`| --- | ---: | ${[...peers, ...names, ...against].map(() => '---:').join(' | ')} |\n`);
for (const { f } of prepared) {
  const cells = [...peers, ...names].map((n) => median(times.get(`${f.name}|${n}`)).toFixed(2));
  const ratios = against.map(([p, n]) => {
    const peer = times.get(`${f.name}|${p}`);
    const t = twosOf(times.get(`${f.name}|${n}`).map((x, i) => peer[i] / x));
    return `${t.median.toFixed(3)} (${t.min.toFixed(2)}–${t.max.toFixed(2)})`;
  });
  process.stdout.write(`| ${f.name} | ${Math.round(f.bytesPerOp)} | ${cells.join(' | ')} | ${ratios.join(' | ')} |\n`);
}
