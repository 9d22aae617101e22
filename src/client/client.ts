// The client end of a proxy (or of a relay in front of one): request lines out, each channel's outcome back as the method's result (WIRE.md sections 2 and 8).
//
// # One exchange a call
//
// request(method, params) takes a free channel, writes its request line,
// and settles when the channel's finish comes: with the result, typed by
// the method (the SDK's own type), or with an error that says what came
// instead:
//
//   an error frame        the SDK's McpError: the server's code, message and data
//   a finish alone        NotCarriedError: the proxy (or a relay) did not carry it
//   a frame that fails    the FrameError the codec gives (WIRE.md section 4)
//   two responses         SequenceViolationError
//   the stream cut        ExchangeCutError, naming every channel cut short with it
//
// Many exchanges are in flight at once, one a channel. A call's signal
// abandons it (the call rejects with the signal's reason); its channel
// stays taken until its finish comes, so no later call is answered with an
// answer meant for it.
//
// # Any byte stream
//
// The client reads and writes Web Streams: a Node socket (connect() in
// mcp-frames/client on Node takes "HOST:PORT"), a Workers socket from
// connect() of cloudflare:sockets, or a WebSocket's streams. close() sends
// the end of the requests (a FIN: WIRE.md section 8), and resolves once
// every exchange in flight has ended and the stream has closed.

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { PublicBackend } from '../backend/backend.js';
import { StreamDecoder } from '../exchange/decoder.js';
import type { Outcome, StreamEnd, StreamEvent } from '../exchange/outcome.js';
import {
  type CallToolResult,
  type CompleteResult,
  codecForMethod,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type McpMethod,
  type MethodParams,
  type MethodResults,
  type ReadResourceResult,
} from '../frame/endpoints.js';
import { writeFrame } from '../contract/body-writer.js';
import type { FrameCodec } from '../frame/frame.js';
import { toMcpError } from '../frame/mcp-error.js';
import type { StreamLimits } from '../records/limits.js';
import { U32_MAX } from '../records/record.js';

/** The exchange ended with its finish alone: the proxy, or a relay on the way, did not carry it. */
export class NotCarriedError extends Error {
  override readonly name = 'NotCarriedError';
  constructor(
    readonly method: string,
    readonly channel: number,
  ) {
    super(`${method} on channel ${channel} was not carried: its finish came alone (the proxy or a relay says why in its log)`);
  }
}

/** Two responses came on the exchange's channel before its finish (WIRE.md section 2). */
export class SequenceViolationError extends Error {
  override readonly name = 'SequenceViolationError';
  constructor(
    readonly method: string,
    readonly channel: number,
  ) {
    super(`${method} on channel ${channel}: a second response came before the finish`);
  }
}

/** The stream ended, or failed, with exchanges in flight: `channels` were cut short, this one among them. */
export class ExchangeCutError extends Error {
  override readonly name = 'ExchangeCutError';
  constructor(
    readonly method: string,
    readonly channel: number,
    /** Every channel cut short with it. */
    readonly channels: readonly number[],
    /** How the stream ended: cleanly with the channel open, a record error, or its source failing (its error is the cause). */
    readonly end: StreamEnd,
  ) {
    const how =
      end.end === 'input-error' ? 'failed' : end.end === 'record-error' ? `stopped on a record error (${end.reason} at ${end.offset})` : 'ended';
    super(
      `${method} on channel ${channel} was cut short: the stream ${how} with ${channels.length} exchange(s) in flight (channels ${channels.join(', ')})`,
      {
        cause: end.end === 'input-error' ? end.error : undefined,
      },
    );
  }
}

/** A byte stream both ways: what a socket, a Workers socket or a WebSocket stream gives. */
export interface ByteStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export interface ClientOptions extends StreamLimits {
  /** The backend that checks the frames (default: the package's default). */
  backend?: PublicBackend;
}

export interface RequestOptions {
  /**
   * Abandons the call: it rejects with the signal's reason. The proxy still
   * runs the exchange (request lines have no way to cancel one), its answer
   * is dropped when it comes, and its channel stays taken until then.
   */
  signal?: AbortSignal;
}

type Params = Record<string, unknown>;

