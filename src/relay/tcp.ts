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
// A reset discards what is still in flight: the kernel drops its send
// queue, and the client's drops what it has not read. So the relay waits
// until its last write has left the process, then RESET_LINGER_MS more for
// the finishes to reach the client, and only then resets. A client that has
// stopped reading may never let the last write leave: after RESET_FLUSH_MS
// the relay resets anyway, and the client sees the reset alone, which says
// the same thing: those exchanges failed. (Waiting on it without a bound
// kept such a connection, and a drain, open for as long as the client
// would not read.)
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
// # A bound on connections
//
// Each connection holds two descriptors and its own relay state. Past
// maxConnections open at once, a new client is reset as it is accepted,
// before anything is dialed, and counted (connectionsRefused).
//
// # Draining
//
// drain(timeoutMs) stops accepting, lets the open connections finish on
// their own for up to timeoutMs, then treats each one still open as an
// upstream failure of the relay's own making (a `drain-timeout` fault):
// finishes for its open channels, then a reset. So a restart never leaves
// a client waiting on an exchange, and never lets a cut answer read as
// complete.
//
// # Counters
//
// `stats` reads live totals over every connection: those that closed, plus
// each open one's RelayStats, summed when read. Nothing is counted per
// record here: the relay state counts records, this file counts
// connections and faults (one call each, whose lines are written anyway).

import net from 'node:net';
import type { Endpoint } from './endpoint.js';
import type { RelayFault } from './fault.js';
import { giveSlab, SLAB_SIZE, takeSlab } from '../streams/read-slabs.js';
import { pipeWith } from './pipe.js';
import { type RelayOptions, type RelayStats, resolveRelayOptions } from './relay.js';

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
  /** Faults reported, in all and by reason, upstream failures and drain timeouts included. */
  faults: number;
  faultsByReason: Partial<Record<ConnectionFault['reason'], number>>;
  /** Upstream failures by cause (an error) or phase (a timeout). */
  upstreamFailures: Partial<Record<UpstreamFailure, number>>;
}

