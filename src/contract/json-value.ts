// The value of a body a backend accepted: JSON.parse's, with long blobs built
// outside it. JSON.parse took ~33 µs on a 48 KiB blob, the UTF-8 decoder 5–8.
// A blob of alphabet and '=' alone (judge-bytes.ts plainBlobs) is ASCII with
// no escape: its string is its bytes. Each is cut from the text and stands
// there as a marker, U+DC00 then its number; no string of a body rule 4.1
// accepts starts with U+DC00, so each marker found is replaced by its blob.
// One not found (a repeated name, whose last value JSON.parse keeps) is a
// blob the value does not hold.

import { utf8Text } from './utf8-text.js';

/** Blobs shorter than this, quotes included, are left to JSON.parse: cutting them out costs more. */
export const SPLICE_MIN = 1024;

/** The first code unit of a marker. */
const MARK = 0xdc00;

/**
 * JSON.parse's value of the text b[start, end), which a backend accepted.
 * `blobs` holds pairs (opening quote, past the closing one), in any order,
 * of string values of ASCII with no backslash, built from their bytes.
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
    // Noted twice (a union's options), cut out once.
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

/** The string of the blob a marker stands for. */
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
    // Own names only, whatever Object.prototype holds.
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
