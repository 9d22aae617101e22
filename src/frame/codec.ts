// One codec per endpoint, all made by one factory from an SDK result schema.
//
// Layout of a frame (WIRE.md section 1):
//
//   [tag: 1 byte][body: JSON text]
//   tag 0x00: the method's result, judged by the endpoint's schema
//   tag 0x01: the MCP server's JSON-RPC error object
//
// # Check the bytes, then build the value
//
// Decoding runs in two steps. The backend checks the tag and the JSON text
// (rule 4.1) without building anything; only bytes it accepts are turned
// into JS values, by utf8Text and JSON.parse, and then the schema judges
// that value (rules 4.2 and 4.3). The value returned is JSON.parse's, whole:
// the schema's stripped output is never used. The one string made before
// the check is a short body's text, which the text screen reads (and
// JSON.parse then parses) in place of the backend's screen
// (src/contract/screen.ts, screenShortText).

import { type Backend, type BackendName, type PublicBackend, SCREENED } from '../backend/backend.js';
import type { Fault } from '../wire/fault.js';
import { checkBackend, defaultBackend } from '../backend/default.js';
import { locate } from '../contract/locate.js';
import { acceptsBytes, judgeBytes, numberFrom, SMALL } from '../contract/judge-bytes.js';
import type { StringKit } from '../contract/string-kit.js';
import {
  codeRange,
  compiledJudge,
  ErrorObjectSchema,
  faultOf,
  judge,
  judgeError,
  judgeWith,
  reachesBase64,
  type SchemaFault,
} from '../contract/schema.js';
import { hasAlphabetRun, LONG_STRING, swapBase64Check } from '../contract/base64.js';
import { checkTarget, type EncodeIntoResult, writeFrame, writeFrameInto, writeJudged, writeJudgedInto } from '../contract/body-writer.js';
import { type Plan, planOf } from '../contract/judge-plan.js';
import type { JudgeNode } from '../contract/judge-node.js';
import { utf8Text } from '../contract/utf8-text.js';
import { SHORT_TEXT, screenShortText } from '../contract/screen.js';
import { parseBody } from '../contract/json-value.js';
import { EncodeError, REFUSAL } from '../contract/encode-rules.js';
import { registerBuild } from './build.js';
import { captureStack, FrameError, toFrameError } from './frame-error.js';

export type { CodecChoice } from './build.js';
import type { EndpointSpec, ErrorObject, Frame, FrameCodec } from './frame.js';

export type { EndpointSpec, FrameCodec };
import { TAG_ERROR, TAG_RESULT } from '../wire/tags.js';

/**
 * Results this long or longer that seem to carry a blob are judged where
 * the backend holds them (tryDecode). Below it, the value judge's copy of a
 * blob into the core costs less than the byte verdict's fixed cost.
 * Measured on wasm-simd (readResource blobs, decode ÷ bare, the median of
 * 7 rounds): once the held way built long blobs outside JSON.parse
 * (json-value.ts), a frame of 6 KB took 1.57 the held way against 1.51
 * the value way, 8 KB 1.22 against 1.40, 9.4 KB 1.07 against 1.51 and
 * 10.7 KB 1.00 against 1.45; the real servers' 5.6 KB image results, 1.51
 * to 1.62 against 1.38 to 1.48 (three runs). Whole processes differ: at
 * 10.7 KB the held way ran at 1.04 to 1.11 in some and 1.37 to 1.50 in
 * others, and in every one of 14 with address randomisation off (setarch
 * -R) in the second group. It was 16 KiB before then, and 4 KiB before
 * that.
 */
const HELD_BLOBS = 8 * 1024;

/** Whether a payload has a frame's tag and a body short enough for screenShortText. */
function isShort(payload: Uint8Array): boolean {
  const tag = payload[0];
  return (tag === TAG_RESULT || tag === TAG_ERROR) && payload.length - 1 <= SHORT_TEXT;
}

/** No blob to build outside JSON.parse (json-value.ts). */
const NO_BLOBS: readonly number[] = [];

function schemaError(fault: SchemaFault, payload: Uint8Array): FrameError {
  return FrameError.body(fault.rule, locate(payload, 1, payload.length, fault.path), fault.detail);
}

/** The judges of one codec's schema: resolved once, shared by its decode and its encode. */
interface Judges {
  /** The compiled judges of the result and of the error object, when there are. */
  readonly resultNode: JudgeNode | undefined;
  readonly errorNode: JudgeNode | undefined;
  readonly judgeResult: (value: unknown) => SchemaFault | null;
  readonly judgeErrorObject: (value: unknown) => SchemaFault | null;
  /** Whether a result can hold a blob, whose base64 check the backend may take (an error object holds none). */
  readonly resultBlobs: boolean;
  /** What encode's writer judges a result by as it writes it (judge-plan.ts). */
  readonly resultPlan: Plan | undefined;
}

