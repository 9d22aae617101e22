// Bytes of UTF-8 into a JS string: how every value decode builds is read from its bytes.
//
// Every caller hands over bytes a backend has already accepted as strict
// UTF-8 (rule 4.1), so any decoder gives the same string, and the choice
// is one of speed. By default it is TextDecoder, with `ignoreBOM`: a
// string value may start with U+FEFF, and TextDecoder's default drops a
// leading one (a byte judge that read `"\uFEFF2025-01-01T00:00:00Z"` that
// way once accepted a date the SDK's schema refuses).
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
 * Puts `decode` in force for utf8Text, if it gives TextDecoder's strings on
 * a few probes (a leading BOM kept, two-, three- and four-byte characters,
 * a range inside a view that starts inside its buffer). Returns whether it
 * was put in force; a decoder that throws or differs is left out.
 */
export function useUtf8Text(decode: Utf8Text): boolean {
  const encoder = new TextEncoder();
  try {
    for (const probe of PROBES) {
      // A view that starts inside its buffer, as bytes held in a core's memory are.
      const bytes = encoder.encode(`@@##${probe}#`).subarray(2);
      if (decode(bytes, 2, bytes.length - 1) !== probe) return false;
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
