// Encode against hostile values (a review of the encode side): whatever the value does, encode gives the bytes or an EncodeError, and what it holds afterwards is bounded.

import { describe, expect, test } from 'vitest';
import { encodeError } from './support/encode-error.js';
import { scratchStats } from '../src/contract/body-writer.js';
import { encodeResponse, HEADER_SIZE } from '../src/records/record.js';
import { createEncoderStream } from '../src/streams/encoder-stream.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { listResources } from '../src/frame/endpoints.js';
import type { Frame } from '../src/frame/frame.js';

const list = listResources as unknown as FrameCodec<unknown>;
const error = (x: unknown) => ({ kind: 'error', error: { code: -32000, message: 'm', data: x } }) as Frame<unknown>;
/** A value whose toJSON throws `thrown`. */
const throwing = (thrown: unknown) => ({
  toJSON: () => {
    throw thrown;
  },
});

describe('what the value throws is described, and never escapes', () => {
  test('a thrown value that cannot be made a string: null prototype, a toString that throws, a revoked Proxy, an Error whose message getter throws', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const lying = new Error('m');
    Object.defineProperty(lying, 'message', {
      get: () => {
        throw 1;
      },
    });
    const thrown = [
      Object.create(null),
      {
        toString: () => {
          throw new Error('no string');
        },
      },
      proxy,
      lying,
    ];
    for (const t of thrown) {
      const e = encodeError(() => list.encode(error(throwing(t))));
      expect(e.cause).toBe(t);
      expect(e.path).toEqual(['data']);
      expect(e.message).toMatch(/^cannot encode data: reading the value threw /);
    }
  });

  test('a thrown message, a thrown string and a member name as long as V8 allows are cut in the message, kept whole in cause and path', () => {
    // Whole, a message of 2^29 - 24 characters could not be made: a RangeError in place of the EncodeError.
    const long = 'x'.repeat(1_000_000);
    for (const t of [new Error(long), long]) {
      const e = encodeError(() => list.encode(error(throwing(t))));
      expect(e.cause).toBe(t);
      expect(e.message.length).toBeLessThan(1000);
    }
    const named = Object.defineProperty({}, long, {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    const e = encodeError(() => list.encode(error(named)));
    expect(e.path).toEqual(['data', long]);
    expect(e.message.length).toBeLessThan(1000);
    expect(e.message).toMatch(/reading the value threw Error: boom$/);
    // A refusal at such a name, too.
    const refused = encodeError(() => list.encode(error({ [long]: NaN })));
    expect(refused.message.length).toBeLessThan(1000);
    expect(refused.message).toMatch(/NaN is not a finite number/);
  });
});

describe('the frame itself', () => {
  test("a frame whose kind, result or error cannot be read: an EncodeError with the frame's exception as its cause", () => {
    const boom = new Error('boom');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const frames = [
      new Proxy(
        {},
        {
          get: () => {
            throw boom;
          },
        },
      ),
      {
        kind: 'result',
        get result() {
          throw boom;
        },
      },
      {
        kind: 'error',
        get error() {
          throw boom;
        },
      },
      proxy,
    ];
    for (const frame of frames) {
      const e = encodeError(() => list.encode(frame as Frame<unknown>));
      expect(e.cause).toBeDefined();
      expect(e.message).toMatch(/reading the value threw/);
    }
  });

  test('the kind is read once', () => {
    let reads = 0;
    const frame = {
      get kind() {
        return reads++ === 0 ? 'error' : 'result';
      },
      error: { code: 1, message: 'm' },
    };
    expect(list.encode(frame as Frame<unknown>)[0]).toBe(1);
    expect(reads).toBe(1);
  });
});

describe('what encode holds afterwards', () => {
  test('a scratch buffer above 16 MiB is let go whole: no view of it is kept', () => {
    const huge = { resources: [], _meta: { text: 'z'.repeat(20 << 20) } };
    expect(list.encode({ kind: 'result', result: huge }).length).toBeGreaterThan(20 << 20);
    expect(scratchStats().held).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});

describe('arrays V8 cannot hold', () => {
  test('an array longer than 2^26 elements is refused before any element is read', () => {
    // Each element is two bytes ("0,"), so the text would be well within the
    // limits; but past about 2^27 elements JSON.parse, and the value as
    // written that the writer builds, make an array V8 cannot hold, and V8
    // stops the process (a fatal error, no exception). A Proxy costs
    // nothing, whatever length it claims.
    let reads = 0;
    for (const length of [2 ** 26 + 1, 2 ** 32 - 1]) {
      const claims = new Proxy([], {
        get: (target, k) => {
          if (k === 'length') return length;
          if (typeof k === 'string' && k !== 'toJSON') reads++;
          return Reflect.get(target, k) ?? 0;
        },
      });
      const e = encodeError(() => list.encode(error(claims)));
      expect(e.message).toMatch(/more than 67108864 elements/);
      expect(e.path).toEqual(['data']);
    }
    expect(reads).toBe(0);
    // A real one, sparse: refused from its length too, not at its first hole.
    const sparse: unknown[] = [];
    sparse[2 ** 32 - 2] = 0;
    expect(encodeError(() => list.encode(error(sparse))).message).toMatch(/more than 67108864 elements/);
  });
});

describe('a hardened realm', () => {
  /** Runs `fn` with Object.prototype given a member `name` as `descriptor`, removed afterwards. */
  function withInherited(name: string, descriptor: PropertyDescriptor, fn: () => void): void {
    Object.defineProperty(Object.prototype, name, { ...descriptor, configurable: true });
    try {
      fn();
    } finally {
      delete (Object.prototype as Record<string, unknown>)[name];
    }
  }

  test('a member whose name Object.prototype holds read-only (Object.freeze(Object.prototype), SES lockdown) is written as JSON.stringify writes it', () => {
    // Frozen, Object.prototype's constructor, toString and valueOf are such
    // members: JSON.parse makes them own members all the same, so decode
    // accepts the bytes.
    const value = { code: -32000, message: 'm', data: { readOnly: 'x', n: [{ readOnly: 1 }] } };
    withInherited('readOnly', { value: 0, writable: false }, () => {
      expect(list.encode({ kind: 'error', error: value })).toEqual(Uint8Array.from([1, ...new TextEncoder().encode(JSON.stringify(value))]));
    });
  });

  test('and one whose name an inherited setter that throws holds', () => {
    const value = { code: -32000, message: 'm', data: { guarded: 'x' } };
    withInherited(
      'guarded',
      {
        set: () => {
          throw new Error('no');
        },
      },
      () => {
        expect(list.encode({ kind: 'error', error: value })).toEqual(Uint8Array.from([1, ...new TextEncoder().encode(JSON.stringify(value))]));
      },
    );
  });
});

describe('records', () => {
  test("a response's payload is bytes: any other view of them or an ArrayBuffer as its bytes, and anything else a TypeError, never numbers cut to 8 bits", () => {
    const frame = Uint8Array.of(0, 0x7b, 0x7d);
    const expected = encodeResponse(7, frame);
    expect(Array.from(expected.subarray(0, HEADER_SIZE))).toEqual([1, 7, 0, 0, 0, 3, 0, 0, 0]);
    const buffer = frame.slice().buffer;
    for (const same of [buffer, new DataView(buffer), new Uint16Array(buffer, 0, 1), Buffer.from(frame)]) {
      const bytes = same instanceof Uint16Array ? frame.subarray(0, 2) : frame;
      expect(encodeResponse(7, same as Uint8Array)).toEqual(encodeResponse(7, bytes));
    }
    // These were written as numbers: 'abc' as three zero bytes, 0x100 as 0.
    for (const other of ['abc', [0, 0x7b, 0x7d], { length: 3 }, null, undefined, 3]) {
      expect(() => encodeResponse(7, other as Uint8Array)).toThrow(TypeError);
    }
  });
});

describe('records from the encoder stream', () => {
  /** What the encoder stream writes for `messages`, or what its writes rejected with. */
  async function written(messages: unknown[]): Promise<{ bytes: number[]; rejected?: unknown }> {
    const stream = createEncoderStream();
    const writer = stream.writable.getWriter();
    const bytes: number[] = [];
    const reading = (async () => {
      for await (const chunk of stream.readable) bytes.push(...chunk);
    })();
    let rejected: unknown;
    try {
      for (const m of messages) await writer.write(m as never);
      await writer.close();
    } catch (e) {
      rejected = e;
    }
    await reading.catch(() => {});
    return { bytes, rejected };
  }

  test("a payload message's header counts its bytes, not its elements: a record stream is never cut out of step", async () => {
    const wide = Uint16Array.of(0x7b00, 0x007d);
    const asBytes = new Uint8Array(wide.buffer);
    const { bytes, rejected } = await written([
      { channel: 1, payload: wide },
      { channel: 1, finish: true },
    ]);
    expect(rejected).toBeUndefined();
    expect(bytes).toEqual([...encodeResponse(1, asBytes), 2, 1, 0, 0, 0, 0, 0, 0, 0]);
    // What is not bytes is refused, never written under a header that counts it.
    const text = await written([{ channel: 2, payload: 'abc' }]);
    expect(text.rejected).toBeInstanceOf(TypeError);
    expect(text.bytes).toEqual([]);
  });
});

describe('toJSON on what is not an object', () => {
  /** The error frame JSON.stringify would write for `data`. */
  const stringified = (data: unknown) => Uint8Array.from([1, ...new TextEncoder().encode(JSON.stringify({ code: -32000, message: 'm', data }))]);

  test("a BigInt's toJSON is called, as JSON.stringify calls it (BigInt.prototype.toJSON, the common way to write BigInts), once, with the key", () => {
    const proto = BigInt.prototype as unknown as { toJSON?: unknown };
    const keys: unknown[] = [];
    proto.toJSON = function (this: bigint, key: unknown) {
      keys.push(key);
      return this.toString();
    };
    try {
      const data = { n: 12n, list: [3n, -1n] };
      const bytes = list.encode(error(data));
      expect(keys).toEqual(['n', '0', '1']);
      expect(bytes).toEqual(stringified(data));
      keys.length = 0;
      // What toJSON returns is not converted again: a BigInt is still refused.
      proto.toJSON = (key: unknown) => {
        keys.push(key);
        return 5n;
      };
      expect(encodeError(() => list.encode(error({ n: 1n }))).message).toMatch(/a bigint is not JSON/);
      expect(keys).toEqual(['n']);
      expect(() => JSON.stringify({ n: 1n })).toThrow(TypeError);
    } finally {
      delete proto.toJSON;
    }
    expect(encodeError(() => list.encode(error({ n: 1n }))).message).toMatch(/a bigint is not JSON/);
  });

  test("a function's toJSON is called, as JSON.stringify calls it (a function is an object); one without is refused", () => {
    const f = Object.assign(() => 1, { toJSON: (key: string) => `fn ${key}` });
    const data = { f, list: [f] };
    expect(list.encode(error(data))).toEqual(stringified(data));
    expect(encodeError(() => list.encode(error({ g: () => 1 }))).message).toMatch(/a function is not JSON/);
    expect(encodeError(() => list.encode(error({ g: Object.assign(() => 1, { toJSON: () => () => 2 }) }))).message).toMatch(/a function is not JSON/);
  });
});