function judgesOf(schema: EndpointSpec['schema']): Judges {
  const resultNode = compiledJudge(schema);
  const errorNode = compiledJudge(ErrorObjectSchema);
  return {
    resultNode,
    errorNode,
    judgeResult: (value) => (resultNode ? judgeWith(resultNode, schema, value) : judge(schema, value)),
    judgeErrorObject: (value) => (errorNode ? (judgeWith(errorNode, ErrorObjectSchema, value) ?? codeRange(value)) : judgeError(value)),
    resultBlobs: resultNode !== undefined && reachesBase64(resultNode),
    resultPlan: resultNode && planOf(resultNode),
  };
}

/**
 * A codec's decoding: the backend's check of the bytes, then the schema's
 * verdict, on the value or on the bytes. One per codec; `use` gives the
 * backend at each call (the codec's own, or the default).
 */
class Decoding<R> {
  /** One options object for every judgeOnly: the verdict on a valid frame allocates nothing. */
  private readonly byteOptions: { strings: StringKit | undefined } = { strings: undefined };

  constructor(
    private readonly use: () => Backend,
    private readonly judges: Judges,
  ) {}

  /** The result judge, with the backend's base64 check for long strings in force while it runs. */
  private judgeResultWith(value: unknown): SchemaFault | null {
    const strings = this.use().strings;
    if (strings === undefined) return this.judges.judgeResult(value);
    const outer = swapBase64Check(strings.base64String);
    try {
      return this.judges.judgeResult(value);
    } finally {
      swapBase64Check(outer);
    }
  }

  /**
   * The frame in `payload`, whose bytes the backend checked (`fault`).
   * `held`, when given, is the same bytes where the backend holds them,
   * which the byte judge reads (its kit reads them in place); the value is
   * built from `payload`, since a decoder reads a JS buffer faster than a
   * view of WebAssembly memory (about 15% on 1 MiB here).
   */
  build(payload: Uint8Array, fault: Fault | null, held: Uint8Array = payload): Frame<R> | FrameError {
    if (fault) return toFrameError(fault, payload);
    const tag = payload[0];
    const node = tag === TAG_RESULT ? this.judges.resultNode : this.judges.errorNode;
    // A large body is judged on its bytes before any value is built (src/contract/judge-bytes.ts):
    // the verdict in one pass, and the exact walk only when that refuses.
    if (node !== undefined && payload.length - 1 > SMALL) {
      const strings = this.use().strings;
      const blobs: number[] = [];
      const accepted = acceptsBytes(node, held, 1, held.length, { strings, blobs });
      const bad = accepted ? undefined : judgeBytes(node, held, 1, held.length, { strings });
      if (bad) return schemaError(faultOf(bad), payload);
      const value = parseBody(payload, 1, payload.length, accepted ? blobs : NO_BLOBS);
      if (tag === TAG_RESULT) return { kind: 'result', result: value as R };
      const range = codeRange(value);
      return range ? schemaError(range, payload) : { kind: 'error', error: value as ErrorObject };
    }
    return this.judged(payload, JSON.parse(utf8Text(payload, 1, payload.length)));
  }

  /** The frame of `value`, JSON.parse's of the body of `payload`, which rule 4.1 accepts: the schema's verdict. */
  private judged(payload: Uint8Array, value: unknown): Frame<R> | FrameError {
    if (payload[0] === TAG_RESULT) {
      // A body shorter than a long string holds none: the JS check takes its blobs.
      const bad = this.judges.resultBlobs && payload.length > LONG_STRING ? this.judgeResultWith(value) : this.judges.judgeResult(value);
      return bad ? schemaError(bad, payload) : { kind: 'result', result: value as R };
    }
    const bad = this.judges.judgeErrorObject(value);
    return bad ? schemaError(bad, payload) : { kind: 'error', error: value as ErrorObject };
  }

