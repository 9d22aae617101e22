// Where in the bytes a value sits, given its path: the offset of a schema
// complaint (WIRE.md section 4: "best effort for schema rules").
//
// Runs only on the error path, over text the scanner has already accepted,
// so it favours plainness over speed. Member names are compared decoded, and
// when a name repeats the last one counts, as in JSON.parse.

import { utf8Text } from './utf8-text.js';

type Path = readonly PropertyKey[];

/** The offset of the first byte at or after i that is not JSON whitespace, in text already accepted (it ends in a non-space). */
export function skipWhitespace(b: Uint8Array, i: number): number {
  while (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09) i++;
  return i;
}

/** The offset just past the string whose opening quote is at i. */
function skipString(b: Uint8Array, i: number): number {
  i++;
  while (b[i] !== 0x22) i += b[i] === 0x5c ? 2 : 1;
  return i + 1;
}

/** The offset just past the value that starts at i. */
function skipValue(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === 0x22) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < end) {
      const x = b[i];
      if (x === 0x22) {
        i = skipString(b, i);
        continue;
      }
      if (x === 0x7b || x === 0x5b) depth++;
      else if (x === 0x7d || x === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return end;
  }
  // A number or a literal: up to the next delimiter.
  while (i < end && b[i] !== 0x2c && b[i] !== 0x7d && b[i] !== 0x5d && b[i] !== 0x20 && b[i] !== 0x0a && b[i] !== 0x0d && b[i] !== 0x09) i++;
  return i;
}

/** The offset of the member `name`'s value in the object at i (last one wins), or -1. */
function findMember(b: Uint8Array, i: number, end: number, name: string): number {
  let found = -1;
  i = skipWhitespace(b, i + 1);
  if (b[i] === 0x7d) return -1;
  for (;;) {
    const keyEnd = skipString(b, i);
    const key = JSON.parse(utf8Text(b, i, keyEnd)) as string;
    i = skipWhitespace(b, keyEnd);
    i = skipWhitespace(b, i + 1); // past ':'
    if (key === name) found = i;
    i = skipWhitespace(b, skipValue(b, i, end));
    if (b[i] !== 0x2c) return found;
    i = skipWhitespace(b, i + 1);
  }
}

/** The offset of element `index` of the array at i, or -1. */
function findElement(b: Uint8Array, i: number, end: number, index: number): number {
  i = skipWhitespace(b, i + 1);
  if (b[i] === 0x5d) return -1;
  for (let k = 0; ; k++) {
    if (k === index) return i;
    i = skipWhitespace(b, skipValue(b, i, end));
    if (b[i] !== 0x2c) return -1;
    i = skipWhitespace(b, i + 1);
  }
}

/**
 * The offset of the value at `path` in the JSON text b[start, end), or of
 * the deepest value on the path that exists. The text must be valid.
 */
export function locate(b: Uint8Array, start: number, end: number, path: Path): number {
  let at = skipWhitespace(b, start);
  for (const step of path) {
    let next = -1;
    if (b[at] === 0x7b && typeof step === 'string') next = findMember(b, at, end, step);
    else if (b[at] === 0x5b && typeof step === 'number') next = findElement(b, at, end, step);
    if (next < 0) break;
    at = next;
  }
  return at;
}
