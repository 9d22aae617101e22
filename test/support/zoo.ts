// Zod constructs the SDK's result schemas do not use today: the generator is held to safeParse on them too
// (test/generator.test.ts), so that an SDK that starts using one gets judges that are right, or islands that zod judges.

import * as z from 'zod/v4';

export const Zoo = z.object({
  strict: z.object({ a: z.string(), b: z.number().optional() }).strict().optional(),
  nullableNumber: z.number().nullable().optional(),
  int32: z.int32().optional(),
  exclusive: z.number().gt(0).lt(10).optional(),
  literals: z.literal(['a', 'b', 1, true, null]).optional(),
  enumerated: z.enum(['x', 'y']).optional(),
  defaulted: z.string().default('d'),
  unknownRequired: z.unknown(),
  unionTakingUndefined: z.union([z.string().optional(), z.number()]),
  union3: z.union([z.string(), z.number().min(5), z.object({ t: z.literal('o'), v: z.array(z.string()) })]).optional(),
  cappedArray: z.array(z.number()).max(2).optional(),
  numberRecord: z.record(z.string(), z.number()).optional(),
  nested: z.object({ deep: z.object({ list: z.array(z.object({ n: z.number(), s: z.string().nullable() })) }) }).optional(),
  // Islands: rules the generator leaves to zod.
  transformed: z
    .string()
    .transform((s) => s.length)
    .optional(),
  refined: z
    .string()
    .refine((s) => s.length < 3, 'too long')
    .optional(),
  discriminated: z
    .discriminatedUnion('kind', [z.object({ kind: z.literal('a'), v: z.string() }), z.object({ kind: z.literal('b'), v: z.number() })])
    .optional(),
  intersected: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })).optional(),
  boundedString: z.string().max(3).optional(),
  minArray: z.array(z.number()).min(1).optional(),
  enumKeyRecord: z.record(z.enum(['p', 'q']), z.number()).optional(),
  numberCatchall: z.object({ a: z.string() }).catchall(z.number()).optional(),
  tuple: z.tuple([z.string(), z.number()]).optional(),
  coerced: z.coerce.number().optional(),
});

/** A root that is not an object. */
export const ZooList = z
  .array(z.union([z.object({ type: z.literal('one'), x: z.number() }), z.object({ type: z.literal('two'), y: z.string() })]))
  .max(3);
