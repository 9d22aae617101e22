// The relay between real sockets: each accepted connection gets its own
// upstream connection and its own relay state (Node only).
//
// Records flow from upstream (the proxy's side) to the client, validated.
// Whatever the client sends goes to upstream untouched: it is not a record
// stream this protocol defines, so the relay has nothing to check in it.
//
// # How the client learns how upstream ended (WIRE.md section 7)
//
// Whatever happens upstream, the client first gets a finish for every
// channel still open. Then:
//
//   upstream ended cleanly at a record boundary   the client's socket is ended (FIN)
//   upstream failed                               the client's socket is reset (RST)
//
// Failing is: a connect error (refused, unreachable, a name that does not
// resolve), a reset, a stream that ends inside a record, a record error, or
// a timeout. Each is reported once through onFault, with its cause, so a
// failure is never dressed up as a clean end.
//
// A reset discards what is still in flight, so the finishes are first
// given time to reach the client, with a bound for a client that does not
// read (resetAfterFlush in src/connection/server.ts).
//
// # Every wait is timed
//
// connectTimeout bounds how long upstream may take to accept the
// connection. idleTimeout bounds how long upstream may stay silent while a
// channel is open or a record is partly received, so a client waiting for
// an answer, or for the rest of one, is never held forever. It does not
// run while the relay itself has stopped reading upstream because the
// client has not taken what it was sent: upstream is not silent then, the
// client is slow, and blaming upstream would reset a healthy connection.
//
// clientIdleTimeout bounds everything else: a connection with nothing in
// flight (no channel open, no record partly received) on which neither
// side has sent a byte, and a client that has taken nothing the relay had
// waiting for it. Either way the connection holds two descriptors for
// nobody, so the relay reports it and resets the client: nothing in flight
// is owed downstream, and a reset, never a FIN, says the relay ended it.
// A client's half-close (FIN) goes upstream as a FIN; an upstream that
// then keeps its own half open and silent is caught by this timeout too.
//
// # The connection core
//
// Accepting, the bound on connections (maxConnections: past it a new
// client is reset as it is accepted, before anything is dialed, and
// counted), draining and resetting are the connection core's
// (src/connection/server.ts), which the proxy shares. A drain cuts each
// connection still open at its timeout as an upstream failure of the
// relay's own making (a `drain-timeout` fault): finishes for its open
// channels, then a reset. So a restart never leaves a client waiting on an
// exchange, and never lets a cut answer read as complete.
//
// # Counters
//
// `stats` reads live totals over every connection: those that closed, plus
// each open one's RelayStats, summed when read. Nothing is counted per
// record here: the relay state counts records, this file counts
// connections and faults (one call each, whose lines are written anyway).

import net from 'node:net';
import {
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_LINE_BYTES,
  DRAIN_QUIET_MS,
} from '../connection/defaults.js';
import {
  type Accepted,
  checkCallbacks,
  checkCount,
  checkTimeout,
  ClientIdle,
  ConnectionCore,
  confirmEnd,
  type DrainResult,
  resetAfterFlush,
  resetSocket,
  servingOptions,
  type Served,
} from '../connection/server.js';
import type { ProxyHeaderRefusal } from '../connection/proxy-header.js';
import { giveSlab, SLAB_SIZE, takeSlab } from '../streams/read-slabs.js';
import { type Endpoint, parseEndpoint } from './endpoint.js';
import type { RelayFault } from './fault.js';
import { type FedRelay, type PipeEnd, pipeWith } from './pipe.js';
import { type RelayEndpoint, type RelayOptions, type RelayStats, resolveRelayOptions } from './relay.js';
import { type RequestLineLimits, RequestLineWatcher } from './request-lines.js';
import type { FrameCodec } from '../frame/frame.js';
import { methodCodecs } from '../frame/endpoints.js';
import { resolveLimits } from '../records/limits.js';

export type { DrainResult };

/** Why an upstream connection failed, as its error code says. */
export type UpstreamCause = 'refused' | 'reset' | 'unreachable' | 'dns' | 'timeout' | 'error';

