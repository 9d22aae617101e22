// The CLI's surface on hostile input: option values, the metrics endpoint's HTTP clients, and backends
// loaded from builds that are not good cores. Each case failed on the code before its fix.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { METRICS_MAX_CONNECTIONS, serveMetrics } from '../src/cli/metrics.js';
import { BackendUnavailableError, createLoader } from '../src/backend/loader.js';
import { CoreInstance } from '../src/backend/wasm/instance.js';
import { backend, init, loadBackend, setDefaultBackend } from '../src/runtime/core.js';
import { defaultBackend } from '../src/backend/default.js';
import { jsBackend } from '../src/backend/js.js';
import { httpStatus } from './support/haproxy.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');
const build = (name: string) => new Uint8Array(fs.readFileSync(path.join(root, `build/core-${name}.wasm`)));

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** The CLI run to its end; a command line that starts a relay instead is sent SIGTERM after 10 s (it drains: status 0). */
function run(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { input: '', encoding: 'utf8', timeout: 10_000 });
}

describe('option values', () => {
  it('a timeout too short to be a millisecond is refused, not taken as 0 (no timeout)', () => {
    for (const flag of ['--connect-timeout', '--idle-timeout', '--drain-timeout']) {
      const r = run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', flag, '0.0001']);
      expect(r.status, flag).toBe(2);
      expect(r.stderr, flag).toContain(`mcp-frames: relay: ${flag} must be 0 (none) or at least a millisecond (0.001), not '0.0001'`);
    }
    // 0 itself still means none, and half a millisecond or more rounds to at least 1 ms.
    expect(run(['relay', '--idle-timeout', '0']).stderr).toContain('--idle-timeout goes with --listen');
    expect(run(['relay', '--idle-timeout', '0.0005']).stderr).toContain('--idle-timeout goes with --listen');
  });

  it('a flag that takes a value, given twice, is refused rather than one of them silently winning', () => {
    for (const args of [
      ['inspect', '--endpoint', 'list-resources', '--endpoint', 'read-resource', '--json'],
      ['inspect', '--endpoint', 'list-resources', '--max-frame-bytes', '5', '--max-frame-bytes=70000', '--json'],
      ['decode', '--hex', '--endpoint', 'list-resources', '--backend', 'js', '--backend', 'wasm'],
      ['relay', '--validate', 'none', '--validate', 'json'],
    ]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /^mcp-frames: (inspect|decode|relay): --[a-z-]+ is given twice \('.*' and '.*'\); see mcp-frames --help\n$/,
      );
    }
    // A boolean flag given twice says the same thing twice: it is taken.
    expect(run(['inspect', '--endpoint', 'list-resources', '--json', '--json']).status).toBe(0);
  });

  it('a value that starts with a dash, taken for a flag, says how to give it', () => {
    const r = run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--workers', '-1']);
    expect(r.status).toBe(2);
    // Before: "option '--workers' argument is ambiguous", and no more.
    expect(r.stderr).toBe(
      "mcp-frames: relay: option '--workers' argument is ambiguous (a value that starts with '-' is written --workers=-…); see mcp-frames --help\n",
    );
    expect(run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--workers=-1']).stderr).toContain(
      "--workers must be auto or a whole number from 1 to 1024, not '-1'",
    );
  });
});

describe('addresses', () => {
  it('an upstream on port 0 is refused: nothing can be connected to there, and every client was reset', () => {
    const r = run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("mcp-frames: relay: --upstream '127.0.0.1:0' has port 0, which nothing can be connected to; see mcp-frames --help\n");
  });
});

describe('the backend a relay runs', () => {
  /** The first line a relay --listen writes on stderr, the relay then stopped. */
  async function listeningLine(flags: string[]): Promise<Record<string, unknown>> {
    const child = spawn(process.execPath, [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', ...flags], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanup.push(() => child.kill('SIGKILL'));
    let text = '';
    for await (const chunk of child.stderr!) {
      text += chunk;
      if (text.includes('\n')) break;
    }
    return JSON.parse(text.slice(0, text.indexOf('\n')));
  }

  it("is in the listening line: with 'auto' the core that loaded, or js, never left unsaid", async () => {
    expect(await listeningLine(['--backend', 'js'])).toMatchObject({ event: 'listening', backend: 'js' });
    expect(await listeningLine(['--backend', 'wasm-scalar'])).toMatchObject({ event: 'listening', backend: 'wasm-scalar' });
    expect((await listeningLine([])).backend).toMatch(/^(wasm-simd|wasm-scalar|js)$/);
  });

  it("names the schema judges: the compiled ones under 'full', none where no schema is judged", async () => {
    expect(await listeningLine(['--validate', 'full', '--endpoint', 'list-resources'])).toMatchObject({ event: 'listening', judges: 'compiled' });
    expect(await listeningLine(['--validate', 'json'])).toMatchObject({ event: 'listening', judges: 'none' });
  });
});

describe('the metrics endpoint', () => {
  async function metricsServer(scrape: () => Promise<string>) {
    const { server, port } = await serveMetrics({ host: '127.0.0.1', port: 0 }, scrape);
    cleanup.push(() => {
      server.close();
      server.closeAllConnections();
    });
    return { server, port };
  }

  it('pipelined requests on one connection do not pile up: a second request before the first is answered closes it', async () => {
    let scrapes = 0;
    const { port } = await metricsServer(async () => {
      scrapes++;
      return 'mcp_frames_connections_open 0\n';
    });
    const n = 5000;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    const answered = () => text.split('HTTP/1.1 200').length - 1;
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        // On the code before the fix every request was scraped and answered, and the connection stayed open.
        if (answered() === n) resolve();
      });
      socket.on('close', () => resolve());
      socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n));
    });
    socket.destroy();
    // Each request in flight held its request, its response and its scrape: 8 connections of
    // such requests, unread, held 414 MB of heap in the relay.
    expect(scrapes).toBeLessThanOrEqual(1);
    expect(answered()).toBeLessThanOrEqual(1);
  });

  it(`holds at most ${METRICS_MAX_CONNECTIONS} connections: more would take the relay's file descriptors`, async () => {
    const { server, port } = await metricsServer(async () => '');
    const n = METRICS_MAX_CONNECTIONS + 40;
    let closed = 0;
    await new Promise<void>((resolve) => {
      for (let k = 0; k < n; k++) {
        const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /metr'));
        socket.on('error', () => {});
        socket.on('close', () => {
          if (++closed === n - METRICS_MAX_CONNECTIONS) resolve();
        });
        cleanup.push(() => socket.destroy());
      }
    });
    const open = await new Promise<number>((resolve, reject) => server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
    expect(open).toBeLessThanOrEqual(METRICS_MAX_CONNECTIONS);
  }, 15_000);

  it(`${METRICS_MAX_CONNECTIONS} keep-alive connections that were answered, or trickle a body, do not lock a health check out`, async () => {
    const { port } = await metricsServer(async () => '');
    for (let k = 0; k < METRICS_MAX_CONNECTIONS; k++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      cleanup.push(() => socket.destroy());
      // Half ask and are answered, keeping the connection; half send a POST whose body never ends.
      const asked = new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.write(k % 2 === 0 ? 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n' : 'POST /healthz HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\nab');
      await asked;
    }
    // Each new check is answered; the connections idle longest made room.
    for (let k = 0; k < 8; k++) expect(await httpStatus(port, '/healthz')).toBe(200);
  }, 15_000);
});