/** What a call waits for. */
interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Abandoned by its signal: whatever comes is dropped. */
  abandoned: boolean;
  /** Stops listening to the call's signal (a signal shared by many calls keeps no settled one). */
  unlisten?: () => void;
}

const NO_SCHEMA = () => null;
/** The codec a stray response (on a channel no call asked for) is read with: its outcome is dropped. */
const STRAY = codecForMethod('resources/list') as FrameCodec<unknown>;

/**
 * A request line (WIRE.md section 8): `{"channel":N,"method":…,"params":…}`
 * and its line feed, as bytes. It is written by the rules a proxy reads it
 * by (rule 4.1): a value JSON cannot carry exactly (NaN, a BigInt, a lone
 * surrogate, a cycle, nesting past the depth limit) throws an EncodeError
 * naming it, where JSON.stringify would have written null, thrown a bare
 * TypeError, or written bytes the proxy refuses.
 */
export function encodeRequestLine(channel: number, method: string, params?: Params): Uint8Array {
  if (!Number.isInteger(channel) || channel < 0 || channel > U32_MAX) throw new RangeError(`channel ${channel} is not an unsigned 32-bit integer`);
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    throw new TypeError('params must be an object');
  const line = params === undefined ? { channel, method } : { channel, method, params };
  // Written as a frame's body; its tag byte's place takes the line feed at the end.
  const frame = writeFrame(0, line, NO_SCHEMA);
  const bytes = new Uint8Array(frame.length);
  bytes.set(frame.subarray(1));
  bytes[frame.length - 1] = 0x0a;
  return bytes;
}

export class McpFramesClient {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly decoder: StreamDecoder<unknown>;
  private readonly codecs = new Map<number, FrameCodec<unknown>>();
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private ended: StreamEnd | null = null;
  private closing = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Why abort() ended the client, once it has. */
  private aborted: { reason: unknown } | null = null;
  /** Settles once the stream has ended (or failed), with how. */
  readonly closed: Promise<StreamEnd>;

  constructor(stream: ByteStream, options: ClientOptions = {}) {
    this.writer = stream.writable.getWriter();
    // The write side's own failure shows on the read side too; an unhandled rejection of it would stop a process.
    this.writer.closed.catch(() => {});
    // A response on a channel no call asked for is read by some codec all the same, and its outcome dropped.
    this.decoder = new StreamDecoder<unknown>({ ...options, endpoint: (channel) => this.codecs.get(channel) ?? STRAY });
    this.reader = stream.readable.getReader();
    this.closed = this.read(this.reader);
  }

