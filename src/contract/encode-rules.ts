// What encoding refuses (WIRE.md section 5): every value decoding would
// refuse, found before a byte is written.
//
// # Why a walk before JSON.stringify
//
// JSON.stringify does not refuse; it alters. NaN and Infinity become null,
// functions and symbols vanish from objects and become null in arrays, and
// a lone surrogate becomes an escape that a strict peer refuses. So one walk
// checks the value first: finite numbers, well-formed strings (member names
// too), 127 levels at most, no cycles, nothing JSON cannot hold. Members
// whose value is `undefined` are left out, as JSON.stringify leaves them
// out, so optional fields may be written as `undefined`; `toJSON` is
// followed, as JSON.stringify follows it. Either of those means the bytes
// hold a converted value, which `converted` reports so that the schema can
// judge what decoding will see.

import { MAX_DEPTH } from './json-text.js';

export class EncodeError extends Error {
  override readonly name = 'EncodeError';
  /** The path of the refused value, from the frame's body. */
  readonly path: PropertyKey[];
  constructor(message: string, path: PropertyKey[]) {
    super(`cannot encode ${path.length ? path.map(String).join('.') : 'the body'}: ${message}`);
    this.path = path;
  }
}

const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s);

interface Walk {
  converted: boolean;
  ancestors: object[];
  path: PropertyKey[];
}

function check(value: unknown, walk: Walk, inArray: boolean, afterToJSON = false): void {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw new EncodeError('a lone surrogate in a string (rule 4.1)', walk.path.slice());
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new EncodeError(`${value} is not a finite number (rule 4.1)`, walk.path.slice());
      return;
    case 'boolean':
      return;
    case 'undefined':
      throw new EncodeError(inArray ? 'undefined in an array would become null' : 'undefined is not JSON', walk.path.slice());
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new EncodeError(`a ${typeof value} is not JSON`, walk.path.slice());
  }
  if (value === null) return;
  const object = value as Record<string, unknown> & { toJSON?: unknown };
  // JSON.stringify calls toJSON once per value, not again on what it returns.
  if (!afterToJSON && typeof object.toJSON === 'function') {
    walk.converted = true;
    const key = walk.path.length ? String(walk.path[walk.path.length - 1]) : '';
    check((object.toJSON as (key: string) => unknown)(key), walk, inArray, true);
    return;
  }
  // Boxed primitives are written as the primitive they hold (ECMA-262,
  // SerializeJSONProperty), so they are judged as that primitive.
  if (object instanceof Number || object instanceof String || object instanceof Boolean) {
    walk.converted = true;
    check(object.valueOf(), walk, inArray, true);
    return;
  }
  if (typeof BigInt === 'function' && object instanceof BigInt) throw new EncodeError('a boxed bigint is not JSON', walk.path.slice());
  if (walk.ancestors.includes(object)) throw new EncodeError('a cycle', walk.path.slice());
  if (walk.ancestors.length >= MAX_DEPTH) throw new EncodeError('more than 127 arrays and objects nested (rule 4.1)', walk.path.slice());
  walk.ancestors.push(object);
  if (Array.isArray(object)) {
    for (let k = 0; k < object.length; k++) {
      walk.path.push(k);
      check(object[k], walk, true);
      walk.path.pop();
    }
  } else {
    // JSON.stringify writes own enumerable members only, while the schema
    // reads any member: an inherited, non-enumerable or class-held member
    // would pass the schema and vanish from the bytes. Then the schema must
    // judge what was written.
    const keys = Object.keys(object);
    const proto = Object.getPrototypeOf(object);
    if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertyNames(object).length !== keys.length) walk.converted = true;
    for (const key of keys) {
      if (!isWellFormed(key)) throw new EncodeError('a lone surrogate in a member name (rule 4.1)', walk.path.slice());
      const member = object[key];
      if (member === undefined) {
        walk.converted = true;
        continue;
      }
      walk.path.push(key);
      check(member, walk, false);
      walk.path.pop();
    }
  }
  walk.ancestors.pop();
}

/**
 * Checks that `value` can be written as strict JSON without alteration.
 * Throws EncodeError when it cannot. Returns whether JSON.stringify will
 * convert something on the way (undefined members, toJSON).
 */
export function checkEncodable(value: unknown): { converted: boolean } {
  const walk: Walk = { converted: false, ancestors: [], path: [] };
  check(value, walk, false);
  return { converted: walk.converted };
}
