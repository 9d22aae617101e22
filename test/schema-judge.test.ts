// The compiled judges against the SDK's own safeParse: the verdict, and the first issue's path and message, on every input.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { NODES, ROOTS } from '../src/contract/generated/judges.js';
import { judgeBytes } from '../src/contract/judge-bytes.js';
import { finalize } from '../src/contract/judge-kit.js';
import { COMPILED_DRIFT, ErrorObjectSchema, type Judge, judge } from '../src/contract/schema.js';
import { ENDPOINTS } from '../src/frame/endpoints.js';
import { TAG_ERROR, TAG_RESULT } from '../src/wire/tags.js';
import { valuesFor } from './support/schema-values.js';
import { FRAME_VECTORS } from './support/vectors.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 1_000_000);
const RUNS = Number(process.env.MCP_FRAMES_RUNS ?? 1500);

// biome-ignore lint/suspicious/noExplicitAny: safeParse on a zod node reached through its internals.
type Zod = any;

/** What safeParse says, in the terms a SchemaFault keeps. */
function zodSays(schema: Zod, value: unknown): null | { path: PropertyKey[]; message: string } {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const { path, message } = r.error.issues[0];
  return { path, message };
}

/** What the compiled judge says, the same way. */
function judgeSays(schema: Judge, value: unknown): null | { path: PropertyKey[]; message: string } {
  const fault = judge(schema, value);
  if (!fault) return null;
  const where = fault.path.length ? fault.path.map(String).join('.') : '(the body)';
  expect(fault.detail.startsWith(`${where}: `)).toBe(true);
  return { path: fault.path, message: fault.detail.slice(where.length + 2) };
}

/** A value as JSON.parse gives it back: what decoding judges. */
const asDecoded = (v: unknown) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

test('the judges were generated from the SDK installed, and every codec has one', () => {
  expect(COMPILED_DRIFT).toBeUndefined();
  const schemas = new Set(ROOTS.map(([, schema]) => schema));
  for (const codec of Object.values(ENDPOINTS)) expect(schemas.has(codec.schema)).toBe(true);
  expect(schemas.has(ErrorObjectSchema)).toBe(true);
});

describe('every frame vector: the same verdict and first issue as safeParse', () => {
  const cases = FRAME_VECTORS.filter((v) => v.hex.length >= 2 && (v.hex.startsWith('00') || v.hex.startsWith('01')));
  test.each(cases.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const bytes = Buffer.from(v.hex, 'hex');
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(1)));
    } catch {
      return; // not JSON: rule 4.1 refuses it before any schema
    }
    const schema = bytes[0] === TAG_RESULT ? ENDPOINTS[v.endpoint].schema : bytes[0] === TAG_ERROR ? ErrorObjectSchema : null;
    if (!schema) return;
    expect(judgeSays(schema, value)).toEqual(zodSays(schema, value));
  });
});

