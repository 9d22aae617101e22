// The compiled judges' shared parts. A judge stops at zod's first issue and
// returns a Fault: the raw issue, its path (reversed, so each level pushes),
// and whether zod's list would be "aborted", which zod's union reads (all
// aborted: `invalid_union`; one not: its issues). zod's finalizeIssue words
// it, though an `invalid_union` carries no `errors`. Values are judged as
// JSON.parse makes them (test/schema-judge.test.ts); `at` and `root` refuse
// to load judges made from another SDK (signature.ts).

import { config, util } from 'zod/v4/core';
import { signature } from './signature.js';

export { probeVerdicts, signature } from './signature.js';

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

/** `from._zod.def[member]`, then `[sub]` when given, refused unless its signature is `expected`. */
export function at(from: ZodNode, member: string, sub: string | number | undefined, expected: string): ZodNode {
  // biome-ignore lint/suspicious/noExplicitAny: a def member, then maybe an index into it.
  let found = (from._zod.def as Record<string, any>)[member];
  if (sub !== undefined) found = found?.[sub];
  return checked(found, expected, ` (at ${member}${sub === undefined ? '' : `.${String(sub)}`})`);
}

/** An exported SDK schema, refused unless its signature is `expected`. */
export function root(node: ZodNode, expected: string): ZodNode {
  return checked(node, expected, '');
}

function checked(node: ZodNode, expected: string, where: string): ZodNode {
  const sig = node?._zod ? signature(node) : '(not a zod node)';
  if (sig !== expected) throw new SchemaDrift(`an SDK schema changed since the judges were generated${where}:\n  was ${expected}\n  now ${sig}`);
  return node;
}

const isPlainObject: (x: unknown) => boolean = util.isPlainObject;

const PLAIN = {};

let plain = true;
let plainKnown = false;

/** Each entry to the compiled judges calls this first. */
export function newJudgement(): void {
  plainKnown = false;
}

/**
 * Whether zod's isPlainObject holds for the objects JSON.parse makes: false
 * only where a program replaced Object.prototype.constructor or deleted its
 * isPrototypeOf, and zod refuses every record. Read at a judgement's first
 * record. PERF NOTES: in place of isPlainObject and getOwnPropertySymbols
 * on each record, the servers' tool lists took 1.5–2.6 µs against 3.5–7.4.
 */
export function plainObjects(): boolean {
  if (!plainKnown) {
    plain = isPlainObject(PLAIN);
    plainKnown = true;
  }
  return plain;
}

export function fault(issue: RawIssue, aborted: boolean): Fault {
  return { issue, rpath: [], aborted };
}

/** An `invalid_type` issue of the node's own parse: aborts. */
export function typeFault(input: unknown, inst: ZodNode, expected: string): Fault {
  return { issue: { expected, code: 'invalid_type', input, inst }, rpath: [], aborted: true };
}

/** A required key absent whose schema takes `undefined` (zod's "nonoptional"). */
export function nonoptional(): Fault {
  return { issue: { code: 'invalid_type', expected: 'nonoptional', input: undefined }, rpath: [], aborted: true };
}

/** A failed custom check of `owner`, as zod's handleRefineResult and runChecks raise it. */
export function customFault(check: ZodNode, owner: ZodNode, input: unknown): Fault {
  const d = check._zod.def as { path?: PropertyKey[]; abort?: boolean; params?: unknown };
  const issue: RawIssue = { code: 'custom', input, inst: check, path: [...(d.path ?? [])], continue: !d.abort };
  if (d.params) issue.params = d.params;
  issue.schema = owner;
  return { issue, rpath: [], aborted: issue.continue !== true };
}

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

/** zod's $ZodRecord with a plain string key, for any value judge. */
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

/** The node's own zod schema on a value (for leaves and what is not compiled); abortEarly keeps the first issue and `aborted`. */
export function zodWhy(node: ZodNode, x: unknown): Fault | undefined {
  const r = node._zod.run({ value: x, issues: [] }, RUN_CTX);
  if (r.issues.length === 0) return undefined;
  return { issue: r.issues[0], rpath: [], aborted: util.aborted(r as never) };
}

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
