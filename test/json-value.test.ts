// parseBody gives JSON.parse's value when long blobs are built from their bytes rather than read by JSON.parse,
// and typed decode of blob frames, which uses it on a WebAssembly backend, gives JSON.parse's value with them.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsBackend } from '../src/backend/js.js';
import { acceptsBytes } from '../src/contract/judge-bytes.js';
import { parseBody, SPLICE_MIN } from '../src/contract/json-value.js';
import { compiledJudge } from '../src/contract/schema.js';
import { readResource } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import { BACKEND_ROWS } from './backends.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 1_000_000);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Base64 of `n` bytes, long enough to be cut out when n is large. */
const base64 = (n: number, fill = 7) => Buffer.alloc(n, fill).toString('base64');

/**
 * The strings of a JSON text that parseBody may be given: values (not
 * member names) whose content is ASCII with no backslash and at least
 * `min` bytes long, quotes included; as pairs of offsets, in text order.
 */
function plainStrings(b: Uint8Array, min = SPLICE_MIN): number[] {
  const pairs: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if (b[i] !== 0x22) continue;
    let j = i + 1;
    let plain = true;
    for (; b[j] !== 0x22; j++) {
      if (b[j] === 0x5c) {
        plain = false;
        j++;
      } else if (b[j] >= 0x80) plain = false;
    }
    const e = j + 1;
    let k = e;
    while (b[k] === 0x20 || b[k] === 0x0a || b[k] === 0x0d || b[k] === 0x09) k++;
    if (plain && b[k] !== 0x3a && e - i >= min) pairs.push(i, e);
    i = j;
  }
  return pairs;
}

