// `mcp-frames relay --listen`: one process serving TCP clients (or one worker of several), its log, metrics and graceful stop.
//
// # Stopping
//
// The first SIGTERM or SIGINT drains: the listening socket closes, the open
// connections get up to --drain-timeout to end on their own, and each one
// still open then gets the finishes for its open channels and a reset
// (createTcpRelay's drain()). Then the process exits 0. A second signal
// exits at once, with 128 + the signal's number, as a shell reports a
// process the signal killed.
//
// # Exiting never ends a connection cleanly
//
// However the process exits (a second signal, an uncaught exception), its
// 'exit' handler first resets every connection still open: the kernel
// would close each with a FIN, and a FIN at a record boundary reads as a
// complete answer. A SIGKILL or an out-of-memory kill runs no handler;
// what a client can tell then is in WIRE.md section 7.
//
// # As a worker
//
// Under --workers the primary (src/cli/cluster.ts) runs this same command
// line in each worker. A worker does not listen: the primary accepts and
// sends it each connection, keeping its own descriptor of it, and the
// worker says when each has closed, so that the primary can let go of it
// (or reset it, should the worker die first). A worker tells the primary
// when it is ready, drains when the primary asks or when it is signalled
// itself (Ctrl-C signals the whole process group), and answers the
// primary's requests for its metrics. Its log lines carry its number.

import cluster from 'node:cluster';
import net from 'node:net';
import os from 'node:os';
import type { ProxyHeaderRefusal } from '../connection/proxy-header.js';
import type { DrainResult } from '../connection/server.js';
import { createTcpRelay, type Endpoint, type TcpRelay, type TcpRelayOptions } from '../relay/tcp.js';
import { UsageError } from './args.js';
import { serveHttp } from './http.js';
import { fsReason, type Io } from './io.js';
import { Log, type LogLevel } from './log.js';

/**
 * The metrics module, loaded only when --metrics asks for it: it brings
 * prom-client, an optional dependency, which a library user need not have.
 * Without it, --metrics is a usage error that says what to install.
 */
export async function loadMetrics(command = 'relay'): Promise<typeof import('./metrics.js')> {
  try {
    return await import('./metrics.js');
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if (e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes("'prom-client'")) {
      throw new UsageError(`${command}: --metrics needs prom-client, an optional dependency that is not installed (npm install prom-client)`, false);
    }
    throw err;
  }
}

export interface ServeConfig {
  listen: Endpoint;
  upstream: Endpoint;
  /** The relay's options: validation, limits, timeouts. */
  relay: Omit<TcpRelayOptions, 'upstream' | 'onFault' | 'onOpen' | 'onClose'>;
  drainTimeoutMs: number;
  /** Where to serve /metrics (and /healthz, /readyz), if anywhere. */
  metrics?: Endpoint;
  /** Where to serve /healthz and /readyz when /metrics is not served. */
  health?: Endpoint;
  logLevel: LogLevel;
  /** Worker processes; 1 is this process alone. */
  workers: number;
  /** Who judges the schema under 'full' ('compiled' or 'sdk'), or 'none' when no schema is judged. */
  judges: 'compiled' | 'sdk' | 'none';
}

/** Messages between the primary and its workers. A connection's message carries its socket. */
export type ToWorker = { type: 'mcp-frames:drain' } | { type: 'mcp-frames:metrics'; id: number } | { type: 'mcp-frames:connection'; id: number };
export type FromWorker =
  | { type: 'mcp-frames:ready' }
  | { type: 'mcp-frames:closed'; id: number }
  | { type: 'mcp-frames:drained' }
  | { type: 'mcp-frames:metrics'; id: number; metrics: unknown[] };

