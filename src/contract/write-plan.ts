// What encode's writer judges as it writes: a compiled judge (judge-node.ts) turned into a plan the writer follows.
//
// # Why
//
// Encode judged a copy of the value as written (body-writer.ts): the writer
// built it, then the compiled judge walked it. On the reference servers'
// answers the copy and that second walk were a quarter to a third of
// encode's instructions, and most of what they judged needs no judging:
// `_meta`, a tool's input schema, members the schema does not know.
//
// A plan lets the writer give the compiled judge's verdict in its own walk,
// with no copy where the plan can follow the value:
//
// - ANY: the schema accepts whatever is there (zod's unknown, a member
//   the schema does not know): written, not judged, not copied;
// - OBJECT: a plain object, each member judged by its own plan as it is
//   written, then the members that are required and absent;
// - ARRAY: a plain array, its length against the cap, each item by the
//   element's plan;
// - UNION: a union whose options are all objects: a plain object walked
//   once, each member judged under every option still standing;
// - RECORD: a plain object, each member by the value's plan (zod's record
//   of string keys);
// - CONTAINER: any object or array, not judged further (the SDK's check
//   that a value is an object, which JSON makes of arrays too);
// - STRING: any string (a leaf whose one test is its type);
// - BASE64: a blob, checked on the bytes just written (isBase64Bytes, the
//   same rule as the judge's isBase64 on the string, without encoding the
//   string a second time);
// - VALUE: anything else (a leaf, a union of leaves): the node's own `ok`
//   on the value as written, a copy when it is a container. Leaves with the
//   same test share one plan, so that a union's options agree on them.
//
// A value of another type than a STRING's or a BASE64's is judged by the
// node's `ok` too (a toJSON may return a string).
//
// The verdict is `ok`'s on the value JSON.parse would make of the bytes,
// exactly: an optional or defaulted member's plan is its inner node's,
// since a member written is never undefined; a member whose value is
// undefined is not written, and is absent; a value the plan cannot follow
// (a toJSON, a boxed primitive, an array where an object is asked) goes
// through VALUE. Only the verdict comes from here: a refusal is named by
// the compiled judge's `why` on the value parsed back from the bytes
// (body-writer.ts), so the fault and its path are decode's, and a verdict
// of this plan that disagreed would be overruled there.
// test/write-plan.test.ts holds the plan's verdict to `ok` on generated
// near-valid values.

import { NODES } from './generated/judges.js';
import type { JudgeNode } from './judge-node.js';

export const ANY = 0;
export const OBJECT = 1;
export const ARRAY = 2;
export const UNION = 3;
export const RECORD = 4;
export const CONTAINER = 5;
// The kinds from here on judge a value that is not a string by their node's ok, on a copy.
export const VALUE = 6;
export const STRING = 7;
export const BASE64 = 8;

/** Members of an object plan: at most this many (a bit each in a 32-bit mask). */
const MAX_KEYS = 31;

export interface Plan {
  readonly kind:
    | typeof ANY
    | typeof OBJECT
    | typeof ARRAY
    | typeof UNION
    | typeof RECORD
    | typeof CONTAINER
    | typeof VALUE
    | typeof STRING
    | typeof BASE64;
  /** The node whose `ok` judges the value: a VALUE plan's, and a container's when the value takes another way. */
  readonly node: JudgeNode | undefined;
  /** Whether null is accepted (a nullable node around an object, array or union plan). */
  readonly nullOk: boolean;
  /** OBJECT: the index of each member the schema knows. */
  readonly index: Map<string, number>;
  /** OBJECT: the members' names, in the schema's order (a member written in that order is found without the map); UNION: the names of `entries`. */
  readonly names: readonly string[];
  /** OBJECT: the plan of each member present. */
  readonly members: Plan[];
  /** OBJECT: each member's name as written, `"name":`, when it needs no escape (else empty, and the writer writes it itself). */
  readonly heads: readonly Uint8Array[];
  /** OBJECT: each head's bytes as whole words (zeros after the head), for the writer to write a word at a time. */
  readonly headWords: readonly Int32Array[];
  /** OBJECT: the members absent that are refused (required), a bit each. */
  readonly required: number;
  /** OBJECT: the members absent whose node judges undefined (defaulted), a bit each. */
  readonly asked: number;
  /** OBJECT: whether an unknown member is refused. */
  readonly strict: boolean;
  /** ARRAY: the items' plan, and the longest length accepted; RECORD: the members' plan. */
  readonly element: Plan | undefined;
  readonly cap: number;
  /** UNION: the options' plans, each an OBJECT plan. */
  readonly options: readonly Plan[];
  /**
   * UNION: what each member name means under the options (`entries[j]` for
   * `names[j]`: every name some option knows, options in order, each once),
   * and what a name none of them knows means.
   */
  readonly entries: readonly UnionMember[];
  readonly other: UnionMember | undefined;
  /** UNION: each option's members, by a bit of one mask shared by all: the required ones, and the defaulted ones, as [option, member] for absentOk. */
  readonly requiredBits: readonly number[];
  readonly askedBits: readonly (readonly [number, number, number])[];
  /** UNION: a bit for each option. */
  readonly all: number;
}

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