/** A failure of the upstream connection itself, reported once per connection. */
export type UpstreamFault =
  /** The connection failed: `cause` says how, `code` is the system's error code. */
  | { reason: 'upstream-error'; cause: UpstreamCause; code?: string; message: string }
  /** Upstream took too long: to accept the connection, or to send a byte while a channel was open. */
  | { reason: 'upstream-timeout'; phase: 'connect' | 'idle'; afterMs: number };

/** The relay gave up on a connection itself: it was draining, and the connection was still open after `afterMs`. */
export type DrainFault = { reason: 'drain-timeout'; afterMs: number };

/**
 * The relay gave up on a connection that went nowhere for `afterMs`: with
 * nothing in flight, neither side sent a byte; or the client took none of
 * the bytes waiting for it.
 */
export type ClientIdleFault = { reason: 'client-idle-timeout'; afterMs: number };

/** What a TCP relay reports: the stream's faults, its upstream's failures, connections cut by a drain, and idle connections. */
export type ConnectionFault = RelayFault | UpstreamFault | DrainFault | ClientIdleFault;

/** An upstream failure as counted: an error by its cause, or a timeout by its phase. */
export type UpstreamFailure = UpstreamCause | 'connect-timeout' | 'idle-timeout';

/** How a connection's relay ended. */
export type ConnectionEnd =
  /** Upstream ended cleanly at a record boundary: the client got a FIN. */
  | 'ended'
  /** Upstream failed (connect error, reset, timeout, record error): finishes, then a reset. */
  | 'failed'
  /** The relay was draining and the connection outlived the drain timeout: finishes, then a reset. */
  | 'drained'
  /** The connection went nowhere for clientIdleTimeout (see ClientIdleFault): finishes for any open channel, then a reset. */
  | 'idle'
  /** The client went away first: nothing more could be sent. */
  | 'client-gone';

/** One connection, when it has closed: for a log line, or an embedder's own accounting. */
export interface ConnectionSummary {
  connection: number;
  /** The client's address and port ("[::1]:5000" for IPv6), as accepted. */
  remote: string;
  end: ConnectionEnd;
  /** From accept to the client socket's close. */
  durationMs: number;
  /** Record bytes read from upstream, and sent to the client. */
  bytesIn: number;
  bytesOut: number;
  /** Records read from upstream, and sent to the client (the finishes the relay added included). */
  recordsIn: number;
  recordsOut: number;
  /** Faults reported on this connection, upstream failures included. */
  faults: number;
}

/**
 * What a TCP relay has done so far, over all its connections: live totals,
 * read at any time. The per-stream counters are RelayStats', summed.
 */
export interface TcpRelayStats
  extends Pick<
    RelayStats,
    | 'chunksIn'
    | 'bytesIn'
    | 'responsesIn'
    | 'finishesIn'
    | 'responsesOut'
    | 'finishesOut'
    | 'chunksOut'
    | 'bytesOut'
    | 'bytesCopied'
    | 'openChannels'
    | 'heldBytes'
    | 'validationSeconds'
    | 'validationBuckets'
  > {
  /** Connections open now, and relayed in all. */
  connectionsOpen: number;
  connectionsTotal: number;
  /** Clients reset as they came because maxConnections were open. */
  connectionsRefused: number;
  /** Connections reset for their PROXY protocol header (proxyProtocol): none, a malformed one, or none in time. */
  proxyHeaderRefused: number;
  /** Faults reported, in all and by reason, upstream failures and drain timeouts included. */
  faults: number;
  faultsByReason: Partial<Record<ConnectionFault['reason'], number>>;
  /** Upstream failures by cause (an error) or phase (a timeout). */
  upstreamFailures: Partial<Record<UpstreamFailure, number>>;
}