export const hostPort = (e: Endpoint): string => (e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

/** The open and close log lines of a server on the connection core, at info. */
export function connectionLines(log: Log): {
  onOpen?: (connection: number, remote: string) => void;
  onClose?: (connection: number, error: unknown, summary: object) => void;
  onRefused: (remote: string, refusal: ProxyHeaderRefusal) => void;
} {
  // A connection refused for its PROXY header is a balancer (or a client that bypassed it) misconfigured: always said.
  const onRefused = (remote: string, refusal: ProxyHeaderRefusal) =>
    log.line('warn', 'refused', { remote, reason: refusal.refused, message: refusal.message, offset: refusal.offset });
  if (!log.keeps('info')) return { onRefused };
  return {
    onOpen: (connection, remote) => log.line('info', 'open', { connection, remote }),
    onClose: (_connection, _error, summary) => log.line('info', 'close', { ...summary }),
    onRefused,
  };
}

/** What 'full' judges frames by, for the listening line: 'auto' (each channel by its request line's method) or the endpoint's name. */
export function judgedBy(config: ServeConfig): { endpoint?: string } {
  if (config.relay.validate !== 'full') return {};
  const endpoint = config.relay.endpoint;
  return { endpoint: endpoint === 'auto' ? 'auto' : typeof endpoint === 'object' && 'endpoint' in endpoint ? endpoint.endpoint : 'per channel' };
}

/** The relay server, its events written to `log`. */
function relayServer(config: ServeConfig, log: Log): TcpRelay {
  return createTcpRelay({
    ...config.relay,
    upstream: config.upstream,
    onFault: (fault, connection) => log.fault(fault, connection),
    ...connectionLines(log),
  });
}

/** What the CLI serves on a port: the relay or the proxy, both on the connection core. */
export interface Listener {
  readonly server: net.Server;
  drain(ms: number): Promise<DrainResult>;
  reset(): number;
  /** The metrics registry, made once prom-client has loaded. */
  registry?(metrics: typeof import('./metrics.js')): import('./metrics.js').Registry;
  /** Ends everything now, when the command cannot start (its port taken). */
  close?(): Promise<void>;
}

export interface ListenPlan {
  command: 'relay' | 'proxy';
  listen: Endpoint;
  metrics?: Endpoint;
  /** Where /healthz and /readyz are served when metrics are not. */
  health?: Endpoint;
  drainTimeoutMs: number;
  /** The listening line's own fields, after `listening` (and before `metrics`). */
  fields: Readonly<Record<string, unknown>>;
  /** Counted in the drain line: what is open when the signal comes. */
  open: () => Readonly<Record<string, number>>;
  /** Called once the listening line is written (the proxy's lines wait for it: it is always the first). */
  onListening?: () => void;
  /** Why the process should get no new clients though it listens and is not draining (the proxy's server not ready), or null. */
  notReady?: () => string | null;
  /** Settles when the command cannot go on (no server could be started): it closes everything and exits 1. */
  fatal?: Promise<unknown>;
}

/**
 * The one way the CLI serves a port: listen (a usage error when the port
 * cannot be had), serve /metrics, print the listening line, wait for
 * SIGTERM or SIGINT, drain, and resolve 0. Every connection still open is
 * reset should the process exit first.
 */
export async function listenAndServe(listener: Listener, plan: ListenPlan, log: Log, io: Io): Promise<number> {
  // Before listening: without prom-client, nothing is opened.
  const metricsModule = plan.metrics ? await loadMetrics(plan.command) : undefined;
  // First among the exit handlers: one before it that threw would keep it from running.
  process.prependListener('exit', () => listener.reset());
  let port: number;
  try {
    port = await listenOn(listener.server, plan.listen);
  } catch (err) {
    await listener.close?.();
    throw new UsageError(`${plan.command}: cannot listen on ${hostPort(plan.listen)}: ${fsReason(err)}`, false);
  }
  let draining = false;
  const notReady = () => (draining || !listener.server.listening ? 'draining' : (plan.notReady?.() ?? null));
  let http: { server: import('node:http').Server; port: number } | undefined;
  const at = plan.metrics ?? plan.health;
  if (at) {
    try {
      if (plan.metrics && metricsModule && listener.registry) {
        const registry = listener.registry(metricsModule);
        http = await metricsModule.serveMetrics(plan.metrics, () => registry.metrics(), notReady);
      } else http = await serveHttp(at, { notReady });
    } catch (err) {
      listener.server.close();
      await listener.close?.();
      throw new UsageError(`${plan.command}: cannot serve ${plan.metrics ? 'metrics' : 'health'} on ${hostPort(at)}: ${fsReason(err)}`, false);
    }
  }
  log.always('info', 'listening', {
    listening: hostPort({ ...plan.listen, port }),
    ...plan.fields,
    ...(http && at ? { [plan.metrics ? 'metrics' : 'health']: hostPort({ ...at, port: http.port }) } : {}),
  });
  plan.onListening?.();

  const ended = await Promise.race([
    new Promise<NodeJS.Signals | 'parent-gone'>((resolve) => onSignals(resolve)),
    (plan.fatal ?? new Promise<never>(() => {})).then(() => 'fatal' as const),
  ]);
  let status = 0;
  if (ended === 'fatal') {
    // The line before this one said why (the proxy's server-unavailable fault).
    status = 1;
    await listener.close?.();
  } else {
    // /readyz answers 503 from here on, before any connection is ended.
    draining = true;
    log.line('info', 'drain', { signal: ended, timeoutMs: plan.drainTimeoutMs, ...plan.open() });
    const drained = await listener.drain(plan.drainTimeoutMs);
    log.line('info', 'drained', { ...drained });
  }
  http?.server.close();
  http?.server.closeAllConnections();
  // Its log lines go out first, for at most two seconds, as a worker's do: a stderr that nobody reads
  // held the process after its drain, for as long as it was not read.
  if (!(await io.settle(2000))) process.exit(status);
  return status;
}

export async function listenOn(server: net.Server, at: Endpoint): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : at.port;
}

/**
 * Calls `first` on the first SIGINT or SIGTERM (or when npm, which ran
 * this process, has gone: onOrphaned); on the second, exits at once with
 * 128 + its number.
 */
