// The proxy: exchanges asked for on request lines, served by one MCP server, answered as records of the server's own bytes (WIRE.md section 8).
//
// # Built from the house's parts
//
//   connection core (src/connection/)   accepts, bounds, idles, drains and resets the client connections
//   ProxyConnection (connection.ts)     a client's lines in, its channels' records out
//   ServerSession (session.ts)          the one MCP server: start, initialize, backoff, the id table, cancel
//   answerRecords (answer.ts)           the server's answer sliced and judged by all of WIRE.md section 4
//
// # Every exchange ends
//
// An exchange is answered with its frame, or not carried (its finish
// alone) with a fault naming the cause: the answer breaks section 4, or is
// past the message limit; the server ended, failed it over HTTP, or is not
// reading its requests; the exchange timeout passed; the line was refused;
// the proxy drained. A client that goes away has its exchanges in flight
// cancelled at the server.

import type { ProxyHeaderRefusal } from '../connection/proxy-header.js';
import type net from 'node:net';
import type { Backend } from '../backend/backend.js';
import {
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_EXCHANGE_TIMEOUT_MS,
  DEFAULT_MAX_CLIENT_QUEUE_BYTES,
  DEFAULT_MAX_LINE_BYTES,
} from '../connection/defaults.js';
import { checkCallbacks, checkCount, checkTimeout, ConnectionCore, type DrainResult, servingOptions } from '../connection/server.js';
import type { FrameCodec } from '../frame/frame.js';
import { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_OPEN_CHANNELS } from '../records/limits.js';
import { ANSWER_LEVELS, type AnswerLevel } from './answer.js';
import { ProxyConnection } from './connection.js';
import { type Exchange, newCounts, type ProxyConnectionSummary, type ProxyContext, type ProxyFault, type ProxyStats } from './context.js';
import { methodCodecs } from '../frame/endpoints.js';
import { ServerSession } from './session.js';
import type { ServerSpec } from './server-spec.js';

/** The longest server message read by default: a frame at the default limit, and room for its envelope. */
const DEFAULT_MAX_MESSAGE_BYTES = DEFAULT_MAX_FRAME_BYTES + 64 * 1024;

export interface ProxyOptions {
  server: ServerSpec;
  /** How much of WIRE.md section 4 answers are held to: 'full' (default: rules 4.1 to 4.3) or 'json' (the tag and rule 4.1). */
  validate?: AnswerLevel;
  /** Who judges the frames (default: the package's default backend). */
  backend?: Backend;
  /** Milliseconds an exchange may take, from its line to its answer; 0 for none. Default 60 s. */
  exchangeTimeoutMs?: number;
  /** Milliseconds a server may take to answer initialize before it is stopped and started again; 0 for none. Default 30 s. */
  initializeTimeoutMs?: number;
  /** The most exchanges one connection may have in flight; a line past it gets its finish alone. Default 4096. */
  maxInFlightPerConnection?: number;
  /** The longest request line a client may send, in bytes; a longer one resets its connection. Default 1 MiB. */
  maxLineBytes?: number;
  /** The longest message read from the server, in bytes; a longer answer is not carried. Default 16 MiB and 64 KiB. */
  maxMessageBytes?: number;
  /** Answer bytes a client may leave unread; past it the client is reset and its exchanges cancelled. Default 32 MiB. */
  maxClientQueueBytes?: number;
  /** Request bytes that may wait for the server (unread on its stdin, or before it is ready); past it, `server-not-reading`. Default 8 MiB. */
  maxServerQueueBytes?: number;
  /** Most client connections open at once; past it a new client is reset as it comes. Default 10,000; 0 for no limit. */
  maxConnections?: number;
  /** Milliseconds a connection may go nowhere (nothing in flight, no byte either way; or a client that takes nothing). Default 300 s; 0 never. */
  clientIdleTimeout?: number;
  /** Each connection starts with a PROXY protocol header (version 1 or 2) naming the client, as createTcpRelay's option of that name. */
  proxyProtocol?: boolean;
  /** Milliseconds a connection may take to send its PROXY header (proxyProtocol). Default 5 s; 0 for no limit. */
  proxyHeaderTimeout?: number;
  /** Called for each connection refused for its PROXY header, with the socket's own address and why. */
  onRefused?: (remote: string, refusal: ProxyHeaderRefusal) => void;
  /** Backoff before a server is started again: the first wait, doubled after each failure up to the max. Default 100 ms to 10 s. */
  restartDelayMs?: { first: number; max: number };
  /** How long a server must stay up before the backoff starts again from its first wait. Default 10 s. */
  stableAfterMs?: number;
  /**
   * Starts in a row that may end before any server was ever ready (a
   * command that does not exist, a server that exits at once) before the
   * proxy gives up: `ready` rejects, and every exchange is not carried
   * (`server-unavailable`). Default 5; 0 tries for ever.
   */
  maxStartFailures?: number;
  /** Told of each fault; `connection` is null for the server's own. */
  onFault?: (fault: ProxyFault, connection: number | null) => void;
  /** Told of each exchange answered with a frame. */
  onExchange?: (answer: { connection: number; channel: number; method: string; payload: Uint8Array; message: Uint8Array; ms: number }) => void;
  /** Told when a server is ready (initialized), with its initialize result's bytes. */
  onServerReady?: (initializeResult: Uint8Array) => void;
  /** Called when a client is accepted. */
  onOpen?: (connection: number, remote: string) => void;
  /** Called once a client's connection has closed, with its summary. */
  onClose?: (connection: number, error: unknown, summary: ProxyConnectionSummary) => void;
}