/** A TCP relay: a net.Server (call listen() on it) with live counters and a graceful stop. */
export interface TcpRelay extends net.Server {
  /** Live totals over every connection. */
  readonly stats: Readonly<TcpRelayStats>;
  /**
   * Stops accepting, waits up to `timeoutMs` (default 30 s) for the open
   * connections to end on their own, then cuts the rest: a `drain-timeout`
   * fault, finishes for their open channels, a reset. Resolves once every
   * connection has closed. Calling it again returns the same promise.
   */
  drain(timeoutMs?: number): Promise<DrainResult>;
  /**
   * Resets every open connection at once, client and upstream, with no
   * finishes: for a process about to exit, whose connections the kernel
   * would otherwise end with a FIN that reads as a clean end. Returns how
   * many it reset.
   */
  reset(): number;
}

export type { Endpoint };

export {
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_LINE_BYTES,
} from '../connection/defaults.js';

export interface TcpRelayOptions extends Omit<RelayOptions, 'onFault' | 'endpoint'> {
  /** Where to connect for each accepted client: { host, port }, or "HOST:PORT" ("[::1]:PORT" for IPv6). */
  upstream: Endpoint | string;
  /**
   * The endpoint codec for 'full': one for all channels, chosen per channel,
   * or 'auto': each channel judged by the method its client's request line
   * named (WIRE.md section 8), read from the client's bytes on their way
   * upstream; a response on a channel no line named is refused.
   */
  endpoint?: RelayEndpoint | 'auto';
  /**
   * With endpoint 'auto': the longest request line read, the proxy's own
   * (its maxLineBytes); a longer line ends the reading, as the proxy resets
   * that client. Default 1 MiB.
   */
  maxLineBytes?: number;
  /** Milliseconds upstream may take to accept the connection. Default 10 s; 0 leaves it to the system. */
  connectTimeout?: number;
  /** Milliseconds upstream may stay silent while a channel is open or a record is partly received. Default 300 s; 0 never times out. */
  idleTimeout?: number;
  /**
   * Milliseconds a connection may go nowhere: nothing in flight and no byte
   * either way, or a client that takes none of what waits for it. Default
   * 300 s; 0 never times out.
   */
  clientIdleTimeout?: number;
  /** Most connections open at once; past it a new client is reset as it comes. Default 10,000; 0 for no limit. */
  maxConnections?: number;
  /**
   * Each connection starts with a PROXY protocol header, version 1 or 2,
   * from the load balancer in front (HAProxy's send-proxy, an AWS NLB's
   * proxy protocol v2): the client it names is the `remote` that onOpen and
   * the close summary give. A connection without a valid header within 5 s
   * is reset before anything is relayed, counted in proxyHeaderRefused and
   * told onRefused. Turn it on only behind a balancer that sends one: a
   * client could otherwise name any address it liked.
   */
  proxyProtocol?: boolean;
  /** Milliseconds a connection may take to send its PROXY header (proxyProtocol). Default 5 s; 0 for no limit. */
  proxyHeaderTimeout?: number;
  /** Called for each connection refused for its PROXY header, with the socket's own address and why. */
  onRefused?: (remote: string, refusal: ProxyHeaderRefusal) => void;
  /**
   * How to open the upstream connection (TLS, a test's socket that never
   * connects). Left out, net.connect, reading into buffers the relay reuses.
   */
  dial?: (upstream: Endpoint) => net.Socket;
  /** Called once per fault, with the connection's number (from 1, in accept order). */
  onFault?: (fault: ConnectionFault, connection: number) => void;
  /** Called when a client is accepted, before anything is relayed. */
  onOpen?: (connection: number, remote: string) => void;
  /**
   * Called once a connection has closed (its relay done and the client
   * socket closed): `error` is null after a clean end, else what stopped it;
   * `summary` has its counts.
   */
  onClose?: (connection: number, error: unknown, summary: ConnectionSummary) => void;
}

const CAUSES: Readonly<Record<string, UpstreamCause>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NONAME: 'dns',
  ETIMEDOUT: 'timeout',
};

/** An upstream error as a fault: its cause from its code. */
export function upstreamError(error: unknown): UpstreamFault {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code !== 'string') return { reason: 'upstream-error', cause: 'error', message };
  return { reason: 'upstream-error', cause: CAUSES[code] ?? 'error', code, message };
}