/**
 * Every plan is one of these, whatever its kind, with its fields in one
 * order. (Plans made as object literals with spreads also came to share
 * one hidden class once V8 had migrated them, checked with its natives
 * syntax; the class says it plainly.)
 */
class PlanOf implements Plan {
  kind: Plan['kind'];
  node: JudgeNode | undefined;
  nullOk = false;
  index: Map<string, number> = NO_INDEX;
  names: readonly string[] = [];
  members: Plan[] = [];
  heads: readonly Uint8Array[] = [];
  headWords: readonly Int32Array[] = [];
  required = 0;
  asked = 0;
  strict = false;
  element: Plan | undefined = undefined;
  cap = Number.POSITIVE_INFINITY;
  options: readonly Plan[] = [];
  entries: readonly UnionMember[] = [];
  other: UnionMember | undefined = undefined;
  requiredBits: readonly number[] = [];
  askedBits: readonly (readonly [number, number, number])[] = [];
  all = 0;

  constructor(kind: Plan['kind'], node: JudgeNode | undefined) {
    this.kind = kind;
    this.node = node;
  }
}

const NO_INDEX = new Map<string, number>();

function plan(kind: Plan['kind'], node: JudgeNode | undefined, more: Partial<Plan> = {}): Plan {
  // Assigned over fields that exist: the hidden class stays the constructor's.
  return Object.assign(new PlanOf(kind, node), more);
}

/** The plan of whatever is accepted: the same object everywhere, so that a union can tell its options agree. */
export const ANY_PLAN: Plan = plan(ANY, undefined);

/** Key modes (judge-node.ts), with the generator's facts on undefined. */
function takesUndefined(n: JudgeNode): boolean {
  return n.kind === 'optional' || n.kind === 'default' || n.kind === 'unknown';
}

const plans = new Map<JudgeNode, Plan>();
/** The plan of each leaf test (judge-node.ts): leaves that test alike judge alike. */
const leaves = new Map<string, Plan>();

/** The plan of a compiled judge's node, made once. */
export function planOf(node: JudgeNode): Plan {
  let p = plans.get(node);
  if (p === undefined) {
    p = make(node, new Set());
    plans.set(node, p);
  }
  return p;
}

function make(n: JudgeNode, making: Set<JudgeNode>): Plan {
  const known = plans.get(n);
  if (known !== undefined) return known;
  // A node met again inside itself (a recursive schema): its own ok judges it there.
  if (making.has(n)) return plan(VALUE, n);
  making.add(n);
  try {
    const p = build(n, making);
    plans.set(n, p);
    return p;
  } finally {
    making.delete(n);
  }
}

