// Encode in one pass (WIRE.md section 5): JSON.stringify's bytes on every value it accepts, each member read once, and nothing returned that decode refuses.

import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { encodeError } from './support/encode-error.js';
import { BACKEND_ROWS } from './backends.js';
import { concat, utf8 } from './support/bytes.js';
import { build, leftOut, recipe, type Recipe, refused } from './support/exotic.js';
import { FRAME_LIMITS, POOLED, scratchStats, writeFrame } from '../src/contract/body-writer.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { listResources, readResource } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import type { Frame } from '../src/frame/frame.js';
import { TAG_ERROR, TAG_RESULT } from '../src/wire/tags.js';

const list = listResources as unknown as FrameCodec<unknown>;
const result = (x: unknown) => ({ kind: 'result', result: { resources: [], _meta: { x } } }) as Frame<unknown>;
const error = (x: unknown) => ({ kind: 'error', error: { code: -32000, message: 'm', data: x } }) as Frame<unknown>;
const bodyOf = (frame: Frame<unknown>): unknown => (frame.kind === 'result' ? frame.result : frame.error);
const tagOf = (frame: Frame<unknown>) => (frame.kind === 'result' ? TAG_RESULT : TAG_ERROR);
/** Characters a writer escapes, writes as more than one byte, or writes as it is though it is not plain ASCII (DEL, U+2028). */
const ODD = ['"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '€', '\u2028', '😀'];
/** `c` at each offset of texts of 1 to 13 characters, 'a's before it and 'b's after: 91 texts. */
const placed = (c: string) =>
  Array.from({ length: 13 }, (_, k) => k + 1).flatMap((n) => Array.from({ length: n }, (_, at) => `${'a'.repeat(at)}${c}${'b'.repeat(n - at - 1)}`));
/** What JSON.stringify writes for the frame, as encode frames it. */
const stringified = (frame: Frame<unknown>) => concat(Uint8Array.of(tagOf(frame)), utf8(JSON.stringify(bodyOf(frame))));

/** `s` with every character JSON.stringify escapes made an 'a': a run the native path takes. */
const withoutEscapes = (s: string) => Array.from(s, (c) => (c < ' ' || c === '"' || c === '\\' ? 'a' : c)).join('');
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** `depth` arrays nested, innermost empty. */
function arrays(depth: number): unknown {
  let v: unknown[] = [];
  for (let k = 1; k < depth; k++) v = [v];
  return v;
}

/** An object whose member `key` reads `first`, then `later` on every read after. */
function twoFaced(key: string, first: unknown, later: unknown, rest: object = {}): Record<string, unknown> {
  let reads = 0;
  return Object.defineProperty({ ...rest }, key, { enumerable: true, get: () => (reads++ === 0 ? first : later) });
}

describe.each(BACKEND_ROWS)('encode, decoded on %s', (_name, backend) => {
  const codec = list.withBackend(backend);
  const read = (readResource as unknown as FrameCodec<unknown>).withBackend(backend);

  test('any value, plain or exotic: refused exactly when the model says, and otherwise the bytes of JSON.stringify, which decode accepts', () => {
    const asMember = (r: Recipe, depth: number) => !leftOut(r) && refused(r.t === 'getter' ? r.first : r, depth);
    fc.assert(
      fc.property(recipe, fc.boolean(), (r, asError) => {
        const wrap = asError ? error : result;
        let bytes: Uint8Array | undefined;
        let thrown: unknown;
        try {
          bytes = codec.encode(wrap(build(r)));
        } catch (e) {
          thrown = e;
        }
        // The value sits inside the body and _meta (a result), or the body (an error).
        if (asMember(r, asError ? 1 : 2)) {
          expect(thrown).toBeInstanceOf(EncodeError);
          return;
        }
        expect(thrown).toBeUndefined();
        // A second build reads the same way: getters, tickets and traps agree only if encode read each member once, in order.
        const fresh = wrap(build(r));
        const text = JSON.stringify(bodyOf(fresh));
        expect(bytes).toEqual(concat(Uint8Array.of(tagOf(fresh)), utf8(text)));
        expect(codec.decode(bytes!)).toStrictEqual({ kind: fresh.kind, [fresh.kind]: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  describe('what was checked is what was written', () => {
    test("a String whose toString returns a lone surrogate is refused; JSON.stringify's bytes for it decode refuses", () => {
      const liar = Object.assign(new String('fine'), { toString: () => '\ud800' });
      for (const frame of [result(liar), error(liar)]) {
        const e = encodeError(() => codec.encode(frame));
        expect(e.message).toMatch(/lone surrogate/);
        const fault = codec.tryDecode(stringified(frame));
        expect(fault).toBeInstanceOf(FrameError);
        expect((fault as FrameError).rule).toBe('lone-surrogate');
      }
    });

    test('a String whose toString returns other text is written as that text, as JSON.stringify writes it', () => {
      const other = Object.assign(new String('fine'), { toString: () => 'other' });
      const bytes = codec.encode(result(other));
      expect(bytes).toEqual(stringified(result(other)));
      expect(new TextDecoder().decode(bytes)).toContain('"x":"other"');
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: { resources: [], _meta: { x: 'other' } } });
    });

    test('a getter that answers a lone surrogate on its second read: the first answer is written, and decode accepts it', () => {
      const frame = () => result(twoFaced('s', 'fine', '\ud800'));
      const bytes = codec.encode(frame());
      expect(bytes).toEqual(stringified(frame()));
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: { resources: [], _meta: { x: { s: 'fine' } } } });
    });

    test('a getter that answers 200 nested arrays on its second read: the first answer is written, and decode accepts it', () => {
      const frame = () => error(twoFaced('deep', [1], arrays(200)));
      const bytes = codec.encode(frame());
      expect(bytes).toEqual(stringified(frame()));
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'error', error: { code: -32000, message: 'm', data: { deep: [1] } } });
    });

    test('and the other way round: a getter whose first read is too deep is refused, whatever it answers later', () => {
      encodeError(() => codec.encode(error(twoFaced('deep', arrays(200), [1]))));
    });

    test('a Proxy whose get trap answers differently each time: each member is read once, and the bytes are what it answered', () => {
      const make = () => {
        let reads = 0;
        return new Proxy({ a: 'x', b: [1, 2] } as Record<string, unknown>, {
          get: (target, key) => (key === 'a' ? (reads++ === 0 ? 'first' : '\udfff') : Reflect.get(target, key)),
        });
      };
      const bytes = codec.encode(result(make()));
      expect(bytes).toEqual(stringified(result(make())));
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: { resources: [], _meta: { x: { a: 'first', b: [1, 2] } } } });
    });

    test('the schema judges what was written: a getter on `resources` that is valid only on its second read is refused', () => {
      const body = () => twoFaced('resources', [{ uri: 1, name: 'n' }], []);
      const e = encodeError(() => codec.encode({ kind: 'result', result: body() }));
      expect(e.message).toMatch(/rule 4\.2/);
      expect(e.path).toEqual(['resources', 0, 'uri']);
    });

    test('and a getter on `resources` that is valid only on its first read is accepted, as written', () => {
      const body = () => twoFaced('resources', [], [{ uri: 1, name: 'n' }]);
      const bytes = codec.encode({ kind: 'result', result: body() });
      expect(new TextDecoder().decode(bytes.subarray(1))).toBe('{"resources":[]}');
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: { resources: [] } });
    });

    test('an error code read through a getter is judged as written (rule 4.3)', () => {
      encodeError(() => codec.encode({ kind: 'error', error: twoFaced('code', 2 ** 31, 1, { message: 'm' }) as never }));
      const bytes = codec.encode({ kind: 'error', error: twoFaced('code', 1, 2 ** 31, { message: 'm' }) as never });
      expect(codec.decode(bytes)).toStrictEqual({ kind: 'error', error: { message: 'm', code: 1 } });
    });

    test('a blob read through a getter is judged as written', () => {
      const contents = () => [twoFaced('blob', 'AAECAw==', '!!!', { uri: 'u' })];
      const bytes = read.encode({ kind: 'result', result: { contents: contents() } });
      expect(read.decode(bytes)).toStrictEqual({ kind: 'result', result: { contents: [{ uri: 'u', blob: 'AAECAw==' }] } });
      const refusedBlob = () => [twoFaced('blob', '!!!', 'AAECAw==', { uri: 'u' })];
      encodeError(() => read.encode({ kind: 'result', result: { contents: refusedBlob() } }));
    });
  });
});