/**
 * `upstream` as an Endpoint to connect to: "HOST:PORT" parsed, or { host,
 * port } checked; a TypeError for no host, a RangeError for a port out of
 * range or a string that is not HOST:PORT (net.connect would throw at the
 * first client).
 */
function checkUpstream(upstream: unknown): Endpoint {
  if (typeof upstream === 'string') {
    const parsed = parseEndpoint(upstream);
    if (parsed.port === 0) throw new RangeError(`upstream's port must be an integer from 1 to 65535, not 0`);
    return parsed;
  }
  const { host, port } = (upstream ?? {}) as Partial<Endpoint>;
  if (typeof host !== 'string' || host === '')
    throw new TypeError(`upstream must be { host, port } with host a name or an address, not ${JSON.stringify(upstream)}`);
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535)
    throw new RangeError(`upstream's port must be an integer from 1 to 65535, not ${String(port)}`);
  return { host, port: port as number };
}

/**
 * The upstream connection `dial` opens. A dial that throws, or gives back
 * no socket, gives a socket that fails at once with that error, so the
 * connection fails as for any upstream failure (reported, then a reset):
 * the throw, or the first use of the junk, was in the server's connection
 * handler, and stopped the process.
 */
function dialUpstream(dial: (upstream: Endpoint) => net.Socket, upstream: Endpoint): net.Socket {
  let error: unknown;
  try {
    const socket: unknown = dial(upstream);
    if (socket instanceof net.Socket) return socket;
    error = new TypeError(`dial must return a net.Socket, not ${socket === null ? 'null' : typeof socket}`);
  } catch (thrown) {
    error = thrown;
  }
  return failingSocket(error);
}

/** A socket that fails at once with `error`: the connection then ends as for an upstream failure, after the finishes, with a reset. */
function failingSocket(error: unknown): net.Socket {
  const failed = new net.Socket();
  process.nextTick(() => failed.destroy(error as Error));
  return failed;
}

/** Resets `socket`, or destroys it where it cannot be reset (a dial's TLS socket, one never connected). */
function resetOrDestroy(socket: net.Socket): void {
  try {
    resetSocket(socket);
  } catch {
    socket.destroy();
  }
}

/** The error the upstream socket is destroyed with when the relay gives up on it. */
class UpstreamGaveUp extends Error {
  override readonly name = 'UpstreamGaveUp';
}

/**
 * The counters summed over connections: each closed one's RelayStats added
 * in, each open one's read live. (A relay that has ended holds no channel,
 * so openChannels and heldBytes add nothing once a connection closes.)
 */
const SUMMED = [
  'chunksIn',
  'bytesIn',
  'responsesIn',
  'finishesIn',
  'responsesOut',
  'finishesOut',
  'chunksOut',
  'bytesOut',
  'bytesCopied',
  'openChannels',
  'heldBytes',
  'validationSeconds',
] as const;

function addBuckets(into: number[], from: readonly number[]): void {
  for (let k = 0; k < from.length; k++) into[k] = (into[k] ?? 0) + from[k];
}

/** The relay's settings, resolved once for every connection. */
interface Settings {
  readonly options: TcpRelayOptions;
  /** For endpoint 'auto': each method's codec on the relay's backend, and how many channels' methods a connection keeps. */
  readonly auto: { codecOf: (method: string) => FrameCodec<unknown> | undefined; limits: RequestLineLimits } | null;
  /** Where each connection's upstream is, parsed once. */
  readonly upstream: Endpoint;
  readonly connectTimeout: number;
  readonly idleTimeout: number;
  readonly clientIdleTimeout: number;
  /** Counts a fault over the whole relay and hands it to onFault (which may throw). */
  report(fault: ConnectionFault, connection: number): void;
  /** Adds a closed connection's counters to the relay's totals. */
  retire(stats: Readonly<RelayStats>): void;
}

type OwnFault = UpstreamFault | DrainFault | ClientIdleFault;

