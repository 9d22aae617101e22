// Where in the bytes a value sits, given its path: the offset of a schema
// complaint (WIRE.md section 4: "best effort"), on the error path only. Names
// are compared decoded; of a repeated name the last counts, as in JSON.parse.

import { SMALL, skipWhitespace, Walk } from './judge-bytes.js';
import { utf8Text } from './utf8-text.js';

/** The offset of the value at `path` in the valid JSON text b[start, _end), or of the deepest one on it that exists. */
export function locate(b: Uint8Array, start: number, _end: number, path: readonly PropertyKey[]): number {
  // No end is kept: a long refused frame's offsets cost no memory.
  const walk = new Walk(b, SMALL, Number.POSITIVE_INFINITY);
  let at = skipWhitespace(b, start);
  for (const step of path) {
    let next = -1;
    if (b[at] === 0x7b && typeof step === 'string') {
      walk.members(at, (ks, ke, vs) => {
        if (JSON.parse(utf8Text(b, ks, ke)) === step) next = vs;
      });
    } else if (b[at] === 0x5b && typeof step === 'number') {
      walk.items(at, (is, _ie, k) => {
        if (k === step) next = is;
        return k === step;
      });
    }
    if (next < 0) break;
    at = next;
  }
  return at;
}