describe('the bytes are JSON.stringify’s', () => {
  const same = (x: unknown) => {
    for (const frame of [result(x), error(x)]) expect(list.encode(frame), JSON.stringify(bodyOf(frame))).toEqual(stringified(frame));
  };

  test('toJSON is called once, with the member name, the index as a string, or "" for the body', () => {
    const calls: unknown[] = [];
    const spy = (tag: string) => ({
      toJSON: (key: unknown) => {
        calls.push(key);
        return `${tag}:${String(key)}`;
      },
    });
    const x = { member: spy('m'), list: [spy('a'), spy('b')] };
    list.encode(result(x));
    expect(calls).toEqual(['member', '0', '1']);
    same(x);
    const body = { toJSON: (key: unknown) => ({ resources: [], key }) };
    const bytes = list.encode({ kind: 'result', result: body });
    expect(new TextDecoder().decode(bytes.subarray(1))).toBe('{"resources":[],"key":""}');
  });

  test("an object's own enumerable members, in JSON.stringify's order: not inherited ones, not hidden ones, integer names first", () => {
    class WithInherited {
      own = 'own';
    }
    // An enumerable member on the prototype: for-in names it, JSON.stringify does not.
    Object.defineProperty(WithInherited.prototype, 'inherited', { value: 'from the prototype', enumerable: true });
    const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false });
    const symbolKeyed = { [Symbol('s')]: 1, plain: 2 };
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: 2 });
    same({
      instance: new WithInherited(),
      hidden,
      symbolKeyed,
      nullProto,
      order: { b: 1, 10: 'ten', a: 2, 2: 'two', '-1': 'minus', '01': 'zero one' },
    });
    // Enumerable members put on Object.prototype itself: every plain object inherits them.
    const polluted = Object.prototype as Record<string, unknown>;
    polluted.pollutedMember = 'inherited by every object';
    try {
      same({ a: 1, nested: { b: [{ c: 2 }] } });
      expect(new TextDecoder().decode(list.encode(result({ a: 1 })))).not.toContain('pollutedMember');
    } finally {
      delete polluted.pollutedMember;
    }
  });

  test("a Proxy: its get trap is called once per member, in order, and the bytes are JSON.stringify's", () => {
    const calls: string[] = [];
    const proxy = (target: object) =>
      new Proxy(target, {
        get(t, k, r) {
          if (typeof k === 'string') calls.push(k);
          return Reflect.get(t, k, r);
        },
      });
    const x = proxy({ b: 1, a: proxy({ z: 'z', y: [1, 2] }), 3: 'three' });
    list.encode(result(x));
    const seen = calls.splice(0);
    JSON.stringify(x);
    expect(seen).toEqual(calls);
    expect(seen).toEqual(['toJSON', '3', 'b', 'a', 'toJSON', 'z', 'y']);
    same(x);
  });

  test('toJSON is not called again on what it returns, and what it returns may be anything JSON holds', () => {
    // Its toJSON is not enumerable: a function member is refused, where JSON.stringify would leave it out.
    const inner = Object.defineProperty({ v: 1 }, 'toJSON', { value: () => 'inner toJSON is not called' });
    same({ a: { toJSON: () => inner } });
    same({ a: { toJSON: () => [1, 'two', null] }, b: { toJSON: () => 3 }, c: { toJSON: () => null }, d: { toJSON: () => new Date(0) } });
  });

  test('boxed primitives: ToString and ToNumber through toString, valueOf and Symbol.toPrimitive; a Boolean by its slot', () => {
    same({
      s: new String('plain'),
      n: new Number(-0),
      b: new Boolean(false),
      viaToString: Object.assign(new String('x'), { toString: () => 'from toString' }),
      valueOfIgnoredForString: Object.assign(new String('x'), { valueOf: () => 'not called' }),
      viaValueOf: Object.assign(new Number(1), { valueOf: () => 2.5 }),
      toStringIgnoredForNumber: Object.assign(new Number(1), { toString: () => '99' }),
      numberFromString: Object.assign(new Number(1), { valueOf: () => '12' }),
      toPrimitive: Object.assign(new Number(1), { [Symbol.toPrimitive]: (hint: string) => (hint === 'number' ? 42 : 0) }),
      stringToPrimitive: Object.assign(new String('x'), { [Symbol.toPrimitive]: (hint: string) => hint }),
      booleanIgnoresValueOf: Object.assign(new Boolean(true), { valueOf: () => false }),
      fallsBack: Object.assign(new String('slot'), { toString: () => ({}) }),
      subclass: new (class Named extends String {})('subclassed'),
    });
  });

  test('boxed primitives from another realm are found by their slot too', () => {
    const other = runInNewContext('({ s: new String("other realm"), n: new Number(2.5), b: new Boolean(false) })');
    same(other);
    expect(new TextDecoder().decode(list.encode(result(other)))).toContain('{"s":"other realm","n":2.5,"b":false}');
  });

  test('the one difference, documented: a boxed primitive whose prototype was changed is written as an object, and what is written is what was judged', () => {
    // JSON.stringify finds the slot and calls ToString, which now finds Object.prototype.toString.
    const swapped = Object.setPrototypeOf(new String('ab'), Object.prototype);
    expect(JSON.stringify(swapped)).toBe('"[object String]"');
    const bytes = list.encode(result(swapped));
    expect(new TextDecoder().decode(bytes)).toContain('"x":{"0":"a","1":"b"}');
    expect(list.decode(bytes)).toStrictEqual({ kind: 'result', result: { resources: [], _meta: { x: { 0: 'a', 1: 'b' } } } });
  });

  test('boxed values that convert to what decode refuses are refused', () => {
    for (const x of [
      Object.assign(new Number(1), { valueOf: () => NaN }),
      Object.assign(new Number(1), { valueOf: () => 'not a number' }),
      Object.assign(new String('x'), { toString: () => '\udc00' }),
      Object.assign(new String('x'), { [Symbol.toPrimitive]: () => ({}) }),
      Object.assign(new Number(1), { valueOf: () => 1n }),
    ]) {
      encodeError(() => list.encode(result(x)));
    }
  });

  test('member order: integer keys first, ascending, then names in the order they were made', () => {
    const x = { b: 1, 10: 2, a: 3, 2: 4, '-1': 5, '01': 6, 4294967295: 7, 4294967294: 8 };
    same(x);
    expect(new TextDecoder().decode(list.encode(result(x)))).toContain('{"2":4,"10":2,"4294967294":8,"b":1,"a":3,"-1":5,"01":6,"4294967295":7}');
  });

  test('strings: escapes as QuoteJSONString writes them, U+2028 and U+2029 and DEL as they are, pairs as UTF-8', () => {
    const all = Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)).join('');
    same({ all, seps: '\u2028\u2029', emoji: '😀𝄞', latin: 'café Größe', cjk: '東京', short: '"\\', long: `${all}${'x'.repeat(500)}\u2028😀${all}` });
    expect(new TextDecoder().decode(list.encode(result('\u2028\u007f')))).toContain('"x":"\u2028\u007f"');
    expect(new TextDecoder().decode(list.encode(result('\u0000\u001f\b')))).toContain('"x":"\\u0000\\u001f\\b"');
  });

  test('long strings: every length around the native path and its segments, with an escape anywhere', () => {
    for (const n of [127, 128, 129, 200, 8191, 8192, 8193]) {
      same('a'.repeat(n));
      same('é'.repeat(n));
      same(`${'😀'.repeat(n >> 1)}x`);
      for (const at of [0, 63, 64, n >> 1, n - 1]) {
        same(`${'b'.repeat(at)}"${'c'.repeat(n - at)}`);
        same(`${'ü'.repeat(at)}\n${'東'.repeat(n - at)}`);
        encodeError(() => list.encode(result(`${'b'.repeat(at)}\ud800${'c'.repeat(n - at)}`)));
        encodeError(() => list.encode(result(`${'é'.repeat(at)}\udfff${'c'.repeat(n - at)}`)));
      }
    }
  });

  test('long strings of every make-up: the native path and its word-at-a-time scan agree with JSON.stringify', () => {
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 300 }).map(withoutEscapes) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '東', '😀', '\u2028', '\ufffd', '\ud800', '\udfff'),
      },
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.string({ maxLength: 3 }), (pieces, lead) => {
        const s = pieces.join('');
        // `lead` moves the string's first byte across the scan's word boundaries.
        const x = { [lead]: s };
        if (!isWellFormed(s) || !isWellFormed(lead)) {
          encodeError(() => list.encode(result(x)));
          return;
        }
        expect(list.encode(result(x))).toEqual(stringified(result(x)));
      }),
      { numRuns: 400 },
    );
  });

  test('long strings with escapes, dense and sparse, at every offset of a word, in one segment and across several, are escaped in place as JSON.stringify escapes them', () => {
    const escapes = ['"', '\\', '\n', '\t', '\u0000', '\u001f', '\b', '\f', '\r'];
    for (const e of escapes) {
      // An escape near the start sends the string through RAW; one past the look-ahead, after a scan that finds it.
      for (const head of [0, 1, 2, 3, 4, 5, 70, 71, 72, 73]) {
        same(`${'a'.repeat(head)}${e}${'b\u007f'.repeat(100)}`);
        same(`${'a'.repeat(head)}${`${e}xyz`.repeat(60)}é${e}`);
        same(`${'a'.repeat(head)}${e.repeat(300)}`);
      }
    }
    // Every byte escaped, across segment boundaries: six bytes for one, the scratch buffer grown as it goes.
    for (const n of [8191, 8192, 8193, 20000]) {
      same('\u0001'.repeat(n));
      same(`"${'\\'.repeat(n)}`);
      same(`${'\n東'.repeat(n >> 1)}😀`);
    }
    for (const at of [0, 3, 64, 8191, 8192]) encodeError(() => list.encode(result(`${'\n'.repeat(at)}\ud800${'\n'.repeat(200)}`)));
  });

  test('a pair split by a segment boundary of the native path stays a pair', () => {
    for (const lead of [8190, 8191, 8192, 16383]) same(`${'a'.repeat(lead)}${'😀'.repeat(10)}`);
  });

  test('numbers: Number::toString, and -0 as 0', () => {
    same([
      0,
      -0,
      1,
      -1,
      0.1,
      -0.5,
      1e21,
      1e-7,
      123456789012345680000,
      5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      2 ** 31,
      -(2 ** 31),
      2 ** 53 + 2,
      1 / 3,
    ]);
    for (let k = -30; k <= 30; k++) same([10 ** k, -(10 ** k), 2 ** k, 1.5 * 10 ** k]);
  });

  test('what JSON.stringify leaves out: symbol keys, members that are not enumerable, inherited members, and undefined', () => {
    const o: Record<string | symbol, unknown> = { kept: 1, gone: undefined, [Symbol('s')]: 2 };
    Object.defineProperty(o, 'hidden', { value: 3, enumerable: false });
    const child = Object.create({ inherited: 4 });
    child.own = 5;
    same({ o, child });
  });

  test('__proto__ as an own member is written, and decodes as an own member', () => {
    const x = JSON.parse('{"__proto__":{"a":1},"b":2}');
    same(x);
    const decoded = list.decode(list.encode(result(x))) as { result: { _meta: { x: object } } };
    expect(Object.keys(decoded.result._meta.x)).toEqual(['__proto__', 'b']);
  });

  test('objects of every kind: null prototype, class instances, Map, Set, typed arrays, Date, arrays with extra members', () => {
    class Point {
      x = 1;
      y = 2;
      get norm() {
        return 3;
      }
    }
    const extra = Object.assign([1, 2], { extra: 'not written' });
    same({
      bare: Object.assign(Object.create(null), { a: 1 }),
      point: new Point(),
      map: new Map([[1, 2]]),
      set: new Set([1]),
      typed: Uint8Array.of(1, 2),
      date: new Date(0),
      bad: new Date(NaN),
      extra,
    });
  });

  test('an encode called from inside toJSON gets its own writer, and both frames are whole', () => {
    let innerBytes: Uint8Array | undefined;
    const x = {
      toJSON: () => {
        innerBytes = list.encode(error('inner'));
        return 'outer';
      },
    };
    const outer = list.encode(result(x));
    expect(outer).toEqual(stringified(result('outer')));
    expect(innerBytes).toEqual(stringified(error('inner')));
  });
});