/**
 * One client and its own upstream connection and relay state.
 *
 * The idle timer restarts with every upstream chunk; when it fires with a
 * channel open or a record partly received, upstream has failed, unless the
 * relay is not reading it (the client is slow: pipeRelay pauses upstream
 * until the client drains), and then it starts again. It is only ever
 * armed by a chunk, and a chunk is what opens a channel or starts a record.
 *
 * The client idle timer restarts with every byte either way and every time
 * the client drains what was queued for it. When it fires: a client that
 * took nothing while upstream waited on it has gone; with something in
 * flight and upstream read, the idle timer is in charge; with nothing in
 * flight, the connection is doing nothing for anyone.
 */
class RelayConnection implements Served {
  private readonly upstream: net.Socket;
  private readonly piped: FedRelay;
  private readonly clientIdle: ClientIdle;
  private idleTimer: NodeJS.Timeout | null = null;
  private connectTimer: NodeJS.Timeout | null = null;
  /** Upstream failed (the first failure wins): reported, and the relay finishes the open channels. */
  private failed: boolean;
  private drained = false;
  private idled = false;
  private relaying = true;
  private resetting = false;
  /** The relay is draining: the connection ends as soon as it is idle. */
  private drainBegun = false;
  /** The client has sent bytes since upstream last did: a request may be waiting for its answer. */
  private clientSent = false;
  /** Whether the client has sent any byte at all. */
  private clientEverSent = false;
  /** performance.now() of the client's last byte (of the accept, before any). */
  private lastClientByte: number;
  /** While draining, the wait for an idle connection's client to have been quiet long enough. */
  private quiet: NodeJS.Timeout | undefined;
  private faultCount = 0;
  /** The slab the upstream socket is reading into, and whether the last read filled a small one (more was waiting). */
  private reading: Uint8Array | null = null;
  private busy = false;

  constructor(
    private readonly settings: Settings,
    private readonly accepted: Accepted,
    private readonly closed: (error: unknown, summary: ConnectionSummary) => void,
  ) {
    const { options } = settings;
    const client = accepted.socket;
    this.lastClientByte = accepted.opened;
    this.failed = accepted.openThrew !== null;
    // Our own dial reads into slabs that go back to a pool (streams/read-slabs.ts).
    const slabs = !accepted.openThrew && !options.dial;
    this.upstream = this.dial();
    // Closed, it reads nothing more: the slab it would have read into goes back.
    if (slabs) this.upstream.once('close', () => this.reading && giveSlab(this.reading.buffer));
    // Records go out as soon as they are validated: Nagle's algorithm would hold small writes back for an ACK.
    client.setNoDelay(true);
    this.upstream.setNoDelay?.(true);
    this.clientIdle = new ClientIdle(
      client,
      settings.clientIdleTimeout,
      () => !this.upstream.isPaused() && (this.piped.stats.openChannels > 0 || this.piped.inRecord),
      () => {
        this.idled = !this.failed;
        this.fail({ reason: 'client-idle-timeout', afterMs: settings.clientIdleTimeout });
      },
    );
    const report = (fault: ConnectionFault) => this.report(fault);
    // Endpoint 'auto': each channel judged by the method its client's line named, read before the line goes upstream.
    const watcher = settings.auto && new RequestLineWatcher(settings.auto.limits, settings.auto.codecOf);
    if (watcher) client.on('data', (chunk: Buffer) => watcher.push(chunk));
    const endpoint = watcher ?? (options.endpoint as RelayEndpoint | undefined);
    this.piped = pipeWith(this.upstream, client, { ...options, endpoint, onFault: report }, { onChunk: () => this.touch(), slabs });
    this.watchUpstream();
    client.on('error', () => {});
    client.on('data', () => {
      this.clientSent = true;
      this.clientEverSent = true;
      this.lastClientByte = performance.now();
    });
    client.on('drain', () => this.endIfIdle());
    // A client's half-close goes upstream: it has sent its last request (a reset read as an end is found first).
    client.on('end', () => {
      confirmEnd(client);
      this.upstream.end();
    });
    client.pipe(this.upstream, { end: false });
    const clientClosed = new Promise((resolve) => client.once('close', resolve));
    this.piped.done.then((end) => this.finish(end, clientClosed));
    // Accepted as a drain began (the last of the listener's backlog, or a worker's): served as the drain serves.
    if (accepted.draining) this.draining();
  }

