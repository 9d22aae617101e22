// Bytes of UTF-8 into strings (src/contract/utf8-text.ts): a leading byte-order mark is kept, and a faster decoder a
// host puts in is used only when it gives TextDecoder's strings.

import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { resetUtf8Text, useUtf8Text, utf8Text } from '../src/contract/utf8-text.js';

const encoder = new TextEncoder();
const reference = new TextDecoder('utf-8', { ignoreBOM: true });
const nodeSlice = (b: Uint8Array, start: number, end: number) =>
  (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, s: number, e: number): string }).utf8Slice.call(b, start, end);

afterEach(() => resetUtf8Text());

describe('utf8Text', () => {
  test('keeps a leading byte-order mark, which a string value may start with', () => {
    const b = encoder.encode('"\ufeffx"');
    expect(utf8Text(b, 1, b.length - 1)).toBe('\ufeffx');
    expect(utf8Text(b, 0, b.length)).toBe('"\ufeffx"');
  });

  test("refuses a decoder that drops the mark, one that throws, and one that gets offsets wrong; TextDecoder's stays", () => {
    const stripping = new TextDecoder();
    expect(useUtf8Text((b, s, e) => stripping.decode(b.subarray(s, e)))).toBe(false);
    expect(
      useUtf8Text(() => {
        throw new TypeError('no');
      }),
    ).toBe(false);
    expect(useUtf8Text((b, _s, e) => reference.decode(b.subarray(0, e)))).toBe(false);
    // One that reads the range from the start of the buffer, not of the view.
    expect(useUtf8Text((b, s, e) => reference.decode(new Uint8Array(b.buffer, s, e - s)))).toBe(false);
    const b = encoder.encode('\ufeffa');
    expect(utf8Text(b, 0, b.length)).toBe('\ufeffa');
  });

  test('refuses a decoder that does not turn bytes that are not UTF-8 into U+FFFD, as decode screens short texts by it', () => {
    // Fatal: it throws on them. Latin-1: one character a byte, never U+FFFD.
    const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    expect(useUtf8Text((b, s, e) => fatal.decode(b.subarray(s, e)))).toBe(false);
    const latin1 = new TextDecoder('latin1');
    const asLatin1 = (b: Uint8Array, s: number, e: number) => {
      const chunk = b.subarray(s, e);
      return chunk.every((x) => x < 0x80) ? reference.decode(chunk) : latin1.decode(chunk);
    };
    expect(useUtf8Text(asLatin1)).toBe(false);
    const b = Uint8Array.from([0x22, 0xff, 0x22]);
    expect(utf8Text(b, 0, b.length)).toBe('"\ufffd"');
  });

  test("takes Node's utf8Slice, which gives TextDecoder's strings on any well-formed text and any range of it", () => {
    expect(useUtf8Text(nodeSlice)).toBe(true);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(), fc.nat(), (s, x, y) => {
        // Cut only at character boundaries: the bytes a caller hands over are whole UTF-8.
        const chars = [...s];
        const i = chars.length === 0 ? 0 : x % (chars.length + 1);
        const j = i + (chars.length === 0 ? 0 : y % (chars.length - i + 1));
        const start = encoder.encode(chars.slice(0, i).join('')).length;
        const end = encoder.encode(chars.slice(0, j).join('')).length;
        const b = encoder.encode(s);
        expect(utf8Text(b, start, end)).toBe(reference.decode(b.subarray(start, end)));
      }),
      { numRuns: 2000 },
    );
  });

  test("Node's utf8Slice gives TextDecoder's strings on any bytes, UTF-8 or not", () => {
    expect(useUtf8Text(nodeSlice)).toBe(true);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(utf8Text(b, 0, b.length)).toBe(reference.decode(b));
      }),
      { numRuns: 5000 },
    );
  });
});
