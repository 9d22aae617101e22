// `mcp-frames relay --listen … --workers N`: the primary of a node:cluster, accepting for N workers.
//
// # Why processes
//
// Each connection has its own upstream connection and relay state, and no
// state is shared between connections, so connections spread over
// processes with nothing to coordinate. The primary listens, accepts each
// connection without reading it, and hands it to a worker in turn (round
// robin); each worker runs the single-process relay (src/cli/serve.ts) on
// the connections it is given.
//
// # A worker that dies never ends a connection cleanly
//
// The kernel closes a dead process's sockets with a FIN when nothing is
// left unread, and a FIN at a record boundary reads as a complete answer.
// So the primary keeps its own descriptor of every connection it hands out
// (the socket is sent with keepOpen) until the worker says the connection
// has closed. While the primary holds it, a worker's death closes nothing:
// the kernel sends no FIN. Once the dead worker's channel has closed (its
// last messages read), and ORPHAN_LINGER_MS after, the primary resets
// every connection still held for it: each client sees a reset, never a
// clean end, and no finishes (a crash cannot send them). node:cluster's own round robin closes the
// primary's copy as soon as a worker takes the connection, which is why
// the primary accepts here rather than through cluster's shared listen.
// A worker that ends a connection itself (a FIN, or a reset: SO_LINGER 0
// is set on the socket, which both descriptors share) has its end take
// effect when the primary closes its copy on the worker's word.
//
// # Workers that die
//
// A worker that dies while the relay is running is replaced, after a
// backoff: 100 ms, doubled for each death in a row of a worker that lived
// less than 10 s, at most 10 s. Each death is an error line, with how many
// connections were reset; each replacement that is ready, an info line.
//
// # A bound on connections
//
// The primary counts the connections it holds; past --max-connections a
// new one is reset as it is accepted, and counted in the metrics.
//
// # Stopping
//
// The first SIGTERM or SIGINT stops accepting and asks every worker to
// drain (a message, not a signal: after Ctrl-C the workers have the signal
// already, and a second one would stop them at once); once all have exited
// the primary exits 0. A second signal resets every connection still open,
// kills the workers and exits at once, 128 + its number. Should a worker
// outlive its drain by RESCUE_MS, it is killed.
//
// # Metrics
//
// The primary serves /metrics: it asks each listening worker for its
// registry as JSON and sums them with prom-client's cluster aggregation,
// with its own two metrics (workers, restarts) added in. Counters of a
// worker that died are gone with it: Prometheus reads that as a counter
// reset, which rate() allows for.

import cluster, { type Worker } from 'node:cluster';
import net from 'node:net';
import os from 'node:os';
import { DRAIN_QUIET_MS } from '../connection/defaults.js';
import { DEFAULT_MAX_CONNECTIONS } from '../relay/tcp.js';
import { UsageError } from './args.js';
import { fsReason, type Io } from './io.js';
import { serveHttp } from './http.js';
import { Log } from './log.js';
import { type FromWorker, hostPort, judgedBy, listenOn, loadMetrics, onOrphaned, type ServeConfig, type ToWorker } from './serve.js';

const BACKOFF_FIRST_MS = 100;
const BACKOFF_MAX_MS = 10_000;
/** A worker that lived this long resets its slot's backoff. */
const STABLE_MS = 10_000;
/** How long past the drain timeout the primary waits before killing a worker that has not exited. */
const RESCUE_MS = 10_000;
/** The longest delay a Node timer keeps: a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How long after a worker has gone the primary resets its connections. A
 * reset that arrives with data the client has not read yet can read as an
 * end (libuv takes a hang-up after a short read as EOF, WIRE.md section 7),
 * so the dead worker's last writes get time to be read first, as the
 * relay's own resets do (RESET_LINGER_MS in src/relay/tcp.ts).
 */
const ORPHAN_LINGER_MS = 200;
/** How long a scrape waits for the workers' answers. */
const SCRAPE_TIMEOUT_MS = 2_000;

