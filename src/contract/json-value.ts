// The value of a body a backend accepted: JSON.parse's, with its long blobs built outside JSON.parse.
//
// # Why
//
// JSON.parse reads a string a character at a time, escapes and all: on a
// base64 blob of 48 KiB it spent about 33 µs here, against 5 to 8 µs for
// the host's UTF-8 decoder to make the same string from its bytes. A blob
// whose content is the base64 alphabet and '=' alone (as the byte judge
// finds most of them, judge-bytes.ts plainBlobs) is ASCII with no escape,
// so its string is exactly its bytes.
//
// # How
//
// Each such blob's content is cut out of the text handed to JSON.parse and
// stands there as a marker: a string that starts with U+DC00, then the
// blob's number. No string of a body that rule 4.1 accepts starts with
// U+DC00: UTF-8 cannot carry a surrogate, an escaped low surrogate is
// accepted only right after a high one, and a lone one is refused. So the
// markers are the only such strings in the value JSON.parse builds, and
// each is replaced by its blob's string where it lies. A marker that is
// not there (a repeated member name, whose last value JSON.parse keeps) is
// a blob the value does not hold, and is left alone; every other member,
// its order and its value are JSON.parse's own.

import { utf8Text } from './utf8-text.js';

/** Blobs shorter than this (quotes included) are left to JSON.parse: cutting them out costs more than it saves. */
export const SPLICE_MIN = 1024;

/** The first code unit of a marker. */
const MARK = 0xdc00;

/**
 * The value of the JSON text b[start, end), which a backend accepted (rule
 * 4.1): JSON.parse's. `blobs` holds pairs of offsets, a string's opening
 * quote and the offset past its closing one, for strings that are values
 * (never member names) whose content is ASCII with no backslash, in any
 * order; they are built from their bytes rather than read by JSON.parse.
 */
export function parseBody(b: Uint8Array, start: number, end: number, blobs: readonly number[]): unknown {
  if (blobs.length === 0) return JSON.parse(utf8Text(b, start, end));
  const order = sortedPairs(blobs);
  let text = '';
  let at = start;
  const kept: number[] = [];
  for (let k = 0; k < order.length; k += 2) {
    const s = order[k];
    const e = order[k + 1];
    // A string noted twice (a union tries its options in turn) is cut out once.
    if (s < at) continue;
    text += `${utf8Text(b, at, s + 1)}\\udc00${kept.length >> 1}`;
    kept.push(s, e);
    at = e - 1;
  }
  text += utf8Text(b, at, end);
  const value: unknown = JSON.parse(text);
  if (typeof value === 'string') return isMarker(value) ? blobString(b, kept, value) : value;
  if (typeof value === 'object' && value !== null) {
    const place = new Placing(b, kept);
    place.visit(value);
  }
  return value;
}

/** The pairs of `pairs` ordered by their first offset. */
function sortedPairs(pairs: readonly number[]): readonly number[] {
  let ordered = true;
  for (let k = 2; k < pairs.length; k += 2) if (pairs[k] < pairs[k - 2]) ordered = false;
  if (ordered) return pairs;
  const starts: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) starts.push(k);
  starts.sort((x, y) => pairs[x] - pairs[y]);
  const out: number[] = [];
  for (const k of starts) out.push(pairs[k], pairs[k + 1]);
  return out;
}

function isMarker(s: string): boolean {
  return s.charCodeAt(0) === MARK;
}

/** The string of the blob a marker stands for: its content's bytes, which are ASCII. */
function blobString(b: Uint8Array, kept: readonly number[], marker: string): string {
  const k = 2 * Number(marker.slice(1));
  return utf8Text(b, kept[k] + 1, kept[k + 1] - 1);
}

/** A walk of JSON.parse's value that puts each blob where its marker is, and stops once all are placed. */
class Placing {
  private left: number;

  constructor(
    private readonly b: Uint8Array,
    private readonly kept: readonly number[],
  ) {
    this.left = kept.length >> 1;
  }

  visit(value: object): void {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length && this.left > 0; i++) {
        const x: unknown = value[i];
        if (typeof x === 'string') {
          if (isMarker(x)) value[i] = this.blob(x);
        } else if (typeof x === 'object' && x !== null) this.visit(x);
      }
      return;
    }
    const members = value as Record<string, unknown>;
    // Own names only: whatever a program added to Object.prototype is no part of the value.
    for (const key of Object.keys(members)) {
      if (this.left === 0) return;
      const x = members[key];
      if (typeof x === 'string') {
        if (isMarker(x)) members[key] = this.blob(x);
      } else if (typeof x === 'object' && x !== null) this.visit(x);
    }
  }

  private blob(marker: string): string {
    this.left--;
    return blobString(this.b, this.kept, marker);
  }
}
