// The hex input format: one payload per line, each byte as two hex digits.
//
// # Strict, because Buffer.from is not
//
// Buffer.from(text, 'hex') stops quietly at the first character that is not
// a hex digit and drops an odd last digit, so a typo would decode as a
// shorter payload and be judged as if someone had sent it. Here a line is
// hex or it is an input error, named by its column.
//
// # Lines split on "\n" only
//
// An empty line is the empty payload (the frame error `empty`), so line
// boundaries carry meaning: a final "\n" ends the last line rather than
// starting an empty one, a "\r" before the "\n" is dropped for files written
// on Windows, and a lone "\r" elsewhere is a character like any other (and
// not hex). readline would split on that "\r" too, so it is not used.

/** Why a line is not hex. */
export class HexFault {
  constructor(readonly message: string) {}
}

/** Each ASCII character's value as a hex digit, or -1. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) NIBBLE[0x30 + c] = c;
for (let c = 0; c < 6; c++) NIBBLE[0x41 + c] = NIBBLE[0x61 + c] = 10 + c;

/** The bytes a line of hex digits (either case, nothing else) spells. */
export function parseHex(text: string): Uint8Array | HexFault {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || NIBBLE[c] < 0) {
      return new HexFault(`not a hex digit at column ${i + 1}: ${show(text.codePointAt(i) ?? c)}`);
    }
  }
  if (n % 2 !== 0) return new HexFault(`an odd number of hex digits (${n}): each byte is two`);
  const out = new Uint8Array(n / 2);
  for (let i = 0, j = 0; i < n; i += 2, j++) out[j] = (NIBBLE[text.charCodeAt(i)] << 4) | NIBBLE[text.charCodeAt(i + 1)];
  return out;
}

/**
 * The lines of a text arriving in chunks, without their "\n" (and a "\r"
 * before it). Empty input has no lines; a final "\n" adds none.
 */
export async function* readLines(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  // ignoreBOM keeps a leading byte-order mark in the text, where it is
  // reported as not hex instead of vanishing.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  // The parts of the line being read: each chunk is searched once for "\n",
  // so a line of many megabytes costs linear time, not a rescan per chunk.
  let parts: string[] = [];
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      parts.push(text.slice(start, nl));
      yield dropCr(parts.join(''));
      parts = [];
      start = nl + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  }
  const rest = parts.join('') + utf8.decode();
  if (rest !== '') yield dropCr(rest);
}

function dropCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** 'z' for a visible ASCII character; U+FEFF for anything a terminal might hide. */
function show(cp: number): string {
  if (cp > 0x20 && cp < 0x7f) return `'${String.fromCharCode(cp)}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
