// fast-check generators for frames and record streams, shared by the property and differential suites.

import fc from 'fast-check';
import type { ListResourcesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorObject } from '../../src/frame/frame.js';
import { listResources } from '../../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../../src/records/record.js';
import { concat, utf8 } from './bytes.js';

// ---------------------------------------------------------------------------
// Text: all of Unicode, never a lone surrogate.

/** Strings over every code point (binary: any scalar value; grapheme: whole clusters), and ASCII. */
export const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ufeff', '\uffff', '😀', '\u{10ffff}', '\ud83d\ude00'),
);

/** Any JSON value, its strings over all of Unicode. */
export const json: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
  fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' }),
);

/** Member names no schema knows: the prefix keeps them off the SDK's own names. */
const unknownName = text.map((s) => `vendor-${s}`);

/** Unknown members, for any object. */
export const unknownMembers = fc.dictionary(unknownName, json, { maxKeys: 3 });

/** `_meta` with arbitrary JSON inside; the prefix keeps its names off the SDK's reserved ones. */
export const meta = fc.dictionary(
  text.map((s) => `x-${s}`),
  json,
  { maxKeys: 3 },
);

const withUnknown = <T extends object>(arb: fc.Arbitrary<T>) => fc.tuple(arb, unknownMembers).map(([v, extra]) => ({ ...extra, ...v }));

// ---------------------------------------------------------------------------
// Results.

const resource = withUnknown(
  fc.record(
    {
      uri: text,
      name: text,
      title: text,
      description: text,
      mimeType: text,
      size: fc.nat(),
      _meta: meta,
    },
    { requiredKeys: ['uri', 'name'] },
  ),
);

export const listResourcesResult: fc.Arbitrary<ListResourcesResult> = withUnknown(
  fc.record({ resources: fc.array(resource, { maxLength: 4 }), nextCursor: text, _meta: meta }, { requiredKeys: ['resources'] }),
) as fc.Arbitrary<ListResourcesResult>;

const base64 = fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));

const contents = fc.oneof(
  withUnknown(fc.record({ uri: text, mimeType: text, text, _meta: meta }, { requiredKeys: ['uri', 'text'] })),
  withUnknown(fc.record({ uri: text, mimeType: text, blob: base64, _meta: meta }, { requiredKeys: ['uri', 'blob'] })),
);

export const readResourceResult: fc.Arbitrary<ReadResourceResult> = withUnknown(
  fc.record({ contents: fc.array(contents, { maxLength: 4 }), _meta: meta }, { requiredKeys: ['contents'] }),
) as fc.Arbitrary<ReadResourceResult>;

/** An MCP server's error: any 32-bit code, any message, data of any JSON (null included) or none. */
export const errorObject: fc.Arbitrary<ErrorObject> = withUnknown(
  fc.record(
    {
      code: fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constantFrom(-32601, -32602, -32002, -32603, -32700)),
      message: text,
      data: fc.oneof(json, fc.constant(null)),
    },
    { requiredKeys: ['code', 'message'] },
  ),
) as fc.Arbitrary<ErrorObject>;

// ---------------------------------------------------------------------------
// Frames, valid and not.

const frame = (tag: number, value: unknown) => concat(Uint8Array.of(tag), utf8(JSON.stringify(value)));

/** Payloads a list-resources channel may carry: results, MCP errors, and every kind of frame error. */
export const listPayload: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 4, arbitrary: listResourcesResult.map((v) => listResources.encode({ kind: 'result', result: v })) },
  { weight: 2, arbitrary: errorObject.map((e) => listResources.encode({ kind: 'error', error: e })) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      new Uint8Array(0),
      Uint8Array.of(0x02),
      concat(Uint8Array.of(0xff), utf8('{"resources":[]}')),
      Uint8Array.of(0x00),
      utf8('\u0000{"resources":[]} x'),
      utf8('\u0000{"resources":null}'),
      utf8('\u0001{"code":2147483648,"message":"x"}'),
      utf8('\u0000{"resources":[],"_meta":{"x":1e400}}'),
      utf8('\u0000{"resources":[{"uri":"\\ud800","name":"n"}]}'),
      concat(utf8('\u0000{"resources":[{"uri":"'), Uint8Array.of(0xc0, 0x80), utf8('","name":"n"}]}')),
      frame(0x00, { resources: [{ uri: 'u', name: 'n' }] }),
    ),
  },
);

// ---------------------------------------------------------------------------
// Record streams.

export type StreamOp = { op: 'response'; channel: number; payload: Uint8Array } | { op: 'finish'; channel: number };

const channel = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 32 - 1, 256, 65536) },
);

/**
 * Responses and finishes on a few channels: exchanges interleaved at
 * random, channels reused, second responses (violations), finishes with
 * nothing before them (not carried) and exchanges never finished.
 */