  /** The upstream connection: our own, reading into slabs, or the caller's dial, or a socket failing with what onOpen threw. */
  private dial(): net.Socket {
    const { options } = this.settings;
    if (this.accepted.openThrew) return failingSocket(this.accepted.openThrew.error);
    if (options.dial) return dialUpstream(options.dial, this.settings.upstream);
    // A read that fills a small slab means more was waiting: the next read goes into a large one, until a read returns less than a small slab.
    return net.connect({
      ...this.settings.upstream,
      onread: {
        buffer: () => (this.reading = takeSlab(this.busy)),
        callback: (bytes: number, slab: Uint8Array) => {
          this.reading = null;
          this.busy = bytes >= SLAB_SIZE;
          this.piped.feed(slab.subarray(0, bytes));
          // pipeWith pauses the socket itself when the client is full.
          return true;
        },
      },
    });
  }

  /** The connect timer, and the upstream's own errors, reported before the channels they leave incomplete. */
  private watchUpstream(): void {
    const { connectTimeout } = this.settings;
    if (connectTimeout > 0) {
      this.connectTimer = setTimeout(() => this.fail({ reason: 'upstream-timeout', phase: 'connect', afterMs: connectTimeout }), connectTimeout);
    }
    this.upstream.once('connect', () => {
      if (this.connectTimer) clearTimeout(this.connectTimer);
    });
    // Registered before the relay's own listener, so the cause is reported before the channels it leaves incomplete.
    this.upstream.prependListener('error', (error) => {
      if (error instanceof UpstreamGaveUp || this.failed) return;
      this.failed = true;
      const thrown = this.reportOwn(upstreamError(error));
      if (thrown) this.piped.abort(thrown.error);
    });
  }

  private report(fault: ConnectionFault): void {
    this.faultCount++;
    this.settings.report(fault, this.accepted.id);
  }

