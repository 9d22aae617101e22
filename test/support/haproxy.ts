// The real HAProxy in front of two mcp-frames processes, run from examples/haproxy/haproxy.cfg as written, its ports
// replaced by free ones. Without haproxy the tests fail, saying how to install it: they never skip in silence.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
export const EXAMPLE_CONFIG = path.join(root, 'examples', 'haproxy', 'haproxy.cfg');

/** The ports the example names: the frontend, the two servers, and their health ports. */
export const EXAMPLE_PORTS = { frontend: 7000, server1: 7101, server2: 7102, health1: 7201, health2: 7202 } as const;
export type Ports = Record<keyof typeof EXAMPLE_PORTS, number>;

/** The haproxy binary: $HAPROXY, or haproxy on the PATH or in /usr/sbin; an Error saying how to install it when none. */
export function haproxyBinary(): string {
  const candidates = [process.env.HAPROXY, 'haproxy', '/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].filter(Boolean) as string[];
  for (const candidate of candidates) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  throw new Error(
    'haproxy is not installed, and the load-balancer tests need the real one: apt-get install -y haproxy (Debian, Ubuntu; .ci/run does it), ' +
      'dnf install haproxy, brew install haproxy, or set HAPROXY to its path',
  );
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The example's configuration with its ports replaced; for the test, its log
 * on stderr (the example logs nowhere) and a runtime socket at `socket`.
 */
export function configFor(ports: Ports, socket: string): string {
  let text = fs.readFileSync(EXAMPLE_CONFIG, 'utf8');
  for (const key of Object.keys(EXAMPLE_PORTS) as Array<keyof Ports>) {
    text = text.replaceAll(`:${EXAMPLE_PORTS[key]}`, `:${ports[key]}`).replaceAll(`port ${EXAMPLE_PORTS[key]}`, `port ${ports[key]}`);
  }
  return text
    .replace(/^global$/m, `global\n    log stderr format raw local0\n    stats socket ${socket} mode 600`)
    .replace(/^defaults$/m, 'defaults\n    log global\n    option tcplog');
}

/** Sends one command to HAProxy's runtime socket; resolves with its answer. */
export function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socket);
    let text = '';
    s.on('connect', () => s.end(`${command}\n`));
    s.on('data', (d: Buffer) => {
      text += d;
    });
    s.on('close', () => resolve(text));
    s.on('error', reject);
  });
}

export interface Haproxy {
  child: ChildProcess;
  /** Stops the health checks of `server` (mcp1, mcp2): once its process has gone, another may listen on its ports. */
  stopChecking(server: string): Promise<string>;
  /** The addresses the start-up probes connected from: HAProxy passed them on like any client. */
  probes: string[];
  /** What haproxy wrote: its session lines (option tcplog) and its notices. */
  log(): string;
  stop(): Promise<void>;
}

/** Runs haproxy in the foreground with `config`; resolves once its frontend accepts connections. */
export async function startHaproxy(ports: Ports): Promise<Haproxy> {
  const binary = haproxyBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  const socket = path.join(dir, 'runtime.sock');
  const frontend = ports.frontend;
  fs.writeFileSync(file, configFor(ports, socket));
  const check = spawnSync(binary, ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refuses the configuration:\n${check.stdout}${check.stderr}`);
  const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    log += d;
  });
  child.stderr!.on('data', (d: Buffer) => {
    log += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const probes: string[] = [];
  for (let tries = 0; ; tries++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(frontend, '127.0.0.1');
      s.on('connect', () => {
        probes.push(`127.0.0.1:${s.localPort}`);
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (tries > 100 || child.exitCode !== null) throw new Error(`haproxy did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    stopChecking: (server) => runtimeCommand(socket, `disable health mcp_frames/${server}`),
    probes,
    log: () => log,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** GET http://127.0.0.1:PORT/PATH: the status, or 0 when nothing answers. */
export async function httpStatus(port: number, pathname: string): Promise<number> {
  return (await httpGet(port, pathname)).status;
}

/** GET http://127.0.0.1:PORT/PATH on a connection of its own: the status (0 when nothing answers) and the body. */
export function httpGet(port: number, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    s.setTimeout(2000, () => s.destroy());
    s.on('connect', () => s.write(`GET ${pathname} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`));
    s.on('data', (d: Buffer) => {
      text += d;
    });
    s.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const head = text.indexOf('\r\n\r\n');
      const body = head < 0 ? '' : text.slice(head + 4);
      resolve({ status, body: /^transfer-encoding: *chunked/im.test(text.slice(0, head)) ? dechunk(body) : body });
    });
    s.on('error', () => {});
  });
}

/** A chunked body's data. */
function dechunk(body: string): string {
  let data = '';
  for (let at = 0; at < body.length; ) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) break;
    data += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return data;
}

/** Resolves once `test()` holds, looking every 20 ms; rejects after `ms`. */
export async function until(test: () => boolean | Promise<boolean>, ms = 20_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
