// The connection core: one TCP server that accepts, bounds, drains and resets the connections of `relay --listen` and `proxy --listen` (Node only).
//
// # What the core owns, and what it does not
//
// The core accepts a client, refuses it when maxConnections are open (a
// reset as it is accepted, counted), numbers it, names its address, tells
// onOpen, and hands it to the layer that serves it (the relay's connection,
// the proxy's). That layer says when the connection has closed, with its
// summary; the core tells onClose and lets go of it. What flows on the
// connection, and what is owed the client when it ends, is the layer's.
//
// # Draining
//
// drain(timeoutMs) stops accepting and tells every open connection the
// drain has begun (a connection with nothing owed may end at once). At the
// timeout, each connection still open is cut: the layer gives the client
// what it is owed (the finishes of its open channels), then a reset. The
// drain resolves once every connection has closed; no client can hold it
// open, since a cut resets the client whether or not it reads
// (resetAfterFlush).
//
// # Exiting
//
// reset() resets every connection at once, with nothing owed sent: for a
// process about to exit, whose connections the kernel would otherwise end
// with a FIN that reads as a clean end (WIRE.md section 7).

import net from 'node:net';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_PROXY_HEADER_TIMEOUT_MS, DRAIN_QUIET_MS } from './defaults.js';
import { type ProxyHeaderRefusal, readProxyHeader } from './proxy-header.js';

/** What drain() did. */
export interface DrainResult {
  /** Connections open when the drain began. */
  connections: number;
  /** Of those, how many were still open at the timeout and were cut (what was owed them, then a reset). */
  cut: number;
}

/** One open connection, as the layer serving it answers the core. */
export interface Served {
  /** The drain's timeout has passed: give the client what it is owed, then reset it. False when it had already finished its work. */
  cut(afterMs: number): boolean;
  /** Resets the client (and anything behind it) at once, with nothing owed sent. */
  reset(): void;
  /** The drain has begun: a connection with nothing owed may end now. */
  draining?(): void;
}

/** A client just accepted, as the core hands it to the layer that serves it. */
export interface Accepted {
  /** The connection's number, from 1, in accept order. */
  readonly id: number;
  /** The client's address and port ("[::1]:5000" for IPv6), as accepted. */
  readonly remote: string;
  readonly socket: net.Socket;
  /** performance.now() at accept. */
  readonly opened: number;
  /** What the caller's onOpen threw, if it threw: the layer ends the connection with it, serving nothing. */
  readonly openThrew: { error: unknown } | null;
  /** Whether the core is draining now (a worker's adopted connection can arrive then). */
  readonly draining: boolean;
}

export interface CoreOptions<Summary> {
  /** Most connections open at once; past it a new client is reset as it comes. Default 10,000; 0 for no limit. */
  maxConnections?: number;
  /**
   * Every connection starts with a PROXY protocol header (version 1 or 2)
   * from the load balancer in front: the client it names is the one logs,
   * faults and metrics name. A connection without one, or that sends none
   * within proxyHeaderTimeoutMs, is reset, counted and told onRefused.
   */
  proxyProtocol?: boolean;
  /** How long a connection may take to send its PROXY header. Default 5 s; 0 for no limit. */
  proxyHeaderTimeoutMs?: number;
  /** Called for each connection refused for its PROXY header, with the socket's own address. */
  onRefused?: (remote: string, refusal: ProxyHeaderRefusal) => void;
  /** Whether a client's FIN leaves our side open (the relay: the client has sent its last request). */
  allowHalfOpen?: boolean;
  /** Called when a client is accepted, before anything is served. */
  onOpen?: (connection: number, remote: string) => void;
  /** Called once a connection has closed, with what stopped it (null after a clean end) and its summary. */
  onClose?: (connection: number, error: unknown, summary: Summary) => void;
}

/** The options the relay and the proxy both take for their connections, as a layer names them. */
export interface ServingOptions<Summary> {
  maxConnections?: number;
  proxyProtocol?: boolean;
  /** Milliseconds (the core's proxyHeaderTimeoutMs). */
  proxyHeaderTimeout?: number;
  onRefused?: (remote: string, refusal: ProxyHeaderRefusal) => void;
  onOpen?: (connection: number, remote: string) => void;
  onClose?: (connection: number, error: unknown, summary: Summary) => void;
}

