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
// stopped reading may still lose them, and then sees the reset alone, which
// says the same thing: those exchanges failed.
//
// # Two timeouts
//
// connectTimeout bounds how long upstream may take to accept the
// connection. idleTimeout bounds how long upstream may stay silent while a
// channel is open, so a client waiting for an answer is never held forever;
// with no channel open, nothing is waiting, and silence is not timed.

import net from 'node:net';
import type { RelayFault } from './fault.js';
import { pipeRelay } from './pipe.js';
import type { RelayOptions } from './relay.js';

export interface Endpoint {
  host: string;
  port: number;
}

/** Why an upstream connection failed, as its error code says. */
export type UpstreamCause = 'refused' | 'reset' | 'unreachable' | 'dns' | 'timeout' | 'error';

/** A failure of the upstream connection itself, reported once per connection. */
export type UpstreamFault =
  /** The connection failed: `cause` says how, `code` is the system's error code. */
  | { reason: 'upstream-error'; cause: UpstreamCause; code?: string; message: string }
  /** Upstream took too long: to accept the connection, or to send a byte while a channel was open. */
  | { reason: 'upstream-timeout'; phase: 'connect' | 'idle'; afterMs: number };

/** What a TCP relay reports: the stream's faults, and its upstream's failures. */
export type ConnectionFault = RelayFault | UpstreamFault;

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** How long the finishes get to reach the client before a reset (see the head of this file). */
const RESET_LINGER_MS = 200;

export interface TcpRelayOptions extends Omit<RelayOptions, 'onFault'> {
  /** Where to connect for each accepted client. */
  upstream: Endpoint;
  /** Milliseconds upstream may take to accept the connection. Default 10 s; 0 leaves it to the system. */
  connectTimeout?: number;
  /** Milliseconds upstream may stay silent while a channel is open. Default 300 s; 0 never times out. */
  idleTimeout?: number;
  /** How to open the upstream connection; default net.connect. (TLS, a test's socket that never connects.) */
  dial?: (upstream: Endpoint) => net.Socket;
  /** Called once per fault, with the connection's number (from 1, in accept order). */
  onFault?: (fault: ConnectionFault, connection: number) => void;
  /** Called when a connection's relay ends: cleanly (null) or with the error that stopped it. */
  onClose?: (connection: number, error: unknown) => void;
}

/** Parses "HOST:PORT" (IPv6 as "[::1]:PORT"). Throws a RangeError naming the bad part. */
export function parseEndpoint(text: string): Endpoint {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new RangeError(`'${text}' is not HOST:PORT`);
  return { host: match[1] ?? match[2], port };
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

/** The error the upstream socket is destroyed with when the relay gives up on it. */
class UpstreamGaveUp extends Error {
  override readonly name = 'UpstreamGaveUp';
}

/** A TCP server relaying each client to its own upstream connection. Call listen() on it. */
export function createTcpRelay(options: TcpRelayOptions): net.Server {
  const connectTimeout = checkTimeout('connectTimeout', options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const idleTimeout = checkTimeout('idleTimeout', options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS);
  const dial = options.dial ?? ((upstream: Endpoint) => net.connect(upstream));
  let connections = 0;
  // allowHalfOpen: a client that has sent its last request (FIN) still gets every answer.
  return net.createServer({ allowHalfOpen: true }, (client) => {
    const id = ++connections;
    const report = (fault: ConnectionFault) => options.onFault?.(fault, id);
    const upstream = dial(options.upstream);
    // Records go out as soon as they are validated: Nagle's algorithm would hold small writes back for an ACK.
    client.setNoDelay(true);
    upstream.setNoDelay?.(true);

    // The idle timer restarts with every upstream chunk; when it fires with a
    // channel open, upstream has failed. It is only ever armed by a chunk.
    let idleTimer: NodeJS.Timeout | null = null;
    const touch = () => {
      if (idleTimeout === 0) return;
      if (idleTimer) idleTimer.refresh();
      else {
        idleTimer = setTimeout(() => {
          if (piped.stats.openChannels > 0) fail({ reason: 'upstream-timeout', phase: 'idle', afterMs: idleTimeout });
        }, idleTimeout);
      }
    };
    const piped = pipeRelay(upstream, client, { ...options, onFault: report }, touch);

    /** Upstream failed (the first failure wins): reported, then the relay finishes the open channels. */
    let failed = false;
    function fail(fault: UpstreamFault): void {
      if (failed) return;
      failed = true;
      report(fault);
      piped.abort(new UpstreamGaveUp(fault.reason));
    }

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
        report(upstreamError(error));
      }
    });

    client.on('error', () => {});
    client.on('end', () => upstream.end());
    client.pipe(upstream, { end: false });

    piped.done.then(async (end) => {
      if (connectTimer) clearTimeout(connectTimer);
      if (idleTimer) clearTimeout(idleTimer);
      upstream.destroy();
      if (end.end === 'ended' && !failed) client.end();
      else if (end.end !== 'output-error') await resetAfterFlush(client);
      options.onClose?.(
        id,
        end.end === 'ended' ? null : 'error' in end ? end.error : 'reason' in end ? end.reason : end.end === 'record-error' ? end.fault : end.failure,
      );
    });
  });
}

/** Resets `socket` once its queued writes have left the process and had RESET_LINGER_MS to arrive. */
async function resetAfterFlush(socket: net.Socket): Promise<void> {
  if (!socket.destroyed && socket.writable) {
    await new Promise<void>((resolve) => socket.write(EMPTY, () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, RESET_LINGER_MS));
  }
  if (!socket.destroyed) socket.resetAndDestroy();
}

const EMPTY = new Uint8Array(0);
