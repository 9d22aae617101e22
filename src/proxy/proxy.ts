// The proxy: exchanges asked for on request lines, served by one MCP server, answered as records of the server's own bytes.
//
// # One server, many exchanges
//
// The proxy initializes the server once (initialize, then
// notifications/initialized) and sends it every exchange of every client
// connection as a JSON-RPC request with an id of its own; the answer that
// comes back with that id goes, as the channel's response record and its
// finish, to the connection and channel that asked. So exchanges run in
// flight at once, across channels and connections.
//
// # The frame is the server's text
//
// The frame's body is the answer's `result` or `error` member sliced from
// the message's bytes (src/proxy/message.ts), never parsed and printed
// again, and judged by the method's codec before it is sent: an answer that
// breaks WIRE.md is not carried (its finish alone) and reported.
//
// # Every exchange ends
//
// An exchange is answered, or not carried with a fault naming the cause:
// the server ended (it is started again after a backoff), the exchange
// timeout passed (the server is sent notifications/cancelled), the line was
// refused, or the proxy drained. A client that goes away has its exchanges
// in flight cancelled at the server.

import net from 'node:net';
import type { Backend } from '../backend/backend.js';
import type { FrameCodec } from '../frame/frame.js';
import { encodeFinish, encodeResponseHeader, HEADER_SIZE } from '../records/record.js';
import { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_OPEN_CHANNELS } from '../records/limits.js';
import { type Envelope, isEnvelopeFault, parseSpan, readEnvelope, type Span } from './message.js';
import { codecOfMethod, type ExchangeRequest, isRefusal, readRequestLine } from './request-line.js';
import { openUpstream, type ServerEnd, type ServerSpec, type Upstream } from './upstream.js';
import { DEFAULT_EXCHANGE_TIMEOUT_MS } from './defaults.js';

export { DEFAULT_EXCHANGE_TIMEOUT_MS };
const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/** The longest server message read: a frame at the default limit, and room for its envelope. */
const DEFAULT_MAX_MESSAGE_BYTES = DEFAULT_MAX_FRAME_BYTES + 64 * 1024;
/** The protocol version the proxy asks for; the server answers with the one it speaks. */
const PROXY_PROTOCOL_VERSION = '2025-06-18';
/** Upper bounds, in seconds, of the exchange latency histogram's buckets. */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Why an exchange was not carried. */
export type NotCarriedCause = 'server-ended' | 'timeout' | 'invalid-answer' | 'bad-request' | 'draining' | 'drain-timeout';
export const NOT_CARRIED_CAUSES: readonly NotCarriedCause[] = [
  'server-ended',
  'timeout',
  'invalid-answer',
  'bad-request',
  'draining',
  'drain-timeout',
];

/** What the proxy reports: one per exchange not carried, line refused, or server event. */
export type ProxyFault =
  | { reason: 'not-carried'; cause: NotCarriedCause; channel: number; method?: string; message?: string; rule?: string; offset?: number }
  | { reason: 'bad-line'; refused: string; message: string; channel?: number; method?: string; limit?: number }
  | { reason: 'channel-in-flight'; channel: number; method: string }
  | { reason: 'line-too-long'; limit: number }
  | ({ reason: 'server-ended'; inFlight: number; restartInMs: number | null } & ServerEnd)
  | { reason: 'server-init-failed'; message: string }
  | { reason: 'server-message'; message: string; offset: number };

export interface ProxyStats {
  connectionsOpen: number;
  connectionsTotal: number;
  inFlight: number;
  /** Exchanges ended, by outcome: a result frame, an error frame, or not carried. */
  results: number;
  errors: number;
  notCarried: Record<NotCarriedCause, number>;
  /** Exchanges a client's going away cancelled. */
  cancelled: number;
  refusedLines: number;
  /** Count per LATENCY_BUCKETS bound (and one past the last), of the exchanges answered with a frame. */
  latencyBuckets: number[];
  latencySeconds: number;
  serverStarts: number;
  serverRestarts: number;
  notificationsDropped: number;
  serverRequestsRefused: number;
  /** Answers that came after their exchange had ended (timed out, cancelled). */
  lateAnswers: number;
  badServerMessages: number;
}

