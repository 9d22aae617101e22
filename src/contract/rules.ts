// The rules a body breaks (WIRE.md section 4): a body error's status's name
// (src/wire/status.ts), and what FrameError and the CLI say of each.

import { isBodyError, statusName } from '../wire/status.js';

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

/** The body rule a status names, or undefined when it is not a body error. */
export function bodyRule(status: number): BodyRule | undefined {
  return isBodyError(status) ? (statusName(status) as BodyRule) : undefined;
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