  /**
   * build's verdict on a frame the backend accepted, building no value for
   * a result the byte verdict accepts, nor for a large error object.
   *
   * # A large error object is judged on its bytes, code included
   *
   * Its schema is judged on the bytes, as build judges it, and its code's
   * range is read from the bytes of the `code` member (the last one, as in
   * JSON.parse), where build parses the whole body to read it. A body of
   * more than 2^28 bytes can hold an array of more than 2^27 - 3 elements,
   * and JSON.parse making one stops a V8 process with no exception: a
   * relay with validate 'full' and a frame limit raised to 400 MB stopped
   * on a 280 MB error frame whose `data` was 140 million zeros. It forwards
   * it now, as WIRE.md section 7 asks of a valid frame.
   */
  judgeOnly(b: Uint8Array, start: number, end: number): FrameError | null {
    const { resultNode, errorNode } = this.judges;
    if (b[start] === TAG_RESULT && resultNode !== undefined) {
      this.byteOptions.strings = this.use().strings;
      if (acceptsBytes(resultNode, b, start + 1, end, this.byteOptions)) return null;
    }
    const payload = b.subarray(start, end);
    if (payload[0] === TAG_ERROR && errorNode !== undefined && payload.length - 1 > SMALL) {
      const strings = this.use().strings;
      const bad = acceptsBytes(errorNode, payload, 1, payload.length, { strings })
        ? undefined
        : judgeBytes(errorNode, payload, 1, payload.length, { strings });
      if (bad) return schemaError(faultOf(bad), payload);
      const range = codeRange({ code: numberFrom(payload, locate(payload, 1, payload.length, ['code'])) });
      return range ? schemaError(range, payload) : null;
    }
    // An error object (its code's range needs the value), a codec with no compiled judge, or a refusal: build decides, and names the fault.
    const frame = this.build(payload, null);
    return frame instanceof FrameError ? frame : null;
  }

  /**
   * A result that may hold a blob, judged where the backend holds it: the
   * byte verdict reads the blob there in one pass (its end and its base64
   * check at once), where the value judge would have the string JSON.parse
   * made copied back into the core. A refusal goes to build, which names
   * the fault.
   */
  private buildHeld(payload: Uint8Array, fault: Fault | null, held: Uint8Array): Frame<R> | FrameError {
    const blobs: number[] = [];
    if (fault || !acceptsBytes(this.judges.resultNode!, held, 1, held.length, { strings: this.use().strings, blobs }))
      return this.build(payload, fault);
    return { kind: 'result', result: parseBody(payload, 1, payload.length, blobs) as R };
  }

  tryDecode(payload: Uint8Array): Frame<R> | FrameError {
    const backend = this.use();
    if (backend.verifyHeld !== undefined) {
      // A body the byte judge walks is walked where the backend holds it, so that its strings are read there.
      if (payload.length - 1 > SMALL) return backend.verifyHeld(payload, (held, fault) => this.build(payload, fault, held));
      // PERF NOTES: a result of some size whose first bytes hold a long run of
      // the base64 alphabet likely carries a blob (a text has spaces, a URI
      // punctuation): it goes the held way. Only the speed depends on the guess.
      if (
        this.judges.resultBlobs &&
        payload.length >= HELD_BLOBS &&
        payload[0] === TAG_RESULT &&
        hasAlphabetRun(payload, 1, Math.min(payload.length, 513), 64)
      ) {
        return backend.verifyHeld(payload, (held, fault) => this.buildHeld(payload, fault, held));
      }
    }
    // A short body with a known tag is screened on its text first
    // (screenShortText), and on its bytes only when that does not pass it.
    //
    // PERF NOTES: the screen in place of verifyFrame (src/contract/screen.ts):
    // on wasm-simd, about 800 instructions a call against 1,800 on a 150-byte
    // listing, 65,000 against 153,000 on a 16 KiB one; decode as a whole 4
    // to 9% fewer. A large body is judged on its bytes before anything is
    // parsed (build): no screen for it.
    const short = isShort(payload);
    if (!short && (backend.screenFrame === undefined || payload.length - 1 > SMALL)) return this.build(payload, backend.verifyFrame(payload));
    const text = utf8Text(payload, 1, payload.length);
    if (!short || !screenShortText(text, payload.length - 1)) {
      if (backend.screenFrame === undefined) return this.build(payload, backend.verifyFrame(payload));
      const checked = backend.screenFrame(payload, text);
      // null: the screen did not pass the body, and verifyFrame accepted it.
      // It is parsed below as build would parse it, from the text already made.
      if (checked !== SCREENED && checked !== null) return this.build(payload, checked);
    }
    // A screen passed, or verifyFrame accepted the body: JSON.parse's verdict is
    // rule 4.1's (src/contract/screen.ts). Where it throws, the grammar is
    // broken, and verifyFrame says where.
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.build(payload, backend.verifyFrame(payload));
    }
    return this.judged(payload, value);
  }
}

/**
 * A frame's tag and body, read once from the caller's value: a getter or a
 * Proxy trap that throws is reported as writeFrame reports one inside the
 * body. Returns the body, with its tag left in `bodyTag`.
 */
function frameBody(frame: unknown): unknown {
  let kind: unknown;
  let body: unknown;
  try {
    kind = (frame as { kind?: unknown } | null | undefined)?.kind;
    if (kind === 'result') body = (frame as { result: unknown }).result;
    else if (kind === 'error') body = (frame as { error: unknown }).error;
  } catch (e) {
    throw new EncodeError(REFUSAL.threw(e), [], { cause: e });
  }
  if (kind !== 'result' && kind !== 'error') throw new EncodeError("a frame's kind is 'result' or 'error'", []);
  bodyTag = kind === 'result' ? TAG_RESULT : TAG_ERROR;
  return body;
}
let bodyTag = TAG_RESULT;

