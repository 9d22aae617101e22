// The decode screen (src/contract/screen.ts, assembly/screen.ts): where it lets JSON.parse judge a body, JSON.parse's verdict is rule 4.1's.
//
// The screen's promise is one implication, checked here on every backend:
// if screenFrame answers SCREENED, then JSON.parse accepts the body exactly
// when verifyFrame does. Where it does not answer SCREENED, its answer is
// verifyFrame's. And decode gives, on every body rule 4.1 refuses, the
// fault validate gives, screened or not.

import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { type Backend, SCREENED } from '../src/backend/backend.js';
import { SHORT_TEXT, screenShortText } from '../src/contract/screen.js';
import { utf8Text } from '../src/contract/utf8-text.js';
import { listResources } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import { BACKEND_ROWS } from './backends.js';
import { JSON_CASES } from './corpus/json.js';
import { payloadOf } from './support/bytes.js';
import { framePayload, Gen, rng } from './support/generate.js';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body's text, which decode hands the screen. */
const bodyText = (payload: Uint8Array) => utf8Text(payload, Math.min(1, payload.length), payload.length);

function parses(payload: Uint8Array): boolean {
  try {
    JSON.parse(decoder.decode(payload.subarray(1)));
    return true;
  } catch {
    return false;
  }
}

/** The screen's promise on one payload; returns whether it screened. */
function holds(backend: Backend, payload: Uint8Array): boolean {
  const screened = backend.screenFrame!(payload, bodyText(payload));
  const verified = backend.verifyFrame(payload);
  if (screened === SCREENED) {
    expect(parses(payload), 'JSON.parse on a screened body agrees with verifyFrame').toBe(verified === null);
    return true;
  }
  expect(screened).toEqual(verified);
  return false;
}

/** Decode's refusal, as validate's: rule 4.1's fault at the same offset. */
function decodesAsValidated(backend: Backend, payload: Uint8Array): void {
  const codec = listResources.withBackend(backend);
  const bad = codec.validate(payload);
  if (bad === null) return;
  const frame = codec.tryDecode(payload);
  expect(frame).toBeInstanceOf(FrameError);
  const got = frame as FrameError;
  expect({ reason: got.reason, rule: got.rule, offset: got.offset, message: got.message }).toEqual({
    reason: bad.reason,
    rule: bad.rule,
    offset: bad.offset,
    message: bad.message,
  });
}

const nest = (n: number, inner = '') => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;

