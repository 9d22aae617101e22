// What the cases timed in rounds share (wire, concurrent, scale, proxy): one operation moves megabytes or
// times whole processes, so each runs in rounds, each round the case and its peer one after the other, so
// that both see the same moment of a shared machine; the figures are the means over the rounds.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT } from './env.mjs';

export const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** The CLI as the package publishes it: its `bin`. */
export const CLI = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin['mcp-frames']);

// ---------------------------------------------------------------------------
// Statistics over rounds.

const T95 = [0, 12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23];

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The relative margin of error (95%) of the mean of `xs`, in percent. */
export function rmeOf(xs) {
  const n = xs.length;
  if (n < 2) return 0;
  const m = mean(xs);
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  return ((T95[Math.min(n - 1, 10)] * sd) / Math.sqrt(n) / m) * 100;
}

/** A result in the shape benchmark.js results have in the report: from per-round seconds. */
export function roundResult(base, seconds, bytes, extra = {}) {
  const n = seconds.length;
  const m = mean(seconds);
  return {
    ...base,
    bytes,
    checked: true,
    opsPerSec: 1 / m,
    mbPerSec: bytes / m / 1e6,
    rme: rmeOf(seconds),
    samples: n,
    meanMs: m * 1000,
    deviationMs: n > 1 ? Math.sqrt(seconds.reduce((a, s) => a + (s - m) ** 2, 0) / (n - 1)) * 1000 : 0,
    load1: Math.round(os.loadavg()[0] * 100) / 100,
    ...extra,
  };
}

/** The mean of `faults`, page faults a run of `bytes` each, per MiB, to two places. */
export function faultsPerMiB(faults, bytes) {
  return Math.round((mean(faults) / (bytes / MiB)) * 100) / 100;
}

/**
 * The CPU figures of runs ({ cpu, faults? }) over `bytes` each; none where a
 * run's CPU is unknown (off Linux), no page faults where a run has none.
 */
export function cpuFigures(runs, bytes, digits = 3) {
  const cpus = runs.map((r) => r.cpu);
  if (cpus.some((c) => c == null)) return {};
  const cpu = mean(cpus);
  const faults = runs.every((r) => r.faults != null)
    ? {
        minorPageFaultsPerMiB: faultsPerMiB(
          runs.map((r) => r.faults),
          bytes,
        ),
      }
    : {};
  return {
    cpuSeconds: Math.round(cpu * 10 ** digits) / 10 ** digits,
    cpuRme: Math.round(rmeOf(cpus) * 100) / 100,
    bytesPerCpuSecond: bytes / cpu,
    cpuNanosecondsPerByte: Math.round((cpu / bytes) * 1e9 * 1000) / 1000,
    ...faults,
  };
}

/** Runs `fn` once in this process: its value, wall seconds, CPU seconds (all threads) and minor page faults. */
export async function measure(fn) {
  const f0 = process.resourceUsage().minorPageFault;
  const u0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wall = (performance.now() - t0) / 1000;
  const u = process.cpuUsage(u0);
  return { value, wall, cpu: (u.user + u.system) / 1e6, faults: process.resourceUsage().minorPageFault - f0 };
}

// ---------------------------------------------------------------------------
// Processes.

/** `getconf name` as a number, or `fallback` where it cannot be had. */
function getconf(name, fallback) {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
}

const TICKS = getconf('CLK_TCK', 100);
const PAGE = getconf('PAGESIZE', 4096);

/** utime + stime (seconds), minflt and resident bytes of process `pid`, from /proc; null off Linux. */
function procUsage(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpu: (Number(fields[11]) + Number(fields[12])) / TICKS, faults: Number(fields[7]), rss: Number(fields[21]) * PAGE };
  } catch {
    return null;
  }
}