describe('every failure is an EncodeError', () => {
  test("an exception from the value's own code, with the path and the original as the cause", () => {
    const boom = new Error('boom');
    const getter = Object.defineProperty({}, 'g', {
      enumerable: true,
      get: () => {
        throw boom;
      },
    });
    const e = encodeError(() => list.encode(result({ deep: [getter] })));
    expect(e.cause).toBe(boom);
    expect(e.path).toEqual(['_meta', 'x', 'deep', 0, 'g']);
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new TypeError('no keys');
        },
      },
    );
    expect(encodeError(() => list.encode(error(trap))).cause).toBeInstanceOf(TypeError);
    const toJSON = {
      toJSON: () => {
        throw 'a string';
      },
    };
    expect(encodeError(() => list.encode(error(toJSON))).cause).toBe('a string');
  });

  test('a cycle through a Proxy is refused as a cycle', () => {
    const o: Record<string, unknown> = { a: 1 };
    const p = new Proxy(o, {});
    o.self = p;
    expect(encodeError(() => list.encode(error(p))).message).toMatch(/a cycle/);
  });

  test('a stack overflow in a getter is an EncodeError, not a RangeError, and the next encode works', () => {
    const o: Record<string, unknown> = {};
    const deeper = (): unknown => deeper();
    Object.defineProperty(o, 'loop', { enumerable: true, get: deeper });
    const e = encodeError(() => list.encode(result(o)));
    expect(e.cause).toBeInstanceOf(RangeError);
    expect(list.encode(result(1))).toEqual(stringified(result(1)));
  });

  test('a string whose JSON text passes V8’s longest string is refused, without a RangeError, and its scratch buffer let go', () => {
    // 90 million control characters: 540 million characters once escaped,
    // past 2^29 - 24, where JSON.stringify throws a RangeError.
    const s = '\u0001'.repeat(90_000_000);
    expect(() => JSON.stringify(s)).toThrow(RangeError);
    const e = encodeError(() => list.encode(result(s)));
    expect(e.message).toMatch(/longer than 536870888 characters/);
    expect(scratchStats().bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  test('a frame over the byte limit is refused before its bytes are allocated', () => {
    const limits = { bytes: 1024 * 1024, units: FRAME_LIMITS.units };
    const before = process.memoryUsage().arrayBuffers;
    // One long string: refused from its length, before any byte of it is written.
    const e = encodeError(() => writeFrame(TAG_RESULT, { s: 'x'.repeat(50_000_000) }, () => null, limits));
    expect(e.message).toMatch(/longer than 1048576 bytes/);
    // Many short ones: refused once the bytes written pass the limit.
    const many = Array.from({ length: 100_000 }, (_, k) => `item ${k} ${'é'.repeat(20)}`);
    encodeError(() => writeFrame(TAG_RESULT, many, () => null, limits));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
    // At the limit exactly, accepted.
    const fits = writeFrame(TAG_RESULT, 'y'.repeat(limits.bytes - 3), () => null, limits);
    expect(fits.length).toBe(limits.bytes);
    encodeError(() => writeFrame(TAG_RESULT, 'y'.repeat(limits.bytes - 2), () => null, limits));
  });

  test('a body over the code-unit limit is refused; the limit counts UTF-16 code units, not bytes', () => {
    const limits = { bytes: FRAME_LIMITS.bytes, units: 1000 };
    // 998 characters and two quotes: 1000 code units, 2995 bytes.
    expect(writeFrame(TAG_ERROR, '東'.repeat(998), () => null, limits).length).toBe(1 + 2 + 3 * 998);
    encodeError(() => writeFrame(TAG_ERROR, '東'.repeat(999), () => null, limits));
    // An escape counts every character it writes.
    expect(writeFrame(TAG_ERROR, '\u0001'.repeat(166), () => null, limits).length).toBe(1 + 2 + 6 * 166);
    encodeError(() => writeFrame(TAG_ERROR, '\u0001'.repeat(167), () => null, limits));
    // Pairs are two code units and four bytes.
    expect(writeFrame(TAG_ERROR, '😀'.repeat(499), () => null, limits).length).toBe(1 + 2 + 4 * 499);
    encodeError(() => writeFrame(TAG_ERROR, `${'😀'.repeat(499)}x`, () => null, limits));
  });

  test('an allocation that fails is an EncodeError', () => {
    const real = globalThis.Uint8Array;
    class Failing extends real {
      constructor(...args: unknown[]) {
        if (typeof args[0] === 'number' && args[0] >= 1024) throw new RangeError('Array buffer allocation failed');
        super(...(args as [number]));
      }
    }
    globalThis.Uint8Array = Failing as unknown as Uint8ArrayConstructor;
    let e: EncodeError;
    try {
      // A writer of its own (limits given), so its first buffer is allocated now.
      e = encodeError(() => writeFrame(TAG_RESULT, 'x', () => null, { ...FRAME_LIMITS }));
    } finally {
      globalThis.Uint8Array = real;
    }
    expect(e.message).toMatch(/could not be allocated/);
  });
});

describe('buffers', () => {
  test('a steady stream of frames reuses one scratch buffer: no allocation after the first', () => {
    const big = { resources: [], _meta: { text: 'z'.repeat(1 << 20) } };
    list.encode({ kind: 'result', result: big });
    const { allocations } = scratchStats();
    for (let k = 0; k < 20; k++) list.encode({ kind: 'result', result: k % 2 ? big : { resources: [] } });
    expect(scratchStats().allocations).toBe(allocations);
  });

  test('frames under 4096 bytes are carved from shared 8 KiB slabs, each exact and untouched by the frames after it', () => {
    const frames: Uint8Array[] = [];
    const wanted: Uint8Array[] = [];
    const before = scratchStats().slabs;
    for (let k = 0; k < 400; k++) {
      const value = result({ k, text: 'a'.repeat(k * 7) });
      frames.push(list.encode(value));
      wanted.push(stringified(value));
    }
    let bytes = 0;
    for (let k = 0; k < frames.length; k++) {
      expect(frames[k]).toEqual(wanted[k]);
      expect(frames[k].byteLength).toBe(wanted[k].length);
      if (frames[k].length < POOLED) expect(frames[k].buffer.byteLength).toBe(8192);
      bytes += frames[k].length + 8;
    }
    // A slab holds what fits of 8 KiB, each frame on an 8-byte boundary.
    const slabs = scratchStats().slabs - before;
    expect(slabs).toBeGreaterThan(1);
    expect(slabs).toBeLessThanOrEqual(Math.ceil(bytes / 4096) + 1);
    // A frame of 4096 bytes or more has a buffer of exactly its length.
    const long = list.encode(result('b'.repeat(5000)));
    expect(long.buffer.byteLength).toBe(long.length);
    expect(long.byteOffset).toBe(0);
  });

  test('a small frame whose slab was transferred away does not break the next: it starts a new slab', () => {
    const first = list.encode(result(1));
    const moved = structuredClone(first.buffer, { transfer: [first.buffer] });
    expect(moved.byteLength).toBe(8192);
    expect(first.length).toBe(0);
    const before = scratchStats().slabs;
    expect(list.encode(result(2))).toEqual(stringified(result(2)));
    expect(scratchStats().slabs).toBe(before + 1);
  });

  test('a scratch buffer above 16 MiB is let go after the call that needed it', () => {
    const huge = { resources: [], _meta: { text: 'z'.repeat(20 << 20) } };
    expect(list.encode({ kind: 'result', result: huge }).length).toBeGreaterThan(20 << 20);
    expect(scratchStats().bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  test("a character to escape or encode at any place in a short string, whatever four-character word it falls in, is JSON.stringify's", () => {
    // string() writes four plain characters at a time, then one at a time: each odd character at each offset of
    // strings of 1 to 13 characters crosses every boundary of those words, and the tail after the last one.
    let checked = 0;
    for (const c of ODD) {
      for (const s of placed(c)) {
        expect(list.encode(result(s))).toEqual(stringified(result(s)));
        checked++;
      }
    }
    expect(checked).toBe(910);
    // A lone surrogate there is refused, wherever it falls.
    for (const lone of placed('\ud800')) expect(() => list.encode(result(lone))).toThrow(EncodeError);
  });

  test("a character to escape or encode at any place in a short member name is JSON.stringify's", () => {
    // name() writes a short name with a loop of its own, and hands the whole name to string() once it meets a
    // character it does not write as it is: each odd character at each offset of names of 1 to 13 characters.
    let checked = 0;
    for (const c of ODD) {
      for (const name of placed(c)) {
        const named = { [name]: 1, after: name.length };
        expect(list.encode(result(named))).toEqual(stringified(result(named)));
        checked++;
      }
    }
    expect(checked).toBe(910);
    for (const name of placed('\udc00')) expect(() => list.encode(result({ [name]: 1 }))).toThrow(EncodeError);
  });

  test("member names, short, long, escaped and non-ASCII, are JSON.stringify's", () => {
    for (let k = 0; k < 3; k++) {
      const many = Object.fromEntries(Array.from({ length: 1000 }, (_, j) => [`name-${k}-${j}`, j]));
      expect(list.encode(result(many))).toEqual(stringified(result(many)));
    }
    const odd = { ['n'.repeat(64)]: 1, ['n'.repeat(65)]: 2, 'quote"d': 3, café: 4, 'tab\there': 5, 'back\\slash': 6, '😀': 7, '': 8 };
    expect(list.encode(result(odd))).toEqual(stringified(result(odd)));
  });

  test('what encode returns is a copy of exactly the frame, not a view of the scratch', () => {
    const a = list.encode(result('first'));
    const b = list.encode(result('second'));
    expect(a.length).toBe(stringified(result('first')).length);
    expect(a.buffer).not.toBe(scratchStats().buffer);
    expect(new TextDecoder().decode(a)).toContain('"first"');
    expect(new TextDecoder().decode(b)).toContain('"second"');
  });
});
