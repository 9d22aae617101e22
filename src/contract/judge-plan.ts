// A compiled judge (judge-node.ts) as the plan the byte judge and encode's
// writer follow: one a node, made once, an integer kind and children by
// reference (PERF NOTES: ids and kind strings took a third of the byte
// judge's time). ANY: anything; CONTAINER: any object or array; OBJECT,
// ARRAY, RECORD and UNION (OBJECT options, 31 members in all) are walked;
// STRING; BASE64: checked on its bytes; VALUE: by the node's `ok` and `why`.
// An optional's plan is its inner node's; a nullable's its inner's with
// `nullOk`. test/write-plan.test.ts and test/generator.test.ts hold them to zod.

import type { ZodNode } from './judge-kit.js';
import { NODES } from './generated/judges.js';
import type { JudgeNode } from './judge-node.js';

export const ANY = 0;
export const OBJECT = 1;
export const ARRAY = 2;
export const UNION = 3;
export const RECORD = 4;
export const CONTAINER = 5;
// From here on, a value that is not a string is judged by the node's ok.
export const VALUE = 6;
export const STRING = 7;
export const BASE64 = 8;

type Kind = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const MAX_KEYS = 31; // a bit each in a 32-bit mask

/** A member name under a union's options. */
export interface UnionMember {
  /** The bits of the shared mask this name sets (one per option that knows it). */
  readonly bits: number;
  /** The options it rules out (strict ones that do not know it). */
  readonly kills: number;
  /** The plan every option judges it by, when they agree; otherwise undefined, and `plans` has each option's. */
  readonly common: Plan | undefined;
  readonly plans: readonly Plan[];
}

/** Every plan has all fields, in one order: one hidden class. */
export class Plan {
  /** Whether null is accepted (a nullable node around the plan of `inner`). */
  nullOk = false;
  /** A leaf's test (judge-node.ts): two leaves with one test judge alike. */
  test: string | undefined = undefined;
  /** OBJECT: the members' names, in the schema's order; UNION: the names of `entries`. */
  names: readonly string[] = [];
  /** OBJECT: the plan of each member present, and its own node (for one absent). */
  members: Plan[] = [];
  own: JudgeNode[] = [];
  /** OBJECT: each name's UTF-8, and the members by first byte (a quote for the empty name). */
  bytes: Uint8Array[] = [];
  byFirst: number[][] = [];
  /** OBJECT: each member's name as written, `"name":`, when it needs no escape (else empty), and as whole words. */
  heads: readonly Uint8Array[] = [];
  headWords: readonly Int32Array[] = [];
  /** OBJECT: the members absent that are refused (required), and those whose node judges undefined (defaulted), a bit each. */
  required = 0;
  asked = 0;
  /** OBJECT: whether an unknown member is refused. */
  strict = false;
  /** ARRAY: the items' plan, and the longest length accepted; RECORD: the members' plan. */
  element: Plan | undefined = undefined;
  cap = Number.POSITIVE_INFINITY;
  /** UNION, and VALUE for any other union: the options' plans. */
  options: readonly Plan[] = [];
  /** UNION: what each member name means under the options (`entries[j]` for `names[j]`), and what a name none knows means. */
  entries: readonly UnionMember[] = [];
  other: UnionMember | undefined = undefined;
  /** UNION: where each option's members start in the mask shared by all, a bit a member. */
  firsts: readonly number[] = [];
  /** UNION: a bit for each option. */
  all = 0;
  /** VALUE: the strings a leaf takes, as UTF-8, when it takes those and nothing else. */
  values: Uint8Array[] = [];
  /** VALUE: a leaf, whose issue on a value of a type it refuses depends on the type alone. */
  leaf = false;

  constructor(
    public kind: Kind,
    /** The node whose `ok` and `why` are this plan's on any value. */
    public node: JudgeNode | undefined,
    /** The node whose structure this plan follows: `node`, or the node inside a nullable. */
    public inner: JudgeNode | undefined = node,
  ) {}
}

export const ANY_PLAN: Plan = new Plan(ANY, undefined);

/** Whether two plans judge alike: the same plan, or leaves of one test. */
function alike(p: Plan, q: Plan): boolean {
  return p === q || (p.test !== undefined && p.test === q.test && p.nullOk === q.nullOk);
}

function takesUndefined(n: JudgeNode): boolean {
  return n.kind === 'optional' || n.kind === 'default' || n.kind === 'unknown';
}

const utf8 = new TextEncoder();

const plans = new WeakMap<JudgeNode, Plan>();

/** Nodes whose plan is being made: one met inside itself (recursion) is judged by its node. */
const making = new Set<JudgeNode>();

/** The plan of a compiled judge's node, whose children are numbered in `table`; made once. */
export function planOf(n: JudgeNode, table: readonly JudgeNode[] = NODES): Plan {
  const known = plans.get(n);
  if (known !== undefined) return known;
  if (making.has(n)) return new Plan(VALUE, n);
  making.add(n);
  try {
    const p = build(n, table);
    plans.set(n, p);
    return p;
  } finally {
    making.delete(n);
  }
}