function build(n: JudgeNode, making: Set<JudgeNode>): Plan {
  switch (n.kind) {
    case 'unknown':
      return ANY_PLAN;
    // A member written is never undefined: what an optional or defaulted node judges then is its inner node's verdict.
    case 'optional':
    case 'default':
      return make(NODES[n.inner], making);
    case 'nullable': {
      const inner = make(NODES[n.inner], making);
      if (inner.kind === ANY) return ANY_PLAN;
      if (inner.kind === VALUE) return plan(VALUE, n);
      return Object.assign(new PlanOf(inner.kind, inner.node), inner, { nullOk: true });
    }
    case 'object': {
      if (n.keys.length > MAX_KEYS) return plan(VALUE, n);
      const index = new Map<string, number>();
      const members: Plan[] = [];
      let required = 0;
      let asked = 0;
      n.keys.forEach((k, i) => {
        const child = NODES[k.child];
        index.set(k.name, i);
        members.push(make(child, making));
        // As the generated ok reads an absent member (scripts/gen-judges.mjs emitObject), on a value JSON.parse made.
        if (k.mode === 'B') required |= 1 << i;
        else if (k.mode === 'C' && !takesUndefined(child)) asked |= 1 << i;
      });
      const heads = n.keys.map((k) => head(k.name));
      return plan(OBJECT, n, {
        index,
        names: n.keys.map((k) => k.name),
        members,
        heads,
        headWords: heads.map(headWords),
        required,
        asked,
        strict: n.strict,
      });
    }
    case 'array':
      return plan(ARRAY, n, { element: make(NODES[n.element], making), cap: n.cap ?? Number.POSITIVE_INFINITY });
    case 'record':
      return plan(RECORD, n, { element: make(NODES[n.value], making) });
    case 'assert-object':
      return plan(CONTAINER, n);
    case 'base64':
      return plan(BASE64, n);
    case 'leaf': {
      let shared = leaves.get(n.test);
      if (shared === undefined) {
        shared = plan(n.test === "typeof x === 'string'" ? STRING : VALUE, n);
        leaves.set(n.test, shared);
      }
      return shared;
    }
    case 'union': {
      const options = n.options.map((o) => make(NODES[o], making));
      const bits = options.reduce((a, o) => a + o.names.length, 0);
      if (bits > MAX_KEYS || !options.every((o) => o.kind === OBJECT && !o.nullOk)) return plan(VALUE, n);
      return unionPlan(n, options);
    }
    default:
      return plan(VALUE, n);
  }
}

/** A defaulted member that is absent: its node's verdict on undefined. */
export function absentOk(p: Plan, i: number): boolean {
  const n = p.node as JudgeNode & { kind: 'object' };
  return NODES[n.keys[i].child].ok(undefined);
}

/** A UNION plan: each option's members get bits of one shared mask, and each name one entry for all options. */
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
      const at = name === undefined ? undefined : o.index.get(name);
      if (at !== undefined) {
        bits |= 1 << (first[i] + at);
        return o.members[at];
      }
      if (o.strict) kills |= 1 << i;
      return ANY_PLAN;
    });
    const common = plans.every((q) => q === plans[0]) ? plans[0] : undefined;
    return { bits, kills, common, plans };
  };
  const names: string[] = [];
  for (const o of options) for (const name of o.names) if (!names.includes(name)) names.push(name);
  const askedBits: [number, number, number][] = [];
  options.forEach((o, i) => {
    for (let k = 0; k < o.names.length; k++) if (o.asked & (1 << k)) askedBits.push([i, first[i] + k, k]);
  });
  return plan(UNION, n, {
    options,
    names,
    entries: names.map(entry),
    other: entry(undefined),
    requiredBits: options.map((o, i) => o.required * 2 ** first[i]),
    askedBits,
    all: 2 ** options.length - 1,
  });
}

/**
 * `"name":` as bytes, for a name of printable ASCII with nothing to escape;
 * empty otherwise. The bytes lie at the start of a buffer of whole words,
 * zeros after them, so that headWords can view it (the writer writes a head
 * a word at a time).
 */
function head(name: string): Uint8Array {
  if (!/^[\x20-\x7e]*$/.test(name) || /["\\]/.test(name)) return new Uint8Array(0);
  const text = `"${name}":`;
  const bytes = new Uint8Array(new ArrayBuffer((text.length + 3) & ~3), 0, text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** A head's bytes as the words of its buffer, in the platform's byte order. */
function headWords(head: Uint8Array): Int32Array {
  return new Int32Array(head.buffer, 0, head.buffer.byteLength >> 2);
}
