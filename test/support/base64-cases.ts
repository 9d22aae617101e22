// Inputs for the tests of the SDK's base64 rule (test/base64.test.ts, test/string-kit.test.ts).

import fc from 'fast-check';

/** The SDK's own test (Base64Schema's refinement). */
export function atobAccepts(s: string): boolean {
  try {
    atob(s);
    return true;
  } catch {
    return false;
  }
}

/** Real base64 of `bytes`, then edited: padding kept, cut or one added, and up to three of `inserts` put in anywhere. */
export function editedBase64(bytes: fc.Arbitrary<Uint8Array>, inserts: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(bytes, fc.array(fc.tuple(fc.nat(), inserts), { maxLength: 3 }), fc.constantFrom('keep', 'strip', 'extra'))
    .map(([b, edits, pad]) => {
      let s = Buffer.from(b).toString('base64');
      if (pad === 'strip') s = s.replace(/=+$/, '');
      if (pad === 'extra') s += '=';
      for (const [at, insert] of edits) {
        const k = s.length ? at % (s.length + 1) : 0;
        s = s.slice(0, k) + insert + s.slice(k);
      }
      return s;
    });
}

/** s as the bytes between a JSON string's quotes, quotes included, some units written as escapes (`\/`, `\uXXXX`, or JSON.stringify's). */
export function jsonString(s: string, escapes: readonly boolean[]): Uint8Array {
  let text = '';
  [...s].forEach((ch, k) => {
    const escaped = escapes[k % Math.max(1, escapes.length)];
    if (escaped && ch === '/') text += '\\/';
    else if (escaped && ch.length === 1) text += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else text += JSON.stringify(ch).slice(1, -1);
  });
  return new TextEncoder().encode(`"${text}"`);
}
