// Generated inputs, per backend: round trips, chunk independence, the truncation sweep, and junk that yields only documented answers.

import fc from 'fast-check';
import { ListResourcesResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import {
  cuts,
  errorObject,
  exchangeOps,
  listPayload,
  listResourcesResult,
  mutate,
  mutations,
  readResourceResult,
  streamLimits,
  streamOps,
  streamTail,
  text,
  writeStream,
} from './support/arbitraries.js';
import { concat, splitAt, utf8 } from './support/bytes.js';
import { decodeChunks, plainEvents } from './support/events.js';
import { recordSpans, referenceEvents } from './support/model.js';
import { listResources, readResource } from '../src/frame/endpoints.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { FrameError } from '../src/frame/frame-error.js';
import type { Frame } from '../src/frame/frame.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import { ErrorObjectSchema } from '../src/contract/schema.js';
import { StreamDecoder } from '../src/exchange/decoder.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import type { StreamEvent } from '../src/exchange/outcome.js';

const FRAME_REASONS = ['empty', 'unknown-tag', 'body'];
const BODY_RULES = [
  'json-syntax',
  'json-end',
  'utf8',
  'bom',
  'control-char',
  'bad-escape',
  'lone-surrogate',
  'number-range',
  'depth',
  'trailing',
  'schema',
  'code-range',
];
const OUTCOMES = ['result', 'error', 'frame-error', 'not-carried', 'sequence-violation', 'incomplete'];
const RECORD_REASONS = ['bad-kind', 'bad-finish', 'oversize', 'too-many-channels', 'truncated'];

const roundTripped = (v: unknown) => JSON.parse(JSON.stringify(v));
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** A frame or FrameError is one of the documented answers, and whatever decode accepts, the SDK accepts (WIRE.md rule 4.2). */
function checkFrameAnswer(got: Frame<unknown> | FrameError, payload: Uint8Array, codec: FrameCodec<unknown>): void {
  if (got instanceof FrameError) {
    expect(FRAME_REASONS).toContain(got.reason);
    if (got.reason === 'empty') expect(payload.length).toBe(0);
    if (got.reason === 'unknown-tag') {
      expect(got.tag).toBe(payload[0]);
      expect(payload[0]).toBeGreaterThan(1);
    }
    if (got.reason === 'body') {
      expect(BODY_RULES).toContain(got.rule);
      expect(Number.isInteger(got.offset)).toBe(true);
      expect(got.offset).toBeGreaterThanOrEqual(1);
      expect(got.offset).toBeLessThanOrEqual(payload.length);
    }
    return;
  }
  if (got.kind === 'result') {
    expect(payload[0]).toBe(0x00);
    expect(codec.schema.safeParse(got.result).success).toBe(true);
  } else {
    expect(got.kind).toBe('error');
    expect(payload[0]).toBe(0x01);
    expect(ErrorObjectSchema.safeParse(got.error).success).toBe(true);
    expect(got.error.code).toBeGreaterThanOrEqual(-(2 ** 31));
    expect(got.error.code).toBeLessThanOrEqual(2 ** 31 - 1);
  }
  // What was accepted is what JSON.parse makes of the bytes.
  expect(got.kind === 'result' ? got.result : got.error).toStrictEqual(JSON.parse(new TextDecoder().decode(payload.subarray(1))));
}

/** Decoder events are outcomes of the six kinds, then exactly one StreamEnd, last. */
function checkEvents(events: StreamEvent[], streamLength: number, codec: FrameCodec<unknown>): void {
  expect(events.length).toBeGreaterThan(0);
  events.forEach((e, k) => {
    if ('end' in e) {
      expect(k, 'the StreamEnd is last').toBe(events.length - 1);
      if (e.end === 'record-error') {
        expect(RECORD_REASONS).toContain(e.reason);
        expect(Number.isInteger(e.offset)).toBe(true);
        expect(e.offset).toBeGreaterThanOrEqual(0);
        expect(e.offset).toBeLessThan(Math.max(streamLength, 1));
      } else expect(e.end).toBe('ok');
      return;
    }
    expect(k).toBeLessThan(events.length - 1);
    expect(OUTCOMES).toContain(e.outcome);
    expect(Number.isInteger(e.channel) && e.channel >= 0 && e.channel <= 2 ** 32 - 1).toBe(true);
    if (e.outcome === 'frame-error') {
      expect(e.fault).toBeInstanceOf(FrameError);
      expect(FRAME_REASONS).toContain(e.fault.reason);
    }
    if (e.outcome === 'result') expect(codec.schema.safeParse(e.result).success).toBe(true);
    if (e.outcome === 'error') expect(ErrorObjectSchema.safeParse(e.error).success).toBe(true);
  });
  expect('end' in events[events.length - 1]).toBe(true);
}

describe.each(BACKEND_ROWS)('properties on %s', (_name, backend) => {
  const list = listResources.withBackend(backend);
  const read = readResource.withBackend(backend);

  describe('(a) round trips', () => {
    test('ListResourcesResult: decode(encode(v)) deep-equals JSON.parse(JSON.stringify(v))', () => {
      fc.assert(
        fc.property(listResourcesResult, (v) => {
          const frame = list.decode(list.encode({ kind: 'result', result: v }));
          expect(frame).toStrictEqual({ kind: 'result', result: roundTripped(v) });
          expect(ListResourcesResultSchema.safeParse((frame as { result: unknown }).result).success).toBe(true);
        }),
        { numRuns: 250 },
      );
    });

    test('ReadResourceResult, text and blob contents', () => {
      fc.assert(
        fc.property(readResourceResult, (v) => {
          const frame = read.decode(read.encode({ kind: 'result', result: v }));
          expect(frame).toStrictEqual({ kind: 'result', result: roundTripped(v) });
          expect(ReadResourceResultSchema.safeParse((frame as { result: unknown }).result).success).toBe(true);
        }),
        { numRuns: 250 },
      );
    });

    test('MCP error objects, on both codecs', () => {
      fc.assert(
        fc.property(errorObject, (error) => {
          for (const codec of [list, read]) {
            const frame = codec.decode(codec.encode({ kind: 'error', error }));
            expect(frame).toStrictEqual({ kind: 'error', error: roundTripped(error) });
          }
        }),
        { numRuns: 250 },
      );
    });

    test('a lone surrogate anywhere is refused: by encode, and by decode as lone-surrogate', () => {
      const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u));
      fc.assert(
        fc.property(text, lone, text, fc.constantFrom('uri', 'name', 'member', 'meta-name'), (before, s, after, where) => {
          const bad = before + s + after;
          // A surrogate next to its partner is a pair, not a lone one.
          fc.pre(!isWellFormed(bad));
          const result: Record<string, unknown> =
            where === 'uri'
              ? { resources: [{ uri: bad, name: 'n' }] }
              : where === 'name'
                ? { resources: [{ uri: 'u', name: bad }] }
                : where === 'member'
                  ? { resources: [], [bad]: 1 }
                  : { resources: [], _meta: { [bad]: [1] } };
          expect(() => list.encode({ kind: 'result', result: result as never })).toThrow(EncodeError);
          // JSON.stringify writes a lone surrogate as a \u escape; decode refuses it at that backslash.
          const payload = concat(Uint8Array.of(0), utf8(JSON.stringify(result)));
          const fault = list.tryDecode(payload);
          expect(fault).toBeInstanceOf(FrameError);
          expect((fault as FrameError).rule).toBe('lone-surrogate');
          expect(payload[(fault as FrameError).offset!]).toBe(0x5c);
        }),
        { numRuns: 250 },
      );
    });
  });

  test('encode, given any JS value at all, writes bytes that round trip or throws an EncodeError, nothing else', () => {
    const anything = fc.anything({
      withBoxedValues: true,
      withBigInt: true,
      withMap: true,
      withSet: true,
      withObjectString: true,
      withNullPrototype: true,
      withTypedArray: true,
      withSparseArray: true,
      withDate: true,
      withUnicodeString: true,
      maxDepth: 4,
    });
    fc.assert(
      fc.property(anything, fc.boolean(), (x, asError) => {
        const frame = (
          asError ? { kind: 'error', error: { code: -1, message: 'm', data: x } } : { kind: 'result', result: { resources: [], _meta: { x } } }
        ) as Frame<unknown>;
        let bytes: Uint8Array;
        try {
          bytes = (list as unknown as FrameCodec<unknown>).encode(frame);
        } catch (e) {
          expect(e).toBeInstanceOf(EncodeError);
          return;
        }
        const body = frame.kind === 'result' ? frame.result : frame.error;
        expect(new TextDecoder().decode(bytes.subarray(1))).toBe(JSON.stringify(body));
        expect(list.decode(bytes)).toStrictEqual({ ...frame, [frame.kind]: roundTripped(body) });
      }),
      { numRuns: 600 },
    );
  });

  test('a schema refusal points at the refused value, however the body is laid out', () => {
    const notAString = fc.constantFrom(5, null, true, false, -1.5e3, 0);
    fc.assert(
      fc.property(listResourcesResult, fc.nat(), notAString, fc.constantFrom(0, 1, 2, '\t', ' \r\n'), (v, pick, bad, indent) => {
        fc.pre(v.resources.length > 0);
        const k = pick % v.resources.length;
        const broken = { ...v, resources: v.resources.map((r, j) => (j === k ? { ...r, uri: bad } : r)) };
        const payload = concat(Uint8Array.of(0), utf8(JSON.stringify(broken, null, indent as never)));
        const fault = list.tryDecode(payload);
        expect(fault).toBeInstanceOf(FrameError);
        const e = fault as FrameError;
        expect(e.rule).toBe('schema');
        expect(new TextDecoder().decode(payload.subarray(e.offset)).startsWith(JSON.stringify(bad))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  describe('(b) chunk independence', () => {
    test('splitting a stream anywhere changes no event, and the events are what WIRE.md says', () => {
      fc.assert(
        fc.property(streamOps, streamTail, streamLimits, cuts, fc.boolean(), (ops, tail, limits, points, useLimits) => {
          const whole = concat(writeStream(ops), tail);
          const options = { endpoint: list, backend, ...(useLimits ? limits : {}) };
          const once = plainEvents(decodeChunks([whole], options));
          const split = plainEvents(
            decodeChunks(
              splitAt(
                whole,
                points.map((p) => p % (whole.length + 1)),
              ),
              options,
            ),
          );
          expect(split).toEqual(once);
          expect(once).toEqual(referenceEvents(whole, list, useLimits ? limits : {}));
        }),
        { numRuns: 350 },
      );
    });

    test('a byte at a time too', () => {
      fc.assert(
        fc.property(streamOps, streamTail, (ops, tail) => {
          const whole = concat(writeStream(ops), tail);
          const options = { endpoint: list, backend };
          const bytes = Array.from(whole, (x) => Uint8Array.of(x));
          expect(plainEvents(decodeChunks(bytes, options))).toEqual(plainEvents(decodeChunks([whole], options)));
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('(c) truncation sweep', () => {
    const RESULT = list.encode({ kind: 'result', result: { resources: [{ uri: 'file:///a', name: 'a' }] } });
    const ERROR = list.encode({ kind: 'error', error: { code: -32602, message: 'Invalid params', data: null } });
    const FIXED: Uint8Array[] = [
      concat(encodeResponse(1, RESULT), encodeFinish(1)),
      concat(
        encodeResponse(1, RESULT),
        encodeResponse(2, ERROR),
        encodeFinish(7),
        encodeResponse(3, Uint8Array.of(0x05)),
        encodeFinish(2),
        encodeResponse(4, new Uint8Array(0)),
        encodeFinish(1),
        encodeResponse(1, ERROR),
        encodeFinish(4),
        encodeFinish(3),
        encodeFinish(1),
      ),
      concat(encodeResponse(0, RESULT), encodeResponse(0, ERROR), encodeResponse(2 ** 32 - 1, RESULT), encodeFinish(0), encodeFinish(2 ** 32 - 1)),
    ];

    /** Every prefix of `stream`: the outcomes of whole finishes, then incomplete in opening order, then truncated exactly when a record is cut. */
    function sweep(stream: Uint8Array): void {
      const spans = recordSpans(stream);
      const full = plainEvents(decodeChunks([stream], { endpoint: list, backend }));
      const finishes = spans.filter((s) => s.kind === 2).length;
      expect(full.at(-1)).toEqual({ end: 'ok' });
      const atFinish = full.slice(0, finishes); // a stream whose records are all whole: one outcome per finish, then the open ones

      for (let p = 0; p <= stream.length; p++) {
        const d = new StreamDecoder({ endpoint: list, backend });
        const pushed = plainEvents(d.push(stream.slice(0, p)));
        const ended = plainEvents(d.end());

        const inside = spans.filter((s) => s.end <= p);
        expect(pushed, `prefix ${p}`).toEqual(atFinish.slice(0, inside.filter((s) => s.kind === 2).length));

        const open = new Map<number, true>();
        for (const s of inside) {
          if (s.kind === 1) {
            if (!open.has(s.channel)) open.set(s.channel, true);
          } else open.delete(s.channel);
        }
        const cut = spans.find((s) => s.offset < p && p < s.end);
        expect(ended, `prefix ${p}`).toEqual([
          ...[...open.keys()].map((channel) => ({ channel, outcome: 'incomplete' })),
          cut ? { end: 'record-error', reason: 'truncated', offset: cut.offset } : { end: 'ok' },
        ]);
      }
    }

    test.each(FIXED.map((s, k) => [k, s] as const))('fixed stream %i', (_k, stream) => sweep(stream));

    test('generated streams', () => {
      fc.assert(
        fc.property(fc.oneof(exchangeOps, streamOps), (ops) => sweep(writeStream(ops))),
        { numRuns: 25 },
      );
    });
  });

  describe('(d) junk yields only documented answers, and (e) what is accepted the SDK accepts', () => {
    test('mutated frames through tryDecode', () => {
      fc.assert(
        fc.property(listPayload, mutations, (payload, ms) => {
          const bytes = mutate(payload, ms);
          checkFrameAnswer(list.tryDecode(bytes), bytes, list);
          checkFrameAnswer(read.tryDecode(bytes), bytes, read);
        }),
        { numRuns: 700 },
      );
    });

    test('mutated read-resource frames', () => {
      fc.assert(
        fc.property(readResourceResult, mutations, (v, ms) => {
          const bytes = mutate(read.encode({ kind: 'result', result: v }), ms);
          checkFrameAnswer(read.tryDecode(bytes), bytes, read);
        }),
        { numRuns: 200 },
      );
    });

    test('random bytes through tryDecode, with and without a valid tag', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), fc.option(fc.constantFrom(0, 1), { nil: undefined }), (raw, tag) => {
          const bytes = tag === undefined ? raw : concat(Uint8Array.of(tag), raw);
          checkFrameAnswer(list.tryDecode(bytes), bytes, list);
        }),
        { numRuns: 300 },
      );
    });

    test('random JSON texts through tryDecode', () => {
      fc.assert(
        fc.property(fc.constantFrom(0, 1), fc.json({ maxDepth: 3 }), mutations, fc.boolean(), (tag, j, ms, mutated) => {
          const body = utf8(j);
          const bytes = concat(Uint8Array.of(tag), mutated ? mutate(body, ms) : body);
          checkFrameAnswer(list.tryDecode(bytes), bytes, list);
        }),
        { numRuns: 300 },
      );
    });

    test('mutated streams through the decoder, in random chunks', () => {
      fc.assert(
        fc.property(streamOps, mutations, cuts, (ops, ms, points) => {
          const bytes = mutate(writeStream(ops), ms);
          const options = { endpoint: list, backend, maxOpenChannels: 3 };
          const events = decodeChunks(
            splitAt(
              bytes,
              points.map((p) => p % (bytes.length + 1)),
            ),
            options,
          );
          checkEvents(events, bytes.length, list);
          expect(plainEvents(events)).toEqual(referenceEvents(bytes, list, { maxOpenChannels: 3 }));
        }),
        { numRuns: 450 },
      );
    });

    test('random bytes through the decoder', () => {
      const header = fc
        .tuple(
          fc.constantFrom(1, 2, 1, 2, 0, 3, 0xff),
          fc.integer({ min: 0, max: 3 }),
          fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(0xffffffff)),
        )
        .map(([kind, ch, len]) => Uint8Array.of(kind, ch, 0, 0, 0, len & 0xff, (len >>> 8) & 0xff, (len >>> 16) & 0xff, len >>> 24));
      const stuff = fc.array(fc.oneof(header, fc.uint8Array({ maxLength: 12 })), { maxLength: 8 }).map((xs) => concat(...xs));
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), stuff), cuts, (bytes, points) => {
          const options = { endpoint: list, backend };
          const events = decodeChunks(
            splitAt(
              bytes,
              points.map((p) => p % (bytes.length + 1)),
            ),
            options,
          );
          checkEvents(events, bytes.length, list);
          expect(plainEvents(events)).toEqual(referenceEvents(bytes, list));
        }),
        { numRuns: 300 },
      );
    });

    test('a header declaring 0xFFFFFFFF bytes is refused as oversize at once, without allocating', () => {
      for (const limits of [{}, { maxFrameBytes: 2 ** 32 - 2 }]) {
        const head = concat(encodeResponse(1, Uint8Array.of(0x02)), encodeFinish(1));
        const big = Uint8Array.of(0x01, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff);
        const d = new StreamDecoder({ endpoint: list, backend, ...limits });
        expect(plainEvents(d.push(head))).toEqual([{ channel: 1, outcome: 'frame-error', fault: { reason: 'unknown-tag', tag: 2, offset: 0 } }]);
        const before = process.memoryUsage().arrayBuffers;
        const events = d.push(concat(big, new Uint8Array(1024)));
        const grown = process.memoryUsage().arrayBuffers - before;
        expect(events).toEqual([{ end: 'record-error', reason: 'oversize', offset: head.length }]);
        expect(grown).toBeLessThan(1 << 20);
        expect(d.position).toBeLessThanOrEqual(head.length + 9);
        expect(d.push(new Uint8Array(1024))).toEqual([]);
        expect(d.end()).toEqual([]);
      }
    });

    test('a header declaring 0xFFFFFFFF, cut after its first bytes, is refused once the length arrives', () => {
      const d = new StreamDecoder({ endpoint: list, backend });
      expect(d.push(Uint8Array.of(0x01, 5, 0, 0, 0, 0xff))).toEqual([]);
      const before = process.memoryUsage().arrayBuffers;
      expect(d.push(Uint8Array.of(0xff, 0xff, 0xff, 0x00))).toEqual([{ end: 'record-error', reason: 'oversize', offset: 0 }]);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    });
  });
});
