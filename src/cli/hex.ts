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

/** A line longer than readLines was told to hold: its length, and nothing of its text. */
export class LongLine {
  constructor(readonly length: number) {}
}

/**
 * The lines of a text arriving in chunks, without their "\n" (and a "\r"
 * before it). Empty input has no lines; a final "\n" adds none. A line of
 * more than `maxLength` characters is not held: it comes as a LongLine, so
 * that a stream with no "\n" in it cannot grow the process without bound
 * (it grew by about 90 MB a second, and at 1.1 GB ended in a RangeError).
 */
export async function* readLines(
  source: AsyncIterable<Uint8Array | string>,
  maxLength = Number.POSITIVE_INFINITY,
): AsyncGenerator<string | LongLine> {
  // ignoreBOM keeps a leading byte-order mark in the text, where it is
  // reported as not hex instead of vanishing.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  // The parts of the line being read: each chunk is searched once for "\n",
  // so a line of many megabytes costs linear time, not a rescan per chunk.
  let parts: string[] = [];
  let length = 0;
  /** Past maxLength: the line is counted, not kept. */
  let long = false;
  const add = (piece: string) => {
    length += piece.length;
    if (long) return;
    if (length > maxLength + 1) {
      long = true;
      parts = [];
    } else parts.push(piece);
  };
  const line = (): string | LongLine => {
    const whole = long ? null : dropCr(parts.join(''));
    const out = whole === null || whole.length > maxLength ? new LongLine(whole?.length ?? length) : whole;
    parts = [];
    length = 0;
    long = false;
    return out;
  };
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      add(text.slice(start, nl));
      yield line();
      start = nl + 1;
    }
    if (start < text.length) add(text.slice(start));
  }
  add(utf8.decode());
  if (length !== 0) yield line();
}

function dropCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** 'z' for a visible ASCII character; U+FEFF for anything a terminal might hide. */
function show(cp: number): string {
  if (cp > 0x20 && cp < 0x7f) return `'${String.fromCharCode(cp)}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
