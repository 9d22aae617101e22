// What encoding refuses (WIRE.md section 5), with the value's path, before
// any byte: what decoding refuses, and what JSON.stringify would alter.
// - a number not finite, a lone surrogate, more than 127 levels (rule 4.1);
// - a cycle; undefined in an array, as the body, or from toJSON;
// - a function, a symbol or a BigInt, boxed or not, without a toJSON;
// - a body longer than V8's longest string, or a frame than a record holds;
// - an array past 2^26 elements (body-writer.ts, MAX_ELEMENTS);
// - what the SDK's schema refuses (rule 4.2), a code past 32 bits (4.3).
// A member whose value is `undefined` is left out, as by JSON.stringify.

export class EncodeError extends Error {
  override readonly name = 'EncodeError';
  /** The path of the refused value, from the frame's body. */
  readonly path: PropertyKey[];
  constructor(message: string, path: PropertyKey[], options?: { cause?: unknown }) {
    super(`cannot encode ${path.length ? path.map((k) => shown(String(k))).join('.') : 'the body'}: ${message}`, options);
    this.path = path;
  }
}

/** How much of a name or a thrown message a message shows: one of V8's longest would make it throw a RangeError. */
const SHOWN = 200;

function shown(s: string): string {
  return s.length > SHOWN ? `${s.slice(0, SHOWN)}…` : s;
}

/** What the value's own code threw, in words, unless describing it (its code again) throws too. */
function describe(e: unknown): string {
  try {
    return e instanceof Error ? `${shown(String(e.name))}: ${shown(String(e.message))}` : shown(String(e));
  } catch {
    return 'a value that cannot be made a string';
  }
}

export const REFUSAL = {
  notFinite: (n: number) => `${n} is not a finite number (rule 4.1)`,
  loneSurrogate: 'a lone surrogate in a string (rule 4.1)',
  loneSurrogateInName: 'a lone surrogate in a member name (rule 4.1)',
  depth: 'more than 127 arrays and objects nested (rule 4.1)',
  cycle: 'a cycle',
  undefinedInArray: 'undefined in an array would become null',
  undefinedMember: 'undefined is not JSON',
  notJson: (type: string) => `a ${type} is not JSON`,
  boxedBigint: 'a boxed bigint is not JSON',
  tooLong: (units: number) =>
    `its JSON text would be longer than ${units} characters, the longest string V8 holds, so no JavaScript peer could decode it`,
  tooManyElements: (n: number) =>
    `an array of more than ${n} elements is near the longest V8 holds: past it, JSON.parse (and the value as written) would stop the process`,
  tooLarge: (bytes: number) => `the frame would be longer than ${bytes} bytes, the most a record can carry`,
  noMemory: (bytes: number) => `${bytes} bytes could not be allocated for the frame`,
  threw: (e: unknown) => `reading the value threw ${describe(e)}`,
} as const;
