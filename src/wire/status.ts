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

/**
 * Every status's name, as the library, the CLI and the vectors spell it:
 * record errors (WIRE.md section 3) are RecordError reasons, body errors
 * (section 4) are FrameError rules. The one table; records/record-error.ts
 * and contract/rules.ts each take their part of it.
 */
const NAMES: Readonly<Record<Status, string>> = {
  [Status.Ok]: 'ok',
  [Status.Incomplete]: 'incomplete',
  [Status.BadKind]: 'bad-kind',
  [Status.BadFinish]: 'bad-finish',
  [Status.Oversize]: 'oversize',
  [Status.TooManyChannels]: 'too-many-channels',
  [Status.Truncated]: 'truncated',
  [Status.HeldLimit]: 'held-limit',
  [Status.Empty]: 'empty',
  [Status.UnknownTag]: 'unknown-tag',
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
  [Status.TableFull]: 'table-full',
};

/** The name of `status`, or undefined for a number that is no status. */
export function statusName(status: number): string | undefined {
  return Object.hasOwn(NAMES, status) ? NAMES[status as Status] : undefined;
}

/** Whether `status` is a record error (WIRE.md section 3): fatal for the stream. */
export function isRecordError(status: number): boolean {
  return status >= Status.BadKind && status <= Status.HeldLimit;
}

/** Whether `status` is a body error (WIRE.md section 4). */
export function isBodyError(status: number): boolean {
  return status >= Status.JsonSyntax && status <= Status.CodeRange;
}