function onSignals(first: (signal: NodeJS.Signals | 'parent-gone') => void, watchParent = true): void {
  let seen = false;
  const handle = (signal: NodeJS.Signals) => {
    if (seen) process.exit(128 + (os.constants.signals[signal] ?? 0));
    seen = true;
    first(signal);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
  if (watchParent)
    onOrphaned(() => {
      if (seen) return;
      seen = true;
      first('parent-gone');
    });
}

/** How often a command run by npm looks whether npm is still there. */
const PARENT_POLL_MS = 500;

/**
 * Calls `orphaned` once when this process, run by npm (`npx mcp-frames …`,
 * `npm start`), loses its parent. npm exits on SIGTERM without passing the
 * signal on: the command was left running, orphaned, with no drain. So it
 * drains as if signalled. Run directly (node_modules/.bin/mcp-frames, or
 * `exec` in a script), the signals reach it and nothing is watched.
 */
export function onOrphaned(orphaned: () => void): void {
  if (process.env.npm_execpath === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    orphaned();
  }, PARENT_POLL_MS);
  timer.unref();
}

/** Runs the TCP relay in this process until signalled; resolves 0 once drained. */
export async function serveTcp(config: ServeConfig, io: Io): Promise<number> {
  const log = new Log(io.log, config.logLevel);
  const server = relayServer(config, log);
  const listener: Listener = {
    server,
    drain: (ms) => server.drain(ms),
    reset: () => server.reset(),
    registry: (metrics) => metrics.relayRegistry(() => server.stats),
  };
  return listenAndServe(
    listener,
    {
      command: 'relay',
      listen: config.listen,
      metrics: config.metrics,
      health: config.health,
      drainTimeoutMs: config.drainTimeoutMs,
      fields: {
        upstream: hostPort(config.upstream),
        workers: 1,
        // Which backend checks the bytes: 'auto' falls back to js when no core loads, and says so here.
        backend: config.relay.backend?.name,
        judges: config.judges,
        ...judgedBy(config),
      },
      open: () => ({ connections: server.stats.connectionsOpen }),
    },
    log,
    io,
  );
}

/** Runs one worker of a cluster: relays the connections the primary sends, drains when told, exits 0 once drained. */
export async function serveWorker(config: ServeConfig, io: Io): Promise<number> {
  const worker = cluster.worker!;
  const log = new Log(io.log, config.logLevel, { worker: worker.id });
  // The primary counts connections against --max-connections: it accepts them.
  const server = relayServer({ ...config, relay: { ...config.relay, maxConnections: 0 } }, log);
  // Every connection still open is reset should the worker exit first (first among the exit handlers).
  process.prependListener('exit', () => server.reset());
  const send = (message: FromWorker) => process.send?.(message);

  let registry: import('./metrics.js').Registry | undefined;
  if (config.metrics) {
    const { relayRegistry } = await loadMetrics();
    registry = relayRegistry(() => server.stats);
  }

  let draining = false;
  let drainEnded = false;
  const drain = async (why: string) => {
    if (draining) return;
    draining = true;
    log.line('info', 'drain', { signal: why, timeoutMs: config.drainTimeoutMs, connections: server.stats.connectionsOpen });
    const drained = await server.drain(config.drainTimeoutMs);
    drainEnded = true;
    log.line('info', 'drained', { ...drained });
    // Every connection's closed message has left before the worker exits: one lost would have the
    // primary reset a connection that had ended properly.
    await new Promise<void>((resolve) => {
      if (!process.send?.({ type: 'mcp-frames:drained' } satisfies FromWorker, undefined, {}, () => resolve())) resolve();
    });
    // The IPC channel would keep a worker alive, so it exits; first its log
    // lines go out (a pipe that is backed up holds them in this process, and
    // exit would drop them), for at most two seconds.
    await io.settle(2000);
    process.exit(0);
  };
  /** A connection the primary accepted: relayed as if this process had accepted it, and the primary told when it closes. */
  const adopt = (id: number, socket: unknown) => {
    if (!(socket instanceof net.Socket)) {
      send({ type: 'mcp-frames:closed', id });
      return;
    }
    socket.once('close', () => send({ type: 'mcp-frames:closed', id }));
    // Handed over while the primary waits for quiet: served as the drain serves; once the drain has ended, reset.
    if (drainEnded) {
      socket.on('error', () => {});
      socket.resetAndDestroy();
      return;
    }
    // As the relay's own server accepts: a client that has sent its last request still gets every answer.
    socket.allowHalfOpen = true;
    server.emit('connection', socket);
  };
  process.on('message', (message: ToWorker, handle: unknown) => {
    if (message?.type === 'mcp-frames:connection') adopt(message.id, handle);
    else if (message?.type === 'mcp-frames:drain') drain('primary');
    else if (message?.type === 'mcp-frames:metrics') {
      const id = message.id;
      (registry ? registry.getMetricsAsJSON() : Promise.resolve([])).then((metrics) => send({ type: 'mcp-frames:metrics', id, metrics }));
    }
  });
  // A worker's parent is the primary, which tells it when to drain.
  onSignals((signal) => drain(signal), false);
  send({ type: 'mcp-frames:ready' });
  await new Promise<never>(() => {});
  return 0;
}