/**
 * The core's options for a layer that serves clients who may half-close:
 * allowHalfOpen, so that a client that has sent its last request (FIN)
 * still gets every answer.
 */
export function servingOptions<Summary>(options: ServingOptions<Summary>): CoreOptions<Summary> {
  return {
    maxConnections: options.maxConnections,
    allowHalfOpen: true,
    proxyProtocol: options.proxyProtocol === true,
    proxyHeaderTimeoutMs: options.proxyHeaderTimeout,
    onRefused: options.onRefused,
    onOpen: options.onOpen,
    onClose: options.onClose,
  };
}

/** The client's address as a log line names it. */
function remoteOf(socket: net.Socket): string {
  const address = socket.remoteAddress;
  return address?.includes(':') ? `[${address}]:${socket.remotePort}` : `${address}:${socket.remotePort}`;
}

/** Throws a RangeError unless `ms` is a timer's milliseconds (0 included). */
export function checkTimeout(name: string, ms: number): number {
  if (!(Number.isFinite(ms) && ms >= 0 && ms <= 2 ** 31 - 1))
    throw new RangeError(`${name} must be a number of milliseconds from 0 to 2^31 - 1, not ${ms}`);
  return ms;
}

/** Throws a RangeError unless `n` is a whole number (a count of bytes or of things) of at least `min`. */
export function checkCount(name: string, n: number, min: number): number {
  if (!(Number.isSafeInteger(n) && n >= min)) throw new RangeError(`${name} must be a whole number of at least ${min}, not ${n}`);
  return n;
}

/** Throws a RangeError unless `n` is a whole number of connections (0: no limit). */
function checkMaxConnections(n: number): number {
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`maxConnections must be a whole number, 0 for no limit, not ${n}`);
  return n;
}

/** Throws a TypeError for each named option that is given and is not a function. */
export function checkCallbacks(options: object, names: readonly string[]): void {
  for (const name of names) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && typeof value !== 'function') throw new TypeError(`${name} must be a function, not ${typeof value}`);
  }
}

/** The server and the open connections it holds. `C` is the layer's connection. */
export class ConnectionCore<C extends Served, Summary> {
  readonly server: net.Server;
  private readonly live = new Map<number, C>();
  /** Connections whose PROXY header has not come yet: counted against maxConnections, reset by a drain. */
  private readonly waiting = new Set<net.Socket>();
  private readonly maxConnections: number;
  private readonly headerTimeoutMs: number;
  private accepted = 0;
  private refusedCount = 0;
  private headerRefusedCount = 0;
  /** Whether the listener takes clients: until a drain has found no client coming for DRAIN_QUIET_MS. */
  private listening = true;
  /** performance.now() of the last accept (a drain's quiet period counts from it). */
  private lastAccept = Number.NEGATIVE_INFINITY;
  private quiet: NodeJS.Timeout | undefined;
  private draining: Promise<DrainResult> | null = null;
  private whenEmpty: (() => void) | null = null;