describe('backends from builds that are not good cores', () => {
  it('a SIMD build that does not compile says so, on a host that runs SIMD', () => {
    // Cut short: still a wasm header, no longer a module.
    const corrupt = build('simd').slice(0, -100);
    expect(WebAssembly.validate(corrupt)).toBe(false);
    const load = createLoader((name) => (name === 'simd' ? corrupt : build('scalar')));
    let error: unknown;
    try {
      load('wasm-simd');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(BackendUnavailableError);
    // Before, the message blamed the host: "this host does not run WebAssembly SIMD".
    expect((error as Error).message).toMatch(
      /^the simd build does not load here: WebAssembly\.Module\(\): section .* extends past end of the module/,
    );
    // 'wasm' still falls back to the scalar build, and says so by its name.
    expect(load('wasm').name).toBe('wasm-scalar');
  });

  it('a module that is not the core is refused by name, before it is instantiated', () => {
    const empty = new WebAssembly.Module(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0));
    const load = createLoader(() => empty);
    expect(() => load('wasm-scalar')).toThrow(
      new BackendUnavailableError("the scalar build does not load here: the module is not mcp-frames' core (it has no export memory)"),
    );
  });

  it('a core whose record table or fold block is laid out otherwise is refused as it is instantiated', () => {
    const real = new WebAssembly.Instance(new WebAssembly.Module(build('scalar')), {});
    const laidOut = (change: Record<string, () => number>) => ({ exports: { ...real.exports, ...change } }) as unknown as WebAssembly.Instance;
    expect(() => new CoreInstance(laidOut({}))).not.toThrow();
    expect(() => new CoreInstance(laidOut({ entryFields: () => 7 }))).toThrow(
      new Error("the core's record layout (7 fields an entry, 8 fold slots) is not this package's (6, 8): a core from another build"),
    );
    expect(() => new CoreInstance(laidOut({ foldMax: () => 16 }))).toThrow(/\(6 fields an entry, 16 fold slots\)/);
  });

  it('init(): before it, a core asked for says what brings it; a second call changes nothing, loadBackend included', () => {
    // Before init(), a core asked for says what brings it: "await ready" alone waited for ever.
    expect(() => loadBackend('wasm')).toThrow(/await ready \(on mcp-frames\/core, after calling init\(\) with them\)/);
    expect(init({ scalar: build('scalar') })).toBe('wasm-scalar');
    expect(init({ simd: new WebAssembly.Module(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0)) })).toBe('wasm-scalar');
    // Before, the second call's builds replaced the first's for loadBackend while the default stayed:
    // 'wasm' threw "no scalar build was given to init()" and 'auto' gave js.
    expect(loadBackend('wasm').name).toBe('wasm-scalar');
    expect(loadBackend('auto').name).toBe('wasm-scalar');
  });

  it('setDefaultBackend: a name is refused where it is given, and `backend` names the default that serves', () => {
    // After the init() above, the core serves.
    expect(backend).toBe('wasm-scalar');
    setDefaultBackend(jsBackend);
    // Before, `backend` kept naming the core while every decode ran on js.
    expect(backend).toBe('js');
    // Before, the name was taken, and every decode after threw "backend.verifyFrame is not a function".
    expect(() => setDefaultBackend('wasm' as never)).toThrow(
      new TypeError("setDefaultBackend takes a backend (loadBackend('wasm') gives one), not the string 'wasm'"),
    );
    expect(() => setDefaultBackend(null as never)).toThrow(TypeError);
    expect(defaultBackend()).toBe(jsBackend);
    setDefaultBackend(loadBackend('wasm-scalar'));
    expect(backend).toBe('wasm-scalar');
  });
});
