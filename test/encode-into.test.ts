// encodeInto (WIRE.md section 5): encode's bytes written into the caller's buffer, as TextEncoder.encodeInto writes, and never a part of a frame.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { encodeError } from './support/encode-error.js';
import { build, leftOut, type Recipe, recipe, refused } from './support/exotic.js';
import { scratchStats } from '../src/contract/body-writer.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { ENDPOINTS, listResources, readResource } from '../src/frame/endpoints.js';
import type { Frame } from '../src/frame/frame.js';

const list = listResources as unknown as FrameCodec<unknown>;
const result = (x: unknown) => ({ kind: 'result', result: { resources: [], _meta: { x } } }) as Frame<unknown>;
const error = (x: unknown) => ({ kind: 'error', error: { code: -32000, message: 'm', data: x } }) as Frame<unknown>;
/** The byte every target is filled with first, so that a byte written shows. */
const FILL = 0xa5;
const filled = (n: number) => new Uint8Array(n).fill(FILL);
const untouched = (b: Uint8Array) => b.every((x) => x === FILL);

/** What encode makes of `frame`, or the EncodeError it throws. */
function encoded(codec: FrameCodec<unknown>, frame: Frame<unknown>): Uint8Array | EncodeError {
  try {
    return codec.encode(frame);
  } catch (e) {
    return e as EncodeError;
  }
}

/** Frames of every kind: listings, a blob, an error object, texts that are escaped or many bytes a character. */
const SAMPLES: [FrameCodec<unknown>, Frame<unknown>][] = [
  [list, { kind: 'result', result: { resources: [] } }],
  [list, { kind: 'result', result: { resources: [{ uri: 'file:///a', name: 'a', mimeType: 'text/plain' }], nextCursor: 'c' } }],
  [list, result('é€😀\n"\\\u2028'.repeat(50))],
  [list, result('x'.repeat(5000))],
  [list, error({ stack: ['a', 1, null, true] })],
  [readResource as unknown as FrameCodec<unknown>, { kind: 'result', result: { contents: [{ uri: 'file:///b', blob: 'QUJD'.repeat(3000) }] } }],
];

