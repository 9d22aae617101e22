// A rolling restart behind the real HAProxy, configured as examples/haproxy/haproxy.cfg says: two relays (then two
// proxies) with --proxy-protocol and --health, clients streaming through HAProxy, SIGTERM to one mid-load. Every
// client gets its stream byte for byte, or a reset (or, through the proxy, its exchange reported not carried); none
// gets a clean end on a cut stream. Once HAProxy has seen /readyz fail, new clients all reach the other process. The
// processes' logs name the clients' own addresses, which the PROXY protocol header carries, not HAProxy's.

import { createHash } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExchangeCutError, NotCarriedError } from '../src/client/client.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { connect } from '../src/runtime/client-node.js';
import { freePort, type Haproxy, httpStatus, type Ports, startHaproxy, until } from './support/haproxy.js';
import { type RelayProcess, startCli } from './support/relay-process.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One client's stream: 1 MiB of 16 KiB listings, each channel's finish after the next channel's response. */
function recordStream(): { bytes: Buffer; sha256: string } {
  const body = Buffer.from(`\u0000${JSON.stringify({ resources: [{ uri: 'file:///x', name: 'x'.repeat(16_000) }] })}`);
  const parts: Uint8Array[] = [];
  let size = 0;
  let channel = 1;
  for (; size < 1 << 20; channel++) {
    const part = channel === 1 ? encodeResponse(channel, body) : Buffer.concat([encodeResponse(channel, body), encodeFinish(channel - 1)]);
    parts.push(part);
    size += part.length;
  }
  parts.push(encodeFinish(channel - 1));
  const bytes = Buffer.concat(parts);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** An upstream that answers each connection's first bytes with the stream, 64 KiB every 5 ms, then ends. */
async function pacedUpstream(stream: Buffer): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      let at = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        if (at >= stream.length) {
          clearInterval(timer);
          socket.end();
          return;
        }
        socket.write(stream.subarray(at, at + 65_536));
        at += 65_536;
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
}

type Outcome = 'complete' | 'reset' | 'clean-end-cut' | 'clean-end-empty' | `error ${string}`;

/** A client through HAProxy: asks, reads its stream, and says how it ended; `local` is its own address. */
function streamClient(port: number, sha256: string, length: number): Promise<{ outcome: Outcome; local: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const hash = createHash('sha256');
    let bytes = 0;
    let local = '';
    socket.on('connect', () => {
      local = `127.0.0.1:${socket.localPort}`;
      socket.write('{"channel":1,"method":"resources/list"}\n');
    });
    socket.on('data', (d: Buffer) => {
      hash.update(d);
      bytes += d.length;
    });
    socket.on('end', () => {
      const whole = bytes === length && hash.digest('hex') === sha256;
      resolve({ outcome: whole ? 'complete' : bytes === 0 ? 'clean-end-empty' : 'clean-end-cut', local });
      socket.destroy();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => resolve({ outcome: e.code === 'ECONNRESET' ? 'reset' : `error ${e.code}`, local }));
  });
}

