// Each backend's string kit gives the JS answers: the SDK's base64 rule on JSON string bytes and on strings, where a
// long string ends, and typed decode of blob frames, on js, wasm-simd and wasm-scalar, in the core's memory and out of it.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Backend } from '../src/backend/backend.js';
import { jsBackend } from '../src/backend/js.js';
import { coreHolding } from '../src/backend/wasm/instance.js';
import { alphabetRunJs, isBase64, isBase64Bytes, isBase64Js, LONG_STRING, swapBase64Check } from '../src/contract/base64.js';
import type { StringKit } from '../src/contract/string-kit.js';
import { readResource } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import { BACKEND_ROWS } from './backends.js';
import { atobAccepts, editedBase64, jsonString } from './support/base64-cases.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 1_000_000);
const encoder = new TextEncoder();

/** The end of a string by the plain rule: the first quote no backslash escapes, from a character boundary; -1 if none. */
function plainStringEnd(b: Uint8Array, from: number, end = b.length): number {
  for (let i = from; i < end; i++) {
    if (b[i] === 0x22) return i + 1;
    if (b[i] === 0x5c) i++;
  }
  return -1;
}

/** The JS path, as a kit: what every backend's kit must answer. */
const JS_KIT: StringKit = {
  base64Bytes: isBase64Bytes,
  base64String: isBase64Js,
  stringEnd: () => -1,
  alphabetRun: () => -1,
};

/** The kit a backend lends the judges: the core's for wasm (which must have one), the JS path for js. */
function kitOf(backend: Backend): StringKit {
  if (backend.name === 'js') {
    expect(backend.strings).toBeUndefined();
    return JS_KIT;
  }
  expect(backend.strings).toBeDefined();
  return backend.strings!;
}

/**
 * Runs `use` with `text` in the backend's memory, where a frame it verifies
 * lies: `view` holds the tag then the text, and is the core's memory for a
 * WebAssembly backend.
 */
function held<T>(backend: Backend, text: Uint8Array, use: (view: Uint8Array) => T): T {
  const payload = new Uint8Array(1 + text.length);
  payload.set(text, 1);
  if (!backend.verifyHeld) return use(payload);
  return backend.verifyHeld(payload, (view) => {
    expect(coreHolding(view)).toBeDefined();
    return use(view);
  });
}

/** Units on every edge of the rule, and the bytes JSON escapes. */
const UNITS = [
  ...'ABCXYZabcxyz0189+/',
  '=',
  ' ',
  '\t',
  '\n',
  '\f',
  '\r',
  '\v',
  '\b',
  '\u00a0',
  '\u2028',
  '\u0000',
  '\u001f',
  '-',
  '_',
  '.',
  ',',
  '@',
  '[',
  '`',
  '{',
  ':',
  '%',
  '"',
  '\\',
  'é',
  '\u0100',
  '\ud83d',
  '😀',
];

/** Real base64 of some length, edited: whitespace put in, padding moved, added or cut, units put in anywhere. */
const candidate = editedBase64(
  fc.oneof(fc.uint8Array({ maxLength: 24 }), fc.uint8Array({ minLength: 40, maxLength: 900, size: 'max' })),
  fc.oneof(fc.constantFrom(...UNITS), fc.constantFrom('\r\n', '==', '=\n=', ' = ')),
);