describe.each(BACKEND_ROWS)('encodeInto, decoded on %s', (_name, backend) => {
  test('writes encode’s bytes from the target’s start, returns { written }, and leaves the bytes after them as they were', () => {
    for (const [plain, frame] of SAMPLES) {
      const codec = plain.withBackend(backend);
      const want = codec.encode(frame);
      const target = filled(want.length + 100);
      expect(codec.encodeInto(frame, target)).toEqual({ written: want.length });
      expect(target.subarray(0, want.length)).toEqual(want);
      expect(untouched(target.subarray(want.length))).toBe(true);
      expect(codec.decode(target.subarray(0, want.length))).toStrictEqual(codec.decode(want));
    }
  });

  test('a target exactly as long as the frame takes it whole', () => {
    for (const [plain, frame] of SAMPLES) {
      const codec = plain.withBackend(backend);
      const want = codec.encode(frame);
      const target = filled(want.length);
      expect(codec.encodeInto(frame, target)).toEqual({ written: want.length });
      expect(target).toEqual(want);
    }
  });

  test('a target one byte short, or of any shorter length, gets nothing, and the answer says how many bytes the frame needs', () => {
    const codec = list.withBackend(backend);
    const frame = result('é😀"'.repeat(10));
    const n = codec.encode(frame).length;
    for (let length = 0; length < n; length++) {
      const target = filled(length);
      expect(codec.encodeInto(frame, target)).toEqual({ written: 0, needed: n });
      expect(untouched(target)).toBe(true);
    }
    for (const [plain, sample] of SAMPLES) {
      const c = plain.withBackend(backend);
      const need = c.encode(sample).length;
      const target = filled(need - 1);
      expect(c.encodeInto(sample, target)).toEqual({ written: 0, needed: need });
      expect(untouched(target)).toBe(true);
    }
  });

  test('any value, plain or exotic: refused with encode’s EncodeError (message and path), else encode’s bytes; a refusal writes nothing', () => {
    const codec = list.withBackend(backend);
    fc.assert(
      fc.property(recipe, fc.boolean(), fc.nat(64), (r: Recipe, asError, spare) => {
        const wrap = asError ? error : result;
        const want = encoded(codec, wrap(build(r)));
        const target = filled(want instanceof Uint8Array ? want.length + spare : 4096);
        let got: unknown;
        try {
          got = codec.encodeInto(wrap(build(r)), target);
        } catch (e) {
          got = e;
        }
        if (want instanceof EncodeError) {
          expect(got).toBeInstanceOf(EncodeError);
          expect((got as EncodeError).message).toBe(want.message);
          expect((got as EncodeError).path).toEqual(want.path);
          expect(untouched(target)).toBe(true);
          return;
        }
        expect(got).toEqual({ written: want.length });
        expect(target.subarray(0, want.length)).toEqual(want);
        expect(untouched(target.subarray(want.length))).toBe(true);
        // The model agrees: a value it refuses was refused above.
        expect(!leftOut(r) && refused(r.t === 'getter' ? r.first : r, asError ? 1 : 2)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test('a result the schema refuses, a code outside 32 bits and a frame of no kind: encode’s EncodeError, target untouched', () => {
    const codec = list.withBackend(backend);
    const bad: Frame<unknown>[] = [
      { kind: 'result', result: { resources: [{ uri: 7 }] } },
      { kind: 'error', error: { code: 2 ** 40, message: 'm' } },
      { kind: 'neither' } as unknown as Frame<unknown>,
      { kind: 'result', result: { resources: [], _meta: { n: Number.NaN } } },
      { kind: 'error', error: { code: 1, message: '\ud800' } },
    ];
    for (const frame of bad) {
      const want = encodeError(() => codec.encode(frame));
      const target = filled(1024);
      const got = encodeError(() => codec.encodeInto(frame, target));
      expect(got.message).toBe(want.message);
      expect(got.path).toEqual(want.path);
      expect(untouched(target)).toBe(true);
    }
  });
});

describe('encodeInto on every endpoint', () => {
  test('each of the endpoints’ codecs has it, and writes what its encode writes', () => {
    const error: Frame<unknown> = { kind: 'error', error: { code: -32601, message: 'Method not found' } };
    for (const codec of Object.values(ENDPOINTS) as FrameCodec<unknown>[]) {
      const want = codec.encode(error);
      const target = filled(want.length);
      expect(codec.encodeInto(error, target)).toEqual({ written: want.length });
      expect(target).toEqual(want);
    }
  });
});

describe('hostile targets', () => {
  const frame = result('hello');
  const n = list.encode(frame).length;

  test('anything but a Uint8Array is a TypeError, thrown before any of the frame is read', () => {
    let reads = 0;
    const watched = {
      get kind() {
        reads++;
        return 'result';
      },
      result: { resources: [] },
    } as unknown as Frame<unknown>;
    const lookalike = Object.defineProperty(Object.create(Uint8Array.prototype), 'length', { value: 100 });
    const wrong: unknown[] = [
      null,
      undefined,
      [],
      { length: 100 },
      new ArrayBuffer(100),
      new Uint16Array(100),
      new Uint8ClampedArray(100),
      new Int8Array(100),
      new DataView(new ArrayBuffer(100)),
      new Proxy(new Uint8Array(100), {}),
      lookalike,
    ];
    for (const target of wrong) {
      expect(() => list.encodeInto(watched, target as Uint8Array)).toThrow(TypeError);
    }
    expect(reads).toBe(0);
  });

  test('a Buffer, a view at an offset, and a view of a SharedArrayBuffer are targets, and no byte outside the view is written', () => {
    const want = list.encode(frame);
    const buffer = Buffer.alloc(n + 3, FILL);
    expect(list.encodeInto(frame, buffer)).toEqual({ written: n });
    expect(new Uint8Array(buffer.subarray(0, n))).toEqual(want);
    const whole = filled(n + 20);
    const view = whole.subarray(10, 10 + n);
    expect(list.encodeInto(frame, view)).toEqual({ written: n });
    expect(view).toEqual(want);
    expect(untouched(whole.subarray(0, 10)) && untouched(whole.subarray(10 + n))).toBe(true);
    // One byte too short at an offset: nothing, on either side.
    const short = filled(n + 20);
    expect(list.encodeInto(frame, short.subarray(10, 10 + n - 1))).toEqual({ written: 0, needed: n });
    expect(untouched(short)).toBe(true);
    const shared = new Uint8Array(new SharedArrayBuffer(n));
    expect(list.encodeInto(frame, shared)).toEqual({ written: n });
    expect(new Uint8Array(shared)).toEqual(want);
  });

  test('a subclass that lies about its length or overrides set is measured and written by the typed array’s own accessors', () => {
    class Lying extends Uint8Array {
      override get length(): number {
        return 1 << 30;
      }
      override set(): void {
        throw new Error('the override ran');
      }
    }
    const small = new Lying(4).fill(FILL);
    expect(list.encodeInto(frame, small)).toEqual({ written: 0, needed: n });
    expect(Array.from(new Uint8Array(small.buffer))).toEqual([FILL, FILL, FILL, FILL]);
    const want = list.encode(result('y'.repeat(40)));
    const big = new Lying(want.length);
    expect(list.encodeInto(result('y'.repeat(40)), big)).toEqual({ written: want.length });
    expect(new Uint8Array(big.buffer)).toEqual(want);
  });

  test('a target whose buffer a getter of the frame detaches or shrinks while it is written gets nothing, and the call says what was needed', () => {
    const buffer = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void })(64, {
      maxByteLength: 64,
    });
    const target = new Uint8Array(buffer);
    const shrinking = result(
      Object.defineProperty({}, 'a', {
        enumerable: true,
        get: () => {
          buffer.resize(4);
          return 'x';
        },
      }),
    );
    const need = list.encode(result({ a: 'x' })).length;
    expect(list.encodeInto(shrinking, target)).toEqual({ written: 0, needed: need });
    expect(target.length).toBe(4);
    const detached = new Uint8Array(64);
    const detaching = result(
      Object.defineProperty({}, 'a', {
        enumerable: true,
        get: () => {
          structuredClone(detached.buffer, { transfer: [detached.buffer] });
          return 'x';
        },
      }),
    );
    expect(list.encodeInto(detaching, detached)).toEqual({ written: 0, needed: need });
    expect(detached.length).toBe(0);
  });

  test('a toJSON that calls encodeInto on the same target inside the frame: the outer frame is what the target holds afterwards', () => {
    const target = filled(256);
    const inner = result('inner');
    const outer = result({
      toJSON() {
        list.encodeInto(inner, target);
        return 'outer';
      },
    });
    const { written } = list.encodeInto(outer, target);
    expect(target.subarray(0, written)).toEqual(list.encode(result('outer')));
  });
});

describe('buffers', () => {
  test('a steady stream of encodeInto calls allocates no scratch buffer and carves no slab', () => {
    const target = new Uint8Array(2 << 20);
    const big = result('z'.repeat(1 << 20));
    list.encodeInto(big, target);
    const { allocations, slabs } = scratchStats();
    for (let k = 0; k < 50; k++) list.encodeInto(k % 2 ? big : result(k), target);
    expect(scratchStats().allocations).toBe(allocations);
    expect(scratchStats().slabs).toBe(slabs);
  });
});
