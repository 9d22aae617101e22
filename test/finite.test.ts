// Rule 4.1's finite numbers: isFiniteLiteral agrees with Number.isFinite(Number(literal)) everywhere.
//
// The boundary is T = 2^1024 - 2^970 (src/contract/finite.ts): a literal
// is finite exactly when its magnitude is below T. These properties write
// many values near T and near the largest double M = 2^1024 - 2^971 in many
// equivalent forms, and compare the digit-only decision with the JS engine's
// own rounding.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isFiniteLiteral, OVERFLOW_DIGITS } from '../src/contract/finite.js';
import { validateJsonText } from '../src/contract/json-text.js';
import { Status } from '../src/wire/status.js';

const encoder = new TextEncoder();
const T = 2n ** 1024n - 2n ** 970n;
const M = 2n ** 1024n - 2n ** 971n;
const ULP = 2n ** 971n;
const GRAMMAR = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** What the engine says: the reference. */
const engine = (literal: string): boolean => Number.isFinite(Number(literal));

/** isFiniteLiteral on the literal, placed at `pad` bytes into a larger buffer. */
function library(literal: string, pad = 0): boolean {
  const text = encoder.encode(literal);
  const b = new Uint8Array(text.length + 2 * pad);
  b.fill(0x39); // '9' around it, which must not be read
  b.set(text, pad);
  return isFiniteLiteral(b, pad, pad + text.length);
}

// ---------------------------------------------------------------------------
// Generators.

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

const integerPart = fc.oneof(
  fc.constant('0'),
  fc.tuple(fc.constantFrom(...'123456789'), digits(0, 20)).map(([a, b]) => a + b),
  fc.tuple(fc.constantFrom(...'123456789'), digits(295, 320)).map(([a, b]) => a + b),
);

const exponentValue = fc.oneof(
  fc.integer({ min: -400, max: 400 }),
  fc.integer({ min: 305, max: 312 }),
  fc.integer({ min: -312, max: -305 }),
  fc.integer({ min: -330, max: -320 }),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
);

/** An exponent part for value e: 'e' or 'E', a sign written or not, and leading zeros. */
const exponentPart = (e: number) =>
  fc.tuple(fc.constantFrom('e', 'E'), fc.boolean(), fc.nat({ max: 4 })).map(([letter, plus, zeros]) => {
    const sign = e < 0 ? '-' : plus ? '+' : '';
    return letter + sign + '0'.repeat(zeros) + String(Math.abs(e));
  });

/** Any literal the grammar allows, biased to long mantissas and exponents near the edge. */
const anyLiteral = fc
  .tuple(fc.boolean(), integerPart, fc.option(digits(1, 40), { nil: undefined }), fc.option(exponentValue, { nil: undefined }))
  .chain(([negative, int, frac, exp]) =>
    (exp === undefined ? fc.constant('') : exponentPart(exp)).map((e) => (negative ? '-' : '') + int + (frac === undefined ? '' : `.${frac}`) + e),
  );

/** A small fraction with leading zeros: 0.000ddd, with an exponent that may lift it. */
const leadingZeroLiteral = fc
  .tuple(fc.boolean(), fc.nat({ max: 30 }), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)), fc.integer({ min: 290, max: 345 }))
  .chain(([negative, zeros, [d, ds], e]) => exponentPart(e).map((ex) => `${negative ? '-' : ''}0.${'0'.repeat(zeros)}${d}${ds}${ex}`));

/**
 * The value D * 10^p (D > 0) written in one of several equivalent ways.
 * `how` picks the form and `k`, `z` place the point and pad with zeros.
 */
function writeDecimal(D: bigint, p: number, how: number, k: number, z: number): string {
  const s = D.toString();
  const n = s.length;
  switch (how % 5) {
    case 0: // plain integer digits, or with an exponent when p < 0
      return p >= 0 ? s + '0'.repeat(p) : `${s}e${p}`;
    case 1: {
      // d.ddd e X
      const at = 1 + (k % n);
      const mantissa = at === n ? s : `${s.slice(0, at)}.${s.slice(at)}`;
      return `${mantissa}e${p + n - at}`;
    }
    case 2: // 0.000ddd e X
      return `0.${'0'.repeat(z)}${s}E+${p + n + z}`;
    case 3: // ddd000 e X
      return `${s + '0'.repeat(z)}e${p - z}`;
    default: {
      // d.ddd000 with the point placed so the exponent may be negative
      const at = 1 + (k % n);
      const mantissa = `${s.slice(0, at)}.${s.slice(at)}${'0'.repeat(z + 1)}`;
      const e = p + n - at;
      return mantissa + (e === 0 ? '' : `e${e}`);
    }
  }
}

