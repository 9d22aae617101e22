// What the judges may ask of a backend about a frame's strings: the SDK's base64 rule, and where a long string ends.
//
// The judges (schema.ts, judge-bytes.ts) live below the backends and may
// not import them. A codec, which sits above both, hands its backend's kit
// in; a judge given none does the same work in JS. Every answer is the JS
// answer, by contract: test/base64.test.ts and test/string-kit.test.ts
// hold each backend's kit to base64.ts and to a plain scan on generated
// inputs.

export interface StringKit {
  /** isBase64Bytes(bytes, start, end)'s verdict: the content of a JSON string, escapes and all. */
  base64Bytes(bytes: Uint8Array, start: number, end: number): boolean;
  /** isBase64(s)'s verdict, on a string JS already holds. */
  base64String(s: string): boolean;
  /**
   * The offset just past the quote that ends the JSON string in which
   * `from` is a character boundary (not inside an escape's first two
   * bytes), in text a backend accepted; -1 when this kit cannot read
   * `bytes` where they lie, and the caller scans them itself.
   */
  stringEnd(bytes: Uint8Array, from: number): number;
  /**
   * The offset of the first byte at or after `from` that is not of the
   * base64 alphabet (bytes.length when none is); -1 when this kit cannot
   * read `bytes` where they lie.
   */
  alphabetRun(bytes: Uint8Array, from: number): number;
}