function tally(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** The port a process's listening line names under `field`. */
const portOf = (p: RelayProcess, field: string) => Number(String(p.first[field]).split(':').at(-1));

/**
 * Both processes (each on ports of its own choosing: a port picked free and
 * bound later may be taken meanwhile) and HAProxy in front, once HAProxy has
 * both servers up.
 */
async function behindHaproxy(start: () => Promise<RelayProcess>) {
  const first = await start();
  cleanups.push(() => first.kill());
  const second = await start();
  cleanups.push(() => second.kill());
  const ports: Ports = {
    frontend: await freePort(),
    server1: first.port,
    server2: second.port,
    health1: portOf(first, 'health'),
    health2: portOf(second, 'health'),
  };
  const haproxy = await startHaproxy(ports);
  cleanups.push(() => haproxy.stop());
  // rise 2 at inter 500ms: both servers are up after their second check.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return { first, second, haproxy, ports };
}

/** SIGTERM to `process`: /readyz answers 503 before the drain has ended anything, and HAProxy marks the server down. */
async function drainOne(target: RelayProcess, health: number, haproxy: Haproxy, server: string): Promise<number> {
  target.child.kill('SIGTERM');
  await target.line((l) => l.event === 'drain');
  const status = await httpStatus(health, '/readyz');
  await until(() => haproxy.log().includes(`${server} is DOWN`), 10_000, `haproxy to mark ${server} down`);
  // Once the process has exited, its health port is free for another process of the test run to take.
  await haproxy.stopChecking(server);
  return status;
}

const opens = (p: RelayProcess) => p.lines().filter((l) => l.event === 'open');

describe('a rolling restart behind HAProxy (examples/haproxy/haproxy.cfg)', () => {
  it('two relays: every stream whole or reset, never a clean end on a cut one; new clients on the other relay; client addresses logged', async () => {
    const { bytes, sha256 } = recordStream();
    const upstream = await pacedUpstream(bytes);
    const { first, second, haproxy, ports } = await behindHaproxy(() =>
      startCli([
        'relay',
        ...['--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstream}`],
        ...['--proxy-protocol', '--health', '127.0.0.1:0', '--drain-timeout', '30', '--log-level', 'info'],
      ]),
    );
    expect(await httpStatus(ports.health1, '/readyz')).toBe(200);
    expect(await httpStatus(ports.health1, '/healthz')).toBe(200);

    const clients: Array<Promise<{ outcome: Outcome; local: string }>> = [];
    for (let k = 0; k < 60; k++) clients.push(streamClient(ports.frontend, sha256, bytes.length));
    const draining = new Promise((resolve) => setTimeout(resolve, 300)).then(() => drainOne(first, ports.health1, haproxy, 'mcp1'));
    for (let k = 0; k < 140; k++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      clients.push(streamClient(ports.frontend, sha256, bytes.length));
    }
    expect(await draining).toBe(503);
    const done = await Promise.all(clients);
    const outcomes = tally(done.map((d) => d.outcome));
    expect(
      Object.keys(outcomes).filter((o) => o !== 'complete' && o !== 'reset'),
      JSON.stringify(outcomes),
    ).toEqual([]);
    expect(outcomes.complete).toBeGreaterThanOrEqual(150);
    expect(opens(first).length, 'the first relay had clients before its drain').toBeGreaterThan(0);

    // Once HAProxy has marked the draining relay down, every new client reaches the other one, and none is refused.
    const before = opens(second).length;
    const later = await Promise.all(Array.from({ length: 20 }, () => streamClient(ports.frontend, sha256, bytes.length)));
    expect(tally(later.map((d) => d.outcome))).toEqual({ complete: 20 });
    expect(opens(second).length - before).toBe(20);
    await first.line((l) => l.event === 'drained');

    // The relays name each client by the address it connected to HAProxy from.
    const clientAddresses = new Set([...done, ...later].map((d) => d.local).concat(haproxy.probes));
    for (const line of [...opens(first), ...opens(second)]) expect(clientAddresses.has(String(line.remote)), String(line.remote)).toBe(true);
  }, 120_000);

  it('two proxies: exchanges in flight are answered or reported not carried, never ended by a clean end; new clients on the other proxy', async () => {
    const server = path.join(import.meta.dirname, 'support', 'scripted-server.mjs');
    const { first, second, haproxy, ports } = await behindHaproxy(() =>
      startCli([
        'proxy',
        ...['--listen', '127.0.0.1:0', '--proxy-protocol', '--health', '127.0.0.1:0'],
        ...['--drain-timeout', '30', '--log-level', 'info', '--', process.execPath, server],
      ]),
    );
    /** A client through HAProxy asking three questions at once, each answered 300 ms later; how each call ended. */
    const ask = async () => {
      const client = await connect(`127.0.0.1:${ports.frontend}`);
      const calls = Array.from({ length: 3 }, () => client.readResource({ uri: 'scripted://later/300' }));
      const closed = client.close();
      const ends = await Promise.all(
        calls.map((call) =>
          call.then(
            (result) => ((result.contents[0] as { text?: string } | undefined)?.text === 'later' ? 'answered' : 'wrong answer'),
            (error: unknown) =>
              error instanceof NotCarriedError
                ? 'not carried'
                : error instanceof ExchangeCutError
                  ? error.end.end === 'ok'
                    ? 'cut by a clean end'
                    : 'cut by a reset'
                  : `error ${String(error)}`,
          ),
        ),
      );
      await closed.catch(() => {});
      return ends;
    };
    const clients: Array<Promise<string[]>> = [];
    for (let k = 0; k < 40; k++) clients.push(ask());
    const draining = new Promise((resolve) => setTimeout(resolve, 150)).then(() => drainOne(first, ports.health1, haproxy, 'mcp1'));
    for (let k = 0; k < 60; k++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      clients.push(ask());
    }
    expect(await draining).toBe(503);
    const outcomes = tally((await Promise.all(clients)).flat());
    expect(
      Object.keys(outcomes).filter((o) => o !== 'answered' && o !== 'not carried' && o !== 'cut by a reset'),
      JSON.stringify(outcomes),
    ).toEqual([]);
    // At least the three calls of each of the 40 clients that asked before the signal: how many of the later 60 reach the
    // draining proxy in its last second (and are not carried, `draining`) depends on HAProxy's check and the load.
    expect(outcomes.answered).toBeGreaterThanOrEqual(120);

    const before = opens(second).length;
    const later = (await Promise.all(Array.from({ length: 20 }, ask))).flat();
    expect(tally(later)).toEqual({ answered: 60 });
    expect(opens(second).length - before).toBe(20);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    for (const line of [...opens(first), ...opens(second)]) expect(String(line.remote)).toMatch(/^127\.0\.0\.1:\d+$/);
  }, 120_000);
});
