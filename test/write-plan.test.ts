// Encode's plans (src/contract/write-plan.ts) against the compiled judges they come from: the writer's verdict as it
// writes must be the judge's `ok` on the value parsed back from the bytes, and encode with a plan must end as encode
// without one (the copy of the value as written, judged afterwards): the same bytes, or the same refusal.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { writeFrame, writeJudged } from '../src/contract/body-writer.js';
import { EncodeError } from '../src/contract/encode-rules.js';
import { NODES, ROOTS } from '../src/contract/generated/judges.js';
import { newJudgement } from '../src/contract/judge-kit.js';
import { ErrorObjectSchema, type Judge, judge } from '../src/contract/schema.js';
import { ANY, ARRAY, BASE64, CONTAINER, OBJECT, planOf, RECORD, STRING, UNION, VALUE } from '../src/contract/judge-plan.js';
import { TAG_RESULT } from '../src/wire/tags.js';
import { valuesFor } from './support/schema-values.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 1_000_000);
const RUNS = Number(process.env.MCP_FRAMES_RUNS ?? 1500);
const decoder = new TextDecoder();

const RESULTS = ROOTS.filter(([, schema]) => schema !== ErrorObjectSchema);

/** How encode ended: its bytes, or its refusal's message and path. */
type Outcome = { bytes: number[] } | { refused: string; path: PropertyKey[] };

function outcome(value: unknown, schema: Judge, plan: ReturnType<typeof planOf> | undefined): Outcome {
  try {
    const refuse = (written: unknown) => {
      const bad = judge(schema, written);
      return bad && new EncodeError(bad.detail, bad.path);
    };
    return { bytes: [...(plan ? writeJudged(TAG_RESULT, value, plan, refuse) : writeFrame(TAG_RESULT, value, refuse))] };
  } catch (e) {
    if (!(e instanceof EncodeError)) throw e;
    return { refused: e.message, path: e.path };
  }
}

/**
 * The plan's verdict on `value` as encode writes it, and the judge's `ok` on the bytes parsed back; undefined when
 * encode refuses the value before any schema (rule 4.1).
 */
function verdicts(value: unknown, id: number): { plan: boolean; ok: boolean; bytes: Uint8Array } | undefined {
  let judged = false;
  let bytes: Uint8Array;
  try {
    bytes = writeJudged(TAG_RESULT, value, planOf(NODES[id]), () => {
      judged = true;
      return null;
    });
  } catch (e) {
    if (e instanceof EncodeError) return undefined;
    throw e;
  }
  newJudgement();
  return { plan: !judged, ok: NODES[id].ok(JSON.parse(decoder.decode(bytes.subarray(1)))), bytes };
}

/**
 * The same value, disguised as encode meets values in programs: objects as class instances, behind a toJSON or a
 * Proxy, with members left undefined; strings and numbers boxed or behind a toJSON; arrays behind a Proxy. What
 * JSON.stringify writes of it is unchanged, and the plan must follow or step aside.
 */
function disguise(value: unknown, pick: () => number): unknown {
  const choice = pick();
  if (typeof value === 'string') {
    if (choice < 0.1) return new String(value);
    if (choice < 0.2) return { toJSON: () => value };
    return value;
  }
  if (typeof value === 'number') return choice < 0.1 ? new Number(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => disguise(v, pick));
    if (choice < 0.1) return new Proxy(items, {});
    if (choice < 0.2) return { toJSON: () => items };
    return items;
  }
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '__proto__') Object.defineProperty(copy, k, { value: disguise(v, pick), enumerable: true, writable: true, configurable: true });
    else copy[k] = disguise(v, pick);
  }
  if (choice < 0.1) copy[`gone${Math.floor(choice * 100)}`] = undefined;
  if (choice < 0.2) return Object.assign(Object.create(Thing.prototype), copy);
  if (choice < 0.3) return new Proxy(copy, {});
  if (choice < 0.35) return { toJSON: (key: string) => (typeof key === 'string' ? copy : null) };
  return copy;
}

class Thing {}

/** A seeded stream of numbers in [0, 1). */
function picker(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

test('every result schema has a plan that follows its objects, arrays and unions', () => {
  const kinds = new Set<number>();
  const visit = (p: ReturnType<typeof planOf>, seen: Set<unknown>) => {
    if (seen.has(p)) return;
    seen.add(p);
    kinds.add(p.kind);
    for (const m of p.members) visit(m, seen);
    for (const o of p.options) visit(o, seen);
    if (p.element) visit(p.element, seen);
  };
  for (const [, , id] of RESULTS) {
    const plan = planOf(NODES[id]);
    expect(plan.kind).toBe(OBJECT);
    visit(plan, new Set());
  }
  expect([...kinds].sort()).toEqual([ANY, OBJECT, ARRAY, UNION, VALUE, RECORD, CONTAINER, STRING, BASE64].sort());
});

describe(`generated near-valid values (seed ${SEED}, ${RUNS} runs per schema)`, () => {
  test.each(RESULTS.map(([name, schema, id]) => [name, schema, id] as const))('%s: the plan says what ok says', (_name, schema, id) => {
    let refusals = 0;
    let counted = 0;
    fc.assert(
      fc.property(valuesFor(schema), (value) => {
        const v = verdicts(value, id);
        if (!v) return;
        counted++;
        if (!v.ok) refusals++;
        expect(v.plan).toBe(v.ok);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Both verdicts, often.
    expect(refusals).toBeGreaterThan(counted / 10);
    expect(refusals).toBeLessThan(counted - counted / 10);
  });

  test.each(RESULTS.map(([name, schema, id]) => [name, schema, id] as const))(
    '%s, disguised: the plan says what ok says, and encode ends as without a plan',
    (_name, schema, id) => {
      fc.assert(
        fc.property(valuesFor(schema), fc.integer(), (raw, seed) => {
          // Built twice, one for each encode: a toJSON or a Proxy is read once per encode.
          const v = verdicts(disguise(raw, picker(seed)), id);
          if (v) expect(v.plan).toBe(v.ok);
          expect(outcome(disguise(raw, picker(seed)), schema as Judge, planOf(NODES[id]))).toEqual(
            outcome(disguise(raw, picker(seed)), schema as Judge, undefined),
          );
        }),
        { seed: SEED, numRuns: RUNS / 3 },
      );
    },
  );
});

test('a refusal under a plan is named as without one: the first issue, at its path', () => {
  const [, schema, id] = RESULTS.find(([name]) => name === 'ReadResourceResultSchema') ?? [];
  const value = {
    contents: [
      { uri: 'a', text: 'x' },
      { uri: 'b', blob: 'not base64!' },
      { uri: 7, text: 'y' },
    ],
  };
  const got = outcome(value, schema as Judge, planOf(NODES[id as number]));
  expect(got).toEqual(outcome(value, schema as Judge, undefined));
  expect(got).toMatchObject({ path: ['contents', 1, 'blob'] });
});
