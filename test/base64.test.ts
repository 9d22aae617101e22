// The SDK's base64 rule, measured: isBase64 against atob itself, and isBase64Bytes against isBase64 on the same string as JSON text.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isBase64, isBase64Bytes } from '../src/contract/base64.js';
import { atobAccepts, editedBase64 as editedBase64Of, jsonString } from './support/base64-cases.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 1_000_000);

/** Units that sit on every edge of the rule. */
const UNITS = [
  ...'ABCXYZabcxyz0189+/',
  '=',
  ' ',
  '\t',
  '\n',
  '\f',
  '\r',
  '\v',
  '\u00a0',
  '\u2028',
  '\u0000',
  '-',
  '_',
  '.',
  '%',
  '"',
  '\\',
  'é',
  '\u0100',
  '\ud83d',
  '😀',
];

const unitString = fc.array(fc.constantFrom(...UNITS), { maxLength: 14 }).map((u) => u.join(''));

/** Real base64, then edited: whitespace put in, padding moved, added or cut, a unit swapped. */
const editedBase64 = editedBase64Of(fc.uint8Array({ maxLength: 20 }), fc.constantFrom(' ', '\n', '\r\n', '\t', '=', '==', '', 'A', '!', '\v'));

/** Long base64 (past the word loop's threshold), with a few units of UNITS put in anywhere. */
const longEdited = fc
  .tuple(fc.uint8Array({ minLength: 40, maxLength: 400 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...UNITS)), { maxLength: 3 }), fc.boolean())
  .map(([bytes, edits, strip]) => {
    let s = Buffer.from(bytes).toString('base64');
    if (strip) s = s.replace(/=+$/, '');
    for (const [at, insert] of edits) {
      const k = at % (s.length + 1);
      s = s.slice(0, k) + insert + s.slice(k);
    }
    return s;
  });

/** 86 units of the base64 alphabet, no padding: the run the tests put faults into. */
const RUN = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eisvMDEyMzQ1Njc4OQ';

const candidates = fc.oneof(unitString, editedBase64, longEdited, fc.string({ maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 8 }));

describe('isBase64 accepts exactly what atob accepts', () => {
  test(`generated strings (seed ${SEED})`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidates, (s) => {
        const want = atobAccepts(s);
        if (want) accepted++;
        expect(isBase64(s)).toBe(want);
      }),
      { seed: SEED, numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(2000);
  });

  test.each([
    ['', true],
    ['A', false],
    ['AB', true],
    ['ABC', true],
    ['AB=', false],
    ['AB==', true],
    ['ABC=', true],
    ['A===', false],
    ['ABCD=', false],
    ['AB=C', false],
    ['AB = =', true],
    ['AB=\n', false],
    ['AR==', true],
    ['AB\v==', false],
    ['AB\u00a0==', false],
    [' \t\n\f\r', true],
  ])('%j: %s', (s, want) => {
    expect(atobAccepts(s)).toBe(want);
    expect(isBase64(s)).toBe(want);
  });

  test('every unit from 0 to 0x17f, inside a long run of the alphabet, at every alignment', () => {
    for (let unit = 0; unit < 0x180; unit++) {
      for (let at = 64; at < 72; at++) {
        const s = `${RUN.slice(0, at)}${String.fromCharCode(unit)}${RUN.slice(at)}`;
        const want = atobAccepts(s);
        expect(isBase64(s)).toBe(want);
        const body = jsonString(s, [false]);
        expect(isBase64Bytes(body, 1, body.length - 1)).toBe(want);
      }
    }
  });

  test('strings of 60 to 84 units, on both sides of the length where the word loop takes over, as JSON.parse makes them', () => {
    let cases = 0;
    for (let length = 60; length <= 84; length++) {
      const clean = RUN.slice(0, length);
      const faulted = [0, length >> 1, length - 1].flatMap((at) =>
        ['!', ' ', '=', 'é'].map((u) => `${clean.slice(0, at)}${u}${clean.slice(at + 1)}`),
      );
      for (const s of [clean, `${clean.slice(0, -1)}=`, `${clean.slice(0, -2)}==`, ...faulted]) {
        // Decode checks strings JSON.parse has made; the word loop copies them with encodeInto.
        const parsed = JSON.parse(JSON.stringify({ blob: s })).blob as string;
        expect(isBase64(parsed)).toBe(atobAccepts(s));
        cases++;
      }
    }
    expect(cases).toBe(25 * 15);
  });

  test('a MiB of base64, with and without a fault at its end, on the string and on the bytes', () => {
    const good = Buffer.from(Uint8Array.from({ length: 768 * 1024 }, (_, k) => (k * 2654435761) >>> 24)).toString('base64');
    for (const s of [
      good,
      `${good.slice(0, -1)}!`,
      `${good}A`,
      `${good.slice(0, 500_000)}\n${good.slice(500_000)}`,
      `${good.slice(0, 99_999)}é${good.slice(99_999)}`,
    ]) {
      expect(isBase64(s)).toBe(atobAccepts(s));
      const body = jsonString(s, [false]);
      expect(isBase64Bytes(body, 1, body.length - 1)).toBe(atobAccepts(s));
    }
  });
});

describe('isBase64Bytes on the JSON text gives what isBase64 gives on the string', () => {
  test(`generated strings, some units escaped (seed ${SEED})`, () => {
    fc.assert(
      fc.property(candidates, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.nat(7), (s, escapes, shift) => {
        const body = jsonString(s, escapes);
        expect(JSON.parse(new TextDecoder().decode(body))).toBe(s);
        // At every alignment: the word loop reads the buffer four bytes at a time.
        const bytes = new Uint8Array(body.length + 8).subarray(shift, shift + body.length);
        bytes.set(body);
        expect(isBase64Bytes(bytes, 1, bytes.length - 1)).toBe(isBase64(s));
      }),
      { seed: SEED, numRuns: 20_000 },
    );
  });

  test('the range given, not the whole array', () => {
    const bytes = new TextEncoder().encode('!"QUJD"!');
    expect(isBase64Bytes(bytes, 2, 6)).toBe(true);
    expect(isBase64Bytes(bytes, 0, 6)).toBe(false);
  });
});