function build(n: JudgeNode, table: readonly JudgeNode[]): Plan {
  switch (n.kind) {
    case 'unknown':
      return ANY_PLAN;
    case 'optional':
    case 'default':
      return planOf(table[n.inner], table);
    case 'nullable': {
      const inner = planOf(table[n.inner], table);
      if (inner.kind === ANY) return ANY_PLAN;
      return Object.assign(new Plan(inner.kind, n, inner.inner), inner, { node: n, nullOk: true });
    }
    case 'object': {
      if (n.keys.length > MAX_KEYS) return new Plan(VALUE, n);
      const p = new Plan(OBJECT, n);
      p.strict = n.strict;
      n.keys.forEach((k, i) => {
        const child = table[k.child];
        p.members.push(planOf(child, table));
        p.own.push(child);
        // As the generated ok reads an absent member (scripts/gen-judges.mjs emitObject).
        if (k.mode === 'B') p.required |= 1 << i;
        else if (k.mode === 'C' && !takesUndefined(child)) p.asked |= 1 << i;
        const name = utf8.encode(k.name);
        p.bytes.push(name);
        // A name with a quote or a backslash is written escaped: found by decoding (judge-bytes.ts knownName).
        if (name.includes(0x22) || name.includes(0x5c)) return;
        const first = name.length === 0 ? 0x22 : name[0];
        p.byFirst[first] ??= [];
        p.byFirst[first].push(i);
      });
      p.names = n.keys.map((k) => k.name);
      p.heads = p.names.map(head);
      p.headWords = p.heads.map((h) => new Int32Array(h.buffer, 0, h.buffer.byteLength >> 2));
      return p;
    }
    case 'array':
      return Object.assign(new Plan(ARRAY, n), { element: planOf(table[n.element], table), cap: n.cap ?? Number.POSITIVE_INFINITY });
    case 'record':
      return Object.assign(new Plan(RECORD, n), { element: planOf(table[n.value], table) });
    case 'assert-object':
      return new Plan(CONTAINER, n);
    case 'base64':
      return new Plan(BASE64, n);
    case 'leaf':
      return Object.assign(new Plan(n.test === "typeof x === 'string'" ? STRING : VALUE, n), {
        test: n.test,
        leaf: true,
        values: (takenStrings(n) ?? []).map((v) => utf8.encode(v)),
      });
    case 'union': {
      const options = n.options.map((o) => planOf(table[o], table));
      const bits = options.reduce((a, o) => a + o.names.length, 0);
      if (bits <= MAX_KEYS && options.every((o) => o.kind === OBJECT && !o.nullOk)) return unionPlan(n, options);
      return Object.assign(new Plan(VALUE, n), { options });
    }
    default:
      return new Plan(VALUE, n);
  }
}

/** Whether an OBJECT plan accepts the members `seen` lacks: none required, each defaulted one's node taking undefined. */
export function absentOk(p: Plan, seen: number): boolean {
  if ((seen & p.required) !== p.required) return false;
  for (let ask = p.asked & ~seen, i = 0; ask !== 0; ask >>>= 1, i++) if (ask & 1 && !p.own[i].ok(undefined)) return false;
  return true;
}

/** A UNION plan: the options' members get bits of one mask, and each name one entry for all options. */
function unionPlan(n: JudgeNode, options: Plan[]): Plan {
  const first: number[] = [];
  let next = 0;
  for (const o of options) {
    first.push(next);
    next += o.names.length;
  }
  const entry = (name: string | undefined): UnionMember => {
    let bits = 0;
    let kills = 0;
    const plans = options.map((o, i) => {
      const at = name === undefined ? -1 : o.names.indexOf(name);
      if (at >= 0) {
        bits |= 1 << (first[i] + at);
        return o.members[at];
      }
      if (o.strict) kills |= 1 << i;
      return ANY_PLAN;
    });
    const common = plans.every((q) => alike(q, plans[0])) ? plans[0] : undefined;
    return { bits, kills, common, plans };
  };
  const names: string[] = [];
  for (const o of options) for (const name of o.names) if (!names.includes(name)) names.push(name);
  return Object.assign(new Plan(UNION, n), {
    options,
    names,
    entries: names.map(entry),
    other: entry(undefined),
    firsts: first,
    all: 2 ** options.length - 1,
  });
}

/** The strings a leaf takes and nothing else (an enum or literal of strings, no checks), if its verdict bears that out. */
function takenStrings(node: JudgeNode): string[] | undefined {
  const d = (node.zod as ZodNode)._zod.def as { type: string; entries?: Record<string, unknown>; values?: unknown[]; checks?: unknown[] };
  if (d.checks?.length) return undefined;
  const values = d.type === 'enum' && d.entries ? Object.values(d.entries) : d.type === 'literal' ? d.values : undefined;
  if (!values?.length || !values.every((v): v is string => typeof v === 'string')) return undefined;
  // The leaf's own verdict must agree: each taken, and a string that is none of them refused.
  if (!values.every((v) => node.ok(v)) || node.ok(`${values.join('')}\u0000`)) return undefined;
  return values;
}

/** `"name":` for a name of printable ASCII with nothing to escape (else empty), in whole words for headWords. */
function head(name: string): Uint8Array {
  if (!/^[\x20-\x7e]*$/.test(name) || /["\\]/.test(name)) return new Uint8Array(0);
  const text = `"${name}":`;
  const bytes = new Uint8Array(new ArrayBuffer((text.length + 3) & ~3), 0, text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
