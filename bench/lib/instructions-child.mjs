// One counted run of bench/instructions.mjs, under valgrind: a fixed warm-up,
// two forced collections, then `rounds` rounds of encode or decode over one
// set of frames. Each frame is checked once first (decoded, and encoded back
// to its own bytes where the set's frames are compact), so that a build
// that has gone wrong is not counted.
//
//   node instructions-child.mjs DIST SETS_FILE SET ROUNDS OP

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, file, set, roundsText, op] = process.argv.slice(2);
const rounds = Number(roundsText);
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { loadBackend } = await load('runtime/node.js');
const { ENDPOINTS } = await load('frame/endpoints.js');

const backend = loadBackend(op === 'decode' ? 'wasm-simd' : 'js');
const items = [];
for (const [endpoint, base64] of JSON.parse(readFileSync(file, 'utf8'))[set]) {
  const codec = ENDPOINTS[endpoint].withBackend(backend);
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  const frame = codec.tryDecode(bytes);
  if (frame instanceof Error) continue;
  const again = codec.encode(frame);
  const text = new TextDecoder().decode(bytes.subarray(1));
  // JSON.parse's value, written compactly: what decode must give, and the text itself when the frame is compact.
  const compact = JSON.stringify(JSON.parse(text));
  if (JSON.stringify(frame.kind === 'result' ? frame.result : frame.error) !== compact) {
    throw new Error(`${set}: a frame decoded to another value than JSON.parse's`);
  }
  if (compact === text && Buffer.compare(Buffer.from(again), Buffer.from(bytes)) !== 0) {
    throw new Error(`${set}: a frame did not encode back to its own bytes`);
  }
  items.push([codec, frame, bytes]);
}
if (items.length === 0) throw new Error(`${set}: no frame decodes`);

const round =
  op === 'decode'
    ? () => {
        for (const [codec, , bytes] of items) codec.tryDecode(bytes);
      }
    : () => {
        for (const [codec, frame] of items) codec.encode(frame);
      };
for (let w = 0; w < 30; w++) round();
const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
gc();
gc();
for (let r = 0; r < rounds; r++) round();
