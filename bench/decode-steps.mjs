#!/usr/bin/env node
// Typed decode of short results taken apart step by step, in a process that has decoded every fixture first.
//
// decode-interleaved.mjs gives typed decode's ratio to bare; this says
// where the time over bare goes, for the frames that take decode's short
// path: a result whose body is at most SHORT_TEXT bytes and whose text the
// text screen passes (src/contract/screen.ts), which is every frame of
// listing-small and 109 of the everything server's 139 answers. Each
// column does the steps of the one before it, and one more:
//
//   bare       JSON.parse(new TextDecoder().decode(body)): the target's denominator
//   parse      JSON.parse(utf8Text(...)): the decoder decode uses (Node's utf8Slice)
//   judge      and the compiled judge's verdict on the value (its `ok`)
//   screen     and, before JSON.parse, the text screen (screenShortText)
//   frame      the judge through judgeWith, and the frame object, as judged() makes it
//   tryDecode  the codec's tryDecode
//   decode     the codec's decode
//
// Before anything is timed, the process decodes every frame fixture and
// every capture of the reference servers, in several rounds, as a full
// run's process has decoded them (among much else) by the time it
// reaches these cases (--no-warm leaves that out). Such a process runs
// the same steps slower than one that has seen only these frames: the
// judges' property reads go megamorphic once they have met more than
// four shapes of object.
//
// Then each round times every column once, on one core's CPU time, the
// column order reversed every other round. A step's cost is the median,
// over the rounds, of the difference between its column and the column
// before it within the round. Every column's value is checked against
// JSON.parse of the body, frame by frame, before anything is timed, and
// every column's result is kept, so that nothing it makes can be left
// unmade by the compiler.
//
//   node bench/decode-steps.mjs [--fixture NAME] [--rounds N] [--backend NAME] [--no-warm]
//   taskset -c 1 node bench/decode-steps.mjs --fixture servers-everything --rounds 24

import { deepStrictEqual, ok } from 'node:assert/strict';
import { loadBackend } from '../dist/runtime/node.js';
import { ENDPOINTS } from '../dist/frame/endpoints.js';
import { locate } from '../dist/contract/locate.js';
import { utf8Text } from '../dist/contract/utf8-text.js';
import { SHORT_TEXT, screenShortText } from '../dist/contract/screen.js';
import { compiledJudge, judgeWith } from '../dist/contract/schema.js';
import { buildFixtures, SEED, TAG_RESULT } from './lib/fixtures.mjs';
import { loadServerFrames } from '../test/fixtures/servers/frames.mjs';
import { cpuMicros as cpu } from './lib/paired.mjs';

const decoder = new TextDecoder();
const ENDPOINT_OF_FIXTURE = { 'list-resources': 'list-resources', 'read-resource': 'read-resource' };
const BACKENDS = ['wasm-simd', 'wasm-scalar', 'js'];

function usage(message) {
  if (message) console.error(`decode-steps: ${message}`);
  console.error('usage: node bench/decode-steps.mjs [--fixture NAME] [--rounds N] [--backend wasm-simd|wasm-scalar|js] [--no-warm]');
  process.exit(2);
}

const options = { fixture: 'listing-small', rounds: 16, backend: 'wasm-simd', warm: true };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  const next = () => argv[++i] ?? usage(`${arg} needs a value`);
  if (arg === '--fixture') options.fixture = next();
  else if (arg === '--rounds') options.rounds = Number(next());
  else if (arg === '--backend') options.backend = next();
  else if (arg === '--no-warm') options.warm = false;
  else if (arg === '--help' || arg === '-h') usage();
  else usage(`unknown argument ${arg}`);
}
if (!(Number.isInteger(options.rounds) && options.rounds > 0)) usage('--rounds is a positive integer');
if (!BACKENDS.includes(options.backend)) usage(`--backend is one of ${BACKENDS.join(', ')}`);
// An even number of rounds: every round has its partner in the other order.
const rounds = 2 * Math.ceil(options.rounds / 2);

const backend = loadBackend(/** @type {any} */ (options.backend));
const codecs = new Map();
const codecOf = (endpoint) => {
  let c = codecs.get(endpoint);
  if (!c) {
    c = ENDPOINTS[endpoint].withBackend(backend);
    codecs.set(endpoint, c);
  }
  return c;
};

/** Every frame fixture and one fixture per server, as [name, [{ bytes, endpoint }]]. */
const fixtures = new Map();
for (const f of buildFixtures(SEED)) {
  if (f.kind === 'frame')
    fixtures.set(
      f.name,
      f.variants.map((v) => ({ bytes: v.bytes, endpoint: ENDPOINT_OF_FIXTURE[f.endpoint] })),
    );
}
for (const f of loadServerFrames(locate)) {
  const name = `servers-${f.file}`;
  if (!fixtures.has(name)) fixtures.set(name, []);
  fixtures.get(name).push({ bytes: f.frame, endpoint: f.endpoint });
}
const all = fixtures.get(options.fixture) ?? usage(`no fixture ${options.fixture}; there are ${[...fixtures.keys()].join(', ')}`);

