// The proxy's side of the MCP server: JSON-RPC messages out, the server's message bytes in, over stdio or Streamable HTTP.
//
// # Bytes in, as the server wrote them
//
// Both ways hand the session each message the server sent as its own
// bytes: a stdio line without its line end, a JSON body, or the data of one
// server-sent event. Nothing is decoded to a string on the way, so the
// frame the proxy slices out of a message is the server's text.
//
// # Every message is bounded as it arrives
//
// No message longer than the limit is ever held whole. A stdio line past
// it is read on as it streams, for its JSON-RPC id alone (IdScanner), and
// dropped: that one request fails (`oversize`) and the server goes on; only
// a line with no id to be found ends the server. Over HTTP, a
// Content-Length past the limit is refused from the header, and a chunked
// or event-stream body is counted as it arrives and cut at the limit.
//
// # One request fails alone
//
// Over HTTP each request is a POST of its own, aborted (its connection
// given back) when its exchange ends for any reason. An HTTP error status
// fails that request only; the session survives unless the server says it
// has gone (404 on a session), or cannot be reached at all.
//
// # Writes to a stdio server wait for it
//
// What the server has not read from its stdin waits in the proxy. Past
// maxQueueBytes waiting, send() takes nothing more (the session does not
// carry the exchange: `server-not-reading`), so a server that stops reading
// holds a bounded queue, not every byte clients send.

import { type ChildProcess, spawn } from 'node:child_process';
import { LineReader } from './lines.js';
import { IdScanner } from './message.js';

/** A stdio MCP server: the command the proxy runs. */
export interface StdioServer {
  command: string;
  args?: readonly string[];
  /** Added to the proxy's own environment. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** What becomes of the server's stderr: dropped (default), or the proxy's own. */
  stderr?: 'ignore' | 'inherit';
}

/** A Streamable HTTP MCP server: its endpoint. */
export interface HttpServer {
  url: string | URL;
  /** Sent with every request (an authorization header). */
  headers?: Readonly<Record<string, string>>;
}

export type ServerSpec = StdioServer | HttpServer;

/** How an upstream ended. */
export type ServerEnd =
  | { cause: 'exit'; code: number | null; signal: string | null }
  | { cause: 'spawn'; message: string }
  /** A stdio message past the limit with no id to be found in it: the stream cannot be read on. */
  | { cause: 'oversize'; limit: number }
  /** The server said its session has gone (404). */
  | { cause: 'http'; status: number }
  | { cause: 'unreachable'; message: string }
  | { cause: 'closed' };

/** Why one request failed while the server went on. */
export type RequestFailure =
  /** Its answer was past the message limit: read for its id, never held. */
  | { cause: 'oversize'; limit: number }
  /** The server's HTTP response to its POST ended with no answer to it: an error status, or a body that held none. */
  | { cause: 'server-error'; status: number };

export interface Upstream {
  /**
   * Sends one JSON-RPC message's text; `id` is the request's, when it is
   * one. False when the server is not taking more (past maxQueueBytes
   * waiting): nothing was sent.
   */
  send(text: string, id?: number): boolean;
  /** The request `id` is over: its POST is aborted and its connection given back (HTTP). */
  forget(id: number): void;
  /** Request bytes sent and not yet taken by the server. */
  readonly queued: number;
  /** After the initialize result: the protocol version the server chose (HTTP sends it on every request). */
  negotiated(protocolVersion: string): void;
  /** Stops the server (stdio) or ends the session (HTTP); the end handler is not called. */
  close(): Promise<void>;
  /** Stops at once, for a process about to exit: a stdio server is killed (SIGKILL), HTTP requests are aborted. */
  kill(): void;
}

export interface UpstreamHandlers {
  message(bytes: Uint8Array): void;
  /** One request failed and the server goes on. `id` is as the message had it (a number for the proxy's own). */
  failed(id: unknown, failure: RequestFailure): void;
  end(end: ServerEnd): void;
}

export interface UpstreamLimits {
  /** The longest message read from the server, in bytes. */
  maxMessageBytes: number;
  /** The most request bytes that may wait for the server to read them. */
  maxQueueBytes: number;
}

function isHttpServer(spec: ServerSpec): spec is HttpServer {
  return 'url' in spec;
}

/** Starts an upstream for `spec`. */
export function openUpstream(spec: ServerSpec, handlers: UpstreamHandlers, limits: UpstreamLimits): Upstream {
  return isHttpServer(spec) ? new HttpUpstream(spec, handlers, limits) : new StdioUpstream(spec, handlers, limits);
}

