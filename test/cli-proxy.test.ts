// `mcp-frames proxy` as an operator runs it: server-everything behind it, then `mcp-frames relay --validate full` in
// front, the listening line, a log line per fault, /metrics, usage errors, and the drain on SIGTERM.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyClient } from './support/proxy-client.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const SCRIPTED = path.join(import.meta.dirname, 'support', 'scripted-server.mjs');

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

type Line = Record<string, unknown>;

/** Runs the CLI with `args`; resolves once it prints its listening line. */
async function run(args: string[]): Promise<{ child: ChildProcess; port: number; first: Line; lines: () => Line[]; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  const lines = () =>
    stderr
      .split('\n')
      .slice(0, -1)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const first = await new Promise<Line>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const found = stderr.includes('\n') ? lines().find((l) => typeof l.listening === 'string') : undefined;
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`exited before listening: ${stderr}`)));
  });
  return { child, port: Number(String(first.listening).split(':').at(-1)), first, lines, exited };
}

async function until(test: () => boolean): Promise<void> {
  for (let k = 0; k < 200 && !test(); k++) await new Promise((r) => setTimeout(r, 25));
}

describe('mcp-frames proxy', () => {
  it('serves server-everything through mcp-frames relay --validate full: results and the server error arrive as sent', async () => {
    const proxy = await run(['proxy', '--listen', '127.0.0.1:0', '--metrics', '127.0.0.1:0', '--', process.execPath, EVERYTHING, 'stdio']);
    expect(proxy.first).toMatchObject({ level: 'info', event: 'listening', server: `${process.execPath} ${EVERYTHING} stdio` });
    const relay = await run([
      'relay',
      '--listen',
      '127.0.0.1:0',
      '--upstream',
      `127.0.0.1:${proxy.port}`,
      '--validate',
      'full',
      '--endpoint',
      'read-resource',
    ]);
    const client = await ProxyClient.connect(relay.port);
    cleanup.push(() => client.close());
    const [one, missing] = await Promise.all([
      client.exchange(1, 'resources/read', { uri: 'test://static/resource/1' }),
      client.exchange(2, 'resources/read', { uri: 'test://static/resource/0' }),
    ]);
    expect(JSON.parse(Buffer.from(one.payload!.subarray(1)).toString())).toEqual({
      contents: [{ uri: 'test://static/resource/1', name: 'Resource 1', mimeType: 'text/plain', text: 'Resource 1: This is a plaintext resource' }],
    });
    expect(Buffer.from(missing.payload!).toString('latin1')).toBe('\x01{"code":-32603,"message":"Unknown resource: test://static/resource/0"}');
    const scrape = await (await fetch(`http://${proxy.first.metrics}/metrics`)).text();
    expect(scrape).toContain('mcp_frames_proxy_exchanges_total{outcome="result"} 1');
    expect(scrape).toContain('mcp_frames_proxy_exchanges_total{outcome="error"} 1');
    expect(scrape).toContain('mcp_frames_proxy_not_carried_total{cause="timeout"} 0');
    expect(scrape).toContain('mcp_frames_proxy_exchange_seconds_count 2');
    expect(scrape).toContain('mcp_frames_proxy_server_restarts_total 0');
    expect(relay.lines().filter((l) => l.event === 'fault')).toEqual([]);
    client.close();
    relay.child.kill('SIGTERM');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(await relay.exited).toBe(0);
  });

  it('--server-url: reaches server-everything in its Streamable HTTP mode', async () => {
    const server = spawn(process.execPath, ['--import', path.join(import.meta.dirname, 'support', 'loopback.mjs'), EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanup.push(() => server.kill());
    const httpPort = await new Promise<number>((resolve) => {
      let err = '';
      server.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /loopback-port (\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
    });
    const url = `http://127.0.0.1:${httpPort}/mcp`;
    const proxy = await run(['proxy', '--listen', '127.0.0.1:0', '--server-url', url]);
    expect(proxy.first).toMatchObject({ event: 'listening', server: url });
    const client = await ProxyClient.connect(proxy.port);
    cleanup.push(() => client.close());
    const a = await client.exchange(1, 'resources/read', { uri: 'test://static/resource/2' });
    expect(Buffer.from(a.payload!).toString('latin1')).toBe(
      '\x00{"contents":[{"uri":"test://static/resource/2","name":"Resource 2","mimeType":"application/octet-stream","blob":"UmVzb3VyY2UgMjogVGhpcyBpcyBhIGJhc2U2NCBibG9i"}]}',
    );
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
  });

  it('logs an exchange not carried with its cause, and drains on SIGTERM: the exchange in flight is finished', async () => {
    const proxy = await run([
      'proxy',
      '--listen',
      '127.0.0.1:0',
      '--exchange-timeout',
      '0.5',
      '--drain-timeout',
      '0.2',
      '--log-level',
      'info',
      '--',
      process.execPath,
      SCRIPTED,
    ]);
    const client = await ProxyClient.connect(proxy.port);
    cleanup.push(() => client.close());
    await until(() => proxy.lines().some((l) => l.event === 'server-ready'));
    const timedOut = await client.exchange(1, 'resources/read', { uri: 'scripted://hang' });
    expect(timedOut.payload).toBeNull();
    await until(() => proxy.lines().some((l) => l.event === 'fault'));
    expect(proxy.lines().find((l) => l.event === 'fault')).toMatchObject({
      level: 'warn',
      connection: 1,
      reason: 'not-carried',
      cause: 'timeout',
      channel: 1,
    });
    const draining = client.exchange(2, 'resources/read', { uri: 'scripted://hang' });
    await new Promise((r) => setTimeout(r, 100));
    proxy.child.kill('SIGTERM');
    expect((await draining).payload).toBeNull();
    expect(await proxy.exited).toBe(0);
    const connectionLines = (l: Record<string, unknown>) => l.event === 'open' || l.event === 'close';
    expect(
      proxy
        .lines()
        .filter((l) => !connectionLines(l))
        .map((l) => `${l.event} ${l.cause ?? ''}`.trim()),
    ).toEqual(['listening', 'server-ready', 'fault timeout', 'drain', 'fault drain-timeout', 'drained']);
    // The connection's own lines, as the relay writes them: it opened, and the drain cut it.
    expect(proxy.lines().filter(connectionLines)).toEqual([
      expect.objectContaining({ event: 'open', connection: 1, remote: expect.stringMatching(/^127\.0\.0\.1:\d+$/) }),
      expect.objectContaining({ event: 'close', connection: 1, end: 'drained', lines: 2, answered: 0, notCarried: 2 }),
    ]);
  });

  it('refuses a command line it cannot run, with status 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['proxy', '--', 'x'], /--listen HOST:PORT is required/],
      [['proxy', '--listen', '127.0.0.1:0'], /give the server/],
      [['proxy', '--listen', '127.0.0.1:0', '--server-url', 'ftp://x'], /http: or https:/],
      [['proxy', '--listen', '127.0.0.1:0', '--server-url', 'http://127.0.0.1:1/mcp', '--', 'x'], /do not go together/],
      [['proxy', '--listen', '127.0.0.1:0', '--exchange-timeout', 'soon', '--', 'x'], /--exchange-timeout must be a number of seconds/],
    ];
    for (const [args, message] of cases) {
      const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