  /** Reads the stream to its end, settling each call as its channel's outcome comes. */
  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<StreamEnd> {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        // fail() always ends the stream: its end is there.
        return this.deliver(this.decoder.fail(error)) as StreamEnd;
      }
      if (this.aborted) return this.deliver(this.decoder.fail(this.aborted.reason)) as StreamEnd;
      const end = this.deliver(step.done ? this.decoder.end() : this.decoder.push(step.value));
      if (end) {
        if (!step.done) reader.cancel().catch(() => {});
        return end;
      }
    }
  }

  /** Settles the calls whose outcomes came; the stream's end, once it has come. */
  private deliver(events: StreamEvent<unknown>[]): StreamEnd | null {
    for (const event of events) {
      if ('end' in event) this.ended = event;
      // An incomplete channel is cut short with the others when the end comes, below.
      else if (event.outcome !== 'incomplete') this.settle(event);
    }
    if (this.ended) {
      const channels = [...this.pending.keys()];
      for (const channel of channels) this.fail(channel, (method) => new ExchangeCutError(method, channel, channels, this.ended!));
      this.writer.abort().catch(() => {});
    }
    return this.ended;
  }

  private settle(outcome: Outcome<unknown>): void {
    const channel = outcome.channel;
    switch (outcome.outcome) {
      case 'result':
        this.take(channel)?.resolve(outcome.result);
        return;
      case 'error':
        this.fail(channel, () => toMcpError(outcome.error));
        return;
      case 'frame-error':
        this.fail(channel, () => outcome.fault);
        return;
      case 'not-carried':
        this.fail(channel, (method) => new NotCarriedError(method, channel));
        return;
      case 'sequence-violation':
        this.fail(channel, (method) => new SequenceViolationError(method, channel));
        return;
    }
  }

  /** The call on `channel`, now over: its channel free again. Undefined for one abandoned, or none. */
  private take(channel: number): Pending | undefined {
    const pending = this.pending.get(channel);
    this.pending.delete(channel);
    this.codecs.delete(channel);
    pending?.unlisten?.();
    return pending?.abandoned ? undefined : pending;
  }

  private fail(channel: number, error: (method: string) => unknown): void {
    const pending = this.take(channel);
    pending?.reject(error(pending.method));
  }

  /** A free channel: the next one not in flight. */
  private channel(): number {
    for (;;) {
      const channel = this.next;
      this.next = this.next === U32_MAX ? 0 : this.next + 1;
      if (!this.pending.has(channel)) return channel;
    }
  }

  /** Asks for one exchange; resolves with the method's result (typed by the method), or rejects with what came instead. */
  request<M extends McpMethod>(method: M, params?: MethodParams[M], options?: RequestOptions): Promise<MethodResults[M]>;
  request(method: string, params?: Params, options: RequestOptions = {}): Promise<unknown> {
    const codec = codecForMethod(method);
    if (!codec) return Promise.reject(new RangeError(`no codec for the method '${method}': it is none of the eight a proxy serves`));
    if (this.ended || this.closing) return Promise.reject(new Error(`${method}: the client is closed`));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const channel = this.channel();
    let line: Uint8Array;
    try {
      line = encodeRequestLine(channel, method, params);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const pending: Pending = { method, resolve, reject, abandoned: false };
      this.pending.set(channel, pending);
      this.codecs.set(channel, codec);
      if (signal) {
        const abandon = () => {
          if (this.pending.get(channel) !== pending || pending.abandoned) return;
          pending.abandoned = true;
          pending.unlisten = undefined;
          reject(signal.reason);
        };
        signal.addEventListener('abort', abandon, { once: true });
        pending.unlisten = () => signal.removeEventListener('abort', abandon);
      }
      // A write that fails shows as the stream failing, which settles every call in flight.
      this.writer.write(line).catch(() => {});
    });
  }

  listResources(params?: MethodParams['resources/list'], options?: RequestOptions): Promise<ListResourcesResult> {
    return this.request('resources/list', params, options);
  }

  readResource(params: MethodParams['resources/read'], options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', params, options);
  }

  listResourceTemplates(params?: MethodParams['resources/templates/list'], options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.request('resources/templates/list', params, options);
  }

  listTools(params?: MethodParams['tools/list'], options?: RequestOptions): Promise<ListToolsResult> {
    return this.request('tools/list', params, options);
  }

  callTool(params: MethodParams['tools/call'], options?: RequestOptions): Promise<CallToolResult> {
    return this.request('tools/call', params, options);
  }

  listPrompts(params?: MethodParams['prompts/list'], options?: RequestOptions): Promise<ListPromptsResult> {
    return this.request('prompts/list', params, options);
  }

  getPrompt(params: MethodParams['prompts/get'], options?: RequestOptions): Promise<GetPromptResult> {
    return this.request('prompts/get', params, options);
  }

  complete(params: MethodParams['completion/complete'], options?: RequestOptions): Promise<CompleteResult> {
    return this.request('completion/complete', params, options);
  }

  /** Exchanges in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Ends the client at once: the stream is torn down both ways (a Node
   * socket is destroyed), and every call in flight rejects with
   * ExchangeCutError. Resolves, with the end, once it is done.
   */
  abort(reason: unknown = new Error('mcp-frames/client: aborted')): Promise<StreamEnd> {
    if (!this.ended && !this.aborted) {
      this.aborted = { reason };
      this.writer.abort(reason).catch(() => {});
      this.reader.cancel(reason).catch(() => {});
    }
    return this.closed;
  }

  /**
   * Sends the end of the requests (a FIN): no call is taken after it, the
   * ones in flight are still answered. Resolves, with how the stream ended,
   * once it has: after the last answer the proxy ends the connection.
   */
  async close(): Promise<StreamEnd> {
    if (!this.closing && !this.ended) {
      this.closing = true;
      await this.writer.close().catch(() => {});
    }
    return this.closed;
  }
}

export { McpError };