const utf8 = new TextEncoder();

/** A stdio server: a child process, one message a line each way. */
class StdioUpstream implements Upstream {
  private readonly child: ChildProcess | null = null;
  private readonly exited: Promise<void> = Promise.resolve();
  private ended = false;
  private closing = false;
  /** Reading a line past the limit, for its id. */
  private scanner: IdScanner | null = null;

  constructor(
    spec: StdioServer,
    private readonly handlers: UpstreamHandlers,
    private readonly limits: UpstreamLimits,
  ) {
    try {
      this.child = spawn(spec.command, [...(spec.args ?? [])], {
        env: { ...process.env, ...spec.env },
        cwd: spec.cwd,
        stdio: ['pipe', 'pipe', spec.stderr ?? 'ignore'],
      });
    } catch (err) {
      queueMicrotask(() => this.end({ cause: 'spawn', message: (err as Error).message }));
      return;
    }
    const child = this.child;
    this.exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const lines = new LineReader(limits.maxMessageBytes, {
      line: (bytes) => {
        if (!this.ended && bytes.length) handlers.message(bytes);
      },
      long: (piece, end) => this.long(piece, end),
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!this.ended) lines.push(chunk);
    });
    child.stdin!.on('error', () => {});
    child.on('error', (err) => this.end({ cause: 'spawn', message: err.message }));
    child.on('exit', (code, signal) => this.end({ cause: 'exit', code, signal }));
  }

  private end(e: ServerEnd): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closing) this.handlers.end(e);
  }

  /** A piece of a line past the limit: read for its id; at its end, that request fails, or the server ends when no id was found. */
  private long(piece: Uint8Array, end: boolean): void {
    this.scanner ??= new IdScanner();
    this.scanner.push(piece);
    if (!end) return;
    const id = this.scanner.id();
    this.scanner = null;
    if (this.ended) return;
    const limit = this.limits.maxMessageBytes;
    if (id === undefined) {
      // No id to fail alone: whatever it answered is lost, and the server with it.
      this.end({ cause: 'oversize', limit });
      this.child?.kill('SIGKILL');
    } else this.handlers.failed(id, { cause: 'oversize', limit });
  }

  get queued(): number {
    return this.child?.stdin?.writableLength ?? 0;
  }

  send(text: string): boolean {
    if (this.ended || !this.child) return true;
    const bytes = utf8.encode(`${text}\n`);
    // One message always goes when nothing waits: a request as long as the limit itself is still sent.
    if (this.queued > 0 && this.queued + bytes.length > this.limits.maxQueueBytes) return false;
    this.child.stdin!.write(bytes);
    return true;
  }

  forget(): void {}

  negotiated(): void {}

  kill(): void {
    this.closing = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** How long a message that is not a request (a notification, a reply to the server) may take to be posted. */
const NOTIFY_TIMEOUT_MS = 10_000;

/** The answer to one POST: its body's messages handed on (with the status), or why it was given up. */
type Posted = { kind: 'messages'; status: number } | { kind: 'failed'; failure: RequestFailure } | { kind: 'gone'; end: ServerEnd };

/** A Streamable HTTP server: a POST per message, each with its own abort. */
class HttpUpstream implements Upstream {
  private readonly url: URL;
  private readonly abort = new AbortController();
  private readonly requests = new Map<number, AbortController>();
  private session: string | undefined;
  private version: string | undefined;
  private ended = false;

  constructor(
    private readonly spec: HttpServer,
    private readonly handlers: UpstreamHandlers,
    private readonly limits: UpstreamLimits,
  ) {
    this.url = new URL(spec.url);
  }

  private end(e: ServerEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.abort.abort();
    this.handlers.end(e);
  }

  get queued(): number {
    return 0;
  }

  send(text: string, id?: number): boolean {
    if (this.ended) return true;
    const own = new AbortController();
    const signals = [this.abort.signal, own.signal];
    if (id === undefined) signals.push(AbortSignal.timeout(NOTIFY_TIMEOUT_MS));
    else this.requests.set(id, own);
    this.post(text, AbortSignal.any(signals)).then(
      (posted) => {
        if (id !== undefined) this.requests.delete(id);
        if (posted.kind === 'gone') this.end(posted.end);
        // A request's answer comes in its own response: one that ended without it (its exchange not yet
        // over, so not answered) has failed, or the exchange would wait for its timeout.
        else if (id !== undefined && !own.signal.aborted)
          this.handlers.failed(id, posted.kind === 'failed' ? posted.failure : { cause: 'server-error', status: posted.status });
      },
      (err: unknown) => {
        if (id !== undefined) this.requests.delete(id);
        // Our own abort (the exchange ended, the session closed) is no failure of the server's.
        if (own.signal.aborted || this.abort.signal.aborted || id === undefined) return;
        this.end({ cause: 'unreachable', message: (err as { cause?: Error }).cause?.message ?? (err as Error).message });
      },
    );
    return true;
  }

  forget(id: number): void {
    this.requests.get(id)?.abort();
    this.requests.delete(id);
  }

  negotiated(protocolVersion: string): void {
    this.version = protocolVersion;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { ...this.spec.headers };
    if (this.session) headers['mcp-session-id'] = this.session;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    return headers;
  }

  private async post(text: string, signal: AbortSignal): Promise<Posted> {
    const headers = { ...this.headers(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const response = await fetch(this.url, { method: 'POST', headers, body: text, signal });
    const id = response.headers.get('mcp-session-id');
    if (id && !this.session) this.session = id;
    const type = response.headers.get('content-type') ?? '';
    const limit = this.limits.maxMessageBytes;
    if (response.status === 404 && this.session) {
      await response.body?.cancel();
      return { kind: 'gone', end: { cause: 'http', status: 404 } };
    }
    // A JSON-RPC error can come with a 4xx status; any other error status fails this request alone.
    const json = type.includes('application/json');
    const stream = type.includes('text/event-stream');
    if (response.status === 202 || !response.body || (!response.ok && !json)) {
      await response.body?.cancel().catch(() => {});
      return response.ok || response.status === 202
        ? { kind: 'messages', status: response.status }
        : { kind: 'failed', failure: { cause: 'server-error', status: response.status } };
    }
    if (stream) return readEvents(response.body, response.status, limit, (bytes) => this.message(bytes));
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > limit) {
      // Judged from the header, before a byte of the body is read.
      await response.body.cancel().catch(() => {});
      return { kind: 'failed', failure: { cause: 'oversize', limit } };
    }
    const bytes = await readBody(response.body, limit);
    if (bytes === null) return { kind: 'failed', failure: { cause: 'oversize', limit } };
    this.message(bytes);
    return { kind: 'messages', status: response.status };
  }

  private message(bytes: Uint8Array): void {
    if (!this.ended) this.handlers.message(bytes);
  }

  kill(): void {
    this.ended = true;
    this.abort.abort();
  }

  async close(): Promise<void> {
    this.ended = true;
    this.abort.abort();
    if (!this.session) return;
    // Ends the session at the server, at most a second's wait.
    await fetch(this.url, { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(1000) }).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  }
}

/** A JSON body, read whole up to `limit` bytes into one buffer; null (and the body cancelled) past it. */
async function readBody(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}

const DATA = utf8.encode('data:');

/**
 * Reads server-sent events from a body, handing on the data of each event
 * as bytes. An event whose data passes `limit` fails the request
 * (`oversize`): the body is cancelled, having held at most the limit.
 */
async function readEvents(body: ReadableStream<Uint8Array>, status: number, limit: number, message: (bytes: Uint8Array) => void): Promise<Posted> {
  let data: Uint8Array[] = [];
  let dataBytes = 0;
  let over = false;
  // A data line is its field name, an optional space and the value: a value at the limit fits the line's own limit.
  const lines = new LineReader(limit + DATA.length + 1, {
    line: (line) => {
      // An empty line ends an event; its data lines, joined by LF, are the message.
      if (line.length === 0) {
        if (data.length) message(data.length === 1 ? data[0] : joinLines(data, dataBytes));
        data = [];
        dataBytes = 0;
        return;
      }
      if (!DATA.every((b, k) => line[k] === b)) return;
      const value = line.subarray(line[DATA.length] === 0x20 ? DATA.length + 1 : DATA.length);
      dataBytes += value.length + (data.length ? 1 : 0);
      data.push(value);
      if (dataBytes > limit) over = true;
    },
    long: () => {
      over = true;
    },
  });
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { kind: 'messages', status };
    lines.push(value);
    if (over) {
      await reader.cancel().catch(() => {});
      return { kind: 'failed', failure: { cause: 'oversize', limit } };
    }
  }
}

/** Data lines joined by LF, as one event's message. */
function joinLines(parts: readonly Uint8Array[], length: number): Uint8Array {
  const whole = new Uint8Array(length);
  let at = 0;
  for (const [k, part] of parts.entries()) {
    if (k) whole[at++] = 0x0a;
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}