/**
 * The wait before replacing a worker that died after living `livedMs`, its
 * slot having seen `quickDeaths` deaths in a row of workers that lived
 * under STABLE_MS; returns the wait and the slot's new count.
 */
export function restartDelay(livedMs: number, quickDeaths: number): { delayMs: number; quickDeaths: number } {
  const count = livedMs >= STABLE_MS ? 0 : quickDeaths;
  return { delayMs: Math.min(BACKOFF_FIRST_MS * 2 ** count, BACKOFF_MAX_MS), quickDeaths: count + 1 };
}

interface Slot {
  worker: Worker;
  started: number;
  /** The worker has loaded, and takes connections. */
  listening: boolean;
  /** Deaths in a row of workers that did not live STABLE_MS. */
  quickDeaths: number;
  restart: NodeJS.Timeout | null;
}

/** A connection the primary has accepted: its own descriptor of it, and the worker it went to (null while it waits for one, and once that worker has gone). */
interface Held {
  socket: net.Socket;
  worker: Worker | null;
}

type MetricsModule = typeof import('./metrics.js');
type MetricsServer = Awaited<ReturnType<MetricsModule['serveMetrics']>>;

/** The primary of the cluster: the connections it holds, its workers, and a named handler for each thing that happens to them. */
class Primary {
  private readonly held = new Map<number, Held>();
  /** Connections waiting for a worker that is ready, in accept order. */
  private readonly waiting: number[] = [];
  private accepted = 0;
  private refused = 0;
  /** Connections reset because their worker died with them open. */
  private orphaned = 0;
  private turn = 0;
  private readonly maxConnections: number;
  private readonly slots: Slot[] = [];
  private readonly bySlot = new Map<Worker, Slot>();
  private restarts = 0;
  private stopping = false;
  /** Set once a drain has closed the listener: a client accepted after that is reset. */
  private closed = false;
  /** performance.now() of the last accept: a drain closes the listener once none has come for DRAIN_QUIET_MS. */
  private lastAccept = Number.NEGATIVE_INFINITY;
  /** A signal began the drain (a listen that failed stops the workers too, without one). */
  private signalled = false;
  /** Exits whose worker's channel has not closed yet, and orphans not yet reset: the primary waits for them before it settles. */
  private closing = 0;
  private scrapeId = 0;
  private readonly scrapes = new Map<number, (metrics: unknown[]) => void>();

  private settle!: (status: number) => void;
  readonly finished = new Promise<number>((resolve) => {
    this.settle = resolve;
  });
  private announce!: () => void;
  readonly allListening = new Promise<void>((resolve) => {
    this.announce = resolve;
  });
  private readonly listener = net.createServer({ pauseOnConnect: true }, (socket) => this.accept(socket));

  constructor(
    private readonly config: ServeConfig,
    private readonly log: Log,
  ) {
    this.maxConnections = config.relay.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  }

  /** Listens on --listen; resolves the port, or rejects with a usage error. */
  async listen(): Promise<number> {
    try {
      return await listenOn(this.listener, this.config.listen);
    } catch (err) {
      throw new UsageError(`relay: cannot listen on ${hostPort(this.config.listen)}: ${fsReason(err)}`, false);
    }
  }

  /** Forks the workers, and replaces each that dies while the relay runs. */
  start(): void {
    cluster.on('exit', (worker, code, signal) => this.onExit(worker, code, signal));
    for (let k = 0; k < this.config.workers; k++) this.fork();
  }

  /** A new connection: held, and queued for a worker; reset once a drain has closed the listener, or past --max-connections. */
  private accept(socket: net.Socket): void {
    socket.on('error', () => {});
    this.lastAccept = performance.now();
    if (this.closed) {
      socket.resetAndDestroy();
      return;
    }
    if (this.maxConnections > 0 && this.held.size >= this.maxConnections) {
      this.refused++;
      socket.resetAndDestroy();
      return;
    }
    const id = ++this.accepted;
    this.held.set(id, { socket, worker: null });
    this.waiting.push(id);
    this.dispatch();
  }

