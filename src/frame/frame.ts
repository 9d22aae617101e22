// What a channel response carries (a result, or the MCP server's error), and what a codec of one endpoint does.
//
// # The error is the MCP server's, not ours
//
// `ErrorObject` is the JSON-RPC error object exactly as the server sent it.
// Its code is content: -32601 (method not found) and -32602 (invalid params)
// tell an agent different things, so it stays a plain number, and `data`,
// including a `data` of `null`, passes through as it came. Members that no
// schema knows stay on the object too.

import type { BackendName, PublicBackend } from '../backend/backend.js';
import type { EncodeIntoResult } from '../contract/body-writer.js';
import type { Judge } from '../contract/schema.js';
import type { FrameError } from './frame-error.js';

/** The MCP server's JSON-RPC error object, as sent. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
  [member: string]: unknown;
}

/** One frame: tag 0x00 and the result, or tag 0x01 and the error. */
export type Frame<R> = { kind: 'result'; result: R } | { kind: 'error'; error: ErrorObject };

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
  /**
   * The tag, then compact JSON. Throws EncodeError, writing nothing, for any value decode would refuse.
   * A frame under 4096 bytes is a view into an 8 KiB ArrayBuffer shared with other frames, as Node's
   * Buffer.from pools: use `byteOffset` and `byteLength` with its `buffer`, and copy it (`slice()`)
   * before transferring that buffer.
   */
  encode(frame: Frame<R>): Uint8Array;
  /**
   * encode, written into the caller's `target` from its start, as TextEncoder.encodeInto writes: returns
   * `{ written }`, or `{ written: 0, needed }` with `target` untouched when the frame does not fit (never a part of
   * a frame). Throws the EncodeError encode throws, writing nothing, and a TypeError when `target` is not a
   * Uint8Array.
   */
  encodeInto(frame: Frame<R>, target: Uint8Array): EncodeIntoResult;
  /** The frame in `payload`, whole. Throws FrameError when it is not one. */
  decode(payload: Uint8Array): Frame<R>;
  /** As decode, but returns the FrameError instead of throwing it. */
  tryDecode(payload: Uint8Array): Frame<R> | FrameError;
  /** Tag and rule 4.1 only: builds no value. null when the bytes pass. */
  validate(payload: Uint8Array): FrameError | null;
  /** The same codec over another backend. */
  withBackend(backend: PublicBackend): FrameCodec<R>;
}
