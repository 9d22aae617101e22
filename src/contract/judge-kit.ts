// The compiled judges' shared parts: zod's first issue, found the way zod
// finds it, and worded by zod itself.
//
// # What a judge returns
//
// Zod collects every issue of a value; decoding reports only the first.
// A compiled judge stops early instead, and returns a Fault: the first
// issue zod would have raised (a raw issue, as zod pushes it), its path
// from the judged value (kept reversed while the call stack unwinds, so
// each level pushes instead of unshifting), and whether zod's issue list
// for that value would be "aborted" (some issue without `continue: true`).
// The last is what zod's union looks at: with no option passing, a union
// whose options all aborted raises `invalid_union`, and a union with exactly
// one option that did not abort reports that option's issues instead.
//
// # Worded by zod
//
// The message of the first issue is made by zod's own finalizeIssue, with
// the error maps zod is configured with, so a locale or error map the
// application sets moves zod's messages and these together. The only
// difference: an `invalid_union` raised here carries no `errors` (building
// them means judging every option in full), so an error map that words a
// union's issue from its options' issues sees none.
//
// # What is judged
//
// A compiled judge judges values as JSON.parse makes them: plain objects
// (Object.prototype theirs, `__proto__` at most an own member), arrays,
// strings, finite numbers, booleans and null. Decode judges JSON.parse's
// value, the byte judge the values it parses, and encode the copy its
// writer builds of what it wrote (body-writer.ts), which is such a value
// too; test/schema-judge.test.ts holds the judges to safeParse on such
// values. On them a record's two tests in zod are one: no such object has
// a symbol key, and zod's isPlainObject, which reads the object's
// constructor and that constructor's prototype, holds for every one of
// them or for none, as Object.prototype stands. That is plainObjects(),
// read once in each judgement (each entry to the judges, schema.ts
// judgeWith and judge-bytes.ts, begins one). A record's verdict then costs
// a type test, where isPlainObject's megamorphic reads and an array from
// getOwnPropertySymbols cost a tool list's judge half its time (PERF NOTES
// in plainObjects).
//
// # The SDK's schema nodes, checked at load
//
// A generated judge holds the zod nodes it was generated from (for issue
// wording and for the leaves it hands to zod), found by their path from an
// exported SDK schema. `at` checks each node's signature (signature.ts)
// against the one the generator saw: an SDK other than the one the build
// saw makes the generated module refuse to load, and judging falls back to
// zod, which schema.ts's `schemaJudges` then names.

import { config, util } from 'zod/v4/core';
import { signature } from './signature.js';

export { probeVerdicts, signature } from './signature.js';

/** A judged value's members, read as zod reads them. */
export type Rec = Record<PropertyKey, unknown>;

/** An issue as zod pushes it, before finalizeIssue words it. */
export interface RawIssue {
  code: string;
  path?: PropertyKey[];
  input?: unknown;
  inst?: unknown;
  schema?: unknown;
  continue?: boolean;
  [member: string]: unknown;
}

/** The first issue of a value, where it is, and whether zod's list for the value aborted. */
export interface Fault {
  issue: RawIssue;
  /** The path from the judged value to the issue's value, last step first. */
  rpath: PropertyKey[];
  aborted: boolean;
}

/** What a generated judge needs of a zod schema node. */
export interface ZodNode {
  _zod: {
    def: Record<string, unknown>;
    traits: Set<string>;
    optin?: string;
    optout?: string;
    run(payload: { value: unknown; issues: RawIssue[] }, ctx: object): { value: unknown; issues: RawIssue[]; aborted?: boolean };
    check?(payload: { value: unknown; issues: RawIssue[] }): unknown;
  };
}

/** Thrown at load when an SDK schema is not the one the judges were generated from. */
export class SchemaDrift extends Error {
  override readonly name = 'SchemaDrift';
}

/**
 * One hop from a node to a node inside it: `from._zod.def[member]`, then
 * `[sub]` when given (a shape's key, an option's or a check's index).
 * Refused unless the node found has the signature the generator saw.
 */
