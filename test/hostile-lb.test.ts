// Hostile tests of the load-balancer surface: the PROXY protocol header, the health port, and drains behind (and
// without) a balancer, each attacked as a hostile peer or a new user would, and what must hold.

import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readProxyHeader } from '../src/connection/proxy-header.js';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { freePort, type Haproxy, type Ports, startHaproxy, until } from './support/haproxy.js';
import { type RelayProcess, startCli, startRelay, upstreamServer } from './support/relay-process.js';
import { connectClient } from './support/tcp-client.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const STREAM = Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function answeringUpstream(): Promise<number> {
  // Answers each connection's first bytes with one whole exchange, then ends cleanly.
  const up = await upstreamServer((s) => s.once('data', () => s.end(STREAM)));
  cleanups.push(() => up.close());
  return up.port;
}

function track(relay: RelayProcess): RelayProcess {
  cleanups.push(() => relay.kill());
  return relay;
}

/** HAProxy (examples/haproxy) in front of two relays started with --health, given time to see both up. */
async function haproxyOver(first: RelayProcess, second: RelayProcess): Promise<{ ports: Ports; haproxy: Haproxy }> {
  const ports: Ports = {
    frontend: await freePort(),
    server1: first.port,
    server2: second.port,
    health1: portOf(first.first.health),
    health2: portOf(second.first.health),
  };
  const haproxy = await startHaproxy(ports);
  cleanups.push(() => haproxy.stop());
  await sleep(1500);
  return { ports, haproxy };
}

/** GET http://127.0.0.1:PORT/PATH with a deadline: the status, or 0 when nothing answers in time. */
function status(port: number, pathname: string, ms = 2000): Promise<number> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    s.setTimeout(ms, () => s.destroy());
    s.on('connect', () => s.write(`GET ${pathname} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`));
    s.on('data', (d: Buffer) => {
      text += d;
    });
    s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    s.on('error', () => {});
  });
}

const portOf = (at: unknown) => Number(String(at).split(':').at(-1));

describe('drains', () => {
  // With --workers as with one process (WIRE.md section 7), the listener stays open until none has come for 1 s: a
  // client that comes within the second after SIGTERM is served, not refused.
  it('--workers 2: a client that connects just after SIGTERM is served, not refused', async () => {
    const upstream = await answeringUpstream();
    const relay = track(await startRelay(upstream, ['--workers', '2', '--drain-timeout', '10', '--log-level', 'info']));
    // One connection in flight, so that the drain has something to wait for.
    const held = connectClient(relay.port, Buffer.from('x'));
    cleanups.push(() => held.socket.destroy());
    await sleep(200);
    relay.child.kill('SIGTERM');
    await relay.line((l) => l.event === 'drain' && l.worker === undefined);
    await sleep(100);
    const late = await connectClient(relay.port, Buffer.from('request')).done;
    expect(late.ended).toBe('end');
    expect(late.bytes.toString('hex')).toBe(STREAM.toString('hex'));
  }, 20_000);
});

describe('the health port', () => {
  // 32 connections that send nothing must not take every slot of the port: /healthz failing for tens of seconds
  // (node:http's 60 s headersTimeout) would let any peer that reaches the port have the balancer mark the process down.
  it('answers /healthz within a few seconds after 32 silent connections', async () => {
    const relay = track(await startCli(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:9', '--health', '127.0.0.1:0']));
    const port = portOf(relay.first.health);
    const silent: net.Socket[] = [];
    for (let k = 0; k < 40; k++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      silent.push(s);
    }
    cleanups.push(() => {
      for (const s of silent) s.destroy();
    });
    await sleep(300);
    // A balancer checks every few seconds, with a check timeout of a few seconds: give the port 10 s in all.
    const deadline = Date.now() + 10_000;
    let last = 0;
    for (;;) {
      last = await status(port, '/healthz', 1000);
      if (last === 200 || Date.now() > deadline) break;
      await sleep(200);
    }
    expect(last).toBe(200);
  }, 30_000);
});

describe('the PROXY header', () => {
  const SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];
  const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

  // One IPv4-mapped client is named alike from a v2 header and a v1 line, as Node names a dual-stack socket's peer
  // ("::ffff:1.2.3.4"): RFC 5952 section 5 writes an IPv4-mapped address with its IPv4 part dotted.
  it('names an IPv4-mapped IPv6 client the same from v1 and v2, with its IPv4 part dotted', () => {
    const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4];
    const block = [...mapped, ...mapped, 0, 80, 0, 81];
    const v2 = readProxyHeader(Uint8Array.from([...SIGNATURE, 0x21, 0x21, 0, block.length, ...block]));
    const v1 = readProxyHeader(ascii('PROXY TCP6 ::ffff:1.2.3.4 ::ffff:1.2.3.4 80 81\r\n'));
    expect(v1).toMatchObject({ source: '[::ffff:1.2.3.4]:80' });
    expect(v2).toMatchObject({ source: '[::ffff:1.2.3.4]:80' });
  });

  // net.isIPv6 takes a zone id ("%eth0"); a scope id is the receiving host's, never a remote client's, and no
  // balancer sends one: the line is refused.
  it('refuses a v1 TCP6 line whose source carries a zone id', () => {
    expect(readProxyHeader(ascii('PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n'))).toMatchObject({ refused: 'proxy-header' });
    expect(readProxyHeader(ascii('PROXY TCP6 ::1 fe80::1%lo 1 2\r\n'))).toMatchObject({ refused: 'proxy-header' });
  });
});