/** JSON values whose strings are sometimes long base64, sometimes repeat a member name. */
const withBlobs = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.constant('\ud83d\ude00 é')),
    fc.integer({ min: 1, max: 3000 }).map((n) => base64(n, n & 0xff)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('blob', 'text', 'uri', '__proto__', 'a'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value as text with a member name written twice (the later value is JSON.parse's), or with whitespace. */
function asText(value: unknown, style: 'compact' | 'pretty' | 'repeated'): string {
  if (style === 'pretty') return JSON.stringify(value, null, 2);
  const text = JSON.stringify(value);
  if (style === 'compact' || !text.startsWith('{"')) return text;
  // The first member again, after all the others, with another long blob as its value: JSON.parse keeps the later one.
  return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}${text.slice(1, text.indexOf(':') + 1)}"${base64(1600, 9)}"}`;
}

describe('parseBody', () => {
  test(`gives JSON.parse's value, whatever strings are cut out and in whatever order they are given (seed ${SEED})`, () => {
    fc.assert(
      fc.property(withBlobs, fc.constantFrom('compact', 'pretty', 'repeated'), fc.boolean(), fc.boolean(), (value, style, reverse, twice) => {
        const text = asText(value, style as 'compact' | 'pretty' | 'repeated');
        const b = encoder.encode(` ${text}\n`);
        let pairs = plainStrings(b);
        if (twice) pairs = [...pairs, ...pairs];
        if (reverse) {
          const flipped: number[] = [];
          for (let k = pairs.length - 2; k >= 0; k -= 2) flipped.push(pairs[k], pairs[k + 1]);
          pairs = flipped;
        }
        expect(parseBody(b, 0, b.length, pairs)).toEqual(JSON.parse(text));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  test('a body that is a blob alone, and a repeated member whose first value is the blob', () => {
    const alone = encoder.encode(`"${base64(2000)}"`);
    expect(parseBody(alone, 0, alone.length, [0, alone.length])).toBe(base64(2000));
    const first = base64(2000, 1);
    const later = base64(2000, 2);
    const text = `{"blob":"${first}","x":[1],"blob":"${later}"}`;
    const b = encoder.encode(text);
    const value = parseBody(b, 0, b.length, plainStrings(b)) as Record<string, unknown>;
    expect(value).toEqual(JSON.parse(text));
    expect(Object.keys(value)).toEqual(['blob', 'x']);
    // Only the first blob cut out: its marker is dropped with the member, and the later value is JSON.parse's own.
    const onlyFirst = plainStrings(b).slice(0, 2);
    expect(parseBody(b, 0, b.length, onlyFirst)).toEqual(JSON.parse(text));
  });

  test("a member named __proto__ keeps its blob as an own member, as JSON.parse's does", () => {
    const text = `{"__proto__":"${base64(1500)}","a":{"__proto__":["${base64(1500, 3)}"]}}`;
    const b = encoder.encode(text);
    const value = parseBody(b, 0, b.length, plainStrings(b)) as Record<string, unknown>;
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe(base64(1500));
  });

  test('nothing a program adds to Object.prototype is walked or changed', () => {
    const text = `{"a":"${base64(1500)}","b":[{"c":"${base64(1500, 2)}"}]}`;
    const b = encoder.encode(text);
    const added = { polluted: ['\udc000'] };
    Object.defineProperty(Object.prototype, 'extra', { value: added, enumerable: true, configurable: true, writable: true });
    try {
      expect(parseBody(b, 0, b.length, plainStrings(b))).toEqual(JSON.parse(text));
      expect(added.polluted).toEqual(['\udc000']);
    } finally {
      delete (Object.prototype as Record<string, unknown>).extra;
    }
  });
});

describe("typed decode of blob frames builds long blobs from their bytes: the value is still JSON.parse's", () => {
  const node = compiledJudge(readResource.schema)!;
  const js = readResource.withBackend(jsBackend);
  const frames = [
    // One blob, held way (16 KiB and more), and a large body (over 64 KiB).
    `{"contents":[{"uri":"file:///a","mimeType":"image/png","blob":"${base64(30_000)}"}]}`,
    `{"contents":[{"uri":"file:///a","blob":"${base64(100_000)}"}],"_meta":{"k":"${base64(2000)}"}}`,
    // Several blobs, with padding, pretty-printed, and one member written twice.
    JSON.stringify({ contents: [1, 2, 3].map((n) => ({ uri: `file:///${n}`, blob: base64(9000 + n, n) })) }, null, 2),
    `{"contents":[{"uri":"file:///a","blob":"${base64(20_000, 1)}","blob":"${base64(20_000, 2)}"}]}`,
    // A blob with an escape, and one short blob: JSON.parse reads those.
    `{"contents":[{"uri":"file:///a","blob":"${base64(20_001)}\\/AA="},{"uri":"b","blob":"QUFB"}]}`,
  ].map((text) => encoder.encode(`\u0000${text}`));

  test.each(BACKEND_ROWS.filter(([name]) => name !== 'js'))(
    '%s: the byte judge notes the blobs whose content is the alphabet alone, long enough to cut out',
    (_name, wasm) => {
      expect(wasm.verifyHeld).toBeDefined();
      expect(wasm.strings).toBeDefined();
      const noted = frames.map((frame) =>
        wasm.verifyHeld!(frame, (held) => {
          const blobs: number[] = [];
          expect(acceptsBytes(node, held, 1, held.length, { strings: wasm.strings, blobs })).toBe(true);
          return blobs.length / 2;
        }),
      );
      expect(noted).toEqual([1, 1, 3, 2, 0]);
    },
  );

  test.each(BACKEND_ROWS)('%s', (_name, backend) => {
    const codec = readResource.withBackend(backend);
    for (const [k, frame] of frames.entries()) {
      const value = JSON.parse(decoder.decode(frame.subarray(1)));
      const decoded = codec.tryDecode(frame);
      expect(decoded instanceof FrameError ? decoded.message : null, `frame ${k}`).toBeNull();
      expect(decoded, `frame ${k}`).toEqual({ kind: 'result', result: value });
      expect(decoded, `frame ${k}`).toEqual(js.tryDecode(frame));
    }
  });
});
