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
// into JS values, by TextDecoder and JSON.parse, and then the schema judges
// that value (rules 4.2 and 4.3). The value returned is JSON.parse's, whole:
// the schema's stripped output is never used.

import { Status, bodyRule } from '../backend/status.js';
import type { Backend, BackendName, FrameFault } from '../backend/backend.js';
import { defaultBackend } from '../backend/default.js';
import { locate } from '../contract/locate.js';
import { judgeBytes, SMALL } from '../contract/judge-bytes.js';
import {
  codeRange,
  compiledJudge,
  ErrorObjectSchema,
  faultOf,
  judge,
  judgeError,
  judgeWith,
  type Judge,
  type SchemaFault,
} from '../contract/schema.js';
import { checkEncodable, EncodeError } from '../contract/encode-rules.js';
import { FrameError } from './frame-error.js';
import type { ErrorObject, Frame } from './frame.js';
import { TAG_ERROR, TAG_RESULT } from './tags.js';

/** What names an endpoint and judges its results. */
export interface EndpointSpec {
  /** The CLI's and the vectors' name for it, e.g. 'list-resources'. */
  readonly endpoint: string;
  /** The MCP method it answers, e.g. 'resources/list'. */
  readonly method: string;
  /** The SDK schema of its result. */
  readonly schema: Judge;
}

export interface FrameCodec<R> extends EndpointSpec {
  /** The backend that checks bytes for this codec. */
  readonly backend: BackendName;
  /** The tag, then compact JSON. Throws EncodeError, writing nothing, for any value decode would refuse. */
  encode(frame: Frame<R>): Uint8Array;
  /** The frame in `payload`, whole. Throws FrameError when it is not one. */
  decode(payload: Uint8Array): Frame<R>;
  /** As decode, but returns the FrameError instead of throwing it. */
  tryDecode(payload: Uint8Array): Frame<R> | FrameError;
  /** Tag and rule 4.1 only: builds no value. null when the bytes pass. */
  validate(payload: Uint8Array): FrameError | null;
  /** Builds the frame from a payload whose bytes a backend already checked. */
  build(payload: Uint8Array, fault: FrameFault | null): Frame<R> | FrameError;
  /** The same codec over another backend. */
  withBackend(backend: Backend): FrameCodec<R>;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The FrameError for a backend's fault. */
export function toFrameError(fault: FrameFault, payload: Uint8Array): FrameError {
  if (fault.status === Status.Empty) return FrameError.empty();
  if (fault.status === Status.UnknownTag) return FrameError.unknownTag(payload[0]);
  const rule = bodyRule(fault.status);
  if (rule === undefined) throw new Error(`mcp-frames: status ${fault.status} is not a frame error`);
  return FrameError.body(rule, fault.offset);
}

function schemaError(fault: SchemaFault, payload: Uint8Array): FrameError {
  return FrameError.body(fault.rule, locate(payload, 1, payload.length, fault.path), fault.detail);
}

/**
 * Makes the codec for an endpoint. With no backend, it uses the default
 * backend at each call (see src/backend/default.ts).
 */
export function defineCodec<R>(spec: EndpointSpec, backend?: Backend): FrameCodec<R> {
  const use = backend ? () => backend : defaultBackend;
  const { schema } = spec;
  // Resolved once: the compiled judges of this codec's result and of the error object.
  const resultNode = compiledJudge(schema);
  const errorNode = compiledJudge(ErrorObjectSchema);
  const judgeResult = (value: unknown) => (resultNode ? judgeWith(resultNode, schema, value) : judge(schema, value));
  const judgeErrorObject = (value: unknown) => (errorNode ? (judgeWith(errorNode, ErrorObjectSchema, value) ?? codeRange(value)) : judgeError(value));

  function build(payload: Uint8Array, fault: FrameFault | null): Frame<R> | FrameError {
    if (fault) return toFrameError(fault, payload);
    const node = payload[0] === TAG_RESULT ? resultNode : errorNode;
    // A large body is judged on its bytes before any value is built (src/contract/judge-bytes.ts).
    if (node !== undefined && payload.length - 1 > SMALL) {
      const bad = judgeBytes(node, payload, 1, payload.length);
      if (bad) return schemaError(faultOf(bad), payload);
      const value: unknown = JSON.parse(decoder.decode(payload.subarray(1)));
      if (payload[0] === TAG_RESULT) return { kind: 'result', result: value as R };
      const range = codeRange(value);
      return range ? schemaError(range, payload) : { kind: 'error', error: value as ErrorObject };
    }
    const value: unknown = JSON.parse(decoder.decode(payload.subarray(1)));
    if (payload[0] === TAG_RESULT) {
      const bad = judgeResult(value);
      return bad ? schemaError(bad, payload) : { kind: 'result', result: value as R };
    }
    const bad = judgeErrorObject(value);
    return bad ? schemaError(bad, payload) : { kind: 'error', error: value as ErrorObject };
  }

  function tryDecode(payload: Uint8Array): Frame<R> | FrameError {
    return build(payload, use().verifyFrame(payload));
  }

  function encode(frame: Frame<R>): Uint8Array {
    let tag: number;
    let body: unknown;
    if (frame?.kind === 'result') {
      tag = TAG_RESULT;
      body = frame.result;
    } else if (frame?.kind === 'error') {
      tag = TAG_ERROR;
      body = frame.error;
    } else {
      throw new EncodeError("a frame's kind is 'result' or 'error'", []);
    }
    const { converted } = checkEncodable(body);
    const text = JSON.stringify(body);
    const judged = converted ? JSON.parse(text) : body;
    const bad = tag === TAG_RESULT ? judge(schema, judged) : judgeError(judged);
    if (bad) throw new EncodeError(`${bad.detail} (rule ${bad.rule === 'schema' ? '4.2' : '4.3'})`, bad.path);
    return writeFrame(tag, text);
  }

  return {
    ...spec,
    get backend() {
      return use().name;
    },
    encode,
    decode(payload) {
      const frame = tryDecode(payload);
      if (frame instanceof FrameError) throw frame;
      return frame;
    },
    tryDecode,
    validate(payload) {
      const fault = use().verifyFrame(payload);
      return fault ? toFrameError(fault, payload) : null;
    },
    build,
    withBackend: (other) => defineCodec<R>(spec, other),
  };
}

/** The tag byte, then the UTF-8 of `text`: one allocation when the text is ASCII. */
function writeFrame(tag: number, text: string): Uint8Array {
  const out = new Uint8Array(1 + text.length);
  out[0] = tag;
  const { read } = encoder.encodeInto(text, out.subarray(1));
  if (read === text.length) return out;
  const utf8 = encoder.encode(text);
  const whole = new Uint8Array(1 + utf8.length);
  whole[0] = tag;
  whole.set(utf8, 1);
  return whole;
}
