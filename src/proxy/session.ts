// The proxy's one MCP server: started, initialized, given every exchange by a JSON-RPC id of its own, and started again when it ends.
//
// # One server, many exchanges
//
// The session initializes the server once (initialize, then
// notifications/initialized) and sends it each exchange as a request with
// an id of its own; the answer that comes back with that id goes to the
// exchange that asked. Exchanges that come before the server is ready wait
// for it, within the server queue's bound, and are sent once it is.
//
// # A server that keeps failing waits longer each time
//
// When the server ends, every exchange sent to it is lost (`server-ended`)
// and it is started again after a backoff: the first wait, doubled with
// each failure up to the max. The backoff starts again from the first wait
// only once a server has stayed up for stableAfterMs: answering initialize
// is not enough, or a server that exits just after it would be started
// again every first wait, forever.

import {
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_MAX_SERVER_QUEUE_BYTES,
  DEFAULT_MAX_START_FAILURES,
  DEFAULT_RESTART_DELAY_MS,
  DEFAULT_STABLE_AFTER_MS,
} from '../connection/defaults.js';
import { type Envelope, isEnvelopeFault, parseSpan, readEnvelope, type Span } from './message.js';
import type { RequestFailure, ServerEnd, ServerSpec, Upstream } from './server-spec.js';
import { openUpstream } from './upstream.js';

/** The protocol version the proxy asks for; the server answers with the one it speaks. */
const PROXY_PROTOCOL_VERSION = '2025-06-18';
const INIT_ID = 0;
const decoder = new TextDecoder();
const NOT_READING = { cause: 'server-not-reading', message: 'the server is not reading its requests' } as const;

/** How a server that was never ready ended, in words. */
function describeEnd(end: ServerEnd): string {
  switch (end.cause) {
    case 'exit':
      return `the server exited before it was ready (${end.signal ? `signal ${end.signal}` : `status ${end.code}`})`;
    case 'spawn':
      return `the server could not be started: ${end.message}`;
    case 'unreachable':
      return `the server cannot be reached: ${end.message}`;
    case 'oversize':
      return `the server wrote a message past the limit of ${end.limit} bytes before it was ready`;
    case 'http':
      return `the server answered HTTP ${end.status} before it was ready`;
    case 'closed':
      return 'the server closed before it was ready';
  }
}

/** What the session sends for one exchange. */
export interface SessionRequest {
  readonly method: string;
  /** The text of the request's params, as the client wrote it (`{}` when absent); let go once the request is sent. */
  paramsText: string | undefined;
  /** The bytes of the line that asked for it: what it costs while it waits. */
  readonly size: number;
  /** The JSON-RPC id, once sent. */
  id?: number;
  /** Who asked for it (its connection): over HTTP, the open requests take turns among them. */
  readonly from?: object;
}

/** Why the session lost a request. */
export type SessionLoss = 'server-ended' | 'server-unavailable' | 'server-not-reading' | RequestFailure['cause'];

/** A fault of the server's own, not of one exchange. */
export type ServerFault =
  | ({ reason: 'server-ended'; inFlight: number; restartInMs: number | null } & ServerEnd)
  | { reason: 'server-init-failed'; message: string }
  /** No server was ever ready: `starts` in a row ended before it was, the last for `message`. The session has given up. */
  | { reason: 'server-unavailable'; starts: number; message: string }
  | { reason: 'server-message'; message: string; offset: number };

/** The session's own counts. */
export interface SessionCounts {
  serverStarts: number;
  serverRestarts: number;
  notificationsDropped: number;
  serverRequestsRefused: number;
  /** Answers that came after their exchange had ended (timed out, cancelled). */
  lateAnswers: number;
  badServerMessages: number;
}

export interface SessionHandlers<R extends SessionRequest> {
  /** The server answered `request`: its message (lent, valid until this returns), and where the members lie in it. */
  answered(request: R, message: Uint8Array, envelope: Envelope): void;
  /** The session lost `request`; it is no longer the session's. */
  lost(request: R, cause: SessionLoss, detail: { message: string; limit?: number; status?: number }): void;
  fault(fault: ServerFault): void;
  /** A server is ready, with its initialize result's bytes. */
  ready(initializeResult: Uint8Array): void;
  /** No server was ever ready after maxStartFailures starts in a row: the session has given up, for `message`. */
  unavailable(message: string): void;
}

