// `mcp-frames relay --listen` as an operator runs it: /metrics after a known stream, SIGTERM during 50 open
// exchanges (every client gets a finish for every open channel), a second signal, a worker that dies, the log.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { restartDelay } from '../src/cli/cluster.js';
import { client, knownFaults } from './support/tcp-client.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');
const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const broken = Uint8Array.of(0, 0x7b);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);
const linux = process.platform === 'linux';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

async function upstreamServer(behave: (socket: net.Socket, k: number) => void): Promise<number> {
  let k = 0;
  const server = net.createServer((s) => {
    s.on('error', () => {});
    behave(s, ++k);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

type Line = Record<string, unknown> & { event?: string; reason?: string; worker?: number; connection?: number };

interface Running {
  child: ChildProcess;
  port: number;
  first: Line;
  lines(): Line[];
  /** Resolves once a line passes `test`. */
  line(test: (l: Line) => boolean): Promise<Line>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startRelay(upstreamPort: number, flags: string[]): Promise<Running> {
  const child = spawn(process.execPath, [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstreamPort}`, ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.slice()) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = () =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  const line = (test: (l: Line) => boolean) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const found = stderr.endsWith('\n') || stderr.includes('\n') ? lines().find(test) : undefined;
        if (found) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
        }
      };
      waiters.push(check);
      exited.then(() => reject(new Error(`relay exited before the line; stderr:\n${stderr}`)));
      check();
    });
  const first = await line((l) => typeof l.listening === 'string');
  return { child, port: Number(String(first.listening).split(':').at(-1)), first, lines, line, exited };
}

/** The samples of a Prometheus text exposition: 'name{labels}' to value. */
async function scrape(at: string): Promise<Map<string, number>> {
  const response = await fetch(`http://${at}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

const until = async (what: () => boolean | Promise<boolean>) => {
  while (!(await what())) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('relay --metrics', () => {
  // Connections 1 to 3: valid records, a broken frame, an extra response, a channel left open at a clean end.
  // Connection 4: one response, then upstream resets.
  const { stream, forwarded } = knownFaults(frame, broken);
  const resetIn = encodeResponse(9, frame);

  for (const workers of ['1', '2']) {
    it(`serves the known counts of a known stream in the Prometheus text format (--workers ${workers})`, async () => {
      const upstream = await upstreamServer((s, k) => {
        if (k <= 3) s.end(stream);
        else s.write(resetIn, () => setTimeout(() => s.resetAndDestroy(), 20));
      });
      const relay = await startRelay(upstream, ['--metrics', '127.0.0.1:0', '--workers', workers, '--log-level', 'info']);
      expect(relay.first).toMatchObject({ event: 'listening', workers: Number(workers), metrics: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
      for (let k = 0; k < 3; k++) expect(hex((await client(relay.port)).bytes)).toBe(hex(forwarded));
      expect(await client(relay.port)).toEqual({ bytes: cat(resetIn, encodeFinish(9)), ended: 'ECONNRESET' });
      await relay.line((l) => l.event === 'close' && l.end === 'failed');
      if (workers === '2') {
        // Both workers served connections, so the sums below are over processes.
        expect(
          new Set(
            relay
              .lines()
              .filter((l) => l.event === 'open')
              .map((l) => l.worker),
          ),
        ).toEqual(new Set([1, 2]));
      }

      const m = await scrape(String(relay.first.metrics));
      await until(async () => (await scrape(String(relay.first.metrics))).get('mcp_frames_connections_open') === 0);
      expect(m.get('mcp_frames_connections_total')).toBe(4);
      expect(m.get('mcp_frames_bytes_in_total')).toBe(3 * stream.length + resetIn.length);
      expect(m.get('mcp_frames_bytes_out_total')).toBe(3 * forwarded.length + resetIn.length + 9);
      expect(m.get('mcp_frames_records_in_total{kind="response"}')).toBe(3 * 5 + 1);
      expect(m.get('mcp_frames_records_in_total{kind="finish"}')).toBe(3 * 3);
      expect(m.get('mcp_frames_records_out_total{kind="response"}')).toBe(3 * 3 + 1);
      expect(m.get('mcp_frames_records_out_total{kind="finish"}')).toBe(3 * 4 + 1);
      expect(m.get('mcp_frames_faults_total{reason="frame-error"}')).toBe(3);
      expect(m.get('mcp_frames_faults_total{reason="sequence-violation"}')).toBe(3);
      expect(m.get('mcp_frames_faults_total{reason="incomplete"}')).toBe(3 + 1);
      expect(m.get('mcp_frames_faults_total{reason="upstream-error"}')).toBe(1);
      expect(m.get('mcp_frames_faults_total{reason="truncated"}')).toBe(0);
      expect(m.get('mcp_frames_upstream_errors_total{cause="reset"}')).toBe(1);
      expect(m.get('mcp_frames_upstream_errors_total{cause="refused"}')).toBe(0);
      expect(m.get('mcp_frames_open_channels')).toBe(0);
      // The histogram: one count per response read, cumulative buckets ending at +Inf.
      const buckets = [...m].filter(([k]) => k.startsWith('mcp_frames_validation_seconds_bucket')).map(([, v]) => v);
      expect(buckets.length).toBeGreaterThan(10);
      expect(buckets.every((v, k) => k === 0 || v >= buckets[k - 1])).toBe(true);
      expect(m.get('mcp_frames_validation_seconds_bucket{le="+Inf"}')).toBe(16);
      expect(m.get('mcp_frames_validation_seconds_count')).toBe(16);
      expect(m.get('mcp_frames_validation_seconds_sum')).toBeGreaterThan(0);
      if (workers === '2') expect([m.get('mcp_frames_workers'), m.get('mcp_frames_worker_restarts_total')]).toEqual([2, 0]);

      const notFound = await fetch(`http://${relay.first.metrics}/other`);
      expect(notFound.status).toBe(404);
      relay.child.kill('SIGTERM');
      expect(await relay.exited).toEqual({ code: 0, signal: null });
    }, 30_000);
  }
});

describe('relay --listen: stopping', () => {
  for (const workers of ['2', '1']) {
    it(`SIGTERM during 50 open exchanges: every client gets a finish for every open channel; those that end in time end cleanly (--workers ${workers})`, async () => {
      // Upstream connection k answers channel k whole, and opens channel 1000 + k, which it holds.
      const held = new Map<number, net.Socket>();
      const upstream = await upstreamServer((s, k) => {
        held.set(k, s);
        s.write(cat(encodeResponse(k, frame), encodeFinish(k), encodeResponse(1000 + k, frame)));
      });
      const relay = await startRelay(upstream, ['--workers', workers, '--drain-timeout', '1', '--log-level', 'info']);
      const clients = Array.from({ length: 50 }, () => client(relay.port));
      await until(() => relay.lines().filter((l) => l.event === 'open').length === 50 && held.size === 50);
      // Each client has its answer to channel k and the response of its open exchange.
      await new Promise((resolve) => setTimeout(resolve, 100));

      relay.child.kill('SIGTERM');
      const workerCount = Number(workers);
      await until(() => relay.lines().filter((l) => l.event === 'drain' && (workerCount === 1 || l.worker !== undefined)).length === workerCount);
      // Ten upstreams finish their exchange and end inside the drain timeout.
      for (let k = 1; k <= 10; k++) held.get(k)!.end(encodeFinish(1000 + k));

      expect(await relay.exited).toEqual({ code: 0, signal: null });
      const got = await Promise.all(clients);
      const seen = new Set<number>();
      for (const { bytes, ended } of got) {
        const k = bytes.readUInt32LE(1);
        seen.add(k);
        const want = cat(encodeResponse(k, frame), encodeFinish(k), encodeResponse(1000 + k, frame), encodeFinish(1000 + k));
        expect(hex(bytes), `client of upstream ${k}`).toBe(hex(want));
        expect(ended, `client of upstream ${k}`).toBe(k <= 10 ? 'end' : 'ECONNRESET');
      }
      expect(seen.size).toBe(50);

      const lines = relay.lines();
      const cut = lines.filter((l) => l.reason === 'drain-timeout');
      expect(cut).toHaveLength(40);
      expect(cut.every((l) => l.level === 'error' && l.afterMs === 1000)).toBe(true);
      expect(lines.filter((l) => l.reason === 'incomplete')).toHaveLength(40);
      const closes = lines.filter((l) => l.event === 'close');
      expect(closes.filter((l) => l.end === 'drained')).toHaveLength(40);
      expect(closes.filter((l) => l.end === 'ended')).toHaveLength(10);
      const drained = lines.filter((l) => l.event === 'drained' && (workerCount === 1 || l.worker !== undefined));
      expect(drained.reduce((a, l) => a + Number(l.cut), 0)).toBe(40);
    }, 60_000);
  }

  it('SIGTERM with 100 idle clients and 10 busy ones, --drain-timeout 30: it exits as soon as the busy ones finish', async () => {
    // Upstream connection k answers nothing until its client asks; a busy client's upstream holds a channel open.
    const held: net.Socket[] = [];
    const upstream = await upstreamServer((s) => {
      s.once('data', () => {
        held.push(s);
        s.write(encodeResponse(1, frame));
      });
    });
    const relay = await startRelay(upstream, ['--drain-timeout', '30', '--log-level', 'info']);
    const idle = Array.from({ length: 100 }, () => client(relay.port));
    const busy = Array.from({ length: 10 }, () => {
      const socket = net.connect(relay.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('data', () => {});
      socket.write('ask');
      return socket;
    });
    await until(() => held.length === 10 && relay.lines().filter((l) => l.event === 'open').length === 110);
    const signalled = performance.now();
    relay.child.kill('SIGTERM');
    await relay.line((l) => l.event === 'drain');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const s of held) s.end(encodeFinish(1));
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    // An idle connection held the whole 30 s drain, and each was cut with an error-level fault.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    // Nothing carried yet: each gets a reset, not a clean end that would read as an empty answer (WIRE.md section 7).
    for (const { ended, bytes } of await Promise.all(idle)) expect([ended, bytes.length]).toEqual(['ECONNRESET', 0]);
    for (const s of busy) s.destroy();
    expect(relay.lines().filter((l) => l.event === 'fault')).toEqual([]);
    expect(relay.lines().find((l) => l.event === 'drained')).toMatchObject({ connections: 110, cut: 0 });
  }, 60_000);

  it('run by npm (npx, npm start), which exits on SIGTERM without passing it on, it drains when npm has gone', async () => {
    const upstream = await upstreamServer(() => {});
    // A parent that dies as npm does: at once, leaving its child behind.
    const parent = spawn(
      'sh',
      ['-c', `"${process.execPath}" "${bin}" relay --listen 127.0.0.1:0 --upstream 127.0.0.1:${upstream} --log-level info 2>&1 & wait`],
      {
        env: { ...process.env, npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => {
      out += d;
    });
    await until(() => out.includes('"listening"'));
    parent.kill('SIGKILL');
    await until(() => out.includes('"drained"'));
    expect(out).toContain('"signal":"parent-gone"');
  }, 30_000);

  it('a second signal exits at once, whatever the drain timeout', async () => {
    const upstream = await upstreamServer((s) => s.write(encodeResponse(1, frame)));
    const relay = await startRelay(upstream, ['--workers', '2', '--drain-timeout', '600', '--log-level', 'info']);
    const socket = net.connect(relay.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    let ended = '';
    socket.on('end', () => {
      ended ||= 'end';
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      ended ||= e.code ?? '';
    });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await until(() => Buffer.concat(chunks).length === 9 + frame.length);
    relay.child.kill('SIGTERM');
    await relay.line((l) => l.event === 'drain' && l.worker !== undefined);
    relay.child.kill('SIGTERM');
    // 128 + 15: the status a shell gives a process SIGTERM killed. The drain had ten minutes left.
    expect(await relay.exited).toEqual({ code: 143, signal: null });
    // The workers were killed, with no finish sent; the primary reset the connection first, so it is no clean end.
    await closed;
    expect(hex(Buffer.concat(chunks))).toBe(hex(encodeResponse(1, frame)));
    expect(ended).toBe('ECONNRESET');
  }, 30_000);
});

describe.runIf(linux)('relay --listen: drains that went wrong (found by a hostile-input review)', () => {
  /** A connection to the relay that has read the response of channel 1, and holds the channel open. */
  async function holding(port: number) {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    let ended = '';
    socket.on('end', () => {
      ended ||= 'end';
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      ended ||= e.code ?? '';
    });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await until(() => Buffer.concat(chunks).length === 9 + frame.length);
    return { socket, closed, bytes: () => Buffer.concat(chunks), ended: () => ended };
  }

  it("a drain timeout past a timer's range still drains: the workers are not killed at its start", async () => {
    const upstream = await upstreamServer((s) => s.write(encodeResponse(1, frame)));
    const relay = await startRelay(upstream, ['--workers', '2', '--drain-timeout', '2147480', '--log-level', 'info']);
    const c = await holding(relay.port);
    relay.child.kill('SIGTERM');
    await relay.line((l) => l.event === 'drain' && l.worker !== undefined);
    // Before, the primary's rescue timer (the drain timeout plus 10 s) overflowed to 1 ms and killed the workers.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(relay.child.exitCode).toBe(null);
    expect(relay.lines().some((l) => l.event === 'worker-exit')).toBe(false);
    relay.child.kill('SIGTERM');
    expect(await relay.exited).toEqual({ code: 143, signal: null });
    await c.closed;
  }, 30_000);

  it('a worker killed during a drain is reported, not passed over', async () => {
    const upstream = await upstreamServer((s) => s.write(encodeResponse(1, frame)));
    const relay = await startRelay(upstream, ['--workers', '2', '--drain-timeout', '600', '--log-level', 'info']);
    const children = fs.readFileSync(`/proc/${relay.child.pid}/task/${relay.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    const c = await holding(relay.port);
    relay.child.kill('SIGTERM');
    await relay.line((l) => l.event === 'drain' && l.worker !== undefined);
    for (const pid of children) process.kill(pid, 'SIGKILL');
    expect(await relay.line((l) => l.event === 'worker-exit')).toMatchObject({ level: 'error', signal: 'SIGKILL', draining: true });
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    // The worker that held the connection died, and the finish never came; the primary reset the connection.
    await c.closed;
    expect(hex(c.bytes())).toBe(hex(encodeResponse(1, frame)));
    expect(c.ended()).toBe('ECONNRESET');
    expect(
      relay
        .lines()
        .filter((l) => l.event === 'worker-exit')
        .reduce((n, l) => n + Number(l.reset), 0),
    ).toBe(1);
  }, 30_000);

  it('a single process whose stderr nobody reads still exits after its drain', async () => {
    // 20,000 frames that fail, one fault line each, and stderr read only for its first line.
    const flood = cat(...Array.from({ length: 20_000 }, (_, ch) => cat(encodeResponse(ch, Uint8Array.of(0, 0x7b)), encodeFinish(ch))));
    const upstream = await upstreamServer((s) => s.end(flood));
    const child = spawn(process.execPath, [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstream}`, '--drain-timeout', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanup.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const first = await new Promise<string>((resolve) => child.stderr!.once('data', (d: Buffer) => resolve(d.toString())));
    child.stderr!.pause();
    const port = Number(JSON.parse(first.split('\n')[0]).listening.split(':').at(-1));
    for (let k = 0; k < 3; k++) await client(port);
    child.kill('SIGTERM');
    // Before, it was still alive 40 s after its drain, waiting for stderr to be read.
    const started = Date.now();
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);
});

describe.runIf(linux)('relay --workers: a worker that dies', () => {
  it('is replaced after a backoff, logged, and the port keeps serving', async () => {
    const upstream = await upstreamServer((s) => s.end(cat(encodeResponse(1, frame), encodeFinish(1))));
    const relay = await startRelay(upstream, ['--workers', '2', '--metrics', '127.0.0.1:0', '--log-level', 'info']);
    const children = fs.readFileSync(`/proc/${relay.child.pid}/task/${relay.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(children).toHaveLength(2);
    process.kill(children[0], 'SIGKILL');
    const exit = await relay.line((l) => l.event === 'worker-exit');
    expect(exit).toMatchObject({ level: 'error', pid: children[0], signal: 'SIGKILL', code: null, restartInMs: 100 });
    const start = await relay.line((l) => l.event === 'worker-start');
    expect(start).toMatchObject({ level: 'info', worker: 3 });
    for (let k = 0; k < 4; k++) expect(await client(relay.port)).toEqual({ bytes: cat(encodeResponse(1, frame), encodeFinish(1)), ended: 'end' });
    const m = await scrape(String(relay.first.metrics));
    expect([m.get('mcp_frames_workers'), m.get('mcp_frames_worker_restarts_total'), m.get('mcp_frames_connections_total')]).toEqual([2, 1, 4]);
    relay.child.kill('SIGTERM');
    expect(await relay.exited).toEqual({ code: 0, signal: null });
  }, 30_000);
});

describe('relay --workers: the restart backoff', () => {
  it('doubles from 100 ms for each quick death in a row, stops at 10 s, and starts over after a worker that lived 10 s', () => {
    const delays: number[] = [];
    let quick = 0;
    for (let k = 0; k < 10; k++) {
      const next = restartDelay(50, quick);
      delays.push(next.delayMs);
      quick = next.quickDeaths;
    }
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000]);
    expect(restartDelay(10_000, quick)).toEqual({ delayMs: 100, quickDeaths: 1 });
    expect(restartDelay(9_999, 1)).toEqual({ delayMs: 200, quickDeaths: 2 });
  });
});

describe('relay --log-level', () => {
  it('warn (the default) prints faults alone; info adds a line per connection opening and closing; error leaves out one-exchange faults', async () => {
    const upstream = await upstreamServer((s) => s.end(cat(encodeResponse(2, broken), encodeFinish(2))));
    const events = async (flags: string[]) => {
      const relay = await startRelay(upstream, flags);
      await client(relay.port);
      if (!flags.includes('error')) await relay.line((l) => l.reason === 'frame-error');
      if (flags.includes('info')) await relay.line((l) => l.event === 'close');
      relay.child.kill('SIGTERM');
      await relay.exited;
      return relay.lines().map((l) => `${l.level} ${l.event}${l.reason ? ` ${l.reason}` : ''}`);
    };
    expect(await events([])).toEqual(['info listening', 'warn fault frame-error']);
    expect(await events(['--log-level', 'error'])).toEqual(['info listening']);
    const info = await events(['--log-level', 'info']);
    expect(info).toEqual(['info listening', 'info open', 'warn fault frame-error', 'info close', 'info drain', 'info drained']);
  }, 30_000);

  it('a stream relay keeps its plain fault lines, and --log-level error leaves out one-exchange faults', () => {
    const input = cat(encodeResponse(2, broken), encodeFinish(2), encodeResponse(3, frame).subarray(0, 12));
    const plain = spawnSync(process.execPath, [bin, 'relay'], { input, encoding: 'utf8' });
    expect(
      plain.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).reason),
    ).toEqual(['frame-error', 'truncated']);
    expect(JSON.parse(plain.stderr.split('\n')[1])).toEqual({ reason: 'truncated', offset: 20 });
    const errors = spawnSync(process.execPath, [bin, 'relay', '--log-level', 'error'], { input, encoding: 'utf8' });
    expect(errors.stderr).toBe(`${JSON.stringify({ reason: 'truncated', offset: 20 })}\n`);
    expect([plain.status, errors.status]).toEqual([1, 1]);
  });

  it('fault lines keep their fields, with the time, level and event', async () => {
    const upstream = await upstreamServer((s) => s.end(cat(encodeResponse(2, broken), encodeFinish(2))));
    const relay = await startRelay(upstream, ['--log-level', 'info']);
    await client(relay.port);
    const fault = await relay.line((l) => l.reason === 'frame-error');
    expect(fault).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: 'warn',
      event: 'fault',
      connection: 1,
      reason: 'frame-error',
      channel: 2,
      offset: 0,
      frame: expect.objectContaining({ reason: 'body', rule: 'json-end', offset: 2 }),
    });
    const close = await relay.line((l) => l.event === 'close');
    expect(close).toEqual({
      time: expect.any(String),
      level: 'info',
      event: 'close',
      connection: 1,
      remote: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      end: 'ended',
      durationMs: expect.any(Number),
      bytesIn: 20,
      bytesOut: 9,
      recordsIn: 2,
      recordsOut: 1,
      faults: 1,
    });
    relay.child.kill('SIGTERM');
    await relay.exited;
  }, 30_000);
});

describe('relay: the operating flags', () => {
  it('refuses bad values, and TCP flags without --listen, with status 2', () => {
    for (const [args, message] of [
      [['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--workers', '0'], '--workers must be auto or a whole number from 1 to 1024'],
      [['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--workers', 'many'], '--workers must be'],
      [['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--drain-timeout', 'soon'], '--drain-timeout must be a number of seconds'],
      [['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--metrics', 'nope'], "--metrics 'nope' is not HOST:PORT"],
      [['--log-level', 'debug'], "--log-level must be one of error, warn, info, not 'debug'"],
      [['--workers', '2'], '--workers goes with --listen and --upstream'],
      [['--metrics', '127.0.0.1:9'], '--metrics goes with --listen and --upstream'],
      [['--drain-timeout', '1'], '--drain-timeout goes with --listen and --upstream'],
      [['--client-idle-timeout', '1'], '--client-idle-timeout goes with --listen and --upstream'],
      [['--max-connections', '5'], '--max-connections goes with --listen and --upstream'],
      [
        ['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--max-connections', 'many'],
        "--max-connections must be a whole number from 0 to 1000000, not 'many'",
      ],
      [
        ['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--max-connections', '1000001'],
        '--max-connections must be a whole number from 0 to 1000000',
      ],
      [
        ['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--client-idle-timeout', 'never'],
        '--client-idle-timeout must be a number of seconds',
      ],
    ] as const) {
      const r = spawnSync(process.execPath, [bin, 'relay', ...args], { input: '', encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`mcp-frames: relay: ${message}`);
    }
  });

  it('a metrics address that cannot be had is status 2, with one line saying why', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    for (const workers of ['1', '2']) {
      const r = spawnSync(
        process.execPath,
        [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--metrics', `127.0.0.1:${port}`, '--workers', workers],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(r.status, workers).toBe(2);
      expect(r.stderr, workers).toMatch(new RegExp(`mcp-frames: relay: cannot serve metrics on 127\\.0\\.0\\.1:${port}: `));
    }
  });

  it('a listening address that cannot be had is status 2 with workers too', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    const r = spawnSync(process.execPath, [bin, 'relay', '--listen', `127.0.0.1:${port}`, '--upstream', '127.0.0.1:1', '--workers', '2'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`mcp-frames: relay: cannot listen on 127\\.0\\.0\\.1:${port}: `));
  });
});
