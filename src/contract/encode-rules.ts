// What encoding refuses (WIRE.md section 5): every value decoding would refuse, and every value JSON.stringify would alter.
//
// JSON.stringify does not refuse; it alters. NaN and Infinity become null,
// functions and symbols vanish from objects and become null in arrays,
// undefined in an array becomes null, and a lone surrogate becomes an
// escape that a strict peer refuses. Encoding refuses all of these instead,
// with the path of the value, before it returns any byte:
//
// - a number that is not finite (rule 4.1);
// - a lone surrogate, in a string or a member name (rule 4.1);
// - more than 127 arrays and objects nested (rule 4.1), and a cycle;
// - undefined in an array, or as the body, or returned by toJSON;
// - a function, a symbol or a BigInt, boxed or not, wherever it stands,
//   unless it has a toJSON, which is called as JSON.stringify calls it;
// - a body whose JSON text is longer than V8's longest string, which no
//   JavaScript peer on V8 could decode, or whose frame is longer than a
//   record can carry;
// - an array longer than 2^26 elements, near V8's longest array: past it,
//   JSON.parse stops the process (body-writer.ts, MAX_ELEMENTS);
// - a result the SDK's schema refuses (rule 4.2), a code outside 32 bits
//   (rule 4.3), judged on the value as written.
//
// Members whose value is `undefined` are left out, as JSON.stringify leaves
// them out, so that optional fields may be written as `undefined`.

export class EncodeError extends Error {
  override readonly name = 'EncodeError';
  /** The path of the refused value, from the frame's body. */
  readonly path: PropertyKey[];
  constructor(message: string, path: PropertyKey[], options?: { cause?: unknown }) {
    super(`cannot encode ${path.length ? path.map((k) => shown(String(k))).join('.') : 'the body'}: ${message}`, options);
    this.path = path;
  }
}

/**
 * How much of a member name, or of what the value's own code threw, a
 * message shows. A message is one string: a name or an error message of
 * V8's longest string cannot be put in it, and making it would throw a
 * RangeError in place of the EncodeError. `path` and `cause` keep them whole.
 */
const SHOWN = 200;

function shown(s: string): string {
  return s.length > SHOWN ? `${s.slice(0, SHOWN)}…` : s;
}

/**
 * What the value's own code threw, in words. Describing it runs code of
 * the value's too (a toString, a getter of its message, a Proxy's traps),
 * which may throw in turn: then it is not described.
 */
function describe(e: unknown): string {
  try {
    return e instanceof Error ? `${shown(String(e.name))}: ${shown(String(e.message))}` : shown(String(e));
  } catch {
    return 'a value that cannot be made a string';
  }
}

/** The messages of the refusals body-writer.ts makes. */
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