export interface SessionSettings {
  initializeTimeoutMs?: number;
  maxMessageBytes: number;
  maxQueueBytes?: number;
  restartDelayMs?: { first: number; max: number };
  stableAfterMs?: number;
  /** Starts in a row that may end before a server was ever ready, before the session gives up; 0 for never. */
  maxStartFailures?: number;
}

export class ServerSession<R extends SessionRequest> {
  readonly counts: SessionCounts = {
    serverStarts: 0,
    serverRestarts: 0,
    notificationsDropped: 0,
    serverRequestsRefused: 0,
    lateAnswers: 0,
    badServerMessages: 0,
  };
  private upstream: Upstream | undefined;
  /** Servers being closed (stopped or replaced), not yet gone. */
  private readonly closing = new Set<Upstream>();
  private isReady = false;
  private stopped = false;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private initTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  /** Requests sent, by JSON-RPC id. */
  private readonly sent = new Map<number, R>();
  /** Requests waiting for a server that is not ready yet, in arrival order, and their bytes. */
  private readonly waiting = new Set<R>();
  private waitingBytes = 0;
  private readonly initTimeoutMs: number;
  private readonly maxQueueBytes: number;
  private readonly backoff: { first: number; max: number };
  private readonly stableAfterMs: number;
  private readonly maxStartFailures: number;
  /** Starts in a row that ended before their server was ready, and whether any server has been. */
  private startFailures = 0;
  private everReady = false;
  /** Why the session gave up, once it has: no server was ever ready. */
  private unavailable: string | null = null;

  constructor(
    private readonly spec: ServerSpec,
    private readonly settings: SessionSettings,
    private readonly handlers: SessionHandlers<R>,
  ) {
    this.initTimeoutMs = settings.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    this.maxQueueBytes = settings.maxQueueBytes ?? DEFAULT_MAX_SERVER_QUEUE_BYTES;
    this.backoff = settings.restartDelayMs ?? DEFAULT_RESTART_DELAY_MS;
    this.stableAfterMs = settings.stableAfterMs ?? DEFAULT_STABLE_AFTER_MS;
    this.maxStartFailures = settings.maxStartFailures ?? DEFAULT_MAX_START_FAILURES;
  }

  /** Whether a server is initialized and taking requests. */
  get ready(): boolean {
    return this.isReady;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.sent.size;
  }

