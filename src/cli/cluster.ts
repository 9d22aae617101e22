// `mcp-frames relay --listen … --workers N`: the primary of a node:cluster, N workers sharing the listening port.
//
// # Why processes
//
// Each connection has its own upstream connection and relay state, and no
// state is shared between connections, so connections spread over
// processes with nothing to coordinate. node:cluster's primary accepts and
// hands each connection to a worker in turn (round robin, its default on
// Linux); each worker runs the single-process relay (src/cli/serve.ts).
//
// # Workers that die
//
// A worker that dies while the relay is running is replaced, after a
// backoff: 100 ms, doubled for each death in a row of a worker that lived
// less than 10 s, at most 10 s. Its connections were reset by the kernel
// as it died (no finishes: a crash cannot send them). Each death is an
// error line; each replacement that listens, an info line.
//
// # Stopping
//
// The first SIGTERM or SIGINT asks every worker to drain (a message, not a
// signal: after Ctrl-C the workers have the signal already, and a second
// one would stop them at once); once all have exited the primary exits 0.
// A second signal kills the workers and exits at once, 128 + its number.
// Should a worker outlive its drain by RESCUE_MS, it is killed.
//
// # Metrics
//
// The primary serves /metrics: it asks each listening worker for its
// registry as JSON and sums them with prom-client's cluster aggregation,
// with its own two metrics (workers, restarts) added in. Counters of a
// worker that died are gone with it: Prometheus reads that as a counter
// reset, which rate() allows for.

import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import { UsageError } from './args.js';
import type { Io } from './io.js';
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
  listening: boolean;
  /** Deaths in a row of workers that did not live STABLE_MS. */
  quickDeaths: number;
  restart: NodeJS.Timeout | null;
}

export async function runPrimary(config: ServeConfig, io: Io): Promise<number> {
  const log = new Log(io.log, config.logLevel);
  const slots: Slot[] = [];
  const bySlot = new Map<Worker, Slot>();
  let restarts = 0;
  let stopping = false;
  /** A signal began the drain (a listen that failed stops the workers too, without one). */
  let signalled = false;
  let scrapeId = 0;
  const scrapes = new Map<number, (metrics: unknown[]) => void>();

  let settle!: (status: number) => void;
  let fail!: (error: unknown) => void;
  const finished = new Promise<number>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  let announce!: (port: number) => void;
  const allListening = new Promise<number>((resolve) => {
    announce = resolve;
  });

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
      if (message?.type === 'mcp-frames:listening') {
        s.listening = true;
        if (replaces) log.line('info', 'worker-start', { worker: worker.id, pid: worker.process.pid });
        // A worker forked just before a drain began may have missed its message (it listens for
        // messages only once it has loaded): it is told again now that it listens.
        if (signalled) worker.send({ type: 'mcp-frames:drain' } satisfies ToWorker);
        if (slots.length === config.workers && slots.every((x) => x.listening)) announce(message.port);
      } else if (message?.type === 'mcp-frames:listen-failed') {
        // The port cannot be had: no worker could listen, so the relay cannot run.
        stopping = true;
        for (const x of slots) x.worker.process.kill('SIGKILL');
        fail(new UsageError(message.message, false));
      } else if (message?.type === 'mcp-frames:metrics') {
        scrapes.get(message.id)?.(message.metrics);
      }
    });
    return s;
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = bySlot.get(worker);
    if (!slot) return;
    bySlot.delete(worker);
    if (stopping) {
      // A worker that did not exit of its own accord during a drain (a signal, the rescue's SIGKILL,
      // a crash) cut its connections without their finishes: said, not passed over.
      if (signalled && (code !== 0 || signal !== null))
        log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, draining: true });
      if (bySlot.size === 0) settle(0);
      return;
    }
    const next = restartDelay(performance.now() - slot.started, slot.quickDeaths);
    const delay = next.delayMs;
    slot.quickDeaths = next.quickDeaths;
    slot.listening = false;
    log.line('error', 'worker-exit', { worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: delay });
    slot.restart = setTimeout(() => {
      if (stopping) return;
      restarts++;
      fork(slot);
    }, delay);
  });

  for (let k = 0; k < config.workers; k++) fork();
  const port = await Promise.race([allListening, finished]);

  let metrics: Awaited<ReturnType<typeof import('./metrics.js').serveMetrics>> | undefined;
  if (config.metrics) {
    const m = await loadMetrics();
    const own = m.primaryRegistry(
      () => slots.filter((s) => bySlot.has(s.worker)).length,
      () => restarts,
    );
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
  });

  const stop = (signal: NodeJS.Signals) => {
    if (signalled) {
      for (const s of slots) s.worker.process.kill('SIGKILL');
      process.exit(128 + (os.constants.signals[signal] ?? 0));
    }
    signalled = true;
    stopping = true;
    log.line('info', 'drain', { signal, timeoutMs: config.drainTimeoutMs, workers: bySlot.size });
    for (const s of slots) if (s.restart) clearTimeout(s.restart);
    if (bySlot.size === 0) settle(0);
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
