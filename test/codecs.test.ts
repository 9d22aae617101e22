// Every codec in ENDPOINTS, held to one table: round trips, unknown members, MCP errors, encode refusals, type coverage.

import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { encodeError } from './support/encode-error.js';
import { BACKEND_ROWS } from './backends.js';
import { concat, utf8 } from './support/bytes.js';
import { ENDPOINTS, UNSUPPORTED_RESULTS, listResources } from '../src/frame/endpoints.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { FrameError } from '../src/frame/frame-error.js';
import type { ErrorObject, Frame } from '../src/frame/frame.js';
import { toMcpError } from '../src/frame/mcp-error.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import { COMPILED_DRIFT } from '../src/contract/schema.js';
import { TAG_ERROR, TAG_RESULT } from '../src/wire/tags.js';

interface Invalid {
  /** The body, as JSON text after the tag. */
  text: string;
  /** What the bytes at the refusal's offset start with, where the offset is known. */
  at?: string;
}

/** A decoded body walked by hand: the tests reach into members the SDK types do not name. */
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON, read member by member.
type Loose = any;

interface Row {
  /** SDK-valid results: the first carries `_meta`, an unknown top-level member and an unknown member in a nested item. */
  valid: unknown[];
  /** Bodies the SDK schema refuses. */
  invalid: Invalid[];
  /** Where in valid[0] the unknown nested member sits. */
  nested: (r: Loose) => unknown;
}

const META = { 'vendor.example/trace': { id: 't-1', hops: [1, 2, { deep: null }] }, note: 'kept' };