  start(): void {
    this.restartTimer = undefined;
    if (this.stopped) return;
    this.counts.serverStarts++;
    this.isReady = false;
    const current = openUpstream(
      this.spec,
      {
        message: (bytes) => {
          if (this.upstream === current) this.onMessage(bytes);
        },
        failed: (id, failure) => {
          if (this.upstream === current) this.onFailed(id, failure);
        },
        end: (end) => {
          if (this.upstream === current) this.ended(end);
        },
      },
      { maxMessageBytes: this.settings.maxMessageBytes, maxQueueBytes: this.maxQueueBytes },
    );
    this.upstream = current;
    const params = { protocolVersion: PROXY_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcp-frames-proxy', version: '1' } };
    current.send(JSON.stringify({ jsonrpc: '2.0', id: INIT_ID, method: 'initialize', params }), INIT_ID);
    // A server that never answers initialize is a server that failed.
    if (this.initTimeoutMs > 0) {
      this.initTimer = setTimeout(() => {
        if (this.upstream !== current || this.isReady) return;
        const message = `no initialize result within ${this.initTimeoutMs} ms`;
        this.handlers.fault({ reason: 'server-init-failed', message });
        this.replace(message);
      }, this.initTimeoutMs);
    }
  }

  /**
   * Sends `request`, or keeps it until the server is ready. The loss, with
   * why, when it cannot be taken (the server's queue is full, or the
   * session has given up): the request was never the session's.
   */
  submit(request: R): { cause: SessionLoss; message: string } | null {
    if (this.unavailable !== null) return { cause: 'server-unavailable', message: this.unavailable };
    if (this.isReady && this.upstream) return this.send(request);
    const queued = this.upstream?.queued ?? 0;
    if (this.waiting.size > 0 && queued + this.waitingBytes + request.size > this.maxQueueBytes) return NOT_READING;
    this.waiting.add(request);
    this.waitingBytes += request.size;
    return null;
  }

  private send(request: R): { cause: SessionLoss; message: string } | null {
    const id = this.nextId++;
    // The params go on as written (request-line.ts); the method is one of the package's, with nothing to escape.
    const text = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(request.method)},"params":${request.paramsText ?? '{}'}}`;
    if (!this.upstream!.send(text, id, request.from)) return NOT_READING;
    // The upstream holds the text now, within its queue's bound: an exchange in flight holds no params.
    request.paramsText = undefined;
    request.id = id;
    this.sent.set(id, request);
    return null;
  }

  /** `request` is over before its answer (a timeout, its client gone): the server is told, when it was sent. */
  cancel(request: R, reason: string): void {
    if (this.waiting.delete(request)) {
      this.waitingBytes -= request.size;
      return;
    }
    const id = request.id;
    if (id === undefined || this.sent.get(id) !== request) return;
    this.sent.delete(id);
    // A request that never reached the server (it waited for a free HTTP request) needs no cancelling there.
    if (this.upstream?.forget(id)) this.notify('notifications/cancelled', { requestId: id, reason });
  }

  private notify(method: string, params?: Record<string, unknown>): void {
    this.upstream?.send(JSON.stringify(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method }));
  }

  private onMessage(bytes: Uint8Array): void {
    const envelope = readEnvelope(bytes);
    if (isEnvelopeFault(envelope)) {
      this.badMessage(envelope.fault, envelope.offset);
      return;
    }
    if (envelope.method) {
      if (envelope.id) this.refuseServerRequest(bytes, envelope.id);
      else this.counts.notificationsDropped++;
      return;
    }
    if (!envelope.id || (!envelope.result && !envelope.error)) {
      this.badMessage('neither a request, a notification nor a response', 0);
      return;
    }
    let id: unknown;
    try {
      id = parseSpan(bytes, envelope.id);
    } catch {
      this.badMessage('the id is not JSON', envelope.id.start);
      return;
    }
    if (id === INIT_ID && !this.isReady) {
      this.initialized(bytes, envelope);
      return;
    }
    const request = this.take(id);
    if (request) this.handlers.answered(request, bytes, envelope);
  }

  /** The request sent with `id`, no longer the session's; undefined (counted late) when none waits for it. */
  private take(id: unknown): R | undefined {
    const request = typeof id === 'number' ? this.sent.get(id) : undefined;
    if (!request) {
      this.counts.lateAnswers++;
      return undefined;
    }
    this.sent.delete(id as number);
    this.upstream?.forget(id as number);
    return request;
  }

  private badMessage(message: string, offset: number): void {
    this.counts.badServerMessages++;
    this.handlers.fault({ reason: 'server-message', message, offset });
  }

  /** One request failed and the server goes on (an answer past the limit, an HTTP error). */
  private onFailed(id: unknown, failure: RequestFailure): void {
    if (id === INIT_ID && !this.isReady) {
      const message = failure.cause === 'oversize' ? `initialize result past ${failure.limit} bytes` : `initialize answered HTTP ${failure.status}`;
      this.handlers.fault({ reason: 'server-init-failed', message });
      this.replace(message);
      return;
    }
    // Answered already, or over (timed out, cancelled): nothing is lost now.
    const request = typeof id === 'number' ? this.sent.get(id) : undefined;
    if (!request) return;
    this.sent.delete(id as number);
    this.upstream?.forget(id as number);
    const message =
      failure.cause === 'oversize'
        ? `the answer is past the message limit of ${failure.limit} bytes`
        : (failure.message ?? `the server's HTTP response (status ${failure.status}) ended with no answer to the request`);
    this.handlers.lost(request, failure.cause, { message, ...('limit' in failure ? { limit: failure.limit } : { status: failure.status }) });
  }

  private initialized(bytes: Uint8Array, envelope: Envelope): void {
    clearTimeout(this.initTimer);
    let version: unknown;
    try {
      version = envelope.result ? (parseSpan(bytes, envelope.result) as { protocolVersion?: unknown })?.protocolVersion : undefined;
    } catch {}
    if (typeof version !== 'string') {
      const message = envelope.error
        ? `initialize answered with an error: ${decoder.decode(bytes.subarray(envelope.error.start, envelope.error.end))}`
        : 'initialize result has no protocolVersion';
      this.handlers.fault({ reason: 'server-init-failed', message });
      this.replace(message);
      return;
    }
    this.upstream!.negotiated(version);
    this.upstream!.forget(INIT_ID);
    this.notify('notifications/initialized');
    this.isReady = true;
    this.everReady = true;
    this.startFailures = 0;
    // The backoff starts again from its first wait only once this server has stayed up a while.
    this.stableTimer = setTimeout(() => {
      this.failures = 0;
    }, this.stableAfterMs);
    // A copy (a Buffer's slice would be a view): the message's bytes are only lent (server-spec.ts), and the result is the handler's to keep.
    this.handlers.ready(new Uint8Array(bytes.subarray(envelope.result!.start, envelope.result!.end)));
    const waiting = [...this.waiting];
    this.waiting.clear();
    this.waitingBytes = 0;
    for (const request of waiting) {
      const loss = this.send(request);
      if (loss) this.handlers.lost(request, loss.cause, { message: loss.message });
    }
  }

  private refuseServerRequest(bytes: Uint8Array, idSpan: Span): void {
    this.counts.serverRequestsRefused++;
    const id = decoder.decode(bytes.subarray(idSpan.start, idSpan.end));
    // The id goes back as the server wrote it.
    this.upstream?.send(
      `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"mcp-frames proxy: the proxy's clients take no requests from the server"}}`,
    );
  }

  /** Stops the current server, which failed to initialize, loses what waits on it, and schedules the next. */
  private replace(message: string): void {
    const old = this.upstream;
    this.upstream = undefined;
    this.isReady = false;
    clearTimeout(this.stableTimer);
    if (old) this.closeUpstream(old).catch(() => {});
    this.loseSent('the server was stopped');
    this.startFailed(message, () => this.scheduleRestart());
  }

  private ended(end: ServerEnd): void {
    const wasReady = this.isReady;
    this.upstream = undefined;
    this.isReady = false;
    clearTimeout(this.initTimer);
    clearTimeout(this.stableTimer);
    const inFlight = this.sent.size;
    const message = describeEnd(end);
    const givingUp = !wasReady && this.startFailures + 1 >= this.maxStartFailures && this.maxStartFailures > 0 && !this.everReady;
    const restartInMs = givingUp ? null : this.scheduleRestart();
    this.handlers.fault({ reason: 'server-ended', ...end, inFlight, restartInMs });
    this.loseSent(`the server ended (${end.cause})`);
    if (!wasReady) this.startFailed(message, () => null);
  }

  /**
   * A start ended before its server was ready. What waited for it is not
   * carried now (`server-unavailable`): nothing promises the next start does
   * better. Past maxStartFailures in a row, with no server ever ready, the
   * session gives up; else `restart` schedules the next start.
   */
  private startFailed(message: string, restart: () => unknown): void {
    this.startFailures++;
    const lost = [...this.waiting];
    this.waiting.clear();
    this.waitingBytes = 0;
    for (const request of lost) this.handlers.lost(request, 'server-unavailable', { message });
    if (this.everReady || this.maxStartFailures === 0 || this.startFailures < this.maxStartFailures) {
      restart();
      return;
    }
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.unavailable = message;
    this.handlers.fault({ reason: 'server-unavailable', starts: this.startFailures, message });
    this.handlers.unavailable(message);
  }

  private loseSent(message: string): void {
    const lost = [...this.sent.values()];
    this.sent.clear();
    for (const request of lost) this.handlers.lost(request, 'server-ended', { message });
  }

  private scheduleRestart(): number | null {
    if (this.stopped) return null;
    const delay = Math.min(this.backoff.max, this.backoff.first * 2 ** Math.min(this.failures, 30));
    this.failures++;
    this.counts.serverRestarts++;
    this.restartTimer = setTimeout(() => this.start(), delay);
    return delay;
  }

  /** Stops the server for good at once, for a process about to exit (a stdio server is killed). */
  kill(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.initTimer);
    clearTimeout(this.stableTimer);
    this.upstream?.kill();
    this.upstream = undefined;
    this.isReady = false;
    // A server still closing (one that ignores SIGTERM has 2 s before its SIGKILL) is killed too, or it would
    // outlive the process.
    for (const closing of this.closing) closing.kill();
  }

  /** Closes `upstream`, kept among those closing until it has: kill() kills them too. */
  private async closeUpstream(upstream: Upstream): Promise<void> {
    this.closing.add(upstream);
    try {
      await upstream.close();
    } finally {
      this.closing.delete(upstream);
    }
  }

  /** Stops the server for good; what waits is left to the caller. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.initTimer);
    clearTimeout(this.stableTimer);
    const old = this.upstream;
    this.upstream = undefined;
    this.isReady = false;
    if (old) await this.closeUpstream(old);
  }
}