describe(`generated near-valid values (seed ${SEED}, ${RUNS} runs per schema)`, () => {
  test.each(ROOTS.map(([name, schema]) => [name, schema] as const))('%s', (_name, schema) => {
    let failures = 0;
    fc.assert(
      fc.property(valuesFor(schema), (raw) => {
        const value = asDecoded(raw);
        const want = zodSays(schema, value);
        if (want) failures++;
        expect(judgeSays(schema as Judge, value)).toEqual(want);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator must reach both verdicts often, or it tests little.
    expect(failures).toBeGreaterThan(RUNS / 10);
    expect(failures).toBeLessThan(RUNS - RUNS / 10);
  });
});

describe(`every node on its own (seed ${SEED})`, () => {
  test.each(NODES.map((n, id) => [id, n.kind, n] as const))('node %i (%s)', (_id, _kind, node) => {
    fc.assert(
      fc.property(valuesFor(node.zod, { wrong: 4, depth: 4 }), (raw) => {
        const value = asDecoded(raw);
        const want = zodSays(node.zod, value);
        expect(node.ok(value)).toBe(want === null);
        const f = node.why(value);
        expect(f === undefined ? null : finalize(f)).toEqual(want);
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 10) },
    );
  });
});

describe('values no generator draws', () => {
  const LISTING = ENDPOINTS['list-resources'].schema;
  const READ = ENDPOINTS['read-resource'].schema;
  const CALL = ENDPOINTS['call-tool'].schema;
  const TOOLS = ENDPOINTS['list-tools'].schema;
  const COMPLETE = ENDPOINTS.complete.schema;
  const cases: [string, Judge, unknown][] = [
    ['a blob that fails in every item', READ, { contents: Array.from({ length: 50 }, () => ({ uri: 'u', blob: '!' })) }],
    ['a blob item that also misses its uri', READ, { contents: [{ blob: '!' }] }],
    ['an item neither text nor blob', READ, { contents: [{ uri: 'u' }] }],
    ['a text item with a bad blob too', READ, { contents: [{ uri: 'u', text: 't', blob: '!' }] }],
    ['every resource a number', LISTING, { resources: [1, 1, 1] }],
    ['a progress token beyond 2^53', LISTING, { resources: [], _meta: { progressToken: 2 ** 60 } }],
    ['a progress token that is not an integer', LISTING, { resources: [], _meta: { progressToken: 1.5 } }],
    ['a related task without its id', LISTING, { resources: [], _meta: { 'io.modelcontextprotocol/related-task': {} } }],
    ['a priority of 2 and a bad date', LISTING, { resources: [{ uri: 'u', name: 'n', annotations: { priority: 2, lastModified: 'x' } }] }],
    ['101 completion values, one of them a number', COMPLETE, { completion: { values: [...Array.from({ length: 100 }, () => 'v'), 1] } }],
    ['100 completion values, one of them a number', COMPLETE, { completion: { values: [...Array.from({ length: 99 }, () => 'v'), 1] } }],
    ['content left out', CALL, {}],
    ['content null', CALL, { content: null }],
    ['a content block of no known type', CALL, { content: [{ type: 'video' }] }],
    ['an image with bad data and no mime type', CALL, { content: [{ type: 'image', data: '!' }] }],
    ['an embedded resource with a bad blob', CALL, { content: [{ type: 'resource', resource: { uri: 'u', blob: '!' } }] }],
    ['a resource link missing its name', CALL, { content: [{ type: 'resource_link', uri: 'u' }] }],
    ['structured content that is an array', CALL, { content: [], structuredContent: [] }],
    ['a tool property that is not an object', TOOLS, { tools: [{ name: 't', inputSchema: { type: 'object', properties: { a: 1, b: {} } } }] }],
    ['a tool property named __proto__', TOOLS, { tools: [{ name: 't', inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":1}}') }] }],
    [
      'tool property keys that look like indices',
      TOOLS,
      { tools: [{ name: 't', inputSchema: { type: 'object', properties: { b: 1, 2: 1, 1: {} } } }] },
    ],
    ['an input schema of another type', TOOLS, { tools: [{ name: 't', inputSchema: { type: 'string' } }] }],
    ['an error with a fractional code', ErrorObjectSchema, { code: 1.5, message: 'm' }],
    ['an error with a code beyond 2^53', ErrorObjectSchema, { code: 2 ** 60, message: 'm' }],
    ['an error with no message', ErrorObjectSchema, { code: 1 }],
    ['an error that is an array', ErrorObjectSchema, [1]],
  ];
  test.each(cases)('%s', (_name, schema, value) => {
    expect(judgeSays(schema, value)).toEqual(zodSays(schema, value));
  });
});

/**
 * JSON text for a value as a server might write it: whitespace, member
 * names escaped, and members written twice, the first time with another
 * value (JSON.parse keeps the last).
 */
function serialize(v: unknown, pick: () => number): string {
  const ws = () => [' ', '', '\n  ', '\t'][pick() % 4];
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => serialize(x, pick)).join(`,${ws()}`)}${ws()}]`;
  if (v !== null && typeof v === 'object') {
    const members: string[] = [];
    for (const [k, x] of Object.entries(v)) {
      const name = pick() % 5 === 0 ? `"${[...k].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(k);
      if (pick() % 7 === 0) members.push(`${name}:${[1, '"x"', '[1,{}]', '{"a":null}', 'null'][pick() % 5]}`);
      members.push(`${name}${ws()}:${ws()}${serialize(x, pick)}`);
    }
    return `{${ws()}${members.join(`,${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(v);
}

describe(`the byte judge gives the value judge's answer on the text (seed ${SEED})`, () => {
  const encoder = new TextEncoder();
  test.each(ROOTS.map(([name, schema, id]) => [name, schema, id] as const))('%s', (_name, schema, id) => {
    fc.assert(
      fc.property(valuesFor(schema), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), fc.constantFrom(0, 4, 24, 200), (raw, picks, small) => {
        if (raw === undefined) return;
        let k = 0;
        const text = serialize(raw, () => picks[k++ % picks.length] + k);
        const value = JSON.parse(text);
        const bytes = encoder.encode(`  ${text} `);
        const f = judgeBytes(NODES[id], bytes, 0, bytes.length, { small, keep: small });
        expect(f === undefined ? null : finalize(f)).toEqual(zodSays(schema, value));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('the byte judge on texts written to trip it', () => {
  const encoder = new TextEncoder();
  const TOOLS = ENDPOINTS['list-tools'].schema;
  const tool = (properties: string) => `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":${properties}}}]}`;
  const cases: [string, Judge, string][] = [
    ['index-like names out of order', TOOLS, tool('{"b":1,"2":1,"1":{},"10":1}')],
    ['a name repeated: its first place, its last value', TOOLS, tool('{"a":{},"b":1,"a":2}')],
    ['a name repeated, the last value passing', TOOLS, tool('{"a":1,"b":{},"a":{},"c":1}')],
    ['__proto__ among the names', TOOLS, tool('{"__proto__":1,"x":2}')],
    ['__proto__ escaped among the names', TOOLS, tool('{"\\u005f_proto__":1,"x":{}}')],
    ['4294967295 is not an index', TOOLS, tool('{"4294967295":1,"4294967294":2}')],
    ['escaped names', TOOLS, tool('{"\\u0061":1,"\\u0031":2}')],
    ['one name written raw and escaped', TOOLS, tool('{"😀":1,"b":{},"\\ud83d\\ude00":{},"é":2,"\\u00e9":{}}')],
    ['names alike but for their last unit', TOOLS, tool('{"ab":{},"a":1,"abc":{}}')],
    ['index names written with escapes and zeros', TOOLS, tool('{"x":1,"\\u0032":1,"01":1,"0":{},"1":{}}')],
    ['a shape name escaped, then raw', ENDPOINTS['list-resources'].schema, '{"resources":[{"n\\u0061me":"x","uri":"u","\\u006eame":5}]}'],
    ['a member named twice in an item', ENDPOINTS['list-resources'].schema, '{"resources":[{"name":1,"uri":"u","name":"n"}]}'],
    ['a quote escaped in a name', ENDPOINTS['list-resources'].schema, '{"resources":[{"na\\"me":1,"uri":"u"}]}'],
    ['backslashes before a closing quote', ENDPOINTS['list-resources'].schema, '{"resources":[{"name":"a\\\\\\\\","uri":5}]}'],
    ['a blob written with escapes', ENDPOINTS['read-resource'].schema, '{"contents":[{"uri":"u","blob":"QU\\/C\\n\\u0041A=="}]}'],
    ['a blob escaped into refusal', ENDPOINTS['read-resource'].schema, '{"contents":[{"uri":"u","blob":"QUJD\\u0021"}]}'],
  ];
  test.each(cases)('%s', (_name, schema, text) => {
    const id = ROOTS.find(([, s]) => s === schema)![2];
    const want = zodSays(schema, JSON.parse(text));
    for (const small of [0, 3, 16, 1 << 20]) {
      const bytes = encoder.encode(text);
      const f = judgeBytes(NODES[id], bytes, 0, bytes.length, { small, keep: small });
      expect(f === undefined ? null : finalize(f)).toEqual(want);
    }
  });
});

describe("records when Object.prototype is not as zod's isPlainObject expects", () => {
  // The compiled record test reads plainObjects (judge-kit.ts) where zod
  // calls isPlainObject on each record; each entry to the judges reads it
  // again. A program that deletes Object.prototype.isPrototypeOf or
  // replaces Object.prototype.constructor makes zod refuse every record,
  // or accept them, and the judges must follow at the next call.
  const encoder = new TextEncoder();
  const TOOLS = ENDPOINTS['list-tools'].schema;
  const text = '{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{},"b":{"type":"string"}}}}]}';
  const id = ROOTS.find(([, s]) => s === TOOLS)![2];
  const proto = Object.prototype;
  /** Deletes a member of Object.prototype, or gives it `value`; returns what puts it back. */
  const tamperWith =
    (name: 'isPrototypeOf' | 'constructor', ...value: [unknown?]) =>
    () => {
      const saved = Object.getOwnPropertyDescriptor(proto, name)!;
      if (value.length === 0) Reflect.deleteProperty(proto, name);
      else Object.defineProperty(proto, name, { value: value[0], configurable: true, writable: true });
      return () => Object.defineProperty(proto, name, saved);
    };
  const tamperings: [string, () => () => void][] = [
    ['isPrototypeOf deleted', tamperWith('isPrototypeOf')],
    [
      'constructor a function whose prototype is not an object',
      tamperWith(
        'constructor',
        Object.assign(() => {}, { prototype: 1 }),
      ),
    ],
    ['constructor not a function', tamperWith('constructor', 5)],
  ];
  test.each(tamperings)('%s', (_name, tamper) => {
    const value = JSON.parse(text);
    expect(judgeSays(TOOLS, value)).toBeNull();
    let zod: ReturnType<typeof zodSays>;
    let values: ReturnType<typeof zodSays>;
    let bytes: ReturnType<typeof zodSays>;
    const restore = tamper();
    try {
      zod = zodSays(TOOLS, value);
      values = judgeSays(TOOLS, value);
      const b = encoder.encode(text);
      const f = judgeBytes(NODES[id], b, 0, b.length, { small: 0, keep: 0 });
      bytes = f === undefined ? null : finalize(f);
    } finally {
      restore();
    }
    expect(values).toEqual(zod);
    expect(bytes).toEqual(zod);
    // And back as it was at the next call.
    expect(judgeSays(TOOLS, value)).toBeNull();
  });
  test('the tamperings reach zod: it refuses the records under the first two', () => {
    const value = JSON.parse(text);
    const [deleted, oddPrototype] = tamperings;
    for (const [, tamper] of [deleted, oddPrototype]) {
      const restore = tamper();
      let verdict: ReturnType<typeof zodSays>;
      try {
        verdict = zodSays(TOOLS, value);
      } finally {
        restore();
      }
      expect(verdict).not.toBeNull();
    }
  });
});