export function at(from: ZodNode, member: string, sub: string | number | undefined, expected: string): ZodNode {
  // biome-ignore lint/suspicious/noExplicitAny: a def member, then maybe an index into it.
  let found = (from._zod.def as Record<string, any>)[member];
  if (sub !== undefined) found = found?.[sub];
  const sig = found?._zod ? signature(found as ZodNode) : '(not a zod node)';
  if (sig !== expected) {
    throw new SchemaDrift(
      `an SDK schema changed since the judges were generated (at ${member}${sub === undefined ? '' : `.${String(sub)}`}):\n  was ${expected}\n  now ${sig}`,
    );
  }
  return found as ZodNode;
}

/** A root: an exported SDK schema, refused unless its signature is the one the generator saw. */
export function root(node: ZodNode, expected: string): ZodNode {
  const sig = node?._zod ? signature(node) : '(not a zod node)';
  if (sig !== expected) throw new SchemaDrift(`an SDK schema changed since the judges were generated:\n  was ${expected}\n  now ${sig}`);
  return node;
}

/** Zod's record test. */
const isPlainObject: (x: unknown) => boolean = util.isPlainObject;

/** An object as JSON.parse makes one, with no member of its own: what plainObjects asks zod about. */
const PLAIN = {};

/** What plainObjects last read, and whether it was read in the judgement under way. */
let plain = true;
let plainKnown = false;

/** Each entry to the compiled judges calls this first: plainObjects is then read again when a record needs it. */
export function newJudgement(): void {
  plainKnown = false;
}

/**
 * Whether zod's isPlainObject holds for the objects JSON.parse makes, as
 * Object.prototype stands (see "What is judged"): false only where a
 * program has replaced Object.prototype.constructor or deleted its
 * isPrototypeOf, and then zod refuses every record. An object with a
 * `constructor` of its own gets isPlainObject's true anyway, since JSON
 * cannot make that member a function. Read once per judgement, at its
 * first record.
 *
 * PERF NOTES: a type test and this one answer, in place of isPlainObject
 * and a getOwnPropertySymbols array on each record: a judge of the
 * servers' tool lists took 1.5–2.6 µs a list against 3.5–7.4 (3.1–3.8
 * with zod's test asked at each record). Read at a judgement's first
 * record, not its entry, so that the many short answers that hold no
 * record pay an increment, not a call.
 */
export function plainObjects(): boolean {
  if (!plainKnown) {
    plain = isPlainObject(PLAIN);
    plainKnown = true;
  }
  return plain;
}

/** The fault for an issue. */
export function fault(issue: RawIssue, aborted: boolean): Fault {
  return { issue, rpath: [], aborted };
}

/** An `invalid_type` issue raised by the node's own parse, as zod words it: aborts. */
export function typeFault(input: unknown, inst: ZodNode, expected: string): Fault {
  return { issue: { expected, code: 'invalid_type', input, inst }, rpath: [], aborted: true };
}

/** A required key absent, whose schema took `undefined` without an issue (zod's "nonoptional"). */
export function nonoptional(): Fault {
  return { issue: { code: 'invalid_type', expected: 'nonoptional', input: undefined }, rpath: [], aborted: true };
}

/** A failed custom check `check` of the node `owner`, raised as zod's handleRefineResult and runChecks raise it. */
export function customFault(check: ZodNode, owner: ZodNode, input: unknown): Fault {
  const d = check._zod.def as { path?: PropertyKey[]; abort?: boolean; params?: unknown };
  const issue: RawIssue = { code: 'custom', input, inst: check, path: [...(d.path ?? [])], continue: !d.abort };
  if (d.params) issue.params = d.params;
  issue.schema = owner;
  return { issue, rpath: [], aborted: issue.continue !== true };
}

/** Adds one step to the front of the fault's path. */
export function prefix(f: Fault, step: PropertyKey): Fault {
  f.rpath.push(step);
  return f;
}

/** The first fault of a value so far, with `f` found after it. */
export function merge(first: Fault | undefined, f: Fault): Fault {
  if (first === undefined) return f;
  if (f.aborted) first.aborted = true;
  return first;
}

/** Stands for an option a union's discriminator ruled out: it failed, and aborted. */
export const RULED_OUT: Fault = Object.freeze({ issue: Object.freeze({ code: 'custom' }), rpath: [], aborted: true }) as Fault;