  /** An upstream chunk: the client idle timer restarts, and the idle timer is armed or restarted. */
  private touch(): void {
    this.clientIdle.refresh();
    this.clientSent = false;
    // Once the chunk is read, a draining connection that it left idle ends.
    if (this.drainBegun) setImmediate(() => this.endIfIdle());
    const { idleTimeout } = this.settings;
    if (idleTimeout === 0) return;
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      if (this.piped.stats.openChannels === 0 && !this.piped.inRecord) return;
      if (this.upstream.isPaused()) this.idleTimer?.refresh();
      else this.fail({ reason: 'upstream-timeout', phase: 'idle', afterMs: idleTimeout });
    }, idleTimeout);
  }

  /** Upstream failed, or the relay gave up on it (the first failure wins): reported, then the relay finishes the open channels. */
  private fail(fault: OwnFault): void {
    if (this.failed) return;
    this.failed = true;
    const thrown = this.reportOwn(fault);
    this.piped.abort(thrown ? thrown.error : new UpstreamGaveUp(fault.reason));
  }

  /** Reports a fault of the TCP relay's own; what onFault throws is returned, to end the connection with. */
  private reportOwn(fault: OwnFault): { error: unknown } | null {
    try {
      this.report(fault);
      return null;
    } catch (error) {
      return { error };
    }
  }

  get stats(): Readonly<RelayStats> {
    return this.piped.stats;
  }

  draining(): void {
    this.drainBegun = true;
    this.endIfIdle();
  }

  /**
   * While draining, a connection with nothing owed either way ends now, as
   * upstream ending cleanly would end it (a FIN at a record boundary with
   * no channel open): no channel open, no record partly received, nothing
   * waiting for the client, and nothing the client sent since upstream last
   * did (a request that may be waiting for its answer).
   */
  private endIfIdle(): void {
    if (!this.drainBegun || !this.relaying || this.failed || this.clientSent) return;
    if (this.accepted.socket.writableLength > 0) return;
    // The client's next request may be on its way (from a client between two requests, or behind a load balancer,
    // where a client's bytes trail its connection): an idle connection ends once its client has been quiet a while.
    const wait = DRAIN_QUIET_MS - (performance.now() - this.lastClientByte);
    if (wait > 0) {
      clearTimeout(this.quiet);
      this.quiet = setTimeout(() => this.endIfIdle(), wait);
      return;
    }
    // Nothing carried yet, either way: a clean end would read as an empty, complete answer; a reset says nothing was.
    if (!this.clientEverSent && this.piped.stats.bytesIn === 0) {
      this.drained = true;
      this.piped.abort(new Error('drained before anything was carried'));
      return;
    }
    this.piped.endIdle();
  }

  cut(afterMs: number): boolean {
    if (this.relaying) {
      this.drained = !this.failed;
      this.fail({ reason: 'drain-timeout', afterMs });
      return true;
    }
    // Relayed to its end and given its FIN, but the client has not closed its side: nothing is owed it.
    if (!this.resetting) this.accepted.socket.destroy();
    return false;
  }

  reset(): void {
    this.upstream.destroy();
    resetSocket(this.accepted.socket);
  }

  /** The relay is done: the client gets its FIN (upstream ended cleanly) or its reset, then the connection is summed up. */
  private async finish(end: PipeEnd, clientClosed: Promise<unknown>): Promise<void> {
    this.relaying = false;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    clearTimeout(this.quiet);
    this.clientIdle.stop();
    // The client went away: upstream is reset, as the client reset us (a FIN would say it sent its last request,
    // and a proxy would answer the rest for no one).
    if (end.end === 'output-error') resetOrDestroy(this.upstream);
    else this.upstream.destroy();
    const client = this.accepted.socket;
    let lingering: NodeJS.Timeout | undefined;
    if (end.end === 'ended' && !this.failed) {
      client.end();
      // The client has its whole answer and its FIN; one that never closes its own side is closed for it.
      const { clientIdleTimeout } = this.settings;
      if (clientIdleTimeout > 0) lingering = setTimeout(() => client.destroy(), clientIdleTimeout);
    } else if (end.end !== 'output-error') {
      this.resetting = true;
      await resetAfterFlush(client);
    }
    const error =
      end.end === 'ended' ? null : 'error' in end ? end.error : 'reason' in end ? end.reason : end.end === 'record-error' ? end.fault : end.failure;
    await clientClosed;
    clearTimeout(lingering);
    this.settings.retire(this.piped.stats);
    this.closed(error, this.summary(end));
  }

  private summary(end: PipeEnd): ConnectionSummary {
    const stats = this.piped.stats;
    const outcome: ConnectionEnd =
      end.end === 'output-error'
        ? 'client-gone'
        : this.drained
          ? 'drained'
          : this.idled
            ? 'idle'
            : end.end === 'ended' && !this.failed
              ? 'ended'
              : 'failed';
    return {
      connection: this.accepted.id,
      remote: this.accepted.remote,
      end: outcome,
      durationMs: Math.round((performance.now() - this.accepted.opened) * 1000) / 1000,
      bytesIn: stats.bytesIn,
      bytesOut: stats.bytesOut,
      recordsIn: stats.responsesIn + stats.finishesIn,
      recordsOut: stats.responsesOut + stats.finishesOut,
      faults: this.faultCount,
    };
  }
}

/** The relay's totals: the closed connections' relay counters, and the faults as they are reported. */
class Totals {
  readonly closed: Record<(typeof SUMMED)[number], number> = Object.fromEntries(SUMMED.map((k) => [k, 0])) as never;
  readonly closedBuckets: number[] = [];
  faults = 0;
  readonly byReason: Partial<Record<ConnectionFault['reason'], number>> = {};
  readonly upstream: Partial<Record<UpstreamFailure, number>> = {};

