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
import { DEFAULT_MAX_CONNECTIONS } from '../relay/tcp.js';
import { UsageError } from './args.js';
import { fsReason, type Io } from './io.js';
import { Log } from './log.js';
import { type FromWorker, hostPort, loadMetrics, type ServeConfig, type ToWorker } from './serve.js';

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

export async function runPrimary(config: ServeConfig, io: Io): Promise<number> {
  const log = new Log(io.log, config.logLevel);
  const held = new Map<number, Held>();
  /** Connections waiting for a worker that is ready, in accept order. */
  const waiting: number[] = [];
  let accepted = 0;
  let refused = 0;
  /** Connections reset because their worker died with them open. */
  let orphaned = 0;
  let turn = 0;
  const maxConnections = config.relay.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const slots: Slot[] = [];
  const bySlot = new Map<Worker, Slot>();
  let restarts = 0;
  let stopping = false;
  /** A signal began the drain (a listen that failed stops the workers too, without one). */
  let signalled = false;
  let scrapeId = 0;
  const scrapes = new Map<number, (metrics: unknown[]) => void>();

  let settle!: (status: number) => void;
  const finished = new Promise<number>((resolve) => {
    settle = resolve;
  });
  let announce!: () => void;
  const allListening = new Promise<void>((resolve) => {
    announce = resolve;
  });

  /** Closes the primary's copy of connection `id`: plainly once its worker has closed it, with a reset when nobody will end it properly. */
  const release = (id: number, reset: boolean) => {
    const h = held.get(id);
    if (!h) return;
    held.delete(id);
    if (reset) h.socket.resetAndDestroy();
    else h.socket.destroy();
  };
  /** Hands each waiting connection to the next ready worker, keeping the primary's descriptor of it. */
  const dispatch = () => {
    while (waiting.length > 0) {
      const ready = slots.filter((x) => x.listening && x.worker.isConnected());
      if (ready.length === 0) return;
      const worker = ready[turn++ % ready.length].worker;
      const id = waiting.shift()!;
      const h = held.get(id);
      if (!h) continue;
      h.worker = worker;
      // Not sent (the worker's channel closed): nobody relays it, so it is reset.
      worker.send({ type: 'mcp-frames:connection', id } satisfies ToWorker, h.socket, { keepOpen: true }, (error) => {
        if (error) release(id, true);
      });
    }
  };
  const listener = net.createServer({ pauseOnConnect: true }, (socket) => {
    socket.on('error', () => {});
    if (stopping) {
      socket.resetAndDestroy();
      return;
    }
    if (maxConnections > 0 && held.size >= maxConnections) {
      refused++;
      socket.resetAndDestroy();
      return;
    }
    const id = ++accepted;
    held.set(id, { socket, worker: null });
    waiting.push(id);
    dispatch();
  });
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(config.listen.port, config.listen.host, () => {
        listener.off('error', reject);
        resolve((listener.address() as net.AddressInfo).port);
      });
    });
  } catch (err) {
    throw new UsageError(`relay: cannot listen on ${hostPort(config.listen)}: ${fsReason(err)}`, false);
  }

  const fork = (slot?: Slot) => {
    const worker = cluster.fork();
    const s: Slot = slot ?? { worker, started: 0, listening: false, quickDeaths: 0, restart: null };
    s.worker = worker;
    s.started = performance.now();
    s.listening = false;
    s.restart = null;
    if (!slot) slots.push(s);
    bySlot.set(worker, s);
    const replaces = slot !== undefined;
    // A send to a worker whose channel has closed (it died, or was killed
    // while cluster was answering its listen) is an 'error' on the worker;
    // unhandled, it would take the primary down with exit status 1.
    worker.on('error', (err: NodeJS.ErrnoException) => {
      if (!stopping) log.line('error', 'worker-error', { worker: worker.id, pid: worker.process.pid, error: err.code ?? err.message });
    });
    worker.on('message', (message: FromWorker) => {
      if (message?.type === 'mcp-frames:ready') {
        s.listening = true;
        if (replaces) log.line('info', 'worker-start', { worker: worker.id, pid: worker.process.pid });
        // A worker forked just before a drain began may have missed its message (it listens for
        // messages only once it has loaded): it is told again now that it is ready.
        if (signalled) worker.send({ type: 'mcp-frames:drain' } satisfies ToWorker);
        if (slots.length === config.workers && slots.every((x) => x.listening)) announce();
        dispatch();
      } else if (message?.type === 'mcp-frames:closed') {
        if (held.get(message.id)?.worker === worker) release(message.id, false);
      } else if (message?.type === 'mcp-frames:metrics') {
        scrapes.get(message.id)?.(message.metrics);
      }
    });
    return s;
  };

  /**
   * Resets every connection still held for `worker`, which has gone, once
   * ORPHAN_LINGER_MS have passed; returns how many. Until then they are
   * nobody's: no message of a worker touches them.
   */
  const orphans = (worker: Worker): number => {
    const ids: number[] = [];
    for (const [id, h] of held) {
      if (h.worker !== worker) continue;
      h.worker = null;
      ids.push(id);
    }
    if (ids.length === 0) return 0;
    orphaned += ids.length;
    closing++;
    setTimeout(() => {
      for (const id of ids) release(id, true);
      closing--;
      if (stopping && bySlot.size === 0 && closing === 0) settle(0);
    }, ORPHAN_LINGER_MS);
    return ids.length;
  };
  /** Exits whose worker's channel has not closed yet, and orphans not yet reset: the primary waits for them before it settles. */
  let closing = 0;
  cluster.on('exit', (worker, code, signal) => {
    const slot = bySlot.get(worker);
    if (!slot) return;
    bySlot.delete(worker);
    // The worker's last messages (the connections it closed) are read before its channel closes:
    // only then is what it still held known.
    closing++;
    if (worker.isConnected()) worker.once('disconnect', () => exited(worker, slot, code, signal));
    else exited(worker, slot, code, signal);
  });
  const exited = (worker: Worker, slot: Slot, code: number | null, signal: string | null) => {
    closing--;
    const reset = orphans(worker);
    if (stopping) {
      // A worker that did not exit of its own accord during a drain (a signal, the rescue's SIGKILL,
      // a crash) cut its connections without their finishes: said, not passed over.
      if (signalled && (code !== 0 || signal !== null || reset > 0))
        log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, reset, draining: true });
      if (bySlot.size === 0 && closing === 0) settle(0);
      return;
    }
    const next = restartDelay(performance.now() - slot.started, slot.quickDeaths);
    const delay = next.delayMs;
    slot.quickDeaths = next.quickDeaths;
    slot.listening = false;
    log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, reset, restartInMs: delay });
    slot.restart = setTimeout(() => {
      if (stopping) return;
      restarts++;
      fork(slot);
    }, delay);
  };

  for (let k = 0; k < config.workers; k++) fork();
  await Promise.race([allListening, finished]);

  let metrics: Awaited<ReturnType<typeof import('./metrics.js').serveMetrics>> | undefined;
  if (config.metrics) {
    const m = await loadMetrics();
    const own = m.primaryRegistry({
      workers: () => slots.filter((s) => bySlot.has(s.worker)).length,
      restarts: () => restarts,
      refused: () => refused,
      orphaned: () => orphaned,
    });
    const scrape = async () => {
      const ready = slots.filter((s) => s.listening && s.worker.isConnected());
      const answers = await Promise.all(
        ready.map(
          (s) =>
            new Promise<unknown[]>((resolve) => {
              const id = ++scrapeId;
              // A worker that dies mid-scrape is left out rather than holding the scrape.
              const timer = setTimeout(() => {
                scrapes.delete(id);
                resolve([]);
              }, SCRAPE_TIMEOUT_MS);
              scrapes.set(id, (metrics) => {
                clearTimeout(timer);
                scrapes.delete(id);
                resolve(metrics);
              });
              s.worker.send({ type: 'mcp-frames:metrics', id } satisfies ToWorker);
            }),
        ),
      );
      return m.aggregate([...(answers as never[]), (await own.getMetricsAsJSON()) as never]);
    };
    try {
      metrics = await m.serveMetrics(config.metrics, scrape);
    } catch (err) {
      stopping = true;
      listener.close();
      for (const s of slots) s.worker.process.kill('SIGKILL');
      throw new UsageError(`relay: cannot serve metrics on ${hostPort(config.metrics)}: ${(err as Error).message}`, false);
    }
  }
  log.always('info', 'listening', {
    listening: hostPort({ ...config.listen, port }),
    upstream: hostPort(config.upstream),
    ...(metrics && config.metrics ? { metrics: hostPort({ ...config.metrics, port: metrics.port }) } : {}),
    workers: config.workers,
    // Which backend checks the bytes: 'auto' falls back to js when no core loads, and says so here.
    backend: config.relay.backend?.name,
    judges: config.judges,
  });

  const stop = (signal: NodeJS.Signals) => {
    if (signalled) {
      // Reset first: once the primary's descriptors are closed with SO_LINGER 0, the workers' deaths end each connection with a reset.
      for (const id of [...held.keys()]) release(id, true);
      for (const s of slots) s.worker.process.kill('SIGKILL');
      process.exit(128 + (os.constants.signals[signal] ?? 0));
    }
    signalled = true;
    stopping = true;
    listener.close();
    // Accepted, but no worker was ready to take them: nobody will relay them.
    for (const id of waiting.splice(0)) release(id, true);
    log.line('info', 'drain', { signal, timeoutMs: config.drainTimeoutMs, workers: bySlot.size });
    for (const s of slots) if (s.restart) clearTimeout(s.restart);
    if (bySlot.size === 0 && closing === 0) settle(0);
    for (const worker of bySlot.keys()) {
      if (worker.isConnected()) worker.send({ type: 'mcp-frames:drain' } satisfies ToWorker);
      else worker.process.kill('SIGKILL');
    }
    // Within a timer's range: past it Node fires at once, and a drain of a long timeout was cut at its start.
    setTimeout(
      () => {
        for (const worker of bySlot.keys()) worker.process.kill('SIGKILL');
      },
      Math.min(config.drainTimeoutMs + RESCUE_MS, MAX_TIMER_MS),
    ).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const status = await finished;
  log.line('info', 'drained', { workers: config.workers });
  metrics?.server.close();
  metrics?.server.closeAllConnections();
  if (!(await io.settle(2000))) process.exit(status);
  return status;
}