/** Bodies JSON.parse accepts and rule 4.1 refuses, one per rule the screen stands in for. */
const PARSE_ACCEPTS: [string, string | Uint8Array][] = [
  ['a lone high surrogate escape', '{"a":"\\ud800"}'],
  ['a lone low surrogate escape', '["\\uDC00"]'],
  ['a high surrogate escape before a non-surrogate', '["\\uD83Dx"]'],
  ['an exponent past the largest double', '[1e400]'],
  ['a capital exponent past the largest double', '{"k":-1E309}'],
  ['309 digits past the largest double', `[${(2n ** 1024n).toString()}]`],
  ['128 arrays nested', nest(128)],
  ['128 objects nested', `${'{"a":'.repeat(127)}{}${'}'.repeat(127)}`],
  ['128 arrays nested, with strings of closing brackets between', `${'["]]]]",'.repeat(128)}0${']'.repeat(128)}`],
  ['an overlong two-byte form', Uint8Array.from([0x22, 0xc0, 0xaf, 0x22])],
  ['a surrogate code point in UTF-8', Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22])],
  ['a cut three-byte sequence', Uint8Array.from([0x22, 0xe2, 0x82, 0x22])],
  ['a stray continuation byte', Uint8Array.from([0x22, 0x61, 0x80, 0x22])],
  ['a cut sequence at the end of a 64-byte block', Uint8Array.from([0x22, ...new Array(62).fill(0x61), 0xe2, 0x82, 0x22])],
  // Long strings: what comes before, inside and after blocks that lie inside one string is still read.
  [
    'a cut sequence before a block inside the same string',
    Uint8Array.from([0x22, ...new Array(62).fill(0x61), 0xe2, 0x82, ...new Array(130).fill(0x61), 0x22]),
  ],
  [
    'a stray continuation byte amid blocks inside a string',
    Uint8Array.from([0x22, ...new Array(140).fill(0x61), 0x80, ...new Array(140).fill(0x61), 0x22]),
  ],
  ['a lone surrogate escape after blocks inside a string', `["${'Q'.repeat(200)}\\ud800"]`],
  ['an exponent past the largest double after a long string', `{"blob":"${'Q'.repeat(300)}","n":1e400}`],
  ['an exponent past the largest double right after a long string of digits', `["${'7'.repeat(200)}",1e400]`],
  ['128 arrays nested around long strings', `${`["${'x'.repeat(70)}",`.repeat(128)}0${']'.repeat(128)}`],
  // Long ASCII strings, whose ends the JS screen looks up in the text: an escaped quote or backslash inside does not end them.
  ['an exponent past the largest double after a long string holding an escaped quote', `{"a":"${'x'.repeat(100)}\\"${'y'.repeat(100)}","n":1e400}`],
  ['an exponent past the largest double after a long string ending in an escaped backslash', `{"a":"${'x'.repeat(100)}\\\\","n":1e400}`],
  ['a lone surrogate escape far into a long string with escapes', `["${`${'x'.repeat(90)}\\n`.repeat(5)}\\udc00"]`],
  ['128 arrays nested after long strings with brackets in them', `${`["${'['.repeat(80)}",`.repeat(128)}0${']'.repeat(128)}`],
];

/** Bodies rule 4.1 accepts that the screen must let through (so that decode is fast on them), on every backend. */
const SCREEN_PASSES: [string, string][] = [
  ['a listing', '{"resources":[{"uri":"file:///a.md","name":"a.md","mimeType":"text/markdown"}],"nextCursor":"c2"}'],
  ['names with an `e` before digits', '{"resources":[{"uri":"file:///srv/release-2024.md","name":"e-1000","title":"page 1e"}]}'],
  ['127 arrays nested', nest(127)],
  ['brackets inside strings past the limit', `["${'['.repeat(300)}"]`],
  ['an `e` after a digit inside a string', '{"blob":"QfPQfHQ8eh29h7ajr9"}'],
  ['a surrogate pair written as UTF-8', '["😀 é 日本語"]'],
  ['numbers without exponents', '[0,-1,1.5,123456789012345678901234567890,-0.25]'],
  ['a string ending across a block', `{"k":"${'x'.repeat(70)}","m":[1,2]}`],
  ['a long blob', `{"blob":"${'QUJD'.repeat(100)}=="}`],
  ['a long string holding an exponent, brackets and escaped quotes', `{"text":"${'x'.repeat(100)}1e400 [[[ \\" ${'y'.repeat(100)}\\\\"}`],
];

describe.each(BACKEND_ROWS)('the decode screen on %s', (_name, backend) => {
  test('is present', () => {
    expect(typeof backend.screenFrame).toBe('function');
  });

  test.each(PARSE_ACCEPTS)('does not screen %s: decode refuses it as validate does', (_what, body) => {
    const payload = payloadOf(body);
    expect(parses(payload), 'JSON.parse accepts it').toBe(true);
    expect(backend.verifyFrame(payload), 'rule 4.1 refuses it').not.toBeNull();
    expect(backend.screenFrame!(payload, bodyText(payload))).not.toBe(SCREENED);
    holds(backend, payload);
    decodesAsValidated(backend, payload);
  });

  test.each(SCREEN_PASSES)('screens %s', (_what, body) => {
    const payload = payloadOf(body);
    expect(backend.verifyFrame(payload)).toBeNull();
    expect(backend.screenFrame!(payload, bodyText(payload))).toBe(SCREENED);
  });

  test('leaves a long body holding U+FFFD itself to verifyFrame, and decode accepts it', () => {
    const body = `{"resources":[{"uri":"file:///a.md","name":"\ufffd${'x'.repeat(SHORT_TEXT)}"}]}`;
    const payload = payloadOf(body);
    expect(payload.length - 1).toBeGreaterThan(SHORT_TEXT);
    holds(backend, payload);
    if (backend.name === 'js') expect(backend.screenFrame!(payload, bodyText(payload))).toBeNull();
    expect(listResources.withBackend(backend).decode(payload)).toEqual({ kind: 'result', result: JSON.parse(body) });
  });

  test('answers verifyFrame on payloads with no tag or an unknown one', () => {
    for (const payload of [new Uint8Array(0), payloadOf('{}', 2), payloadOf('{}', 0x7b)]) {
      expect(backend.screenFrame!(payload, bodyText(payload))).toEqual(backend.verifyFrame(payload));
    }
  });

  test('keeps its promise on every case of the JSON corpus, as a result and as an error', () => {
    let screened = 0;
    for (const c of JSON_CASES) {
      const body = typeof c.text === 'string' ? c.text : Uint8Array.from(c.text);
      for (const tag of [0, 1]) {
        const payload = payloadOf(body, tag);
        if (holds(backend, payload)) screened++;
        decodesAsValidated(backend, payload);
      }
    }
    // Most of the corpus is screened: the promise is checked on JSON.parse, not only on refusals.
    expect(screened).toBeGreaterThan(JSON_CASES.length / 2);
  });

  test('keeps its promise on 20,000 generated and mutated frames', () => {
    const g = new Gen(rng(0x5c4ee7));
    let screened = 0;
    let refused = 0;
    for (let k = 0; k < 20_000; k++) {
      const payload = framePayload(g);
      if (holds(backend, payload)) screened++;
      if (backend.verifyFrame(payload) !== null) refused++;
      decodesAsValidated(backend, payload);
    }
    // Both sides of the promise are exercised.
    expect(screened).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(2_000);
  });
});

// ---------------------------------------------------------------------------
// The text screen of short bodies (screenShortText): its promise is the
// byte screen's, on bodies of at most SHORT_TEXT bytes, read as decode reads
// them (utf8Text).

/** The text screen's promise on one payload (a tag, then a short body); returns whether it passed the body. */
function holdsOnText(backend: Backend, payload: Uint8Array): boolean {
  expect(payload.length - 1).toBeLessThanOrEqual(SHORT_TEXT);
  // Decode screens the text of a frame with a known tag only (src/frame/codec.ts, isShort).
  if (payload[0] > 1) return false;
  if (!screenShortText(utf8Text(payload, 1, payload.length), payload.length - 1)) return false;
  expect(parses(payload), 'JSON.parse on a body the text screen passed agrees with verifyFrame').toBe(backend.verifyFrame(payload) === null);
  return true;
}

/** Short bodies of numbers near the largest double, written with as many digits as SHORT_TEXT allows. */
const SHORT_NUMBERS: [string, string][] = [
  ['the most digits a short body holds, then e99', `[${'9'.repeat(SHORT_TEXT - 5)}e99]`],
  ['the same with a fraction', `[9.${'9'.repeat(SHORT_TEXT - 7)}e99]`],
  ['e+99', '[1.7976931348623157e+99]'],
  ['a three-digit exponent, finite', '[1e100]'],
  ['the largest double', '[1.7976931348623157e308]'],
  ['a negative three-digit exponent', '[1e-400]'],
  ['leading zeros in an exponent', '[1e0000000000000000400]'],
];

describe.each(BACKEND_ROWS)('the text screen of short bodies, against verifyFrame on %s', (_name, backend) => {
  test.each(PARSE_ACCEPTS.filter(([, body]) => payloadOf(body).length - 1 <= SHORT_TEXT))('does not pass %s', (_what, body) => {
    const payload = payloadOf(body);
    expect(screenShortText(utf8Text(payload, 1, payload.length), payload.length - 1)).toBe(false);
    decodesAsValidated(backend, payload);
  });

  const ascii = (body: string) => [...body].every((c) => c.charCodeAt(0) < 0x80);

  test.each(SCREEN_PASSES.filter(([, body]) => ascii(body) && payloadOf(body).length - 1 <= SHORT_TEXT))('passes %s', (_what, body) => {
    const payload = payloadOf(body);
    expect(screenShortText(utf8Text(payload, 1, payload.length), payload.length - 1)).toBe(true);
  });

  test.each(SCREEN_PASSES.filter(([, body]) => !ascii(body)))('leaves %s to the byte screen, which passes it', (_what, body) => {
    const payload = payloadOf(body);
    expect(screenShortText(utf8Text(payload, 1, payload.length), payload.length - 1)).toBe(false);
    expect(backend.screenFrame!(payload, bodyText(payload))).toBe(SCREENED);
    expect(backend.verifyFrame(payload)).toBeNull();
  });

  test.each(SHORT_NUMBERS)('keeps its promise on %s', (_what, body) => {
    holdsOnText(backend, payloadOf(body));
    decodesAsValidated(backend, payloadOf(body));
  });

  test('keeps its promise on every short case of the JSON corpus, and on 20,000 generated and mutated short frames', () => {
    let passed = 0;
    let short = 0;
    for (const c of JSON_CASES) {
      const payload = payloadOf(typeof c.text === 'string' ? c.text : Uint8Array.from(c.text));
      if (payload.length - 1 > SHORT_TEXT) continue;
      short++;
      if (holdsOnText(backend, payload)) passed++;
    }
    const g = new Gen(rng(0x7e47));
    for (let k = 0; k < 20_000; k++) {
      const whole = framePayload(g);
      // Cut to a short body: a cut body is a mutation too.
      const payload = whole.length - 1 > SHORT_TEXT ? whole.subarray(0, 1 + g.int(SHORT_TEXT + 1)) : whole;
      short++;
      if (holdsOnText(backend, payload)) passed++;
      decodesAsValidated(backend, payload);
    }
    expect(passed).toBeGreaterThan(short / 4);
  });

  test('keeps its promise on short bodies of numbers, escapes and bytes that are not UTF-8', () => {
    const piece = fc.oneof(
      fc.double().map(String),
      fc.bigInt({ min: -(10n ** 210n), max: 10n ** 210n }).map(String),
      fc
        .tuple(
          fc.integer({ min: 1, max: 9 }),
          fc.nat({ max: 10 ** 6 }),
          fc.constantFrom('e', 'E', 'e+', 'e-', 'E+'),
          fc.integer({ min: 0, max: 999 }),
          fc.nat(3),
        )
        .map(([lead, rest, e, exp, zeros]) => `${lead}${rest}${e}${'0'.repeat(zeros)}${exp}`),
      fc.constantFrom('"\\ud800"', '"\\uD83D\\uDE00"', '"\\\\ud800"', '"\ufffd"', '"x"', '[]', '{}', 'true'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(fc.nat(255), { maxLength: 3 }), fc.nat(), (pieces, bytes, at) => {
        const text = new TextEncoder().encode(`[${pieces.join(',')}]`);
        const body = new Uint8Array(text.length + bytes.length);
        const cut = text.length === 0 ? 0 : at % text.length;
        body.set(text.subarray(0, cut));
        body.set(bytes, cut);
        body.set(text.subarray(cut), cut + bytes.length);
        if (body.length > SHORT_TEXT) return;
        const payload = payloadOf(body);
        holdsOnText(backend, payload);
        decodesAsValidated(backend, payload);
      }),
      { numRuns: 3000 },
    );
  });
});
