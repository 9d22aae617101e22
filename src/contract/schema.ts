// Rules 4.2 and 4.3: the SDK's schema judges the parsed value, and an error
// code fits in 32 bits.
//
// # The schema only judges
//
// Zod's output strips members the schema does not know. Decoding returns
// JSON.parse's value, never that output, so `_meta`, vendor members and
// unknown members inside resources and contents survive (rule 4.2).

import { JSONRPCErrorResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import type { BodyRule } from './rules.js';

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
export const ErrorObjectSchema = JSONRPCErrorResponseSchema.shape.error as unknown as Judge;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Judges a value against a schema; null when it is accepted. */
export function judge(schema: Judge, value: unknown): SchemaFault | null {
  const verdict = schema.safeParse(value);
  if (verdict.success) return null;
  const issue = verdict.error.issues[0];
  const where = issue.path.length ? issue.path.map(String).join('.') : '(the body)';
  return { rule: 'schema', path: issue.path, detail: `${where}: ${issue.message}` };
}

/** Judges an error object: the SDK's schema, then the 32-bit code. */
export function judgeError(value: unknown): SchemaFault | null {
  const fault = judge(ErrorObjectSchema, value);
  if (fault) return fault;
  const code = (value as { code: number }).code;
  if (code < INT32_MIN || code > INT32_MAX) {
    return { rule: 'code-range', path: ['code'], detail: `code ${code} is not in [-2147483648, 2147483647]` };
  }
  return null;
}
