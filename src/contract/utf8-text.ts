// Bytes of UTF-8 into a JS string. A short body's text is read before any
// backend checked it (screen.ts), so a decoder put in must give
// TextDecoder's U+FFFD for bytes not UTF-8. `ignoreBOM`: the default drops
// a string's leading U+FEFF (a date the SDK refuses was once accepted so).
// PERF NOTES: runtime/node.ts puts in Buffer's utf8Slice, 93 ns against 131
// on a 150-byte listing: 5–7% less CPU for decode.

export type Utf8Text = (b: Uint8Array, start: number, end: number) => string;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const viaTextDecoder: Utf8Text = (b, start, end) => decoder.decode(start === 0 && end === b.length ? b : b.subarray(start, end));

let current: Utf8Text = viaTextDecoder;

/** The text of the UTF-8 bytes b[start, end), by the decoder in force. */
export function utf8Text(b: Uint8Array, start: number, end: number): string {
  return current(b, start, end);
}

/** What a decoder put in must decode as TextDecoder does: strings, and bytes not UTF-8 (stray, overlong, surrogate, cut, past U+10FFFF, five-byte lead). */
const PROBES: readonly (readonly number[])[] = [
  ...['', 'a', '\ufeffa', 'é€😀', '"\\u0000"', 'x'.repeat(300)].map((s) => [...new TextEncoder().encode(s)]),
  [0x61, 0xff, 0x62],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xe2, 0x82, 0x61],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** Puts `decode` in force for utf8Text if it gives TextDecoder's strings on the probes; returns whether it did. */
export function useUtf8Text(decode: Utf8Text): boolean {
  try {
    for (const probe of PROBES) {
      // A view inside its buffer, as in a core's memory: `@@##`, the probe, `#`.
      const bytes = Uint8Array.from([0x40, 0x40, 0x23, 0x23, ...probe, 0x23]).subarray(2);
      if (decode(bytes, 2, bytes.length - 1) !== viaTextDecoder(bytes, 2, bytes.length - 1)) return false;
    }
  } catch {
    return false;
  }
  current = decode;
  return true;
}

/** Puts TextDecoder back in force (for tests). */
export function resetUtf8Text(): void {
  current = viaTextDecoder;
}