/** What drain() did. */
export interface DrainResult {
  /** Connections open when the drain began. */
  connections: number;
  /** Of those, how many were still open at the timeout and were cut (finishes, then a reset). */
  cut: number;
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

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
export const DEFAULT_CLIENT_IDLE_TIMEOUT_MS = 300_000;
/** Two descriptors each: 20,000 of them, within the usual 65,536 of a service's limit and far past a relay's load. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;

/** How long the finishes get to reach the client before a reset (see the head of this file). */
const RESET_LINGER_MS = 200;
/** The longest the relay waits for its last write to leave the process before a reset (see the head of this file). */
const RESET_FLUSH_MS = 2000;

export interface TcpRelayOptions extends Omit<RelayOptions, 'onFault'> {
  /** Where to connect for each accepted client. */
  upstream: Endpoint;
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

function checkTimeout(name: string, ms: number): number {
  if (!(Number.isFinite(ms) && ms >= 0 && ms <= 2 ** 31 - 1))
    throw new RangeError(`${name} must be a number of milliseconds from 0 to 2^31 - 1, not ${ms}`);
  return ms;
}

/** `upstream` as an Endpoint to connect to: a TypeError for no host, a RangeError for a port out of range (net.connect would throw at the first client). */
function checkUpstream(upstream: unknown): Endpoint {
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

/** A connection being relayed, as the server keeps it. */
interface Live {
  readonly stats: Readonly<RelayStats>;
  /** Cuts the connection for a drain; false when it had already finished relaying. */
  cut(afterMs: number): boolean;
  /** Resets client and upstream at once, with no finishes. */
  reset(): void;
}

/** A TCP server relaying each client to its own upstream connection. Call listen() on it. */
export function createTcpRelay(options: TcpRelayOptions): TcpRelay {
  // Every option is checked here: a bad one found at a client's connection
  // threw in the server's connection handler, which stopped the process.
  checkUpstream(options.upstream);
  resolveRelayOptions(options);
  for (const name of ['dial', 'onFault', 'onOpen', 'onClose'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new TypeError(`${name} must be a function, not ${typeof options[name]}`);
  }
  const connectTimeout = checkTimeout('connectTimeout', options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const idleTimeout = checkTimeout('idleTimeout', options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS);
  const clientIdleTimeout = checkTimeout('clientIdleTimeout', options.clientIdleTimeout ?? DEFAULT_CLIENT_IDLE_TIMEOUT_MS);
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!(Number.isInteger(maxConnections) && maxConnections >= 0))
    throw new RangeError(`maxConnections must be a whole number, 0 for no limit, not ${maxConnections}`);
  const dial = options.dial;
  let connections = 0;
  let refused = 0;
  const live = new Map<number, Live>();
  // Totals of the closed connections' relay counters; faults are counted as they are reported.
  const closed: Record<(typeof SUMMED)[number], number> = Object.fromEntries(SUMMED.map((k) => [k, 0])) as never;
  const closedBuckets: number[] = [];
  const faults = {
    all: 0,
    byReason: {} as Partial<Record<ConnectionFault['reason'], number>>,
    upstream: {} as Partial<Record<UpstreamFailure, number>>,
  };
  let whenEmpty: (() => void) | null = null;

  // allowHalfOpen: a client that has sent its last request (FIN) still gets every answer.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    if (maxConnections > 0 && live.size >= maxConnections) {
      refused++;
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    const id = ++connections;
    const opened = performance.now();
    const remote = client.remoteAddress?.includes(':')
      ? `[${client.remoteAddress}]:${client.remotePort}`
      : `${client.remoteAddress}:${client.remotePort}`;
    let faultCount = 0;
    const report = (fault: ConnectionFault) => {
      faultCount++;
      faults.all++;
      faults.byReason[fault.reason] = (faults.byReason[fault.reason] ?? 0) + 1;
      if (fault.reason === 'upstream-error') faults.upstream[fault.cause] = (faults.upstream[fault.cause] ?? 0) + 1;
      else if (fault.reason === 'upstream-timeout') faults.upstream[`${fault.phase}-timeout`] = (faults.upstream[`${fault.phase}-timeout`] ?? 0) + 1;
      options.onFault?.(fault, id);
    };
    // A callback of the caller's that throws ends its connection (finishes,
    // then a reset, the throw given to onClose), as an onFault that throws
    // in the relay does; thrown in this handler, a timer or an event, it
    // stopped the process. An onOpen that throws: no upstream is dialed.
    let openThrew: { error: unknown } | null = null;
    try {
      options.onOpen?.(id, remote);
    } catch (error) {
      openThrew = { error };
    }
    // Our own dial reads into slabs that go back to a pool (streams/read-slabs.ts): the slab being read into, and the relay's, fed each chunk.
    // A read that fills a small slab means more was waiting: the next read goes into a large one, until a read returns less than a small slab.
    let reading: Uint8Array | null = null;
    let busy = false;
    const upstream = openThrew
      ? failingSocket(openThrew.error)
      : dial
        ? dialUpstream(dial, options.upstream)
        : net.connect({
            ...options.upstream,
            onread: {
              buffer: () => (reading = takeSlab(busy)),
              callback: (bytes: number, slab: Uint8Array) => {
                reading = null;
                busy = bytes >= SLAB_SIZE;
                piped.feed(slab.subarray(0, bytes));
                // pipeWith pauses the socket itself when the client is full.
                return true;
              },
            },
          });
    // Closed, it reads nothing more: the slab it would have read into goes back.
    if (!openThrew && !dial) upstream.once('close', () => reading && giveSlab(reading.buffer));
    // Records go out as soon as they are validated: Nagle's algorithm would hold small writes back for an ACK.
    client.setNoDelay(true);
    upstream.setNoDelay?.(true);

    // The idle timer restarts with every upstream chunk; when it fires with a
    // channel open or a record partly received, upstream has failed, unless
    // the relay is not reading it (the client is slow: pipeRelay pauses
    // upstream until the client drains), and then it starts again. It is
    // only ever armed by a chunk, and a chunk is what opens a channel or
    // starts a record.
    let idleTimer: NodeJS.Timeout | null = null;
    const touch = () => {
      clientIdleTimer?.refresh();
      if (idleTimeout === 0) return;
      if (idleTimer) idleTimer.refresh();
      else {
        idleTimer = setTimeout(() => {
          if (piped.stats.openChannels === 0 && !piped.inRecord) return;
          if (upstream.isPaused()) idleTimer?.refresh();
          else fail({ reason: 'upstream-timeout', phase: 'idle', afterMs: idleTimeout });
        }, idleTimeout);
      }
    };
    // The client idle timer restarts with every byte either way and every
    // time the client drains what was queued for it. When it fires: a
    // client that took nothing while upstream waited on it has gone; with
    // something in flight and upstream read, the idle timer is in charge;
    // with nothing in flight, the connection is doing nothing for anyone.
    let idled = false;
    const clientIdleTimer =
      clientIdleTimeout === 0
        ? null
        : setTimeout(() => {
            if (!upstream.isPaused() && (piped.stats.openChannels > 0 || piped.inRecord)) clientIdleTimer?.refresh();
            else {
              idled = !failed;
              fail({ reason: 'client-idle-timeout', afterMs: clientIdleTimeout });
            }
          }, clientIdleTimeout);
    const piped = pipeWith(upstream, client, { ...options, onFault: report }, { onChunk: touch, slabs: !openThrew && !dial });

    /** Upstream failed (the first failure wins): reported, then the relay finishes the open channels. */
    let failed = openThrew !== null;
    let drained = false;
    function fail(fault: UpstreamFault | DrainFault | ClientIdleFault): void {
      if (failed) return;
      failed = true;
      const thrown = reportOwn(fault);
      piped.abort(thrown ? thrown.error : new UpstreamGaveUp(fault.reason));
    }
    /** Reports a fault of the TCP relay's own; what onFault throws is returned, to end the connection with. */
    function reportOwn(fault: UpstreamFault | DrainFault | ClientIdleFault): { error: unknown } | null {
      try {
        report(fault);
        return null;
      } catch (error) {
        return { error };
      }
    }

    let relaying = true;
    live.set(id, {
      stats: piped.stats,
      cut(afterMs) {
        if (relaying) {
          drained = !failed;
          fail({ reason: 'drain-timeout', afterMs });
          return true;
        }
        // Relayed to its end and given its FIN, but the client has not closed its side: nothing is owed it.
        if (!resetting) client.destroy();
        return false;
      },
      reset() {
        upstream.destroy();
        if (!client.destroyed) client.resetAndDestroy();
      },
    });

    let connectTimer: NodeJS.Timeout | null = null;
    if (connectTimeout > 0) {
      connectTimer = setTimeout(() => fail({ reason: 'upstream-timeout', phase: 'connect', afterMs: connectTimeout }), connectTimeout);
    }
    upstream.once('connect', () => {
      if (connectTimer) clearTimeout(connectTimer);
    });
    // Registered before the relay's own listener, so the cause is reported before the channels it leaves incomplete.
    upstream.prependListener('error', (error) => {
      if (!(error instanceof UpstreamGaveUp)) {
        if (failed) return;
        failed = true;
        const thrown = reportOwn(upstreamError(error));
        if (thrown) piped.abort(thrown.error);
      }
    });

    client.on('error', () => {});
    // A client's half-close goes upstream: it has sent its last request.
    client.on('end', () => upstream.end());
    client.on('data', () => clientIdleTimer?.refresh());
    client.on('drain', () => clientIdleTimer?.refresh());
    client.pipe(upstream, { end: false });
    const clientClosed = new Promise((resolve) => client.once('close', resolve));

    let resetting = false;
    piped.done.then(async (end) => {
      relaying = false;
      if (connectTimer) clearTimeout(connectTimer);
      if (idleTimer) clearTimeout(idleTimer);
      if (clientIdleTimer) clearTimeout(clientIdleTimer);
      upstream.destroy();
      let lingering: NodeJS.Timeout | undefined;
      if (end.end === 'ended' && !failed) {
        client.end();
        // The client has its whole answer and its FIN; one that never closes its own side is closed for it.
        if (clientIdleTimeout > 0) lingering = setTimeout(() => client.destroy(), clientIdleTimeout);
      } else if (end.end !== 'output-error') {
        resetting = true;
        await resetAfterFlush(client);
      }
      const error =
        end.end === 'ended' ? null : 'error' in end ? end.error : 'reason' in end ? end.reason : end.end === 'record-error' ? end.fault : end.failure;
      await clientClosed;
      clearTimeout(lingering);
      live.delete(id);
      const stats = piped.stats;
      for (const key of SUMMED) closed[key] += stats[key];
      addBuckets(closedBuckets, stats.validationBuckets);
      const outcome: ConnectionEnd =
        end.end === 'output-error' ? 'client-gone' : drained ? 'drained' : idled ? 'idle' : end.end === 'ended' && !failed ? 'ended' : 'failed';
      try {
        options.onClose?.(id, error, {
          connection: id,
          remote,
          end: outcome,
          durationMs: Math.round((performance.now() - opened) * 1000) / 1000,
          bytesIn: stats.bytesIn,
          bytesOut: stats.bytesOut,
          recordsIn: stats.responsesIn + stats.finishesIn,
          recordsOut: stats.responsesOut + stats.finishesOut,
          faults: faultCount,
        });
      } catch {
        // The connection is over; a throw here had no caller (an unhandled rejection) and kept drain() from resolving.
      }
      if (live.size === 0) whenEmpty?.();
    });
  }) as TcpRelay;

  const stats = {} as TcpRelayStats;
  const sum = (key: (typeof SUMMED)[number]) => {
    let total = closed[key];
    for (const c of live.values()) total += c.stats[key];
    return total;
  };
  for (const key of SUMMED) Object.defineProperty(stats, key, { get: () => sum(key), enumerable: true });
  Object.defineProperties(stats, {
    validationBuckets: {
      get: () => {
        const buckets = closedBuckets.slice();
        for (const c of live.values()) addBuckets(buckets, c.stats.validationBuckets);
        return buckets;
      },
      enumerable: true,
    },
    connectionsOpen: { get: () => live.size, enumerable: true },
    connectionsTotal: { get: () => connections, enumerable: true },
    connectionsRefused: { get: () => refused, enumerable: true },
    faults: { get: () => faults.all, enumerable: true },
    faultsByReason: { get: () => ({ ...faults.byReason }), enumerable: true },
    upstreamFailures: { get: () => ({ ...faults.upstream }), enumerable: true },
  });

  let draining: Promise<DrainResult> | null = null;
  const drain = (timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS): Promise<DrainResult> => {
    checkTimeout('drain timeout', timeoutMs);
    draining ??= new Promise<DrainResult>((resolve) => {
      const open = live.size;
      let cut = 0;
      if (server.listening) server.close();
      const timer = setTimeout(() => {
        for (const c of [...live.values()]) if (c.cut(timeoutMs)) cut++;
      }, timeoutMs);
      whenEmpty = () => {
        clearTimeout(timer);
        resolve({ connections: open, cut });
      };
      if (live.size === 0) whenEmpty();
    });
    return draining;
  };
  const reset = (): number => {
    const open = [...live.values()];
    for (const c of open) c.reset();
    return open.length;
  };
  return Object.assign(server, { stats, drain, reset });
}

/**
 * Resets `socket` once its queued writes have left the process and had
 * RESET_LINGER_MS to arrive, or after RESET_FLUSH_MS if they have not left
 * by then (a client that does not read).
 */
async function resetAfterFlush(socket: net.Socket): Promise<void> {
  if (!socket.destroyed && socket.writable) {
    let timer: NodeJS.Timeout | undefined;
    const flushed = await Promise.race([
      new Promise<boolean>((resolve) => socket.write(EMPTY, () => resolve(true))),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), RESET_FLUSH_MS);
      }),
    ]);
    clearTimeout(timer);
    if (flushed) await new Promise((resolve) => setTimeout(resolve, RESET_LINGER_MS));
  }
  if (!socket.destroyed) socket.resetAndDestroy();
}

const EMPTY = new Uint8Array(0);
