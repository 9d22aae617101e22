// Where the SIMD core's blocks and windows meet: every backend gives one answer, and the two stages alone agree with the exact scanner.
//
// The SIMD build judges a body in 64-byte blocks, 16 KiB windows at a time
// (assembly/text-simd.ts), and runs the exact scanner only to name a fault.
// The other differential suites use small texts, which fit in one block.
// These inputs put every feature the stages treat specially (backslash
// runs, escapes, multi-byte and broken UTF-8, control bytes, numbers,
// literals, punctuation) at every offset modulo 64, across blocks and
// across windows, and fault the first and the last block.
//
// Two checks per input:
// - js, wasm-simd and wasm-scalar give the same verdict, status and offset;
// - the stages' own verdict (the core's stagedVerdict export) is "valid"
//   exactly when the exact scanner accepts: never valid where it is not
//   (that would be a wrong answer), and never a fault where it finds none
//   (that would be right, but slow: valid text must take the fast path).
//
// MCP_FRAMES_SEED=N repeats the random part.

import { describe, expect, it } from 'vitest';
import { jsBackend } from '../src/backend/js.js';
import { loadBackend } from '../src/backend/builds.js';
import type { Backend } from '../src/backend/backend.js';
import { Gen, rng, jsonText, mutate } from './support/generate.js';
import { payloadOf } from './support/bytes.js';
import { rawCore, writeScratch } from './support/raw-core.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 2 ** 31);
const BACKENDS: Backend[] = [jsBackend, loadBackend('wasm-simd'), loadBackend('wasm-scalar')];
const encoder = new TextEncoder();

const simd = rawCore('simd');

function verdict(b: Backend, payload: Uint8Array): string {
  const fault = b.verifyFrame(payload);
  return fault ? `${fault.status}@${fault.offset}` : 'ok';
}

/** Counts of what the checks saw, so that a test can say the fast path was taken. */
class Tally {
  accepted = 0;
  refused = 0;

  /** Checks one payload (tag 0x00 or 0x01, then a body). */
  check(payload: Uint8Array, what: string): void {
    const want = verdict(BACKENDS[0], payload);
    for (const b of BACKENDS.slice(1)) {
      const got = verdict(b, payload);
      if (got !== want) expect.fail(`${what}: ${b.name} says ${got}, js says ${want}; payload ${Buffer.from(payload).toString('hex')}`);
    }
    if (payload.length === 0) return;
    // The stages judge the body alone: compare them with the exact scanner on the body under a known tag.
    const body = payload[0] <= 1 ? payload : Uint8Array.of(0, ...payload.subarray(1));
    const exact = body === payload ? want : verdict(BACKENDS[1], body);
    const staged = simd.stagedVerdict(writeScratch(simd, body), body.length);
    if (staged !== (exact === 'ok' ? 1 : 0)) {
      expect.fail(
        `${what}: the SIMD stages say ${staged ? 'valid' : 'fault'}, the exact scanner ${exact}; payload ${Buffer.from(body).toString('hex')}`,
      );
    }
    if (want === 'ok') this.accepted++;
    else this.refused++;
  }
}

const bytesOf = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...encoder.encode(p)] : p)));

/** What may sit inside a string: escapes, UTF-8 good and bad, control bytes. Strings are JSON source. */
const IN_STRING: (string | number[])[] = [
  '\\"',
  '\\\\',
  '\\\\\\"',
  '\\\\\\\\',
  '\\/',
  '\\b\\f\\n\\r\\t',
  '\\u00e9',
  '\\u00E9\\u20ac',
  '\\ud83d\\ude00',
  '\\uD83D\\uDE00',
  '\\ud800',
  '\\udc00',
  '\\ud800\\u0041',
  '\\ud800\\\\udc00',
  '\\u12',
  '\\u12g4',
  '\\x',
  '\\',
  'é',
  '€',
  '😀',
  'Ω≈ç√',
  [0x80],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xc2],
  [0xe0, 0x80, 0x80],
  [0xe0, 0xa0],
  [0xed, 0xa0, 0x80],
  [0xed, 0x9f, 0xbf],
  [0xef, 0xbf, 0xbf],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf0, 0x90, 0x80],
  [0xf4, 0x8f, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xff],
  [0x00],
  [0x01],
  [0x09],
  [0x0a],
  [0x1f],
  [0x7f],
  ' ',
  '{}[],:',
];

