// Where in the bytes a value sits, given its path: the offset of a schema
// complaint (WIRE.md section 4: "best effort"), on the error path only. Names
// are compared decoded; of a repeated name the last counts, as in JSON.parse.

import { skipOnce, skipString, skipWhitespace } from './judge-bytes.js';
import { utf8Text } from './utf8-text.js';

type Path = readonly PropertyKey[];

/** The offset of the member `name`'s value in the object at i (last one wins), or -1. */
function findMember(b: Uint8Array, i: number, name: string): number {
  let found = -1;
  i = skipWhitespace(b, i + 1);
  if (b[i] === 0x7d) return -1;
  for (;;) {
    const keyEnd = skipString(b, i);
    const key = JSON.parse(utf8Text(b, i, keyEnd)) as string;
    i = skipWhitespace(b, keyEnd);
    i = skipWhitespace(b, i + 1); // past ':'
    if (key === name) found = i;
    i = skipWhitespace(b, skipOnce(b, i));
    if (b[i] !== 0x2c) return found;
    i = skipWhitespace(b, i + 1);
  }
}

/** The offset of element `index` of the array at i, or -1. */
function findElement(b: Uint8Array, i: number, index: number): number {
  i = skipWhitespace(b, i + 1);
  if (b[i] === 0x5d) return -1;
  for (let k = 0; ; k++) {
    if (k === index) return i;
    i = skipWhitespace(b, skipOnce(b, i));
    if (b[i] !== 0x2c) return -1;
    i = skipWhitespace(b, i + 1);
  }
}

/** The offset of the value at `path` in the valid JSON text b[start, _end), or of the deepest one on it that exists. */
export function locate(b: Uint8Array, start: number, _end: number, path: Path): number {
  let at = skipWhitespace(b, start);
  for (const step of path) {
    let next = -1;
    if (b[at] === 0x7b && typeof step === 'string') next = findMember(b, at, step);
    else if (b[at] === 0x5b && typeof step === 'number') next = findElement(b, at, step);
    if (next < 0) break;
    at = next;
  }
  return at;
}