export interface ProxyOptions {
  server: ServerSpec;
  /** Milliseconds an exchange may take, from its line to its answer; 0 for none. Default 60 s. */
  exchangeTimeoutMs?: number;
  /** Milliseconds a server may take to answer initialize before it is stopped and started again; 0 for none. Default 30 s. */
  initializeTimeoutMs?: number;
  /** Who judges the frames (default: the package's default backend). */
  backend?: Backend;
  /** The most exchanges one connection may have in flight; a line past it gets its finish alone. Default 4096. */
  maxInFlightPerConnection?: number;
  /** The longest request line a client may send, in bytes; a longer one closes its connection. */
  maxLineBytes?: number;
  /** The longest message read from the server, in bytes; a longer one ends the server. */
  maxMessageBytes?: number;
  /** Backoff before a server is started again: the first wait, doubled after each failure up to the last. */
  restartDelayMs?: { first: number; max: number };
  /** Told of each fault; `connection` is null for the server's own. */
  onFault?: (fault: ProxyFault, connection: number | null) => void;
  /** Told of each exchange answered with a frame. */
  onExchange?: (answer: { connection: number; channel: number; method: string; payload: Uint8Array; message: Uint8Array; ms: number }) => void;
  /** Told when a server is ready (initialized), with its initialize result's bytes. */
  onServerReady?: (initializeResult: Uint8Array) => void;
}

export interface DrainResult {
  /** Exchanges that were still in flight when the drain timeout passed. */
  cut: number;
}

export interface McpProxy {
  /** The TCP server clients connect to. Call listen(). */
  readonly server: net.Server;
  readonly stats: Readonly<ProxyStats>;
  /** Resolves when a server first becomes ready. */
  readonly ready: Promise<void>;
  /** Stops accepting, lets exchanges in flight end for up to `ms`, not-carries the rest, ends the connections and the server. */
  drain(ms: number): Promise<DrainResult>;
  /** Ends everything now. */
  close(): Promise<void>;
}

interface Connection {
  id: number;
  socket: net.Socket;
  exchanges: Map<number, Exchange>;
}

interface Exchange {
  connection: Connection;
  channel: number;
  method: string;
  codec: FrameCodec<unknown>;
  params?: Record<string, unknown>;
  /** The JSON-RPC id, once sent. */
  id?: number;
  timer?: ReturnType<typeof setTimeout>;
  started: number;
}

const TAG_RESULT = 0x00;
const TAG_ERROR = 0x01;
const INIT_ID = 0;

function newStats(): ProxyStats {
  return {
    connectionsOpen: 0,
    connectionsTotal: 0,
    inFlight: 0,
    results: 0,
    errors: 0,
    notCarried: Object.fromEntries(NOT_CARRIED_CAUSES.map((c) => [c, 0])) as Record<NotCarriedCause, number>,
    cancelled: 0,
    refusedLines: 0,
    latencyBuckets: new Array(LATENCY_BUCKETS.length + 1).fill(0),
    latencySeconds: 0,
    serverStarts: 0,
    serverRestarts: 0,
    notificationsDropped: 0,
    serverRequestsRefused: 0,
    lateAnswers: 0,
    badServerMessages: 0,
  };
}