/** Values and punctuation outside strings, good and bad. */
const OUTSIDE: string[] = [
  '0',
  '-0',
  '1.5e3',
  '-12.25E-2',
  '123456789012345678901234567890',
  '1e400',
  '1.7976931348623157e308',
  '01',
  '1.',
  '.5',
  '-',
  '1e',
  '1.5x',
  'true',
  'false',
  'null',
  'tru',
  'nul',
  'truex',
  'true"a"',
  '1"a"',
  '"a""b"',
  '"a"1',
  '"a"true',
  '[]',
  '{}',
  '[1,2]',
  '[1,]',
  '[,1]',
  '{"a":1}',
  '{"a" 1}',
  '{"a":}',
  '{1:2}',
  '[1 2]',
  '[1]]',
  '\u00e9',
  '\\n',
  '\t\r\n ',
  '\f',
];

describe(`the SIMD stages where blocks and windows meet (seed ${SEED})`, () => {
  it('puts every string feature at every offset modulo 64, and agrees', () => {
    const t = new Tally();
    for (const feature of IN_STRING) {
      // Up to 200, so that texts from below the stages' threshold (STAGED_MIN, 128 bytes) to well past it take each tail
      // length of the last, padded block, whose bytes are copied 16 at a time.
      for (let k = 0; k < 200; k++) {
        // `{"k":"aaa…<feature>b"}`: the feature at text offset 6 + k.
        const body = bytesOf('{"k":"', 'a'.repeat(k), feature, 'b"}');
        t.check(payloadOf(body), `string feature ${JSON.stringify(feature)} after ${k}`);
        // The same, at the very end of the text (the last, padded block).
        t.check(payloadOf(bytesOf('["', 'a'.repeat(k), feature)), `string feature ${JSON.stringify(feature)} cut after ${k}`);
      }
    }
    expect(t.accepted).toBeGreaterThan(2000);
    expect(t.refused).toBeGreaterThan(2000);
  });

  it('puts every string feature after non-ASCII text at every offset modulo 16, short and long', () => {
    // The exact scanner passes non-ASCII text 16 bytes at a time (plainText)
    // on short texts and when it names a fault: steps that end inside a
    // character, and every feature right after them.
    const t = new Tally();
    for (const filler of ['б', '東', '😀', 'éa']) {
      for (const feature of IN_STRING) {
        for (let k = 0; k < 24; k++) {
          const head = filler.repeat(k);
          t.check(payloadOf(bytesOf('["', head, feature, filler.repeat(3), '"]')), `${JSON.stringify(feature)} after ${k} x ${filler}`);
          t.check(payloadOf(bytesOf('{"t":"', head, feature, filler.repeat(60), '"}')), `${JSON.stringify(feature)} after ${k} x ${filler}, longer`);
        }
      }
    }
    expect(t.accepted).toBeGreaterThan(1000);
    expect(t.refused).toBeGreaterThan(1000);
  });

  it('puts every value and punctuation at every offset modulo 64, and agrees', () => {
    const t = new Tally();
    for (const feature of OUTSIDE) {
      for (let k = 0; k < 130; k++) {
        t.check(payloadOf(`[${' '.repeat(k)}${feature}]`), `value ${JSON.stringify(feature)} after ${k} spaces`);
        t.check(payloadOf(`${' '.repeat(k)}${feature}`, 1), `top-level ${JSON.stringify(feature)} after ${k} spaces`);
        t.check(payloadOf(`{"${'k'.repeat(k)}":${feature}}`), `member ${JSON.stringify(feature)} after a key of ${k}`);
      }
    }
    expect(t.accepted).toBeGreaterThan(1500);
    expect(t.refused).toBeGreaterThan(1500);
  });

  it('runs backslashes of every length across every block boundary', () => {
    const t = new Tally();
    for (let run = 1; run <= 10; run++) {
      for (let k = 40; k < 140; k++) {
        for (const after of ['"', '"]', 'n"]', 'u0041"]', 'q"]']) {
          t.check(payloadOf(`["${'x'.repeat(k)}${'\\'.repeat(run)}${after}`), `${run} backslashes after ${k}, then ${after}`);
        }
      }
    }
    expect(t.accepted).toBeGreaterThan(1000);
    expect(t.refused).toBeGreaterThan(1000);
  });

  it('splits surrogate pairs and multi-byte characters across blocks', () => {
    const t = new Tally();
    const pieces = ['\\ud83d\\ude00', '😀', '€', 'é', '\\u20ac', '東京'];
    for (const piece of pieces) {
      for (let k = 40; k < 140; k++) {
        // Three in a row, so that one of them crosses each boundary near 64 and 128.
        t.check(payloadOf(`{"t":"${'y'.repeat(k)}${piece.repeat(3)}"}`), `${JSON.stringify(piece)} x3 after ${k}`);
      }
    }
    expect(t.accepted).toBe(pieces.length * 100);
  });

  it('faults the first and the last block', () => {
    const g = new Gen(rng(SEED));
    const t = new Tally();
    const palette = [0x00, 0x1f, 0x22, 0x5c, 0x5d, 0x7d, 0x2c, 0x3a, 0x80, 0xc0, 0xe0, 0xed, 0xf4, 0xff, 0x30, 0x2d, 0x65, 0x20];
    for (let n = 0; n < 3000; n++) {
      const body = encoder.encode(
        `{"contents":[{"uri":"file:///x","text":"${'word é 東 \\n '.repeat(10 + g.int(30))}"}],"n":[1,2.5,-3e2,true,null]}`,
      );
      const bytes = body.slice();
      const at = g.int(2) === 0 ? g.int(64) : bytes.length - 1 - g.int(64);
      bytes[at] = g.pick(palette);
      t.check(payloadOf(bytes), `one byte at ${at} of ${bytes.length}`);
      t.check(payloadOf(body.subarray(0, body.length - g.int(64))), `cut by up to 64 bytes, ${body.length} long`);
    }
    expect(t.accepted).toBeGreaterThan(100);
    expect(t.refused).toBeGreaterThan(2000);
  });

  it('crosses 16 KiB windows with strings, numbers, literals, nesting and faults', () => {
    const g = new Gen(rng(SEED ^ 0x2545f491));
    const t = new Tally();
    // Elements of many sizes, so that every kind of token lands on the window boundaries.
    const element = () =>
      g.pick([
        () => `"${'s'.repeat(g.int(200))}${g.pick(['\\\\', '\\"', 'é', '😀', '\\ud83d\\ude00', ''])}"`,
        () => `${g.pick(['-', ''])}${g.int(1e9)}.${g.int(1e9)}e${g.int(300)}`,
        () => `${g.int(1e15)}`,
        () => g.pick(['true', 'false', 'null']),
        () => {
          const depth = 1 + g.int(20);
          return `{"k${g.int(100)}":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
        },
      ])();
    for (let n = 0; n < 60; n++) {
      const parts: string[] = [];
      let size = 0;
      while (size < 40_000 + g.int(20_000)) {
        const e = element();
        parts.push(e);
        size += e.length + 1;
      }
      const text = `{"contents":[${parts.join(',')}]}`;
      const body = encoder.encode(text);
      t.check(payloadOf(body), `document ${n}, ${body.length} bytes`);
      // Faults at and near each window boundary, and anywhere.
      for (const boundary of [16384, 32768, 49152]) {
        if (boundary + 8 > body.length) continue;
        for (let d = -3; d <= 3; d++) {
          const bytes = body.slice();
          bytes[boundary - 1 + d] = g.pick([0x00, 0x22, 0x5c, 0x5d, 0x2c, 0x80, 0x31, 0x20]);
          t.check(payloadOf(bytes), `document ${n}, a byte at ${boundary - 1 + d}`);
        }
      }
      t.check(mutate(g, payloadOf(body)), `document ${n}, mutated`);
    }
    expect(t.accepted).toBeGreaterThanOrEqual(60);
  });

  it('agrees on random documents of many blocks, mutated', () => {
    const g = new Gen(rng(SEED ^ 0x68e31da4));
    const t = new Tally();
    for (let n = 0; n < 20_000; n++) {
      const items: string[] = [];
      for (let k = 1 + g.int(12); k > 0; k--) items.push(jsonText(g, 1));
      const payload = payloadOf(`{"resources":[${items.join(', ')}],"_meta":{"pad":"${'p'.repeat(g.int(70))}"}}`, g.int(2));
      t.check(g.int(3) === 0 ? payload : mutate(g, payload), `random ${n}`);
    }
    expect(t.accepted).toBeGreaterThan(300);
    expect(t.refused).toBeGreaterThan(1000);
  });

  it('passes over long strings, and stops at whatever ends their plain stretch, around every chunk boundary', () => {
    // The SIMD build hands a string that goes on past an 8 KiB chunk of
    // stage 1 to a loop of its own (plainBlocks), which stops at the first
    // block with a quote, a backslash or a control byte, and judges UTF-8.
    const t = new Tally();
    const fillers = ['a', 'б', '東', 'QUJD', '😀'];
    const features: (string | number[])[] = [
      '"',
      '\\"',
      '\\n',
      '\\u00e9',
      '\\ud83d\\ude00',
      '\\ud800',
      [0x01],
      [0x0a],
      [0x7f],
      [0xc3],
      [0xe6, 0x9d],
      [0xed, 0xa0, 0x80],
      'é',
      '',
    ];
    for (const filler of fillers) {
      for (const base of [8192, 16384, 24576]) {
        for (let d = -70; d <= 70; d += 3) {
          const feature = features[(d + 70 + base / 8192) % features.length];
          const head = '{"text":"';
          const fill = filler.repeat(Math.ceil((base + d - head.length) / encoder.encode(filler).length));
          t.check(payloadOf(bytesOf(head, fill, feature, filler.repeat(200), '"}')), `${JSON.stringify(feature)} after ${fill.length} x ${filler}`);
        }
      }
    }
    expect(t.accepted).toBeGreaterThan(100);
    expect(t.refused).toBeGreaterThan(100);
  });

  it('names a fault in a late window as the exact scanner does from the start', () => {
    // After a fault, the SIMD build resumes the exact scanner at the first
    // value of the last window the stages found clean (stage2's resumeAt),
    // with the containers around it. Faults of every kind, anywhere in
    // documents of several windows, at every depth.
    const g = new Gen(rng(SEED ^ 0x1b873593));
    const t = new Tally();
    const faults: (string | number[])[] = [
      [0x01],
      [0x80],
      [0xed, 0xa0, 0x80],
      [0xe6, 0x9d],
      '\\x',
      '\\ud800',
      '1e999',
      '01',
      ']',
      '}',
      ',,',
      ':',
      'tru',
      '"',
      '[',
      '{',
      [0xef, 0xbb, 0xbf],
    ];
    const element = (depth: number): string =>
      depth > 3 || g.int(3) === 0
        ? g.pick(['"text é 東京 😀 \\n"', '123.5e-7', 'true', 'null', `"${'z'.repeat(g.int(300))}"`, '-0'])
        : g.int(2) === 0
          ? `[${Array.from({ length: 1 + g.int(5) }, () => element(depth + 1)).join(',')}]`
          : `{${Array.from({ length: 1 + g.int(5) }, (_, k) => `"k${k}":${element(depth + 1)}`).join(',')}}`;
    for (let n = 0; n < 40; n++) {
      const parts: string[] = [];
      let size = 0;
      while (size < 50_000 + g.int(30_000)) {
        const e = element(0);
        parts.push(e);
        size += e.length + 1;
      }
      const body = encoder.encode(`{"contents":[${parts.join(',')}],"deep":${'['.repeat(100)}1${']'.repeat(100)}}`);
      t.check(payloadOf(body), `document ${n}`);
      for (let k = 0; k < 40; k++) {
        const at = 16_000 + g.int(body.length - 16_000);
        const fault = g.pick(faults);
        const bytes = bytesOf(fault);
        const broken = new Uint8Array(body.length);
        broken.set(body);
        broken.set(bytes.subarray(0, Math.min(bytes.length, body.length - at)), at);
        t.check(payloadOf(broken), `document ${n}, ${JSON.stringify(fault)} at ${at}`);
      }
    }
    expect(t.accepted).toBeGreaterThanOrEqual(40);
    expect(t.refused).toBeGreaterThan(600);
  });

  it('reaches 127 levels of nesting in every block position, and refuses 128', () => {
    const t = new Tally();
    for (let k = 0; k < 64; k++) {
      for (const depth of [126, 127, 128]) {
        t.check(payloadOf(`${' '.repeat(k)}${'['.repeat(depth)}${']'.repeat(depth)}`), `${depth} arrays after ${k}`);
        t.check(payloadOf(`${' '.repeat(k)}${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`), `${depth} objects after ${k}`);
      }
    }
    expect(t.accepted).toBe(64 * 4);
    expect(t.refused).toBe(64 * 2);
  });
});

describe('the SIMD core in bounded memory', () => {
  it('validates a 32 MiB frame without growing its memory, with under 256 KiB of static data', () => {
    const core = rawCore('simd');
    // 32 MiB: a listing of 140,000 resources, past 2,000 windows.
    const item = '{"uri":"file:///srv/docs/report-12345.md","name":"report é 東京","size":123456789,"annotations":{"priority":0.5}}';
    const count = Math.floor((32 << 20) / (item.length + 1));
    const body = encoder.encode(`{"resources":[${Array(count).fill(item).join(',')}]}`);
    const payload = payloadOf(body);
    const at = writeScratch(core, payload);
    const before = core.memory.buffer.byteLength;
    expect(core.verifyFrame(at, payload.length)).toBe(0);
    expect(core.stagedVerdict(at, payload.length)).toBe(1);
    expect(core.memory.buffer.byteLength).toBe(before);
    // The index, the stacks and the tables are static: everything below scratch.
    expect(core.scratch()).toBeLessThan(256 * 1024);
  });
});