describe.each(BACKEND_ROWS)('%s: the base64 rule', (_name, backend) => {
  const kit = kitOf(backend);

  test(`generated strings as JSON text, copied and where the backend holds them, at every alignment (seed ${SEED})`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidate, fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), fc.nat(15), (s, escapes, shift) => {
        const want = atobAccepts(s);
        if (want) accepted++;
        const body = jsonString(s, escapes);
        // A copy at some alignment, in JS memory: the kit copies it in.
        const bytes = new Uint8Array(body.length + 16).subarray(shift, shift + body.length);
        bytes.set(body);
        expect(isBase64Bytes(bytes, 1, bytes.length - 1)).toBe(want);
        expect(kit.base64Bytes(bytes, 1, bytes.length - 1)).toBe(want);
        // Where the backend holds a frame: read in place, at another alignment.
        const padded = new Uint8Array(shift + body.length);
        padded.set(body, shift);
        held(backend, padded, (view) => expect(kit.base64Bytes(view, 2 + shift, view.length - 1)).toBe(want));
        expect(kit.base64String(s)).toBe(want);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  test('every byte value, raw, at every place in the first 80 of a long run of the alphabet', () => {
    const run = encoder.encode(Buffer.from(Uint8Array.from({ length: 120 }, (_, k) => k * 37)).toString('base64'));
    for (let byte = 0; byte < 256; byte++) {
      for (let at = 0; at < 80; at++) {
        const bytes = run.slice();
        bytes[at] = byte;
        const want = isBase64Bytes(bytes, 0, bytes.length);
        expect(kit.base64Bytes(bytes, 0, bytes.length), `byte ${byte} at ${at}`).toBe(want);
      }
    }
  });

  test('strings of every length around the loops, each with a fault at every place near the ends', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    for (let n = 0; n < 300; n++) {
      const good = Array.from({ length: n }, (_, k) => alphabet[(k * 7) % 64]).join('');
      const variants = [good, `${good}=`, `${good}==`, `${good} `, `${good}\n`];
      for (const at of new Set([0, 1, 15, 16, 17, 63, 64, 65, n - 2, n - 1])) {
        if (at >= 0 && at < n) variants.push(`${good.slice(0, at)}!${good.slice(at + 1)}`, `${good.slice(0, at)}=${good.slice(at + 1)}`);
      }
      for (const s of variants) {
        const want = atobAccepts(s);
        expect(kit.base64String(s), `${n} ${JSON.stringify(s.slice(-4))}`).toBe(want);
        const body = jsonString(s, [false]);
        expect(kit.base64Bytes(body, 1, body.length - 1)).toBe(want);
      }
    }
  });

  test('a MiB of base64, with and without a fault, as a string and as bytes held and copied', () => {
    const good = Buffer.from(Uint8Array.from({ length: 768 * 1024 }, (_, k) => (k * 2654435761) >>> 24)).toString('base64');
    for (const s of [
      good,
      `${good.slice(0, -1)}!`,
      `${good}A`,
      `${good.slice(0, 500_000)}\n${good.slice(500_000)}`,
      `${good.slice(0, 99_999)}é${good.slice(99_999)}`,
      `${good.slice(0, 123_457)}\\${good.slice(123_457)}`,
    ]) {
      const want = atobAccepts(s);
      expect(kit.base64String(s)).toBe(want);
      const body = jsonString(s, [false]);
      expect(kit.base64Bytes(body, 1, body.length - 1)).toBe(want);
      held(backend, body, (view) => expect(kit.base64Bytes(view, 2, view.length - 1)).toBe(want));
    }
  });

  test('escapes cut short by the end, and \\u without four hex digits, are refused alike', () => {
    for (const text of ['QUJD\\', 'QUJD\\u', 'QUJD\\u004', 'QUJD\\u00g1', 'QUJ\\u0044', 'QUJ\\/', 'QU\\n\\tJD', 'QUJD\\"', 'QUJD\\b']) {
      const bytes = encoder.encode(text);
      expect(kit.base64Bytes(bytes, 0, bytes.length), text).toBe(isBase64Bytes(bytes, 0, bytes.length));
    }
    expect(isBase64Bytes(encoder.encode('QUJ\\u0044'), 0, 9)).toBe(true);
    expect(isBase64Bytes(encoder.encode('QUJD\\u004'), 0, 9)).toBe(false);
  });

  test('the long-string check a codec puts in force gives isBase64 the same verdicts', () => {
    let long = 0;
    fc.assert(
      fc.property(candidate, (s) => {
        if (s.length >= LONG_STRING) long++;
        const want = isBase64(s);
        const outer = swapBase64Check(kit.base64String);
        try {
          expect(isBase64(s)).toBe(want);
        } finally {
          swapBase64Check(outer);
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
    expect(long).toBeGreaterThan(100);
  });
});

describe.each(BACKEND_ROWS)('%s: runs of the alphabet, read where the backend holds them', (_name, backend) => {
  const kit = kitOf(backend);
  const wasm = backend.name !== 'js';

  test(`every byte value after runs of every length to 200, at every alignment (seed ${SEED})`, () => {
    const alphabet = encoder.encode('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
    fc.assert(
      fc.property(fc.nat(200), fc.nat(255), fc.nat(15), fc.nat(20), (n, byte, shift, more) => {
        const text = new Uint8Array(shift + n + 1 + more).fill(0x41);
        for (let k = 0; k < n; k++) text[shift + k] = alphabet[(k * 11 + byte) % 64];
        text[shift + n] = byte;
        held(backend, text, (view) => {
          const want = alphabetRunJs(view, 1 + shift);
          expect(want).toBe(alphabet.includes(byte) ? view.length : 1 + shift + n);
          expect(kit.alphabetRun(view, 1 + shift)).toBe(wasm ? want : -1);
        });
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(kit.alphabetRun(encoder.encode('QUJD'), 0)).toBe(-1);
  });
});

describe.each(BACKEND_ROWS)('%s: where a string ends, read where the backend holds it', (_name, backend) => {
  const kit = kitOf(backend);
  const wasm = backend.name !== 'js';

  test(`generated string contents, from every character boundary of their first bytes (seed ${SEED})`, () => {
    const piece = fc.constantFrom('a', 'é', '\\"', '\\\\', '\\n', '\\u0041', '\\/', 'x'.repeat(61));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40, size: 'max' }), fc.nat(15), fc.nat(70), (pieces, shift, tail) => {
        // A string's content, its closing quote, then more text (which may hold quotes of its own).
        const content = pieces.join('');
        const text = encoder.encode(`${' '.repeat(shift)}"${content}"${'y'.repeat(tail)}"z"`);
        const open = shift;
        const want = plainStringEnd(text, open + 1);
        expect(want).toBe(open + 2 + encoder.encode(content).length);
        held(backend, text, (view) => {
          // Every boundary: after the quote, and after each whole piece.
          let at = open + 1;
          const boundaries = [at];
          for (const p of pieces) {
            at += encoder.encode(p).length;
            boundaries.push(at);
          }
          for (const from of boundaries) expect(kit.stringEnd(view, from + 1)).toBe(wasm ? want + 1 : -1);
        });
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  test('a backslash on the last byte of a 64-byte block escapes the first byte of the next', () => {
    for (let k = 50; k < 140; k++) {
      for (const next of ['"', '\\', 'a']) {
        const content = `${'a'.repeat(k)}\\${next}bc`;
        const text = encoder.encode(`"${content}"`);
        const want = plainStringEnd(text, 1);
        held(backend, text, (view) => expect(kit.stringEnd(view, 2)).toBe(wasm ? want + 1 : -1));
      }
    }
  });

  test('no closing quote before the end: -1; bytes outside the core: -1', () => {
    const text = encoder.encode(`"${'a\\"'.repeat(100)}`);
    held(backend, text, (view) => expect(kit.stringEnd(view, 2)).toBe(-1));
    expect(kit.stringEnd(encoder.encode('"abc"'), 1)).toBe(-1);
  });
});

describe("typed decode of blob frames: every backend gives the JS path's answer", () => {
  const js = readResource.withBackend(jsBackend);
  const answer = (frame: ReturnType<typeof js.tryDecode>) =>
    frame instanceof FrameError ? { rule: frame.rule, offset: frame.offset, message: frame.message } : frame;

  /** A read result with one blob, and some around it, in a frame; `size` pads the blob past the byte judge's threshold. */
  const blobFrame = fc
    .tuple(candidate, fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), fc.constantFrom(0, 0, 8_000, 70_000), fc.boolean())
    .map(([s, escapes, size, text]) => {
      const blob = size ? `${Buffer.alloc((size * 3) / 4, 7).toString('base64')}${s}` : s;
      const body = jsonString(blob, escapes);
      const item = `{"uri":"file:///b","mimeType":"application/octet-stream","blob":${new TextDecoder().decode(body)}}`;
      const other = text ? ',{"uri":"file:///t","text":"hello"}' : '';
      return encoder.encode(`\u0000{"contents":[${item}${other}],"_meta":{"k":1}}`);
    });

  test.each(BACKEND_ROWS)(`%s (seed ${SEED})`, (_name, backend) => {
    const codec = readResource.withBackend(backend);
    fc.assert(
      fc.property(blobFrame, (frame) => {
        expect(answer(codec.tryDecode(frame))).toEqual(answer(js.tryDecode(frame)));
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});
