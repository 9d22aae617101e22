// The value of a body a backend accepted: JSON.parse's, with long blobs built
// from their bytes (JSON.parse took ~33 µs on a 48 KiB blob, the decoder
// 5–8). A blob of alphabet and '=' (judge-bytes.ts plainBlobs) stands as a
// marker, U+DC00 then its number, which no string rule 4.1 accepts starts
// with. A marker not found (a repeated name) is a blob the value lacks.

import { utf8Text } from './utf8-text.js';

/** Blobs shorter than this, quotes included, are left to JSON.parse: cutting them out costs more. */
export const SPLICE_MIN = 1024;

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
  if (typeof value === 'object' && value !== null) place(value, b, kept, kept.length >> 1);
  return value;
}

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

function blobString(b: Uint8Array, kept: readonly number[], marker: string): string {
  const k = 2 * Number(marker.slice(1));
  return utf8Text(b, kept[k] + 1, kept[k + 1] - 1);
}

/** Puts each blob where its marker is in JSON.parse's value, while `left` are to place; returns how many still are. */
function place(value: object, b: Uint8Array, kept: readonly number[], left: number): number {
  const members = value as Record<string, unknown>;
  // An array's indices, or an object's own names whatever Object.prototype holds.
  const keys = Array.isArray(value) ? undefined : Object.keys(members);
  const n = keys === undefined ? (value as unknown[]).length : keys.length;
  for (let i = 0; i < n && left > 0; i++) {
    const key = keys === undefined ? i : keys[i];
    const x = members[key];
    if (typeof x === 'string') {
      if (isMarker(x)) {
        members[key] = blobString(b, kept, x);
        left--;
      }
    } else if (typeof x === 'object' && x !== null) left = place(x, b, kept, left);
  }
  return left;
}