const TABLE: Record<string, Row> = {
  'list-resources': {
    valid: [
      {
        resources: [
          { uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain', vendor: { deep: [1, { x: null }] } },
          { uri: 'file:///b', name: 'b', title: 'B', annotations: { audience: ['user'], priority: 0.5 }, size: 12 },
        ],
        nextCursor: 'c1',
        _meta: META,
        extra: true,
      },
      { resources: [] },
    ],
    invalid: [{ text: '{"resources":[{"uri":1,"name":"a"}]}', at: '1,"name"' }, { text: '{"resources":null}', at: 'null' }, { text: '{}' }],
    nested: (r) => r.resources[0].vendor,
  },
  'read-resource': {
    valid: [
      {
        contents: [
          { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'héllo\nwörld 😀 \u0000 \u2028', vendor: 1 },
          { uri: 'file:///b.bin', blob: 'AAECAwQ=', _meta: { k: 'v' }, vendorItem: { a: [] } },
        ],
        _meta: META,
        extra: [null],
      },
      { contents: [] },
    ],
    invalid: [{ text: '{"contents":[{"uri":"u","text":5}]}' }, { text: '{"contents":[{"uri":"u","blob":"!!!"}]}' }],
    nested: (r) => r.contents[1].vendorItem,
  },
  'list-resource-templates': {
    valid: [
      {
        resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files', description: 'd', mimeType: 'text/plain', vendor: { x: 1 } }],
        nextCursor: 'n',
        _meta: META,
        extra: 'x',
      },
      { resourceTemplates: [] },
    ],
    invalid: [{ text: '{"resourceTemplates":[{"name":"x"}]}' }],
    nested: (r) => r.resourceTemplates[0].vendor,
  },
  'list-tools': {
    valid: [
      {
        tools: [
          {
            name: 'echo',
            description: 'Echo',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            annotations: { readOnlyHint: true },
            vendor: { x: 1 },
          },
        ],
        _meta: META,
        extra: 1,
      },
      { tools: [] },
    ],
    invalid: [{ text: '{"tools":[{"name":"t"}]}' }],
    nested: (r) => r.tools[0].vendor,
  },
  'call-tool': {
    valid: [
      {
        content: [
          { type: 'text', text: 'hi', vendor: 1 },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
        structuredContent: { n: 1 },
        isError: false,
        _meta: META,
        extra: 1,
      },
      { content: [] },
    ],
    invalid: [{ text: '{"content":"x"}', at: '"x"' }],
    nested: (r) => r.content[0].vendor,
  },
  'list-prompts': {
    valid: [
      {
        prompts: [{ name: 'p', description: 'd', arguments: [{ name: 'a', required: true, vendor: 2 }], vendor: 1 }],
        nextCursor: 'x',
        _meta: META,
        extra: 1,
      },
      { prompts: [] },
    ],
    invalid: [{ text: '{"prompts":[{}]}' }],
    nested: (r) => r.prompts[0].arguments[0].vendor,
  },
  'get-prompt': {
    valid: [
      {
        description: 'd',
        messages: [
          { role: 'user', content: { type: 'text', text: 'hi', vendor: 3 }, vendor: 1 },
          { role: 'assistant', content: { type: 'resource', resource: { uri: 'u', text: 't' } } },
        ],
        _meta: META,
        extra: 1,
      },
      { messages: [] },
    ],
    invalid: [{ text: '{"messages":[{"role":"robot","content":{"type":"text","text":"x"}}]}', at: '"robot"' }],
    nested: (r) => r.messages[0].content.vendor,
  },
  complete: {
    valid: [{ completion: { values: ['a', 'b'], total: 2, hasMore: false, vendor: 1 }, _meta: META, extra: 1 }, { completion: { values: [] } }],
    invalid: [{ text: '{"completion":{"values":"a"}}', at: '"a"' }],
    nested: (r) => r.completion.vendor,
  },
};

/** MCP errors as servers send them: codes that mean different things, data of every kind, and none. */
const ERRORS: [string, ErrorObject][] = [
  ['-32601 without data', { code: -32601, message: 'Method not found' }],
  ['-32602 with object data', { code: -32602, message: 'Invalid params', data: { field: 'uri' } }],
  ['-32002 with data', { code: -32002, message: 'Resource not found', data: { uri: 'file:///missing' } }],
  ['-32602 with data null', { code: -32602, message: 'Invalid params', data: null }],
  ['-32601 with array data', { code: -32601, message: 'Method not found', data: [1, 'two', { three: 3 }] }],
  ['-32603 with string data and an unknown member', { code: -32603, message: 'Internal error', data: 'trace', vendor: { x: 1 } }],
  ['lowest 32-bit code', { code: -2147483648, message: 'low' }],
  ['highest 32-bit code', { code: 2147483647, message: 'high' }],
  ['a code of 0 and an empty message', { code: 0, message: '' }],
];

const CODECS = Object.entries(ENDPOINTS);
const roundTripped = (v: unknown) => JSON.parse(JSON.stringify(v));
const frameBytes = (tag: number, value: unknown) => concat(Uint8Array.of(tag), utf8(JSON.stringify(value)));

/** `depth` arrays nested, innermost empty. */
function arrays(depth: number): unknown {
  let v: unknown[] = [];
  for (let k = 1; k < depth; k++) v = [v];
  return v;
}

test('the table covers every codec in ENDPOINTS, and nothing else', () => {
  expect(Object.keys(TABLE).sort()).toEqual(Object.keys(ENDPOINTS).sort());
});

test('every sample is what the table says it is, by the SDK schema itself', () => {
  for (const [name, row] of Object.entries(TABLE)) {
    const { schema } = ENDPOINTS[name];
    for (const v of row.valid) expect(schema.safeParse(v).success, `${name}: ${JSON.stringify(v)}`).toBe(true);
    for (const inv of row.invalid) expect(schema.safeParse(JSON.parse(inv.text)).success, `${name}: ${inv.text}`).toBe(false);
  }
});

describe('type coverage', () => {
  const resultSchemas = Object.keys(sdk).filter((k) => k.endsWith('ResultSchema'));
  const builtWith = COMPILED_DRIFT === undefined;
  const codecSchemas = new Set<unknown>(Object.values(ENDPOINTS).map((c) => c.schema));

  test('the SDK has result schemas to check', () => {
    expect(resultSchemas.length).toBeGreaterThan(5);
  });

  test.each(resultSchemas)('%s has a codec or is on UNSUPPORTED_RESULTS', (name) => {
    const schema = (sdk as Record<string, unknown>)[name];
    const covered = codecSchemas.has(schema) || Object.hasOwn(UNSUPPORTED_RESULTS, name);
    expect(covered, `${name}: no codec in ENDPOINTS uses it and UNSUPPORTED_RESULTS does not list it`).toBe(true);
  });

  test('UNSUPPORTED_RESULTS names only SDK result schemas, none with a codec, each with a reason', () => {
    for (const [name, why] of Object.entries(UNSUPPORTED_RESULTS)) {
      // An older SDK in the peer range (vitest.sdk-lowest.config.ts) lacks the schemas added since.
      if (!builtWith && !resultSchemas.includes(name)) continue;
      expect(resultSchemas, `${name} is not an SDK export`).toContain(name);
      expect(codecSchemas.has((sdk as Record<string, unknown>)[name]), `${name} has a codec too`).toBe(false);
      expect(why.length).toBeGreaterThan(0);
    }
  });

  test('every codec judges with an SDK result schema', () => {
    const exported = new Set(resultSchemas.map((k) => (sdk as Record<string, unknown>)[k]));
    for (const [name, codec] of CODECS) expect(exported.has(codec.schema), name).toBe(true);
  });
});

// Encoding does not involve a backend, so these run once.
describe('encode judges what JSON.stringify would write: boxed primitives and toJSON', () => {
  const list = listResources as unknown as FrameCodec<unknown>;
  const result = (x: unknown) => ({ kind: 'result', result: { resources: [], _meta: { x } } }) as Frame<unknown>;
  const error = (x: unknown) => ({ kind: 'error', error: { code: -32602, message: 'm', data: x } }) as Frame<unknown>;
  const refused: [string, unknown][] = [
    ['a boxed BigInt', Object(1n)],
    ['a boxed NaN', new Number(NaN)],
    ['a boxed -Infinity', new Number(-Infinity)],
    ['a toJSON that returns a BigInt', { toJSON: () => 1n }],
    ['a toJSON that returns NaN', { toJSON: () => NaN }],
    ['a toJSON that returns a lone surrogate', { toJSON: () => '\uDFFF' }],
  ];

  test.each(refused)('%s is refused with an EncodeError', (_label, x) => {
    encodeError(() => list.encode(result(x)));
    encodeError(() => list.encode(error(x)));
  });

  test('a toJSON that returns its own object: the bytes JSON.stringify writes, or an EncodeError, nothing else', () => {
    const selfish: Record<string, unknown> = { a: 1 };
    selfish.toJSON = () => selfish;
    const frame = result(selfish);
    let bytes: Uint8Array | undefined;
    try {
      bytes = list.encode(frame);
    } catch (e) {
      expect(e).toBeInstanceOf(EncodeError);
    }
    if (bytes) expect(bytes).toEqual(frameBytes(TAG_RESULT, (frame as { result: unknown }).result));
  });

  test('boxed strings and booleans are written as their primitives', () => {
    for (const x of [new String('abc'), new Boolean(false), new Number(1.5)]) {
      const bytes = list.encode(result(x));
      expect(bytes).toEqual(frameBytes(TAG_RESULT, (result(x) as { result: unknown }).result));
    }
  });
});

describe("a codec's members", () => {
  const given = BACKEND_ROWS.map(([, backend]) => backend);
  const all = CODECS.flatMap(([, codec]) => [codec, ...given.map((b) => codec.withBackend(b))]);

  test('every codec has the same members, in one order, and `backend` among them', () => {
    for (const codec of all) {
      expect(Object.keys(codec)).toEqual([
        'endpoint',
        'method',
        'schema',
        'encode',
        'encodeInto',
        'decode',
        'tryDecode',
        'validate',
        'withBackend',
        'backend',
      ]);
    }
  });

  test('`backend` is one getter for every codec, reading the codec it is asked of', () => {
    // One getter, so that codecs share one hidden class (src/frame/codec.ts, BACKEND_PROPERTY).
    const getters = new Set(all.map((codec) => Object.getOwnPropertyDescriptor(codec, 'backend')?.get));
    expect(getters.size).toBe(1);
    const [get] = getters;
    expect(typeof get).toBe('function');
    for (const b of given) expect(get!.call(listResources.withBackend(b))).toBe(b.name);
    // Asked of anything but a codec, it names no backend; a copy of a codec keeps the name it read.
    expect(get!.call({})).toBeUndefined();
    const copy = { ...listResources.withBackend(given[0]) };
    expect(Object.getOwnPropertyDescriptor(copy, 'backend')?.value).toBe(given[0].name);
  });
});

describe.each(BACKEND_ROWS)('codecs on %s', (_name, backend) => {
  describe.each(CODECS.map(([name, codec]) => [name, codec.withBackend(backend)] as const))('%s', (name, codec) => {
    const row = TABLE[name];

    test('the codec uses the backend it was given', () => {
      expect(codec.backend).toBe(backend.name);
    });

    test('results round trip, compact, with unknown members and _meta intact', () => {
      for (const v of row.valid) {
        const bytes = codec.encode({ kind: 'result', result: v });
        expect(bytes).toEqual(frameBytes(TAG_RESULT, v));
        const frame = codec.decode(bytes);
        expect(frame).toStrictEqual({ kind: 'result', result: roundTripped(v) });
        // Nothing reordered: encoding the decoded value gives the same bytes.
        expect(codec.encode(frame)).toEqual(bytes);
      }
      const rich = codec.decode(codec.encode({ kind: 'result', result: row.valid[0] })) as { kind: 'result'; result: Loose };
      expect(rich.result._meta).toStrictEqual(META);
      expect(rich.result.extra).toStrictEqual((row.valid[0] as Loose).extra);
      expect(row.nested(rich.result)).toStrictEqual(row.nested(row.valid[0]));
      expect(row.nested(rich.result)).toBeDefined();
    });

    test('schema refusals are body errors, rule schema, at an offset inside the payload', () => {
      for (const inv of row.invalid) {
        const payload = concat(Uint8Array.of(TAG_RESULT), utf8(inv.text));
        const fault = codec.tryDecode(payload);
        expect(fault).toBeInstanceOf(FrameError);
        const e = fault as FrameError;
        expect(e.reason).toBe('body');
        expect(e.rule).toBe('schema');
        expect(typeof e.offset).toBe('number');
        expect(e.offset).toBeGreaterThanOrEqual(1);
        expect(e.offset).toBeLessThan(payload.length);
        if (inv.at !== undefined)
          expect(new TextDecoder().decode(payload.subarray(e.offset))).toMatch(new RegExp(`^${inv.at.replace(/[[\]{}()*+?.\\^$|]/g, '\\$&')}`));
        expect(() => codec.decode(payload)).toThrow(FrameError);
        // and encode refuses the same value
        encodeError(() => codec.encode({ kind: 'result', result: JSON.parse(inv.text) }));
      }
    });

    test.each(ERRORS)('MCP error %s survives and becomes an McpError', (_label, error) => {
      const bytes = codec.encode({ kind: 'error', error });
      expect(bytes).toEqual(frameBytes(TAG_ERROR, error));
      const frame = codec.decode(bytes);
      expect(frame).toStrictEqual({ kind: 'error', error: roundTripped(error) });
      const got = (frame as { kind: 'error'; error: ErrorObject }).error;
      expect('data' in got).toBe('data' in error);
      if ('data' in error) expect(got.data).toStrictEqual(error.data);

      const mcp = toMcpError(got);
      expect(mcp).toBeInstanceOf(McpError);
      expect(mcp.code).toBe(error.code);
      if (error.data === null) expect(mcp.data).toBeNull();
      else expect(mcp.data).toStrictEqual(error.data);
      expect(mcp.message).toContain(error.message);
    });

    test('a number that is not finite as a double is a body error at its first byte, never Infinity in a result', () => {
      const T = (2n ** 1024n - 2n ** 970n).toString();
      for (const literal of ['1e400', '-1.8e308', '1.7976931348623159e308', T, '9'.repeat(309), `-${T}`]) {
        const prefix = '{"_meta":{"x":[';
        const payload = concat(Uint8Array.of(TAG_RESULT), utf8(`${prefix + literal}]},${JSON.stringify(row.valid[1]).slice(1)}`));
        const got = codec.tryDecode(payload);
        expect(got, literal.slice(0, 24)).toBeInstanceOf(FrameError);
        expect((got as FrameError).rule).toBe('number-range');
        expect((got as FrameError).offset).toBe(1 + prefix.length);
      }
    });

    test('validate checks the tag and rule 4.1 only, and builds nothing', () => {
      for (const inv of row.invalid) expect(codec.validate(concat(Uint8Array.of(TAG_RESULT), utf8(inv.text)))).toBeNull();
      expect(codec.validate(frameBytes(TAG_RESULT, row.valid[0]))).toBeNull();
      expect(codec.validate(new Uint8Array(0))?.reason).toBe('empty');
      expect(codec.validate(Uint8Array.of(0x07))).toMatchObject({ reason: 'unknown-tag', tag: 7 });
      expect(codec.validate(utf8('\u0000{"a":}'))).toMatchObject({ reason: 'body', rule: 'json-syntax', offset: 6 });
    });

    test('error codes outside 32 bits and non-integer codes are body errors', () => {
      const cases: [string, string][] = [
        ['{"code":2147483648,"message":"x"}', 'code-range'],
        ['{"code":-2147483649,"message":"x"}', 'code-range'],
        ['{"code":1e300,"message":"x"}', 'schema'],
        ['{"code":1.5,"message":"x"}', 'schema'],
        ['{"code":"-32601","message":"x"}', 'schema'],
        ['{"code":-32601}', 'schema'],
        ['{"code":-32601,"message":7}', 'schema'],
      ];
      for (const [text, rule] of cases) {
        const payload = concat(Uint8Array.of(TAG_ERROR), utf8(text));
        const fault = codec.tryDecode(payload) as FrameError;
        expect(fault, text).toBeInstanceOf(FrameError);
        expect(fault.reason).toBe('body');
        expect(fault.rule, text).toBe(rule);
        expect(fault.offset).toBeGreaterThanOrEqual(1);
        expect(fault.offset).toBeLessThan(payload.length);
      }
    });

    describe('encode refuses, with an EncodeError, what decode would refuse', () => {
      const base = row.valid[0] as Record<string, unknown>;
      const withMeta = (x: unknown) => ({ kind: 'result', result: { ...base, _meta: { x } } }) as Frame<unknown>;
      const withData = (data: unknown) => ({ kind: 'error', error: { code: -32602, message: 'm', data } }) as Frame<unknown>;
      const cycle: Record<string, unknown> = { a: 1 };
      cycle.self = cycle;
      const bad: [string, unknown][] = [
        ['NaN', NaN],
        ['Infinity', Infinity],
        ['-Infinity', -Infinity],
        ['a lone high surrogate in a string', 'a\uD800b'],
        ['a lone low surrogate in a string', '\uDC00'],
        ['a reversed surrogate pair', '\uDE00\uD83D'],
        ['a lone surrogate in a member name', { '\uD800': 1 }],
        ['a function', () => 1],
        ['a BigInt', 1n],
        ['a symbol', Symbol('s')],
        ['a cycle', cycle],
        ['undefined in an array', [1, undefined, 3]],
        ['a hole in an array', [1, undefined, 3]], // eslint-disable-line no-sparse-arrays
      ];

      test.each(bad)('%s, in a result', (_label, x) => {
        encodeError(() => codec.encode(withMeta(x)));
      });

      test.each(bad)('%s, in an error', (_label, x) => {
        encodeError(() => codec.encode(withData(x)));
      });

      test('a lone surrogate in a top-level member name', () => {
        encodeError(() => codec.encode({ kind: 'result', result: { ...base, '\uDBFF': true } }));
      });

      test('nesting: 127 levels encode and decode, 128 do not', () => {
        // result: the body (1) and _meta (2) hold the arrays.
        const ok = withMeta(arrays(125));
        expect(codec.decode(codec.encode(ok))).toStrictEqual(roundTripped(ok));
        encodeError(() => codec.encode(withMeta(arrays(126))));
        // error: the body (1) holds the arrays.
        const okError = withData(arrays(126));
        expect(codec.decode(codec.encode(okError))).toStrictEqual(roundTripped(okError));
        encodeError(() => codec.encode(withData(arrays(127))));
      });

      test('a result the schema refuses', () => {
        for (const inv of row.invalid) encodeError(() => codec.encode({ kind: 'result', result: JSON.parse(inv.text) }));
      });

      test('codes outside 32 bits, and a fractional code', () => {
        for (const code of [2 ** 31, -(2 ** 31) - 1, 1.5, 2 ** 53, NaN]) {
          encodeError(() => codec.encode({ kind: 'error', error: { code, message: 'm' } }));
        }
        for (const code of [-(2 ** 31), 2 ** 31 - 1]) {
          const error = { code, message: 'm' };
          expect(codec.decode(codec.encode({ kind: 'error', error }))).toStrictEqual({ kind: 'error', error });
        }
      });

      test('a kind other than result or error', () => {
        for (const frame of [{ kind: 'other', result: base }, { kind: 'Result', result: base }, {}, null, undefined, 'result']) {
          encodeError(() => codec.encode(frame as unknown as Frame<unknown>));
        }
      });

      test('undefined members are left out and accepted', () => {
        const v = { ...base, extra: undefined, _meta: { kept: 1, gone: undefined } };
        const bytes = codec.encode({ kind: 'result', result: v });
        expect(bytes).toEqual(frameBytes(TAG_RESULT, v));
        expect(new TextDecoder().decode(bytes)).not.toContain('gone');
        expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: roundTripped(v) });
        const error = { code: -32601, message: 'm', data: undefined };
        const eb = codec.encode({ kind: 'error', error });
        expect(eb).toEqual(frameBytes(TAG_ERROR, { code: -32601, message: 'm' }));
        expect('data' in (codec.decode(eb) as { error: object }).error).toBe(false);
      });

      test('toJSON is followed, as JSON.stringify follows it', () => {
        const v = { ...base, _meta: { when: new Date(0) } };
        const bytes = codec.encode({ kind: 'result', result: v });
        expect(bytes).toEqual(frameBytes(TAG_RESULT, v));
        expect(codec.decode(bytes)).toStrictEqual({ kind: 'result', result: roundTripped(v) });
      });
    });
  });
});

describe('encode judges what JSON.stringify writes: members it would leave out', () => {
  test('an inherited, non-enumerable or getter-held required member is refused, not written as {}', () => {
    class Listing {
      get resources() {
        return [];
      }
    }
    for (const result of [
      Object.create({ resources: [] }),
      Object.defineProperty({}, 'resources', { value: [], enumerable: false }),
      new Listing(),
    ]) {
      expect(() => listResources.encode({ kind: 'result', result })).toThrow(EncodeError);
    }
  });
});

describe('toMcpError keeps every member of data', () => {
  test('-32042 with elicitations and more', () => {
    const data = { elicitations: [], traceId: 'abc', retryAfter: 5 };
    const error = toMcpError({ code: -32042, message: 'need url', data });
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32042);
    expect(error.data).toStrictEqual(data);
  });
});