describe('a new user', () => {
  // `relay --help` and `proxy --help` list --proxy-protocol and --health in their usage lines, the two flags
  // examples/haproxy/README.md needs.
  it.each(['relay', 'proxy'])('%s --help names --proxy-protocol and --health in its usage lines', async (command) => {
    const { spawnSync } = await import('node:child_process');
    const { bin } = await import('./support/relay-process.js');
    const help = spawnSync(process.execPath, [bin, command, '--help'], { encoding: 'utf8' });
    const text = help.stdout + help.stderr;
    // The usage lines: from "Usage:" to the first line of description (six spaces, then a word).
    const lines = text.slice(text.indexOf('Usage:')).split('\n');
    const usage = lines
      .slice(
        0,
        lines.findIndex((l) => /^ {6}[A-Za-z]/.test(l)),
      )
      .join('\n');
    expect(usage).toContain(`mcp-frames ${command}`);
    expect(usage).toContain('--proxy-protocol');
    expect(usage).toContain('--health HOST:PORT');
  });
});

describe('behind HAProxy, as examples/haproxy/haproxy.cfg runs it', () => {
  type Outcome = 'complete' | 'reset' | 'clean-end-cut' | 'clean-end-empty' | `error ${string}`;
  /** A client through HAProxy: asks, reads its stream, and says how it ended. */
  function streamClient(port: number, whole: Buffer): Promise<Outcome> {
    const sha256 = createHash('sha256').update(whole).digest('hex');
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      const hash = createHash('sha256');
      let bytes = 0;
      socket.on('connect', () => socket.write('{"channel":1,"method":"resources/list"}\n'));
      socket.on('data', (d: Buffer) => {
        hash.update(d);
        bytes += d.length;
      });
      socket.on('end', () => {
        resolve(bytes === whole.length && hash.digest('hex') === sha256 ? 'complete' : bytes === 0 ? 'clean-end-empty' : 'clean-end-cut');
        socket.destroy();
      });
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNRESET' ? 'reset' : `error ${e.code}`));
    });
  }

  // The README's rolling restart with --workers 2 on each relay: a primary that closed its listener at SIGTERM would
  // reset the connections the kernel had completed and it had not accepted, which HAProxy passes on as a clean,
  // empty end.
  it('--workers 2: no client sees a clean end without its stream while one relay drains', async () => {
    // An upstream that answers each connection 100 ms after its first bytes, then ends.
    const up = await upstreamServer((s) => s.once('data', () => setTimeout(() => s.end(STREAM), 100)));
    cleanups.push(() => up.close());
    const start = async () =>
      track(
        await startCli([
          'relay',
          ...['--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${up.port}`, '--workers', '2'],
          ...['--proxy-protocol', '--health', '127.0.0.1:0', '--drain-timeout', '30', '--log-level', 'info'],
        ]),
      );
    // The race is in the moment the listener closes: three rolling restarts, each with fresh relays and HAProxy.
    const clients: Array<Promise<Outcome>> = [];
    for (let round = 0; round < 3; round++) {
      const first = await start();
      const { ports, haproxy } = await haproxyOver(first, await start());
      let stop = false;
      const load = (async () => {
        while (!stop) {
          for (let k = 0; k < 20; k++) clients.push(streamClient(ports.frontend, STREAM));
          await sleep(5);
        }
      })();
      await sleep(300);
      // A burst as the signal comes: some of it is in the relay's accept queue when it stops.
      for (let k = 0; k < 300; k++) clients.push(streamClient(ports.frontend, STREAM));
      await sleep(3);
      first.child.kill('SIGTERM');
      await until(() => haproxy.log().includes('mcp1 is DOWN'), 10_000, 'haproxy to mark mcp1 down');
      await sleep(500);
      stop = true;
      await load;
    }
    const counts: Record<string, number> = {};
    for (const o of await Promise.all(clients)) counts[o] = (counts[o] ?? 0) + 1;
    expect(
      Object.keys(counts).filter((o) => o !== 'complete' && o !== 'reset'),
      JSON.stringify(counts),
    ).toEqual([]);
  }, 90_000);

  // examples/haproxy/README.md: restart one, and restart the other only once HAProxy has the first up again. Restarted
  // at once, both would be down together, and HAProxy ends its clients' connections cleanly with nothing sent.
  it('a rolling restart done as the README says loses no client', async () => {
    const up = await upstreamServer((s) => s.once('data', () => setTimeout(() => s.end(STREAM), 100)));
    cleanups.push(() => up.close());
    const start = async (listen: string, health: string) =>
      track(
        await startCli([
          'relay',
          ...['--listen', listen, '--upstream', `127.0.0.1:${up.port}`],
          ...['--proxy-protocol', '--health', health, '--drain-timeout', '30', '--log-level', 'info'],
        ]),
      );
    const first = await start('127.0.0.1:0', '127.0.0.1:0');
    const second = await start('127.0.0.1:0', '127.0.0.1:0');
    const { ports, haproxy } = await haproxyOver(first, second);
    const clients: Array<Promise<Outcome>> = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        clients.push(streamClient(ports.frontend, STREAM));
        await sleep(10);
      }
    })();
    // Restart the first: SIGTERM, wait for it to exit, start it again on its ports; then the second.
    first.child.kill('SIGTERM');
    await first.exited;
    await start(`127.0.0.1:${ports.server1}`, `127.0.0.1:${ports.health1}`);
    // As the README says: the other waits until HAProxy has the first up again.
    await until(() => haproxy.log().includes('mcp1 is UP'), 10_000, 'haproxy to mark mcp1 up');
    second.child.kill('SIGTERM');
    await second.exited;
    await sleep(1500);
    stop = true;
    await load;
    const counts: Record<string, number> = {};
    for (const o of await Promise.all(clients)) counts[o] = (counts[o] ?? 0) + 1;
    expect(
      Object.keys(counts).filter((o) => o !== 'complete'),
      JSON.stringify(counts),
    ).toEqual([]);
  }, 60_000);
});
