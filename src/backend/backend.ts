// What a backend does: the byte-level checks, JS or WebAssembly.
//
// A backend answers two questions about bytes without building JS values:
// is this payload a frame whose body is strict JSON text (verifyFrame), and
// where are the records in these bytes (its scan kernel, which the one
// record reader of src/records/reader.ts drives). It may also answer, for
// the judges, the SDK's base64 rule and where a long string ends (strings),
// and for decode, whether JSON.parse may judge a body (screenFrame). Everything that builds
// values (JSON.parse, the SDK schema) is shared TypeScript on top, so the
// backends can differ only where the differential test looks.

import type { Fault } from '../wire/fault.js';
import type { StringKit } from '../contract/string-kit.js';
import type { ReaderLimits, RecordReader, RecordSink, ScanKernel } from '../records/reader.js';

export type BackendName = 'js' | 'wasm-simd' | 'wasm-scalar';

/** screenFrame's answer for a payload whose body JSON.parse may judge (src/contract/screen.ts). */
export const SCREENED = 'screened';

/**
 * A backend as a user holds one: made by loadBackend, handed to withBackend,
 * createRelay, decodeStream and setDefaultBackend, which check that it is one.
 * Its calls are the library's own, so none of them is part of the API.
 */
export interface PublicBackend {
  readonly name: BackendName;
}

export interface Backend extends PublicBackend {
  readonly name: BackendName;
  /** Tag dispatch and rule 4.1 over a whole payload. null when both hold. */
  verifyFrame(payload: Uint8Array): Fault | null;
  /**
   * Optional, for decode, which parses what it accepts with JSON.parse
   * (absent, decode calls verifyFrame). SCREENED when the payload has a
   * result or error tag and its body holds nothing that JSON.parse lets
   * through and rule 4.1 refuses (src/contract/screen.ts), so that
   * JSON.parse's verdict on it is rule 4.1's; otherwise verifyFrame's
   * answer. A few light checks in one pass, where verifyFrame judges the
   * whole grammar that JSON.parse then judges again. `text` is the body's
   * text (utf8Text), which decode parses: a backend may read the UTF-8's
   * verdict off it, since a decoder makes U+FFFD of bytes not UTF-8.
   */
  screenFrame?(payload: Uint8Array, text: string): Fault | null | typeof SCREENED;
  /** A scan kernel for one reader. */
  createKernel(): ScanKernel;
  /** A reader for one record stream over this backend's kernel, reporting to `sink`. */
  createReader(limits: ReaderLimits, sink: RecordSink): RecordReader;
  /**
   * Optional: what this backend does for the judges about strings (base64,
   * long strings' ends), with the JS answers. Absent: the judges do it in JS.
   */
  readonly strings?: StringKit;
  /**
   * Optional: verifyFrame, then `then(view, fault)` while this backend
   * still holds the payload, `view` being the payload where it holds it
   * (for the core, its memory), so that `strings` reads it there without a
   * copy. `view` is valid only until `then` returns.
   */
  verifyHeld?<T>(payload: Uint8Array, then: (view: Uint8Array, fault: Fault | null) => T): T;
  /**
   * Optional: how many of the `count` exchanges from bytes[at] (each a
   * response whose frame rule 4.1 accepts, then its finish, as a scan
   * folds them) hold a result that `schema`'s compiled judge accepts,
   * counted from the first up to the first it cannot prove. A proof only:
   * what it does not count, the codec judges (judgeFrame). 0 when the
   * bytes do not lie in this backend's memory or the schema has no table.
   */
  provenRun?(schema: object, bytes: Uint8Array, at: number, count: number): number;
  /** Optional: the same proof for the frame bytes[start, end), which rule 4.1 accepts: true only when the codec's judge accepts it. */
  provenFrame?(schema: object, bytes: Uint8Array, start: number, end: number): boolean;
}
