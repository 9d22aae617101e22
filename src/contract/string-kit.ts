// What the judges may ask of a backend about a frame's strings. The judges
// sit below the backends; a codec hands its backend's kit in, and a judge
// with none does the same in JS. Every answer is the JS answer
// (test/base64.test.ts, test/string-kit.test.ts).

export interface StringKit {
  /** isBase64Bytes(bytes, start, end)'s verdict: the content of a JSON string, escapes and all. */
  base64Bytes(bytes: Uint8Array, start: number, end: number): boolean;
  /** isBase64(s)'s verdict, on a string JS already holds. */
  base64String(s: string): boolean;
  /** Just past the quote ending the JSON string in which `from` is a character boundary; -1 when it cannot read `bytes` there. */
  stringEnd(bytes: Uint8Array, from: number): number;
  /** The first byte at or after `from` not of the base64 alphabet (or bytes.length); -1 when it cannot read `bytes` there. */
  alphabetRun(bytes: Uint8Array, from: number): number;
}
