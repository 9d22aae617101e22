// Small frames judged in bulk (assembly/bulk.ts): the SIMD core runs stage 1
// once over a run of bodies, with the record headers between them written
// over for the run's length, and walks stage 2 per body.
//
// What must hold, and is checked here:
// - every record gets the entry it gets on the JS path and the scalar core,
//   where bodies are judged one by one: the same status and fault offset;
// - bodies that are valid only together with their neighbours (`[1` then
//   `2]`, a string opened in one and closed in the next) are refused;
// - the scanned bytes are as they came, header bytes and all;
// - a stream of valid small frames takes the runs, and a fault in one
//   costs the runs after it nothing.
//
// MCP_FRAMES_SEED=N repeats the random part.

import { describe, expect, test } from 'vitest';
import { BACKENDS } from './backends.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { ENTRY_FIELDS } from '../src/records/reader.js';
import { concat, payloadOf } from './support/bytes.js';
import { rawCore, writeScratch } from './support/raw-core.js';
import { Gen, framePayload, goodFrame, jsonText, mutate, rng } from './support/generate.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 2 ** 31);
const MAX_FRAME = 16 * 1024 * 1024;

const core = rawCore('simd');

/** Scans `bytes` whole in the raw SIMD core, no folding; returns the entries, the stop status and the bytes as they lie after. */
function rawScan(bytes: Uint8Array): { entries: number[][]; status: number; after: Uint8Array; proven: number } {
  const at = writeScratch(core, bytes);
  new Int32Array(core.memory.buffer, core.foldBlock(), 1)[0] = -1;
  core.bulkProven();
  const n = core.scanRecords(at, bytes.length, MAX_FRAME, 1);
  const table = new Int32Array(core.memory.buffer, core.recordTable(), n * ENTRY_FIELDS);
  const entries: number[][] = [];
  for (let k = 0; k < n; k++) entries.push(Array.from(table.subarray(k * ENTRY_FIELDS, (k + 1) * ENTRY_FIELDS)));
  const status = new Int32Array(core.memory.buffer, core.stopBlock(), 1)[0];
  return { entries, status, after: new Uint8Array(core.memory.buffer).slice(at, at + bytes.length), proven: core.bulkProven() };
}

/** Each backend's kernel over `bytes` whole, no folding: its entries and stop block, and whether the bytes it scanned are still the input. */
function kernelScans(bytes: Uint8Array): { name: string; entries: number[][]; stop: number[]; intact: boolean }[] {
  return BACKENDS.map((b) => {
    const scan = b.createKernel().scan(bytes, 0, bytes.length, MAX_FRAME, true);
    const entries: number[][] = [];
    const stop: number[] = [];
    try {
      for (;;) {
        for (let k = 0; k < scan.count; k++) entries.push(Array.from(scan.table.subarray(k * ENTRY_FIELDS, (k + 1) * ENTRY_FIELDS)));
        stop.push(...scan.stop.subarray(0, 2));
        // 6: the table filled; scan on (offsets stay relative to the first scan).
        if (scan.stop[0] !== 6) break;
        scan.more();
      }
      const seen = scan.bytes.subarray(scan.base, scan.base + bytes.length);
      return { name: b.name, entries, stop, intact: Buffer.compare(Buffer.from(seen), Buffer.from(bytes)) === 0 };
    } finally {
      scan.done();
    }
  });
}

/** A listing of one resource, about 150 bytes: the frame most runs are made of. */
function small(g: Gen): Uint8Array {
  const name = `r${g.int(100000)}`;
  return payloadOf(JSON.stringify({ resources: [{ uri: `file:///data/${name}.txt`, name, size: g.int(99999), description: 'a text file' }] }));
}

/** Bodies that a run meets at its edges: cut strings, escapes and characters, half containers, bare scalars. */
const EDGES = [
  '"abc',
  'abc"',
  '[1',
  '2]',
  '{"a":1',
  '}',
  '"a\\',
  '"\\u00',
  '"\\ud83d',
  '\\ude00"',
  '1',
  '-',
  '1.',
  '1e5',
  'tru',
  'true',
  'null ',
  ' "x" ',
  '[]',
  '{}',
  '"',
  ',',
  ' ',
];
const EDGE_BYTES = [Uint8Array.of(0x22, 0xc3), Uint8Array.of(0xa9, 0x22), Uint8Array.of(0xef, 0xbb, 0xbf, 0x31), Uint8Array.of(0x22, 0x01, 0x22)];

/** A header byte that a body's text would read as punctuation, whitespace, a quote, an escape or UTF-8. */
const HOSTILE = [0x22, 0x5c, 0x2c, 0x20, 0x0a, 0x7b, 0x5d, 0x30, 0x74, 0x00, 0xc3, 0xa9, 0xff, 0xef];

function channelOf(g: Gen): number {
  return g.int(2) === 0 ? g.int(16) : new DataView(Uint8Array.from({ length: 4 }, () => g.pick(HOSTILE)).buffer).getUint32(0, true);
}

function frameOf(g: Gen): Uint8Array {
  const r = g.int(20);
  if (r < 9) return small(g);
  if (r < 11) return goodFrame(g);
  if (r < 13) return framePayload(g);
  if (r < 15) {
    const tag = g.int(2);
    return payloadOf(g.pick(EDGES), tag);
  }
  if (r < 16) return payloadOf(g.pick(EDGE_BYTES));
  if (r < 17) return mutate(g, small(g));
  if (r < 18) return payloadOf(jsonText(g, 0));
  if (r < 19) return payloadOf(`{"resources":[],"_meta":{"x":"${'y'.repeat(900 + g.int(300))}"}}`);
  return g.int(2) === 0 ? payloadOf('') : Uint8Array.of();
}