/** The frames that take the short path, each with its codec and its compiled judge. */
const frames = [];
for (const { bytes, endpoint } of all) {
  const codec = codecOf(endpoint);
  const node = compiledJudge(codec.schema);
  if (bytes[0] !== TAG_RESULT || bytes.length - 1 > SHORT_TEXT || node === undefined) continue;
  if (!screenShortText(utf8Text(bytes, 1, bytes.length), bytes.length - 1)) continue;
  frames.push({ bytes, codec, node, schema: codec.schema });
}
if (frames.length === 0)
  usage(`no frame of ${options.fixture} takes the short path (a result of at most ${SHORT_TEXT} bytes that the text screen passes)`);

let sink;
if (options.warm) {
  // Decode and bare on every fixture, about 8 MB each a round, as decode-interleaved.mjs times them.
  const sets = [...fixtures.values()].map((fs) => fs.map(({ bytes, endpoint }) => [codecOf(endpoint), bytes]));
  for (let r = 0; r < 4; r++) {
    for (const set of sets) {
      const bytes = set.reduce((a, [, b]) => a + b.length, 0);
      const reps = Math.max(2, Math.round(8e6 / bytes));
      for (let k = 0; k < reps; k++) for (const [, b] of set) sink = JSON.parse(decoder.decode(b.subarray(1)));
      for (let k = 0; k < reps; k++) for (const [codec, b] of set) sink = codec.decode(b);
    }
  }
}

/**
 * The columns, each a function of a frame returning the value decode returns for it, or (the last three) the frame
 * object holding it: kept in `sink`, so that the compiler cannot leave the object unmade.
 * @type {[string, (x: any) => any][]}
 */
const COLUMNS = [
  ['bare', (x) => JSON.parse(decoder.decode(x.bytes.subarray(1)))],
  ['parse', (x) => JSON.parse(utf8Text(x.bytes, 1, x.bytes.length))],
  [
    'judge',
    (x) => {
      const value = JSON.parse(utf8Text(x.bytes, 1, x.bytes.length));
      if (!x.node.ok(value)) throw new Error('refused');
      return value;
    },
  ],
  [
    'screen',
    (x) => {
      const text = utf8Text(x.bytes, 1, x.bytes.length);
      if (!screenShortText(text, x.bytes.length - 1)) throw new Error('not screened');
      const value = JSON.parse(text);
      if (!x.node.ok(value)) throw new Error('refused');
      return value;
    },
  ],
  [
    'frame',
    (x) => {
      const text = utf8Text(x.bytes, 1, x.bytes.length);
      if (!screenShortText(text, x.bytes.length - 1)) throw new Error('not screened');
      const value = JSON.parse(text);
      if (judgeWith(x.node, x.schema, value)) throw new Error('refused');
      return { kind: 'result', result: value };
    },
  ],
  ['tryDecode', (x) => x.codec.tryDecode(x.bytes)],
  ['decode', (x) => x.codec.decode(x.bytes)],
];
/** Columns from this one on return a frame. */
const FRAMES_FROM = COLUMNS.findIndex(([name]) => name === 'frame');

for (const [c, [name, run]] of COLUMNS.entries()) {
  for (const x of frames) {
    const got = run(x);
    if (c >= FRAMES_FROM) ok(got.kind === 'result', `${name}: not a result frame`);
    deepStrictEqual(c >= FRAMES_FROM ? got.result : got, JSON.parse(decoder.decode(x.bytes.subarray(1))), `${name}: the value differs`);
  }
}

const bytes = frames.reduce((a, x) => a + x.bytes.length, 0);
const reps = Math.max(4, Math.round(2e6 / bytes));
/** Microseconds a frame, by column, one entry a round. */
const times = COLUMNS.map(() => /** @type {number[]} */ ([]));
for (let r = 0; r < rounds; r++) {
  const order = COLUMNS.map((_, c) => c);
  for (const c of r % 2 ? order.reverse() : order) {
    const run = COLUMNS[c][1];
    for (const x of frames) sink = run(x);
    const t = cpu();
    for (let k = 0; k < reps; k++) for (const x of frames) sink = run(x);
    times[c].push((cpu() - t) / (reps * frames.length));
  }
}
ok(sink !== undefined);

/** @param {number[]} xs */
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
/** @param {number} us */
const ns = (us) => (us * 1000).toFixed(0);
const bare = times[0];
process.stdout.write(
  `typed decode of ${options.fixture}'s short results (${frames.length} of ${all.length} frames, ${(bytes / frames.length).toFixed(0)} bytes a frame) on ${options.backend}, step by step, ` +
    `${options.warm ? 'after decoding every fixture' : 'in a process that decoded nothing else'}: ns a frame of CPU time, the median of ${rounds} rounds; ` +
    'a step is the median of its difference to the column above it within a round\n\n' +
    '| column | ns a frame | step | ÷ bare |\n| --- | ---: | ---: | ---: |\n',
);
for (const [c, [name]] of COLUMNS.entries()) {
  const t = times[c];
  const previous = times[c - 1];
  const step = previous ? ns(median(t.map((x, i) => x - previous[i]))) : '';
  const ratio = median(t.map((x, i) => x / bare[i])).toFixed(3);
  process.stdout.write(`| ${name} | ${ns(median(t))} | ${step} | ${ratio} |\n`);
}