/** Starts the server and a TCP server for clients. */
export function createProxy(options: ProxyOptions): McpProxy {
  const timeoutMs = options.exchangeTimeoutMs ?? DEFAULT_EXCHANGE_TIMEOUT_MS;
  const initTimeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
  const maxInFlight = options.maxInFlightPerConnection ?? DEFAULT_MAX_OPEN_CHANNELS;
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxMessage = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const backoff = options.restartDelayMs ?? { first: 100, max: 10_000 };
  const backend = options.backend;
  const codecs = new Map<string, FrameCodec<unknown>>();
  const codecOf = (method: string) => {
    let codec = codecs.get(method);
    if (!codec) {
      const base = codecOfMethod(method)!;
      codec = backend ? base.withBackend(backend) : base;
      codecs.set(method, codec);
    }
    return codec;
  };
  const fault = (f: ProxyFault, connection: number | null) => options.onFault?.(f, connection);
  const stats = newStats();

  // The server: one upstream at a time.
  let upstream: Upstream | undefined;
  let serverReady = false;
  let stopped = false;
  let failures = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let initTimer: ReturnType<typeof setTimeout> | undefined;
  let nextId = 1;
  /** Exchanges sent, by JSON-RPC id. */
  const sent = new Map<number, Exchange>();
  /** Exchanges waiting for a server that is not ready yet, in arrival order. */
  const waiting = new Set<Exchange>();
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  function startServer(): void {
    restartTimer = undefined;
    if (stopped) return;
    stats.serverStarts++;
    serverReady = false;
    const current = openUpstream(
      options.server,
      {
        message: (bytes) => {
          if (upstream === current) onServerMessage(bytes);
        },
        end: (end) => {
          if (upstream === current) serverEnded(end);
        },
      },
      maxMessage,
    );
    upstream = current;
    current.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: INIT_ID,
        method: 'initialize',
        params: { protocolVersion: PROXY_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcp-frames-proxy', version: '1' } },
      }),
    );
    // A server that never answers initialize is a server that failed.
    if (initTimeoutMs > 0) {
      initTimer = setTimeout(() => {
        if (upstream !== current || serverReady) return;
        fault({ reason: 'server-init-failed', message: `no initialize result within ${initTimeoutMs} ms` }, null);
        replaceServer();
      }, initTimeoutMs);
    }
  }

  /** Stops the current server, not-carries what is in flight on it, and schedules the next. */
  function replaceServer(): void {
    const old = upstream;
    upstream = undefined;
    old?.close().catch(() => {});
    failAll('server-ended', 'the server was stopped');
    scheduleRestart();
  }

  function scheduleRestart(): number | null {
    if (stopped) return null;
    const delay = Math.min(backoff.max, backoff.first * 2 ** Math.min(failures, 30));
    failures++;
    stats.serverRestarts++;
    restartTimer = setTimeout(startServer, delay);
    return delay;
  }

  function failAll(cause: NotCarriedCause, message: string): number {
    const lost = [...sent.values()];
    sent.clear();
    for (const ex of lost) notCarried(ex, cause, { message });
    return lost.length;
  }

  function serverEnded(end: ServerEnd): void {
    upstream = undefined;
    serverReady = false;
    clearTimeout(initTimer);
    const lost = [...sent.values()];
    sent.clear();
    const restartInMs = scheduleRestart();
    fault({ reason: 'server-ended', ...end, inFlight: lost.length, restartInMs }, null);
    for (const ex of lost) notCarried(ex, 'server-ended', { message: `the server ended (${end.cause})` });
  }

  function send(ex: Exchange): void {
    ex.id = nextId++;
    sent.set(ex.id, ex);
    upstream!.send(JSON.stringify({ jsonrpc: '2.0', id: ex.id, method: ex.method, params: ex.params ?? {} }));
  }

  function onServerMessage(bytes: Uint8Array): void {
    const envelope = readEnvelope(bytes);
    if (isEnvelopeFault(envelope)) {
      stats.badServerMessages++;
      fault({ reason: 'server-message', message: envelope.fault, offset: envelope.offset }, null);
      return;
    }
    if (envelope.method) {
      if (envelope.id) refuseServerRequest(bytes, envelope.id);
      else stats.notificationsDropped++;
      return;
    }
    if (!envelope.id || (!envelope.result && !envelope.error)) {
      stats.badServerMessages++;
      fault({ reason: 'server-message', message: 'neither a request, a notification nor a response', offset: 0 }, null);
      return;
    }
    let id: unknown;
    try {
      id = parseSpan(bytes, envelope.id);
    } catch {
      stats.badServerMessages++;
      fault({ reason: 'server-message', message: 'the id is not JSON', offset: envelope.id.start }, null);
      return;
    }
    if (id === INIT_ID && !serverReady) {
      initialized(bytes, envelope);
      return;
    }
    const ex = typeof id === 'number' ? sent.get(id) : undefined;
    if (!ex) {
      stats.lateAnswers++;
      return;
    }
    sent.delete(id as number);
    answer(ex, bytes, envelope);
  }

  function initialized(bytes: Uint8Array, envelope: Envelope): void {
    clearTimeout(initTimer);
    let version: unknown;
    try {
      version = envelope.result ? (parseSpan(bytes, envelope.result) as { protocolVersion?: unknown })?.protocolVersion : undefined;
    } catch {}
    if (typeof version !== 'string') {
      const message = envelope.error
        ? `initialize answered with an error: ${new TextDecoder().decode(bytes.subarray(envelope.error.start, envelope.error.end))}`
        : 'initialize result has no protocolVersion';
      fault({ reason: 'server-init-failed', message }, null);
      replaceServer();
      return;
    }
    upstream!.negotiated(version);
    upstream!.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    serverReady = true;
    failures = 0;
    options.onServerReady?.(bytes.subarray(envelope.result!.start, envelope.result!.end));
    markReady();
    for (const ex of waiting) send(ex);
    waiting.clear();
  }

  function refuseServerRequest(bytes: Uint8Array, idSpan: Span): void {
    stats.serverRequestsRefused++;
    const id = new TextDecoder().decode(bytes.subarray(idSpan.start, idSpan.end));
    // The id goes back as the server wrote it.
    upstream?.send(
      `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"mcp-frames proxy: the proxy's clients take no requests from the server"}}`,
    );
  }

  function answer(ex: Exchange, bytes: Uint8Array, envelope: Envelope): void {
    const span = (envelope.result ?? envelope.error)!;
    // Whichever member came last wins, as JSON.parse would read the message.
    const isError = envelope.error !== undefined && (envelope.result === undefined || envelope.error.start > envelope.result.start);
    const body = isError ? envelope.error! : span;
    const length = body.end - body.start;
    const record = new Uint8Array(HEADER_SIZE + 1 + length + HEADER_SIZE);
    record.set(encodeResponseHeader(ex.channel, 1 + length), 0);
    record[HEADER_SIZE] = isError ? TAG_ERROR : TAG_RESULT;
    record.set(bytes.subarray(body.start, body.end), HEADER_SIZE + 1);
    const payload = record.subarray(HEADER_SIZE, HEADER_SIZE + 1 + length);
    const verdict = ex.codec.validate(payload);
    if (verdict) {
      notCarried(ex, 'invalid-answer', { message: verdict.message, rule: verdict.rule, offset: verdict.offset });
      return;
    }
    record.set(encodeFinish(ex.channel), HEADER_SIZE + 1 + length);
    const ms = end(ex);
    if (isError) stats.errors++;
    else stats.results++;
    const seconds = ms / 1000;
    stats.latencySeconds += seconds;
    let k = 0;
    while (k < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[k]) k++;
    stats.latencyBuckets[k]++;
    write(ex.connection, record);
    options.onExchange?.({ connection: ex.connection.id, channel: ex.channel, method: ex.method, payload, message: bytes, ms });
  }

  /** Takes the exchange off its connection and its timer; the milliseconds it took. */
  function end(ex: Exchange): number {
    clearTimeout(ex.timer);
    if (ex.connection.exchanges.get(ex.channel) === ex) ex.connection.exchanges.delete(ex.channel);
    waiting.delete(ex);
    stats.inFlight--;
    return performance.now() - ex.started;
  }

  function notCarried(ex: Exchange, cause: NotCarriedCause, detail: { message?: string; rule?: string; offset?: number } = {}): void {
    end(ex);
    stats.notCarried[cause]++;
    fault({ reason: 'not-carried', cause, channel: ex.channel, method: ex.method, ...detail }, ex.connection.id);
    write(ex.connection, encodeFinish(ex.channel));
  }

  function write(connection: Connection, bytes: Uint8Array): void {
    const socket = connection.socket;
    if (socket.destroyed) return;
    // A client that does not read stops being read: its next lines wait until its answers drain.
    if (!socket.write(bytes) && !socket.isPaused()) {
      socket.pause();
      socket.once('drain', () => socket.resume());
    }
  }

  function timedOut(ex: Exchange): void {
    const id = ex.id;
    if (id !== undefined) {
      sent.delete(id);
      upstream?.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timeout' } }));
    }
    notCarried(ex, 'timeout', { message: `no answer within ${timeoutMs} ms` });
  }

  let draining = false;
  let nextConnection = 1;
  const connections = new Set<Connection>();
  let drained: (() => void) | undefined;
  const checkDrained = () => {
    if (drained && stats.inFlight === 0) drained();
  };

  function onLine(connection: Connection, text: string): void {
    const request = readRequestLine(text);
    if (isRefusal(request)) {
      stats.refusedLines++;
      fault({ reason: 'bad-line', ...request }, connection.id);
      // A line that named a channel gets its finish: that exchange is over.
      if (request.channel !== undefined && !connection.exchanges.has(request.channel)) write(connection, encodeFinish(request.channel));
      return;
    }
    if (connection.exchanges.has(request.channel)) {
      // A finish now would end the exchange already on the channel; that one is still answered.
      stats.refusedLines++;
      fault({ reason: 'channel-in-flight', channel: request.channel, method: request.method }, connection.id);
      return;
    }
    if (connection.exchanges.size >= maxInFlight) {
      // Checked before anything is kept for the exchange: a client cannot make the proxy hold more.
      stats.refusedLines++;
      fault(
        {
          reason: 'bad-line',
          refused: 'too-many-in-flight',
          message: `at most ${maxInFlight} exchanges in flight on a connection`,
          channel: request.channel,
          method: request.method,
          limit: maxInFlight,
        },
        connection.id,
      );
      write(connection, encodeFinish(request.channel));
      return;
    }
    start(connection, request);
  }

  function start(connection: Connection, request: ExchangeRequest): void {
    const ex: Exchange = {
      connection,
      channel: request.channel,
      method: request.method,
      codec: codecOf(request.method),
      params: request.params,
      started: performance.now(),
    };
    connection.exchanges.set(ex.channel, ex);
    stats.inFlight++;
    if (draining) {
      notCarried(ex, 'draining', { message: 'the proxy is draining' });
      return;
    }
    if (timeoutMs > 0) ex.timer = setTimeout(() => timedOut(ex), timeoutMs);
    if (serverReady && upstream) send(ex);
    else waiting.add(ex);
  }

  function disconnected(connection: Connection): void {
    connections.delete(connection);
    stats.connectionsOpen--;
    for (const ex of connection.exchanges.values()) {
      end(ex);
      stats.cancelled++;
      if (ex.id !== undefined && sent.delete(ex.id)) {
        upstream?.send(
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: ex.id, reason: 'the client went away' } }),
        );
      }
    }
    connection.exchanges.clear();
    checkDrained();
  }

  const server = net.createServer((socket) => {
    const connection: Connection = { id: nextConnection++, socket, exchanges: new Map() };
    connections.add(connection);
    stats.connectionsOpen++;
    stats.connectionsTotal++;
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => disconnected(connection));
    let chunks: Buffer[] = [];
    let held = 0;
    socket.on('data', (data: Buffer) => {
      let from = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, from)) {
        if (held + nl - from > maxLine) break;
        const part = data.subarray(from, nl);
        const line = held ? Buffer.concat([...chunks, part]) : part;
        chunks = [];
        held = 0;
        from = nl + 1;
        const text = line.toString('utf8').trim();
        if (text) onLine(connection, text);
        if (socket.destroyed) return;
      }
      if (held + data.length - from > maxLine) {
        // Checked before the bytes are kept: a line past the limit is never held whole.
        stats.refusedLines++;
        fault({ reason: 'line-too-long', limit: maxLine }, connection.id);
        socket.destroy();
        return;
      }
      if (from < data.length) {
        chunks.push(data.subarray(from));
        held += data.length - from;
      }
    });
  });
  server.on('close', () => {});

  startServer();

  async function stopServer(): Promise<void> {
    stopped = true;
    clearTimeout(restartTimer);
    clearTimeout(initTimer);
    const old = upstream;
    upstream = undefined;
    await old?.close();
  }

  return {
    server,
    stats,
    ready,
    async drain(ms) {
      draining = true;
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      const timer = { t: undefined as ReturnType<typeof setTimeout> | undefined };
      await new Promise<void>((resolve) => {
        drained = resolve;
        timer.t = setTimeout(resolve, ms);
        checkDrained();
      });
      clearTimeout(timer.t);
      let cut = 0;
      for (const connection of connections) {
        for (const ex of [...connection.exchanges.values()]) {
          if (ex.id !== undefined) sent.delete(ex.id);
          notCarried(ex, 'drain-timeout', { message: `still in flight after ${ms} ms of draining` });
          cut++;
        }
        connection.socket.end();
      }
      await stopServer();
      await closed;
      return { cut };
    },
    async close() {
      draining = true;
      for (const connection of connections) connection.socket.destroy();
      await stopServer();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}