/** A union with no passing option: zod's handleUnionResults. */
export function pickUnion(input: unknown, inst: ZodNode, faults: readonly Fault[]): Fault {
  let only: Fault | undefined;
  let count = 0;
  for (const f of faults) {
    if (!f.aborted) {
      only = f;
      count++;
    }
  }
  if (count === 1) return only!;
  return { issue: { code: 'invalid_union', input, inst, errors: [] }, rpath: [], aborted: true };
}

/** An array longer than its leading size caps allow: zod's capSize, which judges no element. */
export function capFault(inst: ZodNode, input: unknown[]): Fault {
  const n = input.length;
  for (const [max, check] of util.sizeCaps(inst._zod.def.checks as never) as unknown as [number, ZodNode][]) {
    const d = check._zod.def as { when(payload: unknown): boolean };
    const payload = { value: input as unknown, issues: [] as RawIssue[] };
    if (n > max && d.when(payload)) {
      check._zod.check!(payload);
      const issue = payload.issues[0];
      issue.continue = false;
      issue.schema ??= inst;
      return { issue, rpath: [], aborted: true };
    }
  }
  throw new Error('mcp-frames: capFault on an array within its caps');
}

const KEY_CTX = { async: false };

/** A record's judge, for any value judge: zod's $ZodRecord with a plain string key, in Reflect.ownKeys order. */
export function recordWhy(input: unknown, inst: ZodNode, why: (v: unknown) => Fault | undefined): Fault | undefined {
  if (!isPlainObject(input)) return typeFault(input, inst, 'record');
  const o = input as Rec;
  let first: Fault | undefined;
  for (const key of Reflect.ownKeys(o)) {
    if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(o, key)) continue;
    let f: Fault | undefined;
    if (typeof key === 'symbol') {
      const keyType = (inst._zod.def as { keyType: ZodNode }).keyType;
      const issues = keyType._zod
        .run({ value: key, issues: [] }, KEY_CTX)
        .issues.map((i) => util.finalizeIssue(i as never, KEY_CTX as never, config()));
      f = fault({ code: 'invalid_key', origin: 'record', issues, input: key, path: [key], inst }, true);
    } else {
      f = why(o[key]);
      if (f) prefix(f, key);
    }
    if (f) {
      first = merge(first, f);
      if (first.aborted) return first;
    }
  }
  return first;
}

/** Unknown keys of a strict object, as zod's handleCatchall lists them: for...in order, `__proto__` included. */
export function unrecognized(o: Rec, known: ReadonlySet<string>): string[] | undefined {
  let keys: string[] | undefined;
  for (const key in o) {
    if (known.has(key)) continue;
    keys ??= [];
    keys.push(key);
  }
  return keys;
}

const RUN_CTX = { async: false, abortEarly: true };

/**
 * Hands a value to the node's own zod schema: for leaves (cheap, and exact
 * by construction) and for any rule the generator does not compile. With
 * `abortEarly`, zod stops at the first issue that aborts; the first issue
 * and whether the list aborted stay what a full run gives.
 */
export function zodWhy(node: ZodNode, x: unknown): Fault | undefined {
  const r = node._zod.run({ value: x, issues: [] }, RUN_CTX);
  if (r.issues.length === 0) return undefined;
  return { issue: r.issues[0], rpath: [], aborted: util.aborted(r as never) };
}

/** zodWhy's verdict alone. */
export function zodOk(node: ZodNode, x: unknown): boolean {
  return node._zod.run({ value: x, issues: [] }, RUN_CTX).issues.length === 0;
}

const FINALIZE_CTX = { async: false };

/** The fault as safeParse's first issue: its whole path and zod's message. */
export function finalize(f: Fault): { path: PropertyKey[]; message: string } {
  const path: PropertyKey[] = [];
  for (let k = f.rpath.length - 1; k >= 0; k--) path.push(f.rpath[k]);
  for (const step of f.issue.path ?? []) path.push(step);
  const issue = { ...f.issue, path };
  const done = util.finalizeIssue(issue as never, FINALIZE_CTX as never, config()) as { path: PropertyKey[]; message: string };
  return { path: done.path, message: done.message };
}
