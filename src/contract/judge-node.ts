// The shape of one compiled schema node: what the generated judges export
// for judge-plan.ts to make the plan every walk follows.

import type { Fault, ZodNode } from './judge-kit.js';

interface Common {
  /** The verdict on a value: safeParse's success, allocation-free. */
  ok(x: unknown): boolean;
  /** The first issue on a value (and whether zod's list aborted), or undefined when it passes. */
  why(x: unknown): Fault | undefined;
  /** The SDK's zod node this was compiled from. */
  zod: ZodNode;
}

/** An absent member, by zod's handlePropertyResult: 'A' optional, 'B' required (an issue), 'C' defaulted (judged as undefined). */
type KeyMode = 'A' | 'B' | 'C';

export type JudgeNode =
  | (Common & { kind: 'island' | 'unknown' | 'base64' | 'assert-object' })
  /** `test` is the leaf's check as JS on `x` (scripts/gen-judges.mjs leafTest): two leaves with one test judge alike. */
  | (Common & { kind: 'leaf'; test: string })
  | (Common & { kind: 'object'; keys: readonly { name: string; child: number; mode: KeyMode }[]; strict: boolean })
  | (Common & { kind: 'array'; element: number; cap: number })
  | (Common & { kind: 'union'; options: readonly number[] })
  | (Common & { kind: 'optional' | 'default' | 'nullable'; inner: number })
  | (Common & { kind: 'record'; value: number; trivial: boolean });