/**
 * A codec's encode and encodeInto. One pass: the writer checks rule 4.1 as
 * it writes, and the schema judges the value as written, never a second
 * reading of the body (src/contract/body-writer.ts says why), with the
 * same judges as decode's.
 */
function encoders<R>(judges: Judges): Pick<FrameCodec<R>, 'encode' | 'encodeInto'> {
  const { resultPlan } = judges;
  const refuseResult = (written: unknown): EncodeError | null => refusal(judges.judgeResult(written));
  const refuseErrorObject = (written: unknown): EncodeError | null => refusal(judges.judgeErrorObject(written));
  return {
    encode(frame: Frame<R>): Uint8Array {
      const body = frameBody(frame);
      if (bodyTag === TAG_ERROR) return writeFrame(TAG_ERROR, body, refuseErrorObject);
      return resultPlan ? writeJudged(TAG_RESULT, body, resultPlan, refuseResult) : writeFrame(TAG_RESULT, body, refuseResult);
    },
    encodeInto(frame: Frame<R>, target: Uint8Array): EncodeIntoResult {
      checkTarget(target);
      const body = frameBody(frame);
      if (bodyTag === TAG_ERROR) return writeFrameInto(TAG_ERROR, body, refuseErrorObject, target);
      return resultPlan
        ? writeJudgedInto(TAG_RESULT, body, resultPlan, refuseResult, target)
        : writeFrameInto(TAG_RESULT, body, refuseResult, target);
    },
  };
}

/**
 * Makes the codec for an endpoint. With no backend, it uses the default
 * backend at each call (see src/backend/default.ts).
 */
export function defineCodec<R>(spec: EndpointSpec, backend?: PublicBackend): FrameCodec<R> {
  const own = backend && checkBackend(backend, 'defineCodec');
  const use = own ? () => own : defaultBackend;
  const judges = judgesOf(spec.schema);
  const decoding = new Decoding<R>(use, judges);
  const { encode, encodeInto } = encoders<R>(judges);
  const tryDecode = (payload: Uint8Array) => decoding.tryDecode(payload);
  // The spec's three members first, then any others it has (see BACKEND_PROPERTY's notes).
  const { endpoint, method, schema, ...others } = spec;
  const codec = {
    endpoint,
    method,
    schema,
    ...others,
    encode,
    encodeInto,
    decode(payload) {
      const frame = tryDecode(payload);
      if (frame instanceof FrameError) {
        // Made without a stack (frame-error.ts): thrown, it gets the caller's.
        captureStack(frame, codec.decode);
        throw frame;
      }
      return frame;
    },
    tryDecode,
    validate(payload) {
      const fault = use().verifyFrame(payload);
      return fault ? toFrameError(fault, payload) : null;
    },
    // Checked here, as setDefaultBackend checks: a name ('wasm') was taken, and every decode then threw.
    withBackend: (other: PublicBackend) => defineCodec<R>(spec, checkBackend(other, 'withBackend')),
  } as FrameCodec<R>;
  USES.set(codec, use);
  Object.defineProperty(codec, 'backend', BACKEND_PROPERTY);
  registerBuild(
    codec,
    (payload, fault) => decoding.build(payload, fault),
    (b, start, end) => decoding.judgeOnly(b, start, end),
  );
  return codec;
}

/** Each codec's backend, for the one getter of `backend` that every codec shares. */
const USES = new WeakMap<object, () => Backend>();

/**
 * `backend`: an accessor, since a codec with no backend of its own follows
 * the default. One getter for every codec, so that codecs share one hidden
 * class: each with a getter of its own had one of its own.
 *
 * PERF NOTES: one hidden class for all codecs, so that a call site that
 * decodes with several (a relay, the benchmarks) keeps its `decode` load
 * monomorphic: with 8 classes it was 2.2% of the CPU samples of decoding
 * the everything server's short answers, after 0.12%. The spec's three
 * members are named, not spread, for the same reason (%HaveSameMap: 8
 * classes among the default codecs and their withBackend copies, then 1).
 */
const BACKEND_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): BackendName | undefined {
    return USES.get(this)?.().name;
  },
};

/** The EncodeError for a refusal of rule 4.2 or 4.3. */
function refusal(bad: SchemaFault | null): EncodeError | null {
  return bad && new EncodeError(`${bad.detail} (rule ${bad.rule === 'schema' ? '4.2' : '4.3'})`, bad.path);
}
