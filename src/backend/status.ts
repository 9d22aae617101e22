// What the core says about a run of bytes, mirrored from assembly/status.ts.
//
// The core and this file must say the same thing; test/status-mirror.test.ts
// reads assembly/status.ts and fails when they drift apart. See that file for
// the offset conventions.

export const Status = {
  Ok: 0,
  Incomplete: 1,
  BadKind: 10,
  BadFinish: 11,
  Oversize: 12,
  TooManyChannels: 13,
  Truncated: 14,
  HeldLimit: 15,
  Empty: 20,
  UnknownTag: 21,
  JsonSyntax: 30,
  JsonEnd: 31,
  Utf8: 32,
  Bom: 33,
  ControlChar: 34,
  BadEscape: 35,
  LoneSurrogate: 36,
  NumberRange: 37,
  Depth: 38,
  Trailing: 39,
  Schema: 40,
  CodeRange: 41,
  TableFull: 50,
} as const;

export type Status = (typeof Status)[keyof typeof Status];

/** The rule a body error breaks, as FrameError and the CLI name it. */
export type BodyRule =
  | 'json-syntax'
  | 'json-end'
  | 'utf8'
  | 'bom'
  | 'control-char'
  | 'bad-escape'
  | 'lone-surrogate'
  | 'number-range'
  | 'depth'
  | 'trailing'
  | 'schema'
  | 'code-range';

const BODY_RULES: Partial<Record<number, BodyRule>> = {
  [Status.JsonSyntax]: 'json-syntax',
  [Status.JsonEnd]: 'json-end',
  [Status.Utf8]: 'utf8',
  [Status.Bom]: 'bom',
  [Status.ControlChar]: 'control-char',
  [Status.BadEscape]: 'bad-escape',
  [Status.LoneSurrogate]: 'lone-surrogate',
  [Status.NumberRange]: 'number-range',
  [Status.Depth]: 'depth',
  [Status.Trailing]: 'trailing',
  [Status.Schema]: 'schema',
  [Status.CodeRange]: 'code-range',
};

/** The body rule a status names, or undefined when it is not a body error. */
export function bodyRule(status: number): BodyRule | undefined {
  return BODY_RULES[status];
}

/** One sentence per rule, naming it the way WIRE.md section 4 does. */
export const RULE_TEXT: Record<BodyRule, string> = {
  'json-syntax': 'not JSON: a byte the grammar does not allow here (rule 4.1)',
  'json-end': 'not JSON: the text ends inside a value (rule 4.1)',
  utf8: 'not valid UTF-8 (rule 4.1)',
  bom: 'a byte-order mark before the value (rule 4.1)',
  'control-char': 'a raw control character inside a string (rule 4.1)',
  'bad-escape': 'a backslash escape JSON does not have (rule 4.1)',
  'lone-surrogate': 'a lone surrogate escape (rule 4.1)',
  'number-range': 'a number that is not finite as an IEEE double (rule 4.1)',
  depth: 'more than 127 arrays and objects nested (rule 4.1)',
  trailing: 'something other than whitespace after the value (rule 4.1)',
  schema: 'the SDK schema refuses the value (rule 4.2)',
  'code-range': 'the error code is outside the signed 32-bit range (rule 4.3)',
};