export interface McpProxy {
  /** The TCP server clients connect to. Call listen(). */
  readonly server: net.Server;
  /** Live counts. */
  readonly stats: Readonly<ProxyStats>;
  /** Resolves when a server first becomes ready; rejects, naming why, when the proxy gives up on starting one (maxStartFailures). */
  readonly ready: Promise<void>;
  /**
   * Stops accepting; a connection with nothing in flight ends at once, the
   * others get up to `ms` (default 30 s). Then each exchange still in
   * flight is not carried (`drain-timeout`) and its client gets the
   * finishes and a reset, whether or not it reads; then the server stops.
   */
  drain(ms?: number): Promise<DrainResult>;
  /**
   * For a process about to exit: resets every client connection at once,
   * with nothing owed sent, stops listening, and kills the server (a stdio
   * server with SIGKILL, which an exit would otherwise leave running).
   * Returns how many connections it reset.
   */
  reset(): number;
  /** Ends everything now: every client reset, the server stopped. */
  close(): Promise<void>;
}

function checkLevel(level: unknown): AnswerLevel {
  if (!ANSWER_LEVELS.includes(level as AnswerLevel))
    throw new RangeError(`validate must be one of ${ANSWER_LEVELS.join(', ')}, not ${String(level)}`);
  return level as AnswerLevel;
}

/** Each method's codec on the proxy's backend; a request line names only methods with one (request-line.ts). */
function methodCodecsOrThrow(backend: Backend | undefined): (method: string) => FrameCodec<unknown> {
  const codecOf = methodCodecs(backend);
  return (method) => codecOf(method)!;
}

/** The live counts: the core's connections, the session's and the proxy's own, read when asked. */
function liveStats(core: ConnectionCore<ProxyConnection, ProxyConnectionSummary>, session: ServerSession<Exchange>, own: object): ProxyStats {
  const stats = {} as ProxyStats;
  Object.defineProperties(stats, {
    connectionsOpen: { get: () => core.open, enumerable: true },
    connectionsTotal: { get: () => core.total, enumerable: true },
    connectionsRefused: { get: () => core.refused, enumerable: true },
    proxyHeaderRefused: { get: () => core.headerRefused, enumerable: true },
    serverReady: { get: () => session.ready, enumerable: true },
  });
  for (const source of [own, session.counts] as Array<Record<string, unknown>>) {
    for (const key of Object.keys(source)) Object.defineProperty(stats, key, { get: () => source[key], enumerable: true });
  }
  return stats;
}