  constructor(
    private readonly options: CoreOptions<Summary>,
    /** Serves one accepted client; the layer calls closed() when it has closed. */
    private readonly serve: (accepted: Accepted) => C,
  ) {
    this.maxConnections = checkMaxConnections(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    this.headerTimeoutMs = checkTimeout('proxyHeaderTimeout', options.proxyHeaderTimeoutMs ?? DEFAULT_PROXY_HEADER_TIMEOUT_MS);
    checkCallbacks(options, ['onRefused']);
    this.server = net.createServer({ allowHalfOpen: options.allowHalfOpen ?? false }, (socket) => this.accept(socket));
  }

  /** Connections open now. */
  get open(): number {
    return this.live.size;
  }

  /** Connections accepted in all. */
  get total(): number {
    return this.accepted;
  }

  /** Clients reset as they came, past maxConnections. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Connections reset for their PROXY header: none, a malformed one, or none in time. */
  get headerRefused(): number {
    return this.headerRefusedCount;
  }

  /** The open connections, as their layer serves them. */
  connections(): IterableIterator<C> {
    return this.live.values();
  }

  private accept(socket: net.Socket): void {
    this.lastAccept = performance.now();
    if (this.maxConnections > 0 && this.live.size + this.waiting.size >= this.maxConnections) {
      this.refusedCount++;
      socket.on('error', () => {});
      socket.resetAndDestroy();
      return;
    }
    if (this.options.proxyProtocol) this.awaitHeader(socket);
    else this.admit(socket, remoteOf(socket));
  }

  /**
   * Reads the PROXY header, held with a bound (MAX_PROXY_HEADER_BYTES),
   * then admits the connection as the client it names, its own bytes after
   * the header given back to the socket for the layer to read. Refused: a
   * reset, before any byte is served.
   */
  private awaitHeader(socket: net.Socket): void {
    this.waiting.add(socket);
    // Named now: a socket destroyed has no address left to give.
    const own = remoteOf(socket);
    let held: Uint8Array = new Uint8Array(0);
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      if (this.waiting.delete(socket)) this.endIfEmpty();
    };
    const refuse = (refusal: ProxyHeaderRefusal) => {
      done();
      this.headerRefusedCount++;
      socket.on('error', () => {});
      socket.resetAndDestroy();
      try {
        this.options.onRefused?.(own, refusal);
      } catch {
        // the connection is gone either way; a throw here has no caller
      }
    };
    const onData = (chunk: Buffer) => {
      held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
      const header = readProxyHeader(held);
      if (header === null) return;
      if ('refused' in header) return refuse(header);
      // Paused, so that the bytes after the header go back in front of the rest, for the layer to read first.
      socket.pause();
      if (header.length < held.length) socket.unshift(held.subarray(header.length));
      // Admitted before it stops waiting: a drain never finds it in neither place.
      this.admit(socket, header.source ?? own);
      done();
      // Flowing again, as a socket just accepted is (the layer has its listeners now).
      if (!socket.destroyed) socket.resume();
    };
    const timer =
      this.headerTimeoutMs > 0
        ? setTimeout(
            () => refuse({ refused: 'proxy-header', message: `no PROXY header within ${this.headerTimeoutMs} ms`, offset: held.length }),
            this.headerTimeoutMs,
          )
        : undefined;
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.once('close', done);
  }

  private admit(socket: net.Socket, remote: string): void {
    const id = ++this.accepted;
    // A callback of the caller's that throws ends its connection, not the process (a throw here has no caller).
    let openThrew: { error: unknown } | null = null;
    try {
      this.options.onOpen?.(id, remote);
    } catch (error) {
      openThrew = { error };
    }
    const connection = this.serve({ id, remote, socket, opened: performance.now(), openThrew, draining: this.draining !== null });
    this.live.set(id, connection);
  }

  /** The layer's word that connection `id` has closed: onClose is told, and a drain may end. */
  closed(id: number, error: unknown, summary: Summary): void {
    if (!this.live.delete(id)) return;
    try {
      this.options.onClose?.(id, error, summary);
    } catch {
      // The connection is over; a throw here had no caller and kept drain() from resolving.
    }
    this.endIfEmpty();
  }

  /** A drain ends once the listener is closed and no connection is open or waiting for its PROXY header. */
  private endIfEmpty(): void {
    if (!this.listening && this.live.size === 0 && this.waiting.size === 0) this.whenEmpty?.();
  }

  /**
   * Closes the listener once no client has come for DRAIN_QUIET_MS. A load
   * balancer goes on sending new clients until its next health check finds
   * /readyz failing; closing at once refused them (it retries those
   * elsewhere) but also reset each connection the kernel had completed and
   * the process not yet accepted, which the balancer had counted as
   * established and ended towards its client with a clean FIN and no bytes.
   * So the listener stays open until the balancer has stopped, and those
   * that come meanwhile are served as the drain serves.
   */
  private closeWhenQuiet(): void {
    const wait = DRAIN_QUIET_MS - (performance.now() - this.lastAccept);
    if (wait > 0) {
      this.quiet = setTimeout(() => this.closeWhenQuiet(), wait);
      return;
    }
    this.stopListening();
    this.endIfEmpty();
  }

  private stopListening(): void {
    clearTimeout(this.quiet);
    if (!this.listening) return;
    this.listening = false;
    if (this.server.listening) this.server.close();
  }

