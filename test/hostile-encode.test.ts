// Encode against hostile values (a review of the encode side): whatever the value does, encode gives the bytes or an EncodeError, and what it holds afterwards is bounded.

import { describe, expect, test } from 'vitest';
import { encodeError } from './support/encode-error.js';
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