/** Starts the server and a TCP server for clients. */
export function createProxy(options: ProxyOptions): McpProxy {
  checkCallbacks(options, ['onFault', 'onExchange', 'onServerReady', 'onOpen', 'onClose', 'onRefused']);
  const counts = newCounts();
  const fault = (f: ProxyFault, connection: number | null) => options.onFault?.(f, connection);
  const maxMessageBytes = checkCount('maxMessageBytes', options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, 1);
  let markReady: () => void = () => {};
  let markUnavailable: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markUnavailable = reject;
  });
  // Rejected with nobody waiting on it, it would be an unhandled rejection: a caller's await still sees it.
  ready.catch(() => {});
  const session = new ServerSession<Exchange>(
    options.server,
    {
      initializeTimeoutMs: options.initializeTimeoutMs,
      maxMessageBytes,
      maxQueueBytes: options.maxServerQueueBytes,
      restartDelayMs: options.restartDelayMs,
      stableAfterMs: options.stableAfterMs,
      maxStartFailures: options.maxStartFailures,
    },
    {
      answered: (exchange, message, envelope) => exchange.owner.answered(exchange, message, envelope),
      lost: (exchange, cause, detail) => exchange.owner.lost(exchange, cause, detail),
      fault: (f) => fault(f, null),
      ready: (result) => {
        options.onServerReady?.(result);
        markReady();
      },
      unavailable: (message) => markUnavailable(new Error(`mcp-frames proxy: no server could be started: ${message}`)),
    },
  );
  const context: ProxyContext = {
    settings: {
      level: checkLevel(options.validate ?? 'full'),
      exchangeTimeoutMs: checkTimeout('exchangeTimeoutMs', options.exchangeTimeoutMs ?? DEFAULT_EXCHANGE_TIMEOUT_MS),
      clientIdleTimeoutMs: checkTimeout('clientIdleTimeout', options.clientIdleTimeout ?? DEFAULT_CLIENT_IDLE_TIMEOUT_MS),
      maxLineBytes: checkCount('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, 1),
      maxInFlight: checkCount('maxInFlightPerConnection', options.maxInFlightPerConnection ?? DEFAULT_MAX_OPEN_CHANNELS, 1),
      maxClientQueueBytes: checkCount('maxClientQueueBytes', options.maxClientQueueBytes ?? DEFAULT_MAX_CLIENT_QUEUE_BYTES, 0),
    },
    counts,
    codecOf: methodCodecsOrThrow(options.backend),
    submit: (exchange) => session.submit(exchange),
    cancel: (exchange, reason) => session.cancel(exchange, reason),
    fault,
    // The server's message is only lent (server-spec.ts): the watcher gets a copy of its own (a Buffer's slice would be a view).
    exchanged: options.onExchange
      ? (connection, exchange, payload, message, ms) =>
          options.onExchange?.({ connection, channel: exchange.channel, method: exchange.method, payload, message: new Uint8Array(message), ms })
      : undefined,
  };
  const core: ConnectionCore<ProxyConnection, ProxyConnectionSummary> = new ConnectionCore(
    servingOptions(options),
    (accepted) => new ProxyConnection(context, accepted, (error, summary) => core.closed(accepted.id, error, summary)),
  );
  session.start();
  return {
    server: core.server,
    stats: liveStats(core, session, counts),
    ready,
    async drain(ms = DEFAULT_DRAIN_TIMEOUT_MS) {
      const drained = core.drain(ms);
      // At the drain's timeout nothing more is owed by the server: it stops while the last clients are reset.
      let stopped: Promise<void> | undefined;
      const timer = setTimeout(() => {
        stopped = session.stop();
      }, ms);
      const result = await drained;
      clearTimeout(timer);
      await (stopped ?? session.stop());
      return result;
    },
    reset() {
      const reset = core.reset();
      if (core.server.listening) core.server.close();
      session.kill();
      return reset;
    },
    async close() {
      core.reset();
      const closed = new Promise<void>((resolve) => (core.server.listening ? core.server.close(() => resolve()) : resolve()));
      await session.stop();
      await closed;
    },
  };
}