  /**
   * Stops accepting, tells each open connection, waits up to `timeoutMs`
   * for them to end on their own, then cuts the rest. Resolves once every
   * connection has closed; calling it again returns the same promise.
   */
  drain(timeoutMs: number): Promise<DrainResult> {
    checkTimeout('drain timeout', timeoutMs);
    this.draining ??= new Promise<DrainResult>((resolve) => {
      const open = this.live.size;
      let cut = 0;
      const timer = setTimeout(() => {
        this.stopListening();
        for (const socket of [...this.waiting]) socket.resetAndDestroy();
        for (const c of [...this.live.values()]) if (c.cut(timeoutMs)) cut++;
        this.endIfEmpty();
      }, timeoutMs);
      this.whenEmpty = () => {
        clearTimeout(timer);
        resolve({ connections: open, cut });
      };
      // A connection whose PROXY header has not been read yet is served when it has been, as the drain serves.
      for (const c of [...this.live.values()]) c.draining?.();
      this.closeWhenQuiet();
    });
    return this.draining;
  }

  /** Whether drain() has been called. */
  get isDraining(): boolean {
    return this.draining !== null;
  }

  /** Resets every open connection at once, with nothing owed sent; returns how many. */
  reset(): number {
    for (const socket of [...this.waiting]) socket.resetAndDestroy();
    const open = [...this.live.values()];
    for (const c of open) c.reset();
    return open.length;
  }
}

/**
 * The client idle timer (WIRE.md section 7): restarted by every byte either
 * way (the layer calls refresh() for the bytes it sends) and every time the
 * client drains what was queued for it. When it fires, `busy()` says
 * whether the connection is still at work (then it starts again); if not,
 * `idle()` ends it. 0 ms: no timer.
 */
export class ClientIdle {
  private readonly timer: NodeJS.Timeout | null;

  constructor(socket: net.Socket, ms: number, busy: () => boolean, idle: () => void) {
    this.timer =
      ms === 0
        ? null
        : setTimeout(() => {
            if (busy()) this.timer?.refresh();
            else idle();
          }, ms);
    if (this.timer) {
      socket.on('data', () => this.timer?.refresh());
      socket.on('drain', () => this.timer?.refresh());
    }
  }

  refresh(): void {
    this.timer?.refresh();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

/**
 * Checks that a client's FIN is one: a client that wrote and reset at once
 * is often read as a clean end (the reset arrives with the data, and the
 * kernel reports the end of the data first), and then nothing more is read
 * to learn better. A write of no bytes finds the reset (EPIPE or
 * ECONNRESET) and errors the socket, as a write of an answer would; to a
 * client that did send its FIN it does nothing. So a reset client's
 * exchanges are not held until an answer comes to fail on it.
 */
export function confirmEnd(socket: net.Socket): void {
  if (!socket.destroyed && socket.writable) socket.write(EMPTY);
}

/**
 * Resets `socket` (a RST, never a FIN), unless its FIN has already been
 * sent: a reset may not follow a shutdown (libuv forbids mixing
 * uv_shutdown and uv_tcp_close_reset), and one that did left the handle
 * referenced, so that the process spun at exit instead of exiting. A
 * socket whose FIN has gone is destroyed plainly.
 */
export function resetSocket(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}

/** How long what was last written gets to reach the client before a reset. */
const RESET_LINGER_MS = 200;
/** The longest the core waits for the last write to leave the process before a reset. */
const RESET_FLUSH_MS = 2000;
const EMPTY = new Uint8Array(0);

/**
 * Resets `socket` once its queued writes have left the process and had
 * RESET_LINGER_MS to arrive, or after RESET_FLUSH_MS if they have not left
 * by then (a client that does not read).
 *
 * A reset discards what is still in flight: the kernel drops its send
 * queue, and the client's drops what it has not read. So the finishes owed
 * a client are given time to reach it first. A client that has stopped
 * reading may never let the last write leave; waiting on it without a
 * bound kept such a connection, and a drain, open for as long as it would
 * not read. It sees the reset alone then, which says the same thing: those
 * exchanges failed.
 */
export async function resetAfterFlush(socket: net.Socket): Promise<void> {
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
  resetSocket(socket);
}