/** Values within a few ulps of the largest double and of T, and a little past, scaled by 10^q for sub-integer steps. */
const nearEdgeLiteral = fc
  .tuple(
    fc.constantFrom(M, T, M - ULP, M + ULP, T - ULP, 2n ** 1024n, 10n ** 308n, 10n ** 309n - 1n),
    fc.integer({ min: -20, max: 20 }),
    fc.nat({ max: 6 }),
    fc.boolean(),
    fc.nat({ max: 20 }),
    fc.nat({ max: 400 }),
    fc.nat({ max: 8 }),
    fc.boolean(),
  )
  .map(([base, delta, q, bigStep, how, k, z, negative]) => {
    // delta in units of 10^-q, or in units of half an ulp.
    const scaled = base * 10n ** BigInt(q) + (bigStep ? (BigInt(delta) * ULP * 10n ** BigInt(q)) / 2n : BigInt(delta));
    const D = scaled > 0n ? scaled : 1n;
    return (negative ? '-' : '') + writeDecimal(D, -q, how, k, z);
  });

/** 309-digit integers in full: the size where no exponent is written. */
const fullWidthInteger = fc
  .oneof(
    fc.bigInt({ min: T - 1000n, max: T + 1000n }),
    fc.bigInt({ min: M - ULP, max: T + ULP }),
    fc.bigInt({ min: 10n ** 308n, max: 10n ** 309n - 1n }),
  )
  .chain((v) => fc.boolean().map((negative) => (negative ? '-' : '') + v.toString()));

const PARAMS = { numRuns: 1500 };

// ---------------------------------------------------------------------------

const NAMED: [string, boolean][] = [
  ['0', true],
  ['-0', true],
  ['1e308', true],
  ['1e309', false],
  ['-1e309', false],
  ['1.7976931348623157e308', true],
  ['1.7976931348623158e308', true],
  ['1.7976931348623159e308', false],
  ['1.8e308', false],
  ['-1.8e308', false],
  ['1e400', false],
  ['0e99999999999', true],
  ['0.0e99999999999', true],
  ['1e-400', true],
  ['1e-99999999999', true],
  ['17976931348623158e292', true],
  ['17976931348623159e292', false],
  ['0.00017976931348623158e312', true],
  ['0.00017976931348623159e312', false],
  [OVERFLOW_DIGITS, false],
  [(T - 1n).toString(), true],
  [M.toString(), true],
  [`${OVERFLOW_DIGITS}.0`, false],
  [`${(T - 1n).toString()}.99999999999999999999`, true],
  ['9'.repeat(308), true],
  ['9'.repeat(309), false],
  [`1${'0'.repeat(308)}`, true],
  [`1${'0'.repeat(309)}`, false],
  [`0.${OVERFLOW_DIGITS}e309`, false],
  [`0.${(T - 1n).toString()}e309`, true],
  [`1${'0'.repeat(400)}e-100`, true],
  ['1e+0308', true],
  ['1e+0309', false],
];

/** A test name for a literal: long ones by their ends and length. */
const label = (l: string) => (l.length > 40 ? `${l.slice(0, 14)}…${l.slice(-10)} (${l.length} chars)` : l);

describe('isFiniteLiteral', () => {
  test('OVERFLOW_DIGITS are the digits of 2^1024 - 2^970', () => {
    expect(OVERFLOW_DIGITS).toBe(T.toString());
  });

  test.each(NAMED.map(([l, f]) => [label(l), l, f] as const))('%s', (_shown, literal, finite) => {
    expect(engine(literal)).toBe(finite); // the table itself is right
    expect(library(literal)).toBe(finite);
    expect(library(literal, 5)).toBe(finite);
  });

  const agree = (literal: string) => {
    expect(literal).toMatch(GRAMMAR);
    expect(library(literal)).toBe(engine(literal));
  };

  test('agrees with Number() on literals of every shape', () => {
    fc.assert(fc.property(anyLiteral, agree), PARAMS);
  });

  test('agrees on small fractions lifted by exponents', () => {
    fc.assert(fc.property(leadingZeroLiteral, agree), PARAMS);
  });

  test('agrees near the largest double and the overflow threshold, in many equivalent forms', () => {
    fc.assert(fc.property(nearEdgeLiteral, agree), { numRuns: 3000 });
  });

  test('agrees on 309-digit integers', () => {
    fc.assert(fc.property(fullWidthInteger, agree), PARAMS);
  });

  test('reads only its own bytes', () => {
    fc.assert(
      fc.property(fc.oneof(anyLiteral, nearEdgeLiteral), fc.nat({ max: 8 }), (literal, pad) => {
        expect(library(literal, pad)).toBe(engine(literal));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the scanner refuses exactly the literals that are not finite', () => {
  const scanned = (literal: string) => {
    const b = encoder.encode(literal);
    const fault = validateJsonText(b, 0, b.length);
    if (engine(literal)) expect(fault).toBeNull();
    else expect(fault).toEqual({ status: Status.NumberRange, offset: 0 });
  };

  test.each(NAMED.map(([l]) => [label(l), l] as const))('%s', (_s, literal) => scanned(literal));

  test('on generated literals', () => {
    fc.assert(fc.property(fc.oneof(anyLiteral, leadingZeroLiteral, nearEdgeLiteral, fullWidthInteger), scanned), { numRuns: 3000 });
  });
});