/** Mostly whole exchanges of small frames, with hostile channel ids, now and then a finish missing or doubled. */
function runStream(g: Gen): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let k = 1 + g.int(300); k > 0; k--) {
    const channel = channelOf(g);
    parts.push(encodeResponse(channel, frameOf(g)));
    const r = g.int(20);
    if (r < 17) parts.push(encodeFinish(channel));
    else if (r === 17) parts.push(encodeFinish(channel), encodeFinish(channelOf(g)));
  }
  return concat(...parts);
}

/** Whether JSON.parse takes `text`: rule 4.1's verdict on these ASCII bodies. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function expectSameAsJs(bytes: Uint8Array, what: string): void {
  const [js, ...cores] = kernelScans(bytes);
  expect(js.name).toBe('js');
  for (const c of cores) {
    if (!c.intact) expect.fail(`${what}: ${c.name} left the scanned bytes changed`);
    expect(c.entries, `${what}: ${c.name} entries`).toEqual(js.entries);
    expect(c.stop, `${what}: ${c.name} stop`).toEqual(js.stop);
  }
  const raw = rawScan(bytes);
  expect(Buffer.from(raw.after).equals(Buffer.from(bytes)), `${what}: the raw core's bytes after the scan`).toBe(true);
}

describe(`small frames judged in bulk (seed ${SEED})`, () => {
  test('every backend gives each record of a run the entry the JS path gives, and the bytes come back as they went in', () => {
    const g = new Gen(rng(SEED));
    for (let k = 0; k < 400; k++) expectSameAsJs(runStream(g), `stream ${k}`);
  });

  test('bodies valid only together with their neighbours are refused, at the offsets the JS path gives', () => {
    const g = new Gen(rng(SEED ^ 0x5a5a));
    const pairs: [string, string][] = [
      ['[1', '2]'],
      ['"abc', 'def"'],
      ['{"a":', '1}'],
      ['"a\\', '"'],
      ['"\\ud83d', '\\ude00"'],
      ['1', '2'],
      ['[', ']'],
      ['"x"', ''],
    ];
    for (const [a, b] of pairs) {
      for (const place of [0, 1, 5, 40]) {
        const parts: Uint8Array[] = [];
        for (let k = 0; k < place; k++) parts.push(encodeResponse(k, small(g)), encodeFinish(k));
        parts.push(encodeResponse(1000, payloadOf(a)), encodeFinish(1000), encodeResponse(1001, payloadOf(b)), encodeFinish(1001));
        for (let k = 0; k < 10; k++) parts.push(encodeResponse(k, small(g)), encodeFinish(k));
        const bytes = concat(...parts);
        expectSameAsJs(bytes, `${JSON.stringify(a)} then ${JSON.stringify(b)} after ${place}`);
        const entries = rawScan(bytes).entries.filter((e) => e[0] === 1);
        expect(entries[place][4] === 0, `${JSON.stringify(a)} alone`).toBe(parses(a));
        expect(entries[place + 1][4] === 0, `${JSON.stringify(b)} alone`).toBe(parses(b));
      }
    }
  });

  test('a stream of valid small frames is proven in runs, every body of it', () => {
    const g = new Gen(rng(SEED ^ 0x1234));
    const parts: Uint8Array[] = [];
    for (let k = 0; k < 600; k++) parts.push(encodeResponse(k, small(g)), encodeFinish(k));
    const scan = rawScan(concat(...parts));
    expect(scan.status).toBe(0);
    expect(scan.entries.filter((e) => e[0] === 1 && e[4] === 0)).toHaveLength(600);
    expect(scan.proven).toBe(600);
  });

  test('a fault costs the run it is in, not the runs after it', () => {
    const g = new Gen(rng(SEED ^ 0x4321));
    const parts: Uint8Array[] = [];
    for (let k = 0; k < 600; k++) parts.push(encodeResponse(k, k === 100 ? payloadOf('{"resources":[}') : small(g)), encodeFinish(k));
    const bytes = concat(...parts);
    expectSameAsJs(bytes, 'one fault');
    const scan = rawScan(bytes);
    const responses = scan.entries.filter((e) => e[0] === 1);
    expect(responses.filter((e) => e[4] !== 0)).toHaveLength(1);
    // A run holds at most 256 bodies: those after the fault in its run are judged one by one, no more.
    expect(scan.proven).toBeGreaterThanOrEqual(599 - 256);
    expect(scan.proven).toBeLessThan(600);
  });

  test('frames over 1 KiB, and runs cut by the end of the bytes, are judged one by one with the same verdicts', () => {
    const g = new Gen(rng(SEED ^ 0x777));
    const parts: Uint8Array[] = [];
    for (let k = 0; k < 50; k++) {
      parts.push(encodeResponse(k, k % 7 === 3 ? payloadOf(`{"resources":[],"_meta":{"x":"${'y'.repeat(1100)}"}}`) : small(g)));
      parts.push(encodeFinish(k));
    }
    const bytes = concat(...parts);
    for (const cut of [bytes.length, bytes.length - 9, bytes.length - 10, bytes.length - 100])
      expectSameAsJs(bytes.subarray(0, cut), `cut at ${cut}`);
    // The last response ends the bytes: no byte after it for the run's comma, so it is judged alone, and valid.
    const last = concat(encodeResponse(1, small(g)), encodeFinish(1), encodeResponse(2, small(g)));
    const scan = rawScan(last);
    expect(scan.entries.map((e) => e[4])).toEqual([0, 0, 0]);
    expect(scan.proven).toBe(0);
  });
});
