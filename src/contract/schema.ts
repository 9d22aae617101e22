// Rules 4.2 and 4.3: the SDK's schema judges the parsed value (decoding
// returns JSON.parse's value, so unknown members survive), and an error code
// fits in 32 bits. safeParse builds an issue per failing item (a 16 MiB
// `{"resources":[1,1,…]}` ran out of memory), so the SDK's schemas are
// compiled (scripts/gen-judges.mjs) to stop at the first; others use
// safeParse with abortEarly.

import * as sdk from '@modelcontextprotocol/sdk/types.js';
import type { BodyRule } from './rules.js';
import { DRIFT, NODES, ROOTS } from './generated/judges.js';
import { type Fault, finalize, newJudgement } from './judge-kit.js';
import type { JudgeNode } from './judge-node.js';
import { setTableMaker } from './core-plans.js';
import { planOf } from './judge-plan.js';
import { lowerPlan } from './judge-table.js';

/** Anything with zod's safeParse: every SDK result schema is one. */
export interface Judge {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

/** Why a parsed value breaks rule 4.2 or 4.3, and where. */
export interface SchemaFault {
  readonly rule: BodyRule;
  readonly path: PropertyKey[];
  readonly detail: string;
}

/** The `error` member of the SDK's JSON-RPC error response: code, message, data. */
// SDK 1.25.0 named it JSONRPCErrorResponseSchema and kept JSONRPCErrorSchema as an alias; earlier SDKs have only the alias's name.
const errorResponse = (sdk as { JSONRPCErrorResponseSchema?: typeof sdk.JSONRPCErrorSchema }).JSONRPCErrorResponseSchema ?? sdk.JSONRPCErrorSchema;
export const ErrorObjectSchema = errorResponse.shape.error as unknown as Judge;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The compiled judge of each SDK schema, by identity; empty when the SDK is not the one they were built from. */
const COMPILED: ReadonlyMap<object, JudgeNode> = new Map(DRIFT ? [] : ROOTS.map(([, schema, id]) => [schema, NODES[id]]));

export function compiledJudge(schema: Judge): JudgeNode | undefined {
  return COMPILED.get(schema);
}

// The core proves a result's acceptance by the table of its compiled judge's plan.
setTableMaker((schema) => {
  const node = COMPILED.get(schema);
  return node && lowerPlan(planOf(node));
});

/** Whether judging under `node` can meet a blob (a base64 node): the codecs lend a backend's base64 check only then. */
export function reachesBase64(node: JudgeNode): boolean {
  const seen = new Set<JudgeNode>();
  const visit = (n: JudgeNode): boolean => {
    if (seen.has(n)) return false;
    seen.add(n);
    switch (n.kind) {
      case 'base64':
        return true;
      case 'object':
        return n.keys.some((k) => visit(NODES[k.child]));
      case 'array':
        return visit(NODES[n.element]);
      case 'union':
        return n.options.some((o) => visit(NODES[o]));
      case 'optional':
      case 'default':
      case 'nullable':
        return visit(NODES[n.inner]);
      case 'record':
        return visit(NODES[n.value]);
      default:
        return false;
    }
  };
  return visit(node);
}

/** Why the compiled judges are not in use (an SDK other than the build's), or undefined. */
export const COMPILED_DRIFT: Error | undefined = DRIFT;

/** Who gives rule 4.2's verdict: the judges compiled at build time, or the SDK's own schemas. */
export type SchemaJudges = 'compiled' | 'sdk';

/** 'sdk' when the SDK loaded is not the one the judges were generated from (safeParse: same verdicts, slower); fixed at load. */
export const schemaJudges: SchemaJudges = DRIFT ? 'sdk' : 'compiled';

/** A compiled judge's fault as a schema fault. */
export function faultOf(f: Fault): SchemaFault {
  const { path, message } = finalize(f);
  return schemaFault(path, message);
}

function schemaFault(path: PropertyKey[], message: string): SchemaFault {
  const where = path.length ? path.map(String).join('.') : '(the body)';
  return { rule: 'schema', path, detail: `${where}: ${message}` };
}

// zod's abortEarly, through safeParse's parse context.
type SafeParseWith = (value: unknown, ctx: { abortEarly: boolean }) => ReturnType<Judge['safeParse']>;
const ABORT_EARLY = { abortEarly: true };

function zodJudge(schema: Judge, value: unknown): SchemaFault | null {
  const verdict = (schema.safeParse as SafeParseWith).call(schema, value, ABORT_EARLY);
  if (verdict.success) return null;
  const issue = verdict.error.issues[0];
  return schemaFault(issue.path, issue.message);
}

/** Judges a value with a compiled judge: null when it is accepted. */
export function judgeWith(node: JudgeNode, schema: Judge, value: unknown): SchemaFault | null {
  newJudgement();
  if (node.ok(value)) return null;
  const f = node.why(value);
  // No first issue would be a generator bug: the SDK's schema decides.
  return f ? faultOf(f) : zodJudge(schema, value);
}

/** Judges a value against a schema; null when it is accepted. */
export function judge(schema: Judge, value: unknown): SchemaFault | null {
  const node = COMPILED.get(schema);
  return node ? judgeWith(node, schema, value) : zodJudge(schema, value);
}

/** The 32-bit rule on an error object the schema accepted. */
export function codeRange(value: unknown): SchemaFault | null {
  const code = (value as { code: number }).code;
  if (code < INT32_MIN || code > INT32_MAX) {
    return { rule: 'code-range', path: ['code'], detail: `code ${code} is not in [-2147483648, 2147483647]` };
  }
  return null;
}

/** Judges an error object: the SDK's schema, then the 32-bit code. */
export function judgeError(value: unknown): SchemaFault | null {
  return judge(ErrorObjectSchema, value) ?? codeRange(value);
}
