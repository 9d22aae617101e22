// `mcp-frames relay --listen` and `mcp-frames proxy` run as an operator runs them, for tests: the JSON lines, the exit, the
// descriptors the processes hold, and their memory.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
export const bin = path.join(root, 'dist/cli/main.js');

export type Line = Record<string, unknown> & { event?: string; reason?: string; worker?: number; connection?: number };

export interface RelayProcess {
  child: ChildProcess;
  port: number;
  first: Line;
  lines(): Line[];
  /** Resolves once a line passes `test`. */
  line(test: (l: Line) => boolean): Promise<Line>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The process ids of the relay: the process, and its workers (read now: a worker replaced has a new one). */
  pids(): number[];
  /** Descriptors open now in the relay's processes, in all. */
  fds(): number;
  /** The main process's resident memory now, and at its peak (VmRSS and VmHWM), in bytes. */
  rss(): { now: number; peak: number };
  /** Kills the relay (SIGKILL) if it is still running. */
  kill(): void;
}

/** Starts `relay --listen 127.0.0.1:0 --upstream 127.0.0.1:PORT FLAGS…` and resolves once it prints its listening line. */
export function startRelay(upstreamPort: number, flags: readonly string[]): Promise<RelayProcess> {
  return startCli(['relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstreamPort}`, ...flags]);
}

/** Starts `mcp-frames ARGS…` (with `env` added to the environment) and resolves once it prints its listening line. */
export async function startCli(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<RelayProcess> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let stderr = '';
  let parsed: Line[] = [];
  let parsedUpTo = 0;
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.slice()) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // Parsed once each: a run with thousands of lines would otherwise parse them all at every look.
  const lines = () => {
    const end = stderr.lastIndexOf('\n') + 1;
    if (end > parsedUpTo) {
      const fresh = stderr
        .slice(parsedUpTo, end)
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
      parsed = parsed.concat(fresh);
      parsedUpTo = end;
    }
    return parsed;
  };
  const line = (test: (l: Line) => boolean) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const found = lines().find(test);
        if (found) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
        }
      };
      waiters.push(check);
      exited.then(() => reject(new Error(`relay exited before the line; stderr:\n${stderr.slice(-4000)}`)));
      check();
    });
  const pids = () => {
    const pid = child.pid!;
    let children: number[] = [];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      // the relay has exited
    }
    return [pid, ...children];
  };
  const fds = () => {
    let total = 0;
    for (const pid of pids()) {
      try {
        total += fs.readdirSync(`/proc/${pid}/fd`).length;
      } catch {
        // a worker that has just exited
      }
    }
    return total;
  };
  const rss = () => {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { now: kb('VmRSS'), peak: kb('VmHWM') };
  };
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const first = await line((l) => typeof l.listening === 'string');
  return { child, port: Number(String(first.listening).split(':').at(-1)), first, lines, line, exited, pids, fds, rss, kill };
}

/** Polls `what` every 20 ms until it holds. The test's own timeout bounds the wait: a verdict never depends on how long it took. */
export async function until(what: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await what())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** An upstream server on a free loopback port that runs `behave` on its k-th connection; `close` stops it and destroys what it holds. */
export async function upstreamServer(behave: (socket: net.Socket, k: number) => void): Promise<{ port: number; close(): void }> {
  let k = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    behave(s, ++k);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

/** The samples of a Prometheus text exposition: 'name{labels}' to value. */
export async function scrape(at: string): Promise<Map<string, number>> {
  const response = await fetch(`http://${at}/metrics`);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}