  count(fault: ConnectionFault): void {
    this.faults++;
    this.byReason[fault.reason] = (this.byReason[fault.reason] ?? 0) + 1;
    if (fault.reason === 'upstream-error') this.upstream[fault.cause] = (this.upstream[fault.cause] ?? 0) + 1;
    else if (fault.reason === 'upstream-timeout') this.upstream[`${fault.phase}-timeout`] = (this.upstream[`${fault.phase}-timeout`] ?? 0) + 1;
  }

  retire(stats: Readonly<RelayStats>): void {
    for (const key of SUMMED) this.closed[key] += stats[key];
    addBuckets(this.closedBuckets, stats.validationBuckets);
  }
}

/** Live totals over every connection: the closed ones' sums, plus each open one's counters, read when asked. */
function liveStats(core: ConnectionCore<RelayConnection, ConnectionSummary>, totals: Totals): TcpRelayStats {
  const stats = {} as TcpRelayStats;
  const sum = (key: (typeof SUMMED)[number]) => {
    let total = totals.closed[key];
    for (const c of core.connections()) total += c.stats[key];
    return total;
  };
  for (const key of SUMMED) Object.defineProperty(stats, key, { get: () => sum(key), enumerable: true });
  Object.defineProperties(stats, {
    validationBuckets: {
      get: () => {
        const buckets = totals.closedBuckets.slice();
        for (const c of core.connections()) addBuckets(buckets, c.stats.validationBuckets);
        return buckets;
      },
      enumerable: true,
    },
    connectionsOpen: { get: () => core.open, enumerable: true },
    connectionsTotal: { get: () => core.total, enumerable: true },
    connectionsRefused: { get: () => core.refused, enumerable: true },
    proxyHeaderRefused: { get: () => core.headerRefused, enumerable: true },
    faults: { get: () => totals.faults, enumerable: true },
    faultsByReason: { get: () => ({ ...totals.byReason }), enumerable: true },
    upstreamFailures: { get: () => ({ ...totals.upstream }), enumerable: true },
  });
  return stats;
}

/** What endpoint 'auto' reads request lines with: the proxy's own limits. */
function autoLimits(options: TcpRelayOptions): RequestLineLimits {
  return {
    maxInFlight: resolveLimits(options).maxOpenChannels,
    maxLineBytes: checkCount('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, 1),
  };
}

/** A TCP server relaying each client to its own upstream connection. Call listen() on it. */
export function createTcpRelay(options: TcpRelayOptions): TcpRelay {
  // Every option is checked here: a bad one found at a client's connection
  // threw in the server's connection handler, which stopped the process.
  const upstream = checkUpstream(options.upstream);
  const auto = options.endpoint === 'auto';
  resolveRelayOptions(auto ? { ...options, endpoint: () => undefined } : (options as Omit<RelayOptions, 'onFault'>));
  checkCallbacks(options, ['dial', 'onFault', 'onOpen', 'onClose', 'onRefused']);
  const totals = new Totals();
  const settings: Settings = {
    options,
    upstream,
    auto: auto ? { codecOf: methodCodecs(options.backend), limits: autoLimits(options) } : null,
    connectTimeout: checkTimeout('connectTimeout', options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS),
    idleTimeout: checkTimeout('idleTimeout', options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS),
    clientIdleTimeout: checkTimeout('clientIdleTimeout', options.clientIdleTimeout ?? DEFAULT_CLIENT_IDLE_TIMEOUT_MS),
    report(fault, connection) {
      totals.count(fault);
      options.onFault?.(fault, connection);
    },
    retire: (stats) => totals.retire(stats),
  };
  const core: ConnectionCore<RelayConnection, ConnectionSummary> = new ConnectionCore(
    servingOptions(options),
    (accepted) => new RelayConnection(settings, accepted, (error, summary) => core.closed(accepted.id, error, summary)),
  );
  const drain = (timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) => core.drain(timeoutMs);
  return Object.assign(core.server, { stats: liveStats(core, totals), drain, reset: () => core.reset() }) as TcpRelay;
}