export const streamOps: fc.Arbitrary<StreamOp[]> = fc
  .tuple(
    fc.array(
      fc.record({
        channel,
        responses: fc.oneof(
          { weight: 6, arbitrary: fc.constant(1) },
          { weight: 2, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.constant(2) },
        ),
        payloads: fc.array(listPayload, { minLength: 2, maxLength: 2 }),
        finished: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      }),
      { maxLength: 7 },
    ),
    fc.array(fc.nat(), { minLength: 24, maxLength: 24 }),
  )
  .map(([exchanges, picks]) => {
    const lists: StreamOp[][] = exchanges.map((x) => {
      const ops: StreamOp[] = [];
      for (let k = 0; k < x.responses; k++) ops.push({ op: 'response', channel: x.channel, payload: x.payloads[k] });
      if (x.finished) ops.push({ op: 'finish', channel: x.channel });
      return ops;
    });
    const out: StreamOp[] = [];
    for (let step = 0; ; step++) {
      const left = lists.filter((l) => l.length > 0);
      if (left.length === 0) return out;
      out.push(left[picks[step % picks.length] % left.length].shift()!);
    }
  });

/** Like streamOps, but every exchange is a response then its finish: a stream with no sequence faults. */
export const exchangeOps: fc.Arbitrary<StreamOp[]> = fc.array(fc.tuple(channel, listPayload, fc.boolean()), { maxLength: 8 }).map((xs) => {
  const ops: StreamOp[] = [];
  for (const [c, payload, carried] of xs) {
    if (carried) ops.push({ op: 'response', channel: c, payload });
    ops.push({ op: 'finish', channel: c });
  }
  return ops;
});

export function writeStream(ops: readonly StreamOp[]): Uint8Array {
  return concat(...ops.map((o) => (o.op === 'response' ? encodeResponse(o.channel, o.payload) : encodeFinish(o.channel))));
}

/** What may follow the records: nothing, a bad record, or the stream cut short. */
export const streamTail = fc.oneof(
  { weight: 4, arbitrary: fc.constant(new Uint8Array(0)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      Uint8Array.of(0x03),
      Uint8Array.of(0x00, 0, 0, 0, 0, 0, 0, 0, 0),
      Uint8Array.of(0x02, 1, 0, 0, 0, 5, 0, 0, 0),
      Uint8Array.of(0x01, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(0x01, 1, 0, 0),
      Uint8Array.of(0x01, 9, 0, 0, 0, 20, 0, 0, 0, 0x00, 0x7b),
    ),
  },
);

/** Limits that streams of this size can reach. */
export const streamLimits = fc.record(
  {
    maxOpenChannels: fc.integer({ min: 1, max: 4 }),
    maxFrameBytes: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 2000, max: 100_000 })),
  },
  { requiredKeys: [] },
);

// ---------------------------------------------------------------------------
// Mutation.

const INTERESTING = [
  0x00, 0x01, 0x02, 0x03, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x22, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x39, 0x3a, 0x45, 0x5b, 0x5c, 0x5d,
  0x65, 0x6e, 0x74, 0x75, 0x7b, 0x7d, 0x7f, 0x80, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
];

const aByte = fc.oneof(fc.constantFrom(...INTERESTING), fc.integer({ min: 0, max: 255 }));

export type Mutation =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'set'; at: number; byte: number }
  | { op: 'insert'; at: number; bytes: number[] }
  | { op: 'delete'; at: number; n: number }
  | { op: 'truncate'; at: number }
  | { op: 'repeat'; at: number; n: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: aByte }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.array(aByte, { minLength: 1, maxLength: 4 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 12 }) }),
);

/** `bytes` with the mutations applied in turn (positions wrap around the current length). */
export function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let b = Array.from(bytes);
  for (const m of mutations) {
    const at = b.length === 0 ? 0 : m.at % (b.length + (m.op === 'insert' ? 1 : 0));
    switch (m.op) {
      case 'flip':
        if (b.length) b[at] ^= 1 << m.bit;
        break;
      case 'set':
        if (b.length) b[at] = m.byte;
        break;
      case 'insert':
        b.splice(at, 0, ...m.bytes);
        break;
      case 'delete':
        b.splice(at, m.n);
        break;
      case 'truncate':
        b = b.slice(0, at);
        break;
      case 'repeat':
        b.splice(at, 0, ...b.slice(at, at + m.n));
        break;
    }
  }
  return Uint8Array.from(b);
}

export const mutations = fc.array(mutation, { minLength: 1, maxLength: 3 });

/** Random cut points for a stream of some length (wrapped with % (length + 1)). */
export const cuts = fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 12 });