  /** Hands each waiting connection to the next ready worker, keeping the primary's descriptor of it. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const ready = this.slots.filter((x) => x.listening && x.worker.isConnected());
      if (ready.length === 0) return;
      const worker = ready[this.turn++ % ready.length].worker;
      const id = this.waiting.shift()!;
      const h = this.held.get(id);
      if (!h) continue;
      h.worker = worker;
      // Not sent (the worker's channel closed): nobody relays it, so it is reset.
      worker.send({ type: 'mcp-frames:connection', id } satisfies ToWorker, h.socket, { keepOpen: true }, (error) => {
        if (error) this.release(id, true);
      });
    }
  }

  /** Closes the primary's copy of connection `id`: plainly once its worker has closed it, with a reset when nobody will end it properly. */
  private release(id: number, reset: boolean): void {
    const h = this.held.get(id);
    if (!h) return;
    this.held.delete(id);
    if (reset) h.socket.resetAndDestroy();
    else h.socket.destroy();
  }

  /** Forks a worker: into a new slot, or into `slot`, whose worker died. */
  private fork(slot?: Slot): Slot {
    const worker = cluster.fork();
    const s: Slot = slot ?? { worker, started: 0, listening: false, quickDeaths: 0, restart: null };
    s.worker = worker;
    s.started = performance.now();
    s.listening = false;
    s.restart = null;
    if (!slot) this.slots.push(s);
    this.bySlot.set(worker, s);
    const replaces = slot !== undefined;
    // A send to a worker whose channel has closed (it died, or was killed
    // while cluster was answering its listen) is an 'error' on the worker;
    // unhandled, it would take the primary down with exit status 1.
    worker.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.stopping) this.log.line('error', 'worker-error', { worker: worker.id, pid: worker.process.pid, error: err.code ?? err.message });
    });
    worker.on('message', (message: FromWorker) => this.onMessage(worker, s, replaces, message));
    return s;
  }

  /** A message from `worker`, in `slot`: ready, a connection it closed, or its metrics. */
  private onMessage(worker: Worker, slot: Slot, replaces: boolean, message: FromWorker): void {
    if (message?.type === 'mcp-frames:ready') {
      slot.listening = true;
      if (replaces) this.log.line('info', 'worker-start', { worker: worker.id, pid: worker.process.pid });
      // A worker forked just before a drain began may have missed its message (it listens for
      // messages only once it has loaded): it is told again now that it is ready.
      if (this.signalled) worker.send({ type: 'mcp-frames:drain' } satisfies ToWorker);
      if (this.slots.length === this.config.workers && this.slots.every((x) => x.listening)) this.announce();
      this.dispatch();
    } else if (message?.type === 'mcp-frames:closed') {
      if (this.held.get(message.id)?.worker === worker) this.release(message.id, false);
    } else if (message?.type === 'mcp-frames:metrics') {
      this.scrapes.get(message.id)?.(message.metrics);
    }
  }

  /** A worker of the primary's exited: what it held is known once its channel has closed. */
  private onExit(worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.bySlot.get(worker);
    if (!slot) return;
    this.bySlot.delete(worker);
    // The worker's last messages (the connections it closed) are read before its channel closes:
    // only then is what it still held known.
    this.closing++;
    if (worker.isConnected()) worker.once('disconnect', () => this.exited(worker, slot, code, signal));
    else this.exited(worker, slot, code, signal);
  }

  /** A worker that exited, its channel closed: its connections are reset, and it is replaced after a backoff unless the primary is stopping. */
  private exited(worker: Worker, slot: Slot, code: number | null, signal: string | null): void {
    this.closing--;
    const reset = this.orphans(worker);
    if (this.stopping) {
      // A worker that did not exit of its own accord during a drain (a signal, the rescue's SIGKILL,
      // a crash) cut its connections without their finishes: said, not passed over.
      if (this.signalled && (code !== 0 || signal !== null || reset > 0))
        this.log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, reset, draining: true });
      this.settleIfDone();
      return;
    }
    const next = restartDelay(performance.now() - slot.started, slot.quickDeaths);
    const delay = next.delayMs;
    slot.quickDeaths = next.quickDeaths;
    slot.listening = false;
    this.log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, reset, restartInMs: delay });
    slot.restart = setTimeout(() => {
      if (this.stopping) return;
      this.restarts++;
      this.fork(slot);
    }, delay);
  }

  /**
   * Resets every connection still held for `worker`, which has gone, once
   * ORPHAN_LINGER_MS have passed; returns how many. Until then they are
   * nobody's: no message of a worker touches them.
   */
  private orphans(worker: Worker): number {
    const ids: number[] = [];
    for (const [id, h] of this.held) {
      if (h.worker !== worker) continue;
      h.worker = null;
      ids.push(id);
    }
    if (ids.length === 0) return 0;
    this.orphaned += ids.length;
    this.closing++;
    setTimeout(() => {
      for (const id of ids) this.release(id, true);
      this.closing--;
      if (this.stopping) this.settleIfDone();
    }, ORPHAN_LINGER_MS);
    return ids.length;
  }

  /** Settles once every worker has exited and every orphan has been reset. */
  private settleIfDone(): void {
    if (this.bySlot.size === 0 && this.closing === 0) this.settle(0);
  }

  /**
   * Closes the listener once no client has come for DRAIN_QUIET_MS, as a
   * single process does (ConnectionCore): a balancer sends clients until its
   * next check finds /readyz failing, and those the kernel had completed
   * when the listener closed would be reset. Until then each client is
   * handed to a worker, which serves it as its drain serves.
   */
  private closeWhenQuiet(): void {
    const wait = DRAIN_QUIET_MS - (performance.now() - this.lastAccept);
    if (wait > 0) {
      setTimeout(() => this.closeWhenQuiet(), wait);
      return;
    }
    this.closed = true;
    this.listener.close();
  }

  /** Why the relay as a whole takes no new clients now, or null while it does: listening, not stopping, with a worker that listens. */
  private notReady(): string | null {
    if (this.stopping || !this.listener.listening) return 'draining';
    return this.slots.some((s) => s.listening && s.worker.isConnected()) ? null : 'no worker is listening';
  }

  /**
   * Serves /metrics on --metrics, if asked (the workers' registries summed,
   * with the primary's own), or /healthz and /readyz alone on --health: the
   * primary answers for the whole.
   */
  async serveMetrics(): Promise<MetricsServer | undefined> {
    const health = this.config.health;
    if (health) {
      try {
        return await serveHttp(health, { notReady: () => this.notReady() });
      } catch (err) {
        this.stopping = true;
        this.listener.close();
        for (const s of this.slots) s.worker.process.kill('SIGKILL');
        throw new UsageError(`relay: cannot serve health on ${hostPort(health)}: ${(err as Error).message}`, false);
      }
    }
    const at = this.config.metrics;
    if (!at) return undefined;
    const m = await loadMetrics();
    const own = m.primaryRegistry({
      workers: () => this.slots.filter((s) => this.bySlot.has(s.worker)).length,
      restarts: () => this.restarts,
      refused: () => this.refused,
      orphaned: () => this.orphaned,
    });
    const scrape = async () => {
      const ready = this.slots.filter((s) => s.listening && s.worker.isConnected());
      const answers = await Promise.all(ready.map((s) => this.askMetrics(s.worker)));
      return m.aggregate([...(answers as never[]), (await own.getMetricsAsJSON()) as never]);
    };
    try {
      return await m.serveMetrics(at, scrape, () => this.notReady());
    } catch (err) {
      this.stopping = true;
      this.listener.close();
      for (const s of this.slots) s.worker.process.kill('SIGKILL');
      throw new UsageError(`relay: cannot serve metrics on ${hostPort(at)}: ${(err as Error).message}`, false);
    }
  }

  /** Asks `worker` for its registry as JSON; resolves with it, or with nothing after SCRAPE_TIMEOUT_MS. */
  private askMetrics(worker: Worker): Promise<unknown[]> {
    return new Promise<unknown[]>((resolve) => {
      const id = ++this.scrapeId;
      // A worker that dies mid-scrape is left out rather than holding the scrape.
      const timer = setTimeout(() => {
        this.scrapes.delete(id);
        resolve([]);
      }, SCRAPE_TIMEOUT_MS);
      this.scrapes.set(id, (metrics) => {
        clearTimeout(timer);
        this.scrapes.delete(id);
        resolve(metrics);
      });
      worker.send({ type: 'mcp-frames:metrics', id } satisfies ToWorker);
    });
  }

  /**
   * SIGINT or SIGTERM: the first drains the workers, the second resets
   * every connection held, kills the workers and exits. (serve.ts's
   * onSignals exits on the second without the resets and kills.)
   */
  readonly stop = (signal: NodeJS.Signals): void => {
    if (this.signalled) this.abort(signal);
    this.signalled = true;
    this.stopping = true;
    this.closeWhenQuiet();
    // Accepted, but no worker was ready to take them: nobody will relay them.
    for (const id of this.waiting.splice(0)) this.release(id, true);
    this.log.line('info', 'drain', { signal, timeoutMs: this.config.drainTimeoutMs, workers: this.bySlot.size });
    for (const s of this.slots) if (s.restart) clearTimeout(s.restart);
    this.settleIfDone();
    for (const worker of this.bySlot.keys()) {
      if (worker.isConnected()) worker.send({ type: 'mcp-frames:drain' } satisfies ToWorker);
      else worker.process.kill('SIGKILL');
    }
    // Within a timer's range: past it Node fires at once, and a drain of a long timeout was cut at its start.
    setTimeout(
      () => {
        for (const worker of this.bySlot.keys()) worker.process.kill('SIGKILL');
      },
      Math.min(this.config.drainTimeoutMs + RESCUE_MS, MAX_TIMER_MS),
    ).unref();
  };

  /** The second signal: every connection held is reset, the workers killed, and the primary exits with 128 + its number. */
  private abort(signal: NodeJS.Signals): never {
    // Reset first: once the primary's descriptors are closed with SO_LINGER 0, the workers' deaths end each connection with a reset.
    for (const id of [...this.held.keys()]) this.release(id, true);
    for (const s of this.slots) s.worker.process.kill('SIGKILL');
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  }
}

export async function runPrimary(config: ServeConfig, io: Io): Promise<number> {
  const log = new Log(io.log, config.logLevel);
  const primary = new Primary(config, log);
  const port = await primary.listen();
  primary.start();
  await Promise.race([primary.allListening, primary.finished]);

  const metrics = await primary.serveMetrics();
  log.always('info', 'listening', {
    listening: hostPort({ ...config.listen, port }),
    upstream: hostPort(config.upstream),
    ...(metrics && config.metrics ? { metrics: hostPort({ ...config.metrics, port: metrics.port }) } : {}),
    ...(metrics && config.health ? { health: hostPort({ ...config.health, port: metrics.port }) } : {}),
    workers: config.workers,
    // Which backend checks the bytes: 'auto' falls back to js when no core loads, and says so here.
    backend: config.relay.backend?.name,
    judges: config.judges,
    ...judgedBy(config),
  });

  process.on('SIGINT', primary.stop);
  process.on('SIGTERM', primary.stop);
  onOrphaned(() => primary.stop('SIGTERM'));

  const status = await primary.finished;
  log.line('info', 'drained', { workers: config.workers });
  metrics?.server.close();
  metrics?.server.closeAllConnections();
  if (!(await io.settle(2000))) process.exit(status);
  return status;
}
