// GET /healthz and GET /readyz, for load balancers: on --health without metrics, on --metrics with them, and under
// --workers from the primary. /readyz answers 503 from the moment a drain begins, while connections still finish, and
// the proxy's while its MCP server is not ready.

import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { httpGet, httpStatus } from './support/haproxy.js';
import { bin, type RelayProcess, startCli, startRelay, upstreamServer } from './support/relay-process.js';

const SCRIPTED = path.join(import.meta.dirname, 'support', 'scripted-server.mjs');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const frame = Uint8Array.from([0, ...new TextEncoder().encode('{"resources":[]}')]);

/** A relay whose upstream holds channel 1 open until `release()`: a drain then waits for its client. */
async function busyRelay(flags: string[]): Promise<{ relay: RelayProcess; client: net.Socket; release: () => void }> {
  const held: net.Socket[] = [];
  const upstream = await upstreamServer((s) => {
    s.once('data', () => {
      held.push(s);
      s.write(encodeResponse(1, frame));
    });
  });
  cleanups.push(() => upstream.close());
  const relay = await startRelay(upstream.port, flags);
  cleanups.push(() => relay.kill());
  const client = net.connect(relay.port, '127.0.0.1');
  client.on('error', () => {});
  client.on('data', () => {});
  client.write('ask');
  cleanups.push(() => client.destroy());
  const deadline = Date.now() + 10_000;
  while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return {
    relay,
    client,
    release: () => {
      for (const s of held) s.end(encodeFinish(1));
    },
  };
}

describe('/healthz and /readyz', () => {
  for (const [what, extra] of [
    ['--health, one process', []],
    ['--health, --workers 2 (the primary answers)', ['--workers', '2']],
    ['--metrics', ['metrics']],
  ] as const) {
    it(`${what}: 200 and 200 while it serves; /readyz 503 once a drain begins, while a connection still finishes`, async () => {
      const flags = extra[0] === 'metrics' ? ['--metrics', '127.0.0.1:0'] : ['--health', '127.0.0.1:0', ...extra];
      const { relay, release } = await busyRelay([...flags, '--drain-timeout', '30', '--log-level', 'info']);
      // The listening line names the port it got.
      const at = String(relay.first[extra[0] === 'metrics' ? 'metrics' : 'health']);
      expect(at).toMatch(/^127\.0\.0\.1:\d+$/);
      const port = Number(at.split(':')[1]);
      expect(await httpStatus(port, '/healthz')).toBe(200);
      expect(await httpStatus(port, '/readyz')).toBe(200);
      expect(await httpStatus(port, '/nowhere')).toBe(404);
      // The absolute form a client sends through an HTTP proxy (RFC 9112 section 3.2.2) names the same paths.
      expect(await httpStatus(port, `http://127.0.0.1:${port}/readyz`)).toBe(200);
      expect(await httpStatus(port, `HTTP://localhost/healthz?probe=1`)).toBe(200);
      expect(await httpStatus(port, `http://127.0.0.1:${port}/nowhere`)).toBe(404);
      expect(await httpStatus(port, `http://127.0.0.1:${port}`)).toBe(404);
      relay.child.kill('SIGTERM');
      await relay.line((l) => l.event === 'drain');
      expect(await httpStatus(port, '/readyz')).toBe(503);
      expect(await httpStatus(port, '/healthz')).toBe(200);
      release();
      expect(await relay.exited).toEqual({ code: 0, signal: null });
    }, 30_000);
  }

  it('the proxy: /readyz answers 503 while its MCP server is not ready (starting, or started again), saying so', async () => {
    // The server answers initialize 2 s after it comes, and exits 4 s after: ready from about 2 s to 4 s, then
    // started again 100 ms later, and ready 2 s after that.
    const env = { SCRIPTED_INIT_DELAY_MS: '2000', SCRIPTED_EXIT_AFTER_INIT_MS: '4000' };
    const proxy = await startCli(
      ['proxy', '--listen', '127.0.0.1:0', '--metrics', '127.0.0.1:0', '--log-level', 'info', '--', process.execPath, SCRIPTED],
      env,
    );
    cleanups.push(() => proxy.kill());
    const at = String(proxy.first.metrics);
    const port = Number(at.split(':')[1]);
    const readyz = async () => {
      const { status, body } = await httpGet(port, '/readyz');
      return [status, body];
    };
    // Each on a connection of its own: a pooled one could meet the port's idle close.
    const serverReady = async () => Number(/^mcp_frames_proxy_server_ready (\d)$/m.exec((await httpGet(port, '/metrics')).body)?.[1]);
    expect(await readyz()).toEqual([503, 'the MCP server is not ready\n']);
    expect(await serverReady()).toBe(0);
    expect(await httpStatus(port, '/healthz')).toBe(200);
    await proxy.line((l) => l.event === 'server-ready');
    expect(await readyz()).toEqual([200, 'ready\n']);
    expect(await serverReady()).toBe(1);
    await proxy.line((l) => l.event === 'fault' && l.reason === 'server-ended');
    expect(await readyz()).toEqual([503, 'the MCP server is not ready\n']);
    expect(await serverReady()).toBe(0);
    await proxy.line((l) => l.event === 'server-ready' && l.starts === 2);
    expect(await readyz()).toEqual([200, 'ready\n']);
    proxy.child.kill('SIGTERM');
    expect((await proxy.exited).code).toBe(0);
  }, 30_000);

  it('--health and --metrics do not go together, and --health needs --listen', () => {
    for (const args of [
      ['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--health', '127.0.0.1:0', '--metrics', '127.0.0.1:0'],
      ['relay', '--health', '127.0.0.1:0'],
      ['proxy', '--listen', '127.0.0.1:0', '--health', 'nowhere', '--', 'true'],
    ]) {
      const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mcp-frames: (relay|proxy): .*--health/);
    }
  });
});
