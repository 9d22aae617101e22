// Bytes of UTF-8 into a JS string: how every value decode builds is read from its bytes.
//
// Nearly every caller hands over bytes a backend has already accepted as
// strict UTF-8 (rule 4.1), where any decoder gives the same string. Decode
// also reads a short body's text before any backend has (screenShortText
// in ./screen.ts), and trusts that bytes which are not UTF-8 come out with
// U+FFFD in them, as TextDecoder's replacement gives them: a decoder put in
// must give TextDecoder's string on such bytes too. Between decoders that
// do, the choice is one of speed. By default it is TextDecoder, with
// `ignoreBOM`: a string value may start with U+FEFF, and TextDecoder's
// default drops a leading one (a byte judge that read
// `"\uFEFF2025-01-01T00:00:00Z"` that way once accepted a date the SDK's
// schema refuses).
//
// PERF NOTES: a host may put in a faster decoder (runtime/node.ts puts in
// Node's Buffer `utf8Slice`). On Node 20 here, for a 150-byte listing,
// TextDecoder.decode of a subarray took 131 ns and utf8Slice 93, and
// JSON.parse of the string after it 916 ns against 766 in a loop of its
// own. Within decode, the whole call took 5 to 7% less CPU time with it
// (1,290 to 1,340 ns a frame against 1,360 to 1,400, the two A/B'd in
// alternate processes), and 4% less on a 214-byte error frame.

/** The text of the UTF-8 bytes b[start, end). */
export type Utf8Text = (b: Uint8Array, start: number, end: number) => string;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const viaTextDecoder: Utf8Text = (b, start, end) => decoder.decode(start === 0 && end === b.length ? b : b.subarray(start, end));

let current: Utf8Text = viaTextDecoder;

/** The text of the UTF-8 bytes b[start, end), which a backend accepted: by the decoder in force. */
export function utf8Text(b: Uint8Array, start: number, end: number): string {
  return current(b, start, end);
}

/** Strings that a decoder put in must give exactly as TextDecoder (with ignoreBOM) gives them. */
const PROBES = ['', 'a', '\ufeffa', 'é€😀', '"\\u0000"', 'x'.repeat(300)];

/**
 * Bytes that are not UTF-8, which a decoder put in must turn into
 * TextDecoder's string, U+FFFD for U+FFFD: a stray byte, an overlong form,
 * a surrogate, a cut sequence (at the end and before ASCII), a code point
 * past U+10FFFF, and a five-byte lead.
 */
const BAD_UTF8 = [
  [0x61, 0xff, 0x62],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xe2, 0x82, 0x61],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/**
 * Puts `decode` in force for utf8Text, if it gives TextDecoder's strings on
 * a few probes (a leading BOM kept, two-, three- and four-byte characters,
 * a range inside a view that starts inside its buffer, bytes that are not
 * UTF-8). Returns whether it was put in force; a decoder that throws or
 * differs is left out.
 */
export function useUtf8Text(decode: Utf8Text): boolean {
  const encoder = new TextEncoder();
  try {
    for (const probe of PROBES) {
      // A view that starts inside its buffer, as bytes held in a core's memory are.
      const bytes = encoder.encode(`@@##${probe}#`).subarray(2);
      if (decode(bytes, 2, bytes.length - 1) !== probe) return false;
    }
    for (const bad of BAD_UTF8) {
      const bytes = Uint8Array.from([0x40, ...bad, 0x40]);
      if (decode(bytes, 1, bytes.length - 1) !== decoder.decode(bytes.subarray(1, bytes.length - 1))) return false;
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
