// Near-valid values for any zod schema, derived from the schema itself: the
// inputs on which the compiled judges are held to safeParse.
//
// Every node yields a valid value most of the time, and otherwise one of
// the ways values go wrong: the wrong type, null where a member is
// optional, a required member missing, members the schema does not know,
// strings and numbers on either side of a check. Since every node of a
// schema is reached, every branch of every union and every check is.

import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: zod's internals, read member by member.
type Node = any;

const BASE64 = fc.oneof(
  fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64')),
  fc.constantFrom('', 'AA', 'AAA', 'AAAA', 'AR==', 'A===', 'AB=', 'ab cd', 'ab\n==', '!!!!', 'AAAAA', '=', 'Zm9v\u00a0', 'Zm9v'),
);
const DATETIME = fc.constantFrom(
  '2025-01-02T03:04:05Z',
  '2025-01-02T03:04:05.123+02:00',
  '2024-02-29T00:00:00Z',
  '2025-02-29T00:00:00Z',
  '2025-01-02',
  'now',
);
const WORD = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', 'text', 'image', 'user', 'object', 'ref/prompt', 'resource', '__proto__'));
const NUMBER = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, 0.5, 1, 1.5, -0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e300, -1e300, 100, 101),
);
const KEY = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('0', '1', '10', '__proto__', 'constructor', 'type', 'x-vendor'));
const JSON_VALUE = fc.jsonValue({ maxDepth: 2 });

/** A value of the wrong type for most schemas. */
const WRONG = fc.oneof(
  fc.constant(null),
  fc.constant(true),
  NUMBER,
  WORD,
  fc.constant([]),
  fc.constant({}),
  fc.array(NUMBER, { maxLength: 2 }),
  fc.dictionary(KEY, JSON_VALUE, { maxKeys: 2 }),
);

const knownFn = (node: Node, text: string) => typeof node._zod.def.fn === 'function' && String(node._zod.def.fn).includes(text);

export interface ValueOptions {
  /** One in `wrong` values is replaced by a fault. */
  wrong: number;
  /** Nesting left: past it, containers are empty. */
  depth: number;
}

/** Values for `node`: valid ones mostly, near-valid ones otherwise. */
export function valuesFor(node: Node, options: ValueOptions = { wrong: 8, depth: 6 }): fc.Arbitrary<unknown> {
  const memo = new Map<Node, fc.Arbitrary<unknown>>();
  const of = (n: Node, depth: number): fc.Arbitrary<unknown> => {
    const key = depth > 0 ? n : null;
    if (key && memo.has(key)) return memo.get(key)!;
    const valid = validFor(n, depth);
    const arb = fc.oneof({ weight: options.wrong, arbitrary: valid }, { weight: 1, arbitrary: WRONG });
    if (key) memo.set(key, arb);
    return arb;
  };
  const validFor = (n: Node, depth: number): fc.Arbitrary<unknown> => {
    const d = n._zod.def;
    const next = depth - 1;
    switch (d.type) {
      case 'string':
        if ((d.checks ?? []).some((c: Node) => knownFn(c, 'atob'))) return BASE64;
        if (d.format === 'datetime') return DATETIME;
        return WORD;
      case 'number':
        return NUMBER;
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'literal':
        return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...d.values) }, { weight: 1, arbitrary: WORD });
      case 'enum':
        return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...Object.values(d.entries)) }, { weight: 1, arbitrary: WORD });
      case 'unknown':
      case 'any':
        return JSON_VALUE;
      case 'custom':
        return fc.oneof(
          fc.constant({}),
          fc.dictionary(KEY, JSON_VALUE, { maxKeys: 2 }),
          fc.constant([]),
          fc.constant('x'),
          fc.constant(null),
          fc.constant(1),
        );
      case 'optional':
      case 'default':
        return fc.oneof(fc.constant(undefined), of(d.innerType, depth));
      case 'nullable':
        return fc.oneof(fc.constant(null), of(d.innerType, depth));
      case 'array': {
        if (next < 0) return fc.constant([]);
        const max = (d.checks ?? []).find((c: Node) => c._zod.def.check === 'max_length')?._zod.def.maximum;
        const items = fc.array(of(d.element, next), { maxLength: 3 });
        // An array just within, and just past, a length cap.
        if (max !== undefined)
          return fc.oneof(
            items,
            fc.constantFrom(max, max + 1).map((n) => Array.from({ length: n }, (_, i) => `v${i}`)),
          );
        return items;
      }
      case 'record':
        if (next < 0) return fc.constant({});
        return fc.dictionary(KEY, of(d.valueType, next), { maxKeys: 3 });
      case 'union':
        return fc.oneof(...d.options.map((o: Node) => of(o, depth)));
      case 'object': {
        if (next < 0) return fc.constant({});
        const shape = d.shape as Record<string, Node>;
        const entries = Object.keys(shape).map((k) => {
          const child = shape[k];
          const optional = child._zod.optin !== undefined;
          // A member is left out when the schema allows it, and now and then when it does not.
          const present = optional
            ? fc.boolean()
            : fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
          // null where the member is optional: a value no optional wrapper takes.
          const value = optional ? fc.oneof({ weight: 6, arbitrary: of(child, next) }, { weight: 1, arbitrary: fc.constant(null) }) : of(child, next);
          return fc.tuple(fc.constant(k), present, value);
        });
        const extra = fc.dictionary(KEY, JSON_VALUE, { maxKeys: 2 });
        // Members in a shuffled order: the issue order is the schema's, not the value's.
        return fc.tuple(fc.tuple(...entries), extra, fc.boolean()).map(([members, more, reverse]) => {
          const out: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(more))
            if (!(k in shape)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          const list = reverse ? [...members].reverse() : members;
          for (const [k, present, v] of list)
            if (present && v !== undefined)
              Object.defineProperty(out, k as string, { value: v, enumerable: true, writable: true, configurable: true });
          return out;
        });
      }
      default:
        return JSON_VALUE;
    }
  };
  return of(node, options.depth);
}