/** CPU seconds of `pid` and its children (a cluster's workers), from /proc; null off Linux. */
function treeCpu(pid) {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    const cpus = [pid, ...children].map((p) => procUsage(p)?.cpu);
    return cpus.includes(undefined) ? null : cpus.reduce((a, c) => (a ?? 0) + (c ?? 0), 0);
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine so far (all cores; idle and iowait left out), from /proc/stat; null off Linux. */
function machineBusy() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICKS;
  } catch {
    return null;
  }
}

/**
 * Starts `node ...args` (the CLI or a peer) and resolves once the first
 * stderr match of `pattern` (by default the `{"listening":"HOST:PORT"}`
 * line) is seen: its port, its usage from /proc, the stderr lines after it
 * (faults, at the log level warn), and a stop that waits for its exit.
 */
export function startNode(args, { env = {}, pattern = /"listening":"[^"]*:(\d+)"/ } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let found = false;
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = !found && pattern.exec(stderr);
      if (!m) return;
      found = true;
      resolve({
        port: Number(m[1]),
        usage: () => procUsage(child.pid),
        cpu: () => treeCpu(child.pid),
        faults: () => stderr.split('\n').filter((l) => l && !pattern.test(l)),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(null);
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!found) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

// ---------------------------------------------------------------------------
// The loopback harness.

/**
 * A server on a free loopback port that sends `stream` to each connection,
 * in 64 KiB writes, honouring backpressure, then ends it; resolves with
 * its `host:port` and a close.
 */
async function serveStream(stream) {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    let at = 0;
    const pump = () => {
      while (at < stream.length) {
        const piece = stream.subarray(at, at + CHUNK);
        at += piece.length;
        if (!socket.write(piece)) return socket.once('drain', pump);
      }
      socket.end();
    };
    pump();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  return {
    address: `127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(null))),
  };
}

/** Reads everything a connection to `port` sends; resolves with its byte count (and SHA-256 when asked). */
function receive(port, hash) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const h = hash ? createHash('sha256') : null;
    let bytes = 0;
    socket.on('data', (d) => {
      bytes += d.length;
      h?.update(d);
    });
    socket.on('end', () => resolve({ bytes, sha256: h?.digest('hex') }));
    socket.on('error', reject);
  });
}

/** `count` clients of `port` at once; resolves with what each received (receive). */
function clients(port, hash, count = 1) {
  return Promise.all(Array.from({ length: count }, () => receive(port, hash)));
}

/** Rounds over which a warm server's resident memory has stopped growing (steady). */
const STEADY_ROUNDS = 20;
/**
 * How far its peak may still rise over those rounds: 256 pages, under 0.1
 * page faults a MiB over twenty rounds of 128 MiB. V8 grows its young
 * generation a doubling at a time, whose pages are touched over several
 * rounds, and the peak can stand still for ten rounds between doublings.
 */
const STEADY_BYTES = 1 << 20;

/**
 * Whether a server's resident bytes, one figure a round, have stopped
 * growing: the peak of the last STEADY_ROUNDS rounds is within STEADY_BYTES
 * of the peak before them. Pages given back and faulted in again (churn)
 * leave the peak where it is, so they never count as growth: a server that
 * churns is steady, and its faults are counted.
 */
function steady(rss) {
  if (rss.length <= STEADY_ROUNDS) return false;
  const before = Math.max(...rss.slice(0, -STEADY_ROUNDS));
  return Math.max(...rss.slice(-STEADY_ROUNDS)) - before < STEADY_BYTES;
}

/**
 * `f.stream` served on loopback to `count` clients at once through each of
 * `servers` ([key, args(upstream address)], node processes that listen).
 * Each server is checked first (every client gets the stream, whose
 * SHA-256 is `f.sha256`; no fault on stderr). Then the servers take turns,
 * a round each: `warmUp` rounds not counted (0 by default), then `rounds`
 * rounds, whose figures are `runs`, by key: wall seconds; the server's CPU
 * seconds (its children's too) and page faults; this process's CPU (the
 * load generator); the cores the machine kept busy, and the CPU the rest of
 * it took.
 *
 * With `continuousRounds`, each server then relays alone, round after round
 * with no other server's round between: until its resident memory is
 * steady (see steady; at most `maxSteadyRounds` rounds), then
 * `continuousRounds` rounds whose page faults are `continuous[key].faults`.
 * Taking turns leaves each server idle more than half the time, and V8's
 * memory reducer, which runs when a process allocates little, then shrinks
 * a relay's young generation to 1 MiB; it grows back to 32 MiB over tens
 * of seconds of load, a fresh page at a time.
 */
export async function serverRounds(f, { name, servers, count, rounds, warmUp = 0, continuousRounds = 0, maxSteadyRounds = 0, progress }) {
  const upstream = await serveStream(f.stream);
  const started = [];
  const total = count * f.stream.length;
  const round = async (server) => {
    const [u0, c0, busy0, own0] = [server.usage(), server.cpu(), machineBusy(), process.cpuUsage()];
    const t0 = performance.now();
    const got = await clients(server.port, false, count);
    const wall = (performance.now() - t0) / 1000;
    const [u1, c1, busy1, own] = [server.usage(), server.cpu(), machineBusy(), process.cpuUsage(own0)];
    const bytes = got.reduce((a, g) => a + g.bytes, 0);
    if (bytes !== total) throw new Error(`${name}: ${bytes} of ${total} bytes`);
    const cpu = c0 === null || c1 === null ? null : c1 - c0;
    const load = (own.user + own.system) / 1e6;
    const busy = busy0 === null || busy1 === null ? null : busy1 - busy0;
    const faults = u0 && u1 ? u1.faults - u0.faults : null;
    return {
      wall,
      cpu,
      faults,
      rss: u1?.rss ?? 0,
      load,
      busy: busy === null ? null : busy / wall,
      others: busy === null || cpu === null ? null : busy - cpu - load,
    };
  };
  try {
    for (const [key, args] of servers) started.push([key, await startNode(args(upstream.address))]);
    for (const [key, server] of started) {
      progress(`${name}@${key}: checking`);
      const wrong = (await clients(server.port, true, count)).filter((g) => g.sha256 !== f.sha256).length;
      if (wrong) throw new Error(`${name}@${key}: ${wrong} of ${count} clients did not receive the stream`);
      if (server.faults().length) throw new Error(`${name}@${key}: faults on a valid stream: ${server.faults()[0]}`);
    }
    // The servers warm up in turn, as they are timed: a server left idle while another warmed up
    // came back to its timed rounds with its optimised code dropped (deoptimised, weak objects gone) and its heap shrunk.
    for (let w = 0; w < warmUp; w++) {
      progress(`${name}: warm-up round ${w + 1} of ${warmUp}`);
      for (const [, server] of started) await round(server);
    }
    /** @type {Record<string, { wall: number, cpu: number | null, faults: number | null, rss: number, load: number, busy: number | null, others: number | null }[]>} */
    const runs = Object.fromEntries(servers.map(([key]) => [key, []]));
    for (let r = 0; r < rounds; r++) {
      progress(`${name}: round ${r + 1} of ${rounds}`);
      for (const [key, server] of started) runs[key].push(await round(server));
    }
    /** @type {Record<string, { warmUpRounds: number, faults: (number | null)[] }>} */
    const continuous = {};
    if (continuousRounds > 0) {
      for (const [key, server] of started) {
        const resident = [];
        while (resident.length < maxSteadyRounds && !steady(resident)) {
          progress(`${name}@${key}: continuous load, round ${resident.length + 1} until its memory is steady (at most ${maxSteadyRounds})`);
          resident.push((await round(server)).rss);
        }
        const faults = [];
        for (let r = 0; r < continuousRounds; r++) {
          progress(`${name}@${key}: continuous load, round ${r + 1} of ${continuousRounds}`);
          faults.push((await round(server)).faults);
        }
        continuous[key] = { warmUpRounds: resident.length, faults };
      }
    }
    return { runs, continuous };
  } finally {
    for (const [, server] of started) await server.stop();
    await upstream.close();
  }
}
