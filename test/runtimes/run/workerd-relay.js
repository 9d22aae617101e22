// workerd-relay: examples/worker, bundled as wrangler bundles it, run in workerd through miniflare against a real upstream on loopback.
//
// # What runs
//
// The example is copied into a consumer folder whose node_modules/mcp-frames
// links to the project, so 'mcp-frames/worker' resolves by name, through
// "exports" with the workerd condition; its wrangler.toml gives the main
// module and the compatibility date. UPSTREAM points at a Node TCP server on
// 127.0.0.1, reached from the Worker with connect() (cloudflare:sockets).
//
// # What is checked
//
// Each exchange sends a scenario's name upstream (the request body, or a
// WebSocket message: the client-to-upstream direction), and upstream answers
// with that scenario's records:
//
//   valid    whole records                 relayed byte for byte; WebSocket close 1000
//   broken   a frame that is not JSON      its finish alone (not carried); close 1000; a warn line
//   cut      a record cut by upstream's    a finish for each open channel; close 1011
//            close                         naming the record error (truncated)
//   reset    upstream resets mid-stream    a finish for each open channel; close 1000: workerd's
//                                          connect() reads a reset as the end of the stream (its
//                                          readable is done and its closed promise resolves), so the
//                                          Worker cannot tell the two apart; the finishes still come
//
// over a WebSocket and over a streamed HTTP response (which workerd ends
// cleanly even after a failure: the bytes are checked, not the end). The
// valid scenario is asked for again with a binary message (workerd hands
// the Worker a Blob), and no exchange logs an upstream error. Then, with an
// idle timeout of 1 s, an upstream that falls silent with a channel open is
// timed out (its finish, close 1011 naming the timeout); a client that
// leaves while upstream is silent is logged client-gone, not as an upstream
// failure; and a client that sends far more than a deaf upstream takes is
// closed (1008, a client-overrun fault) rather than held in the Worker's
// memory. With VALIDATE=full and no ENDPOINT, each channel is judged by
// the method its client's request line named: a frame that is not its
// method's result, and one on a channel no line named, are refused. Then a
// Worker whose upstream refuses answers 502 with the fault
// as JSON, and names the compiled judges in x-mcp-frames-judges. The backend is the one the Worker
// names in x-mcp-frames-backend. The Worker is bundled minified, as `wrangler deploy --minify` does.

import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import WebSocket from 'ws';
import { bundle } from './bundle.js';

const te = new TextEncoder();

/** A record (WIRE.md section 3): kind, channel, length, payload. */
function record(kind, channel, payload = new Uint8Array(0)) {
  const out = new Uint8Array(9 + payload.length);
  const view = new DataView(out.buffer);
  out[0] = kind;
  view.setUint32(1, channel, true);
  view.setUint32(5, payload.length, true);
  out.set(payload, 9);
  return out;
}
const response = (channel, payload) => record(1, channel, payload);
const finish = (channel) => record(2, channel);
const cat = (...parts) => Buffer.concat(parts);
const frame = (json) => cat(Uint8Array.of(0), te.encode(json));

const listing = frame('{"resources":[{"uri":"file:///a","name":"a","x-vendor":1}]}');
const text = frame(`{"contents":[{"uri":"file:///t","text":"${'relayed at the edge '.repeat(500)}"}]}`);
const broken = frame('{"resources":[');

/** Each scenario: what upstream sends (then how it stops), and what the client must receive. */
const SCENARIOS = {
  valid: {
    send: cat(response(1, listing), finish(1), response(2, text), response(3, listing), finish(3), finish(2)),
    stop: 'end',
    want: cat(response(1, listing), finish(1), response(2, text), response(3, listing), finish(3), finish(2)),
    close: 1000,
  },
  broken: {
    send: cat(response(1, listing), response(2, broken), finish(2), finish(1)),
    stop: 'end',
    want: cat(response(1, listing), finish(2), finish(1)),
    close: 1000,
  },
  cut: {
    send: cat(response(1, listing), finish(1), response(5, text), response(6, listing).subarray(0, 20)),
    stop: 'end',
    want: cat(response(1, listing), finish(1), response(5, text), finish(5)),
    close: 1011,
    reason: { reason: 'truncated', offset: 2 * 9 + listing.length + 9 + text.length },
  },
  reset: {
    send: cat(response(7, listing), response(8, listing), finish(7)),
    stop: 'reset',
    want: cat(response(7, listing), response(8, listing), finish(7), finish(8)),
    close: 1000,
  },
};

/**
 * VALIDATE=full with no ENDPOINT: the Worker judges each channel by the method its request line named. The client's
 * lines name channel 1 resources/list and channel 2 resources/read; upstream answers both with a listing (valid for 1,
 * not a read result for 2) and channel 3, which no line named, with a listing too: only channel 1 is carried.
 */
const AUTO = {
  lines: '{"channel":1,"method":"resources/list"}\n{"channel":2,"method":"resources/read","params":{"uri":"file:///a"}}',
  send: cat(response(1, listing), finish(1), response(2, listing), finish(2), response(3, listing), finish(3)),
  want: cat(response(1, listing), finish(1), finish(2), finish(3)),
};

/** Scenarios of their own: upstream answers with one response and falls silent, or takes nothing more at all. */
const SILENT = { send: response(9, listing), want: cat(response(9, listing), finish(9)) };
/** Whole exchanges, then a response's header and half its payload, then nothing: a stall inside a record. */
const STALLED = {
  send: cat(response(1, listing), finish(1), response(6, listing).subarray(0, 9 + (listing.length >> 1))),
  want: cat(response(1, listing), finish(1)),
};

/** The upstream: reads a scenario's name (one line), answers with its records, then ends or resets. */
async function startUpstream() {
  /** Every connection, so that close() need not wait for the deaf one: paused, it never reads its end. */
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let line = '';
    socket.on('data', (chunk) => {
      if (line.includes('\n')) return;
      line += chunk.toString('latin1');
      const name = line.split('\n')[0];
      if (!line.includes('\n')) return;
      if (name === 'silent') return socket.write(SILENT.send);
      if (name === 'stalled') return socket.write(STALLED.send);
      if (name === 'deaf') return socket.pause();
      if (name.startsWith('{')) return socket.end(AUTO.send);
      const scenario = SCENARIOS[name];
      if (!scenario) return socket.destroy();
      socket.write(scenario.send, () => {
        if (scenario.stop === 'end') socket.end();
        else setTimeout(() => socket.resetAndDestroy(), 50);
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  return Object.assign(server, {
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  });
}

/** A port nothing listens on. */
async function closedPort() {
  const s = net.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(null)));
  const port = /** @type {net.AddressInfo} */ (s.address()).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/**
 * One exchange over a WebSocket: resolves with the bytes, the close code and reason, and the backend header.
 * `after` runs once the name is sent: to send more, or to leave.
 *
 * @param {URL} url
 * @param {string} name
 * @param {{ binary?: boolean, after?: (ws: WebSocket) => void }} [how]
 */
function overWebSocket(url, name, { binary = false, after = undefined } = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.href.replace(/^http/, 'ws'));
    const chunks = [];
    let backend = null;
    ws.on('upgrade', (res) => {
      backend = res.headers['x-mcp-frames-backend'] ?? null;
    });
    ws.on('open', () => {
      ws.send(binary ? Buffer.from(`${name}\n`) : `${name}\n`);
      after?.(ws);
    });
    ws.on('message', (data) => chunks.push(Buffer.from(/** @type {Buffer} */ (data))));
    // An exchange the Worker never ends is a failed check, not a run that hangs: after 10 s the client gives up.
    const timer = setTimeout(() => {
      resolve({ bytes: Buffer.concat(chunks), code: 'no close in 10 s', reason: '', backend });
      ws.terminate();
    }, 10_000);
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), code, reason: reason.toString(), backend });
    });
    ws.on('error', reject);
  });
}

/** One exchange over streamed HTTP: the scenario's name as the request body. */
async function overHttp(url, name) {
  const res = await fetch(url, { method: 'POST', body: `${name}\n` });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), bytes, backend: res.headers.get('x-mcp-frames-backend') };
}

/** The consumer folder: the example and a node_modules/mcp-frames link to the project. */
async function makeExample(root) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-worker-'));
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(root, path.join(dir, 'node_modules', 'mcp-frames'), 'dir');
  for (const file of ['worker.js', 'wrangler.toml', 'package.json']) await cp(path.join(root, 'examples/worker', file), path.join(dir, file));
  const toml = await readFile(path.join(dir, 'wrangler.toml'), 'utf8');
  const main = /^main\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!main || !date) throw new Error('examples/worker/wrangler.toml has no main or compatibility_date');
  return { dir, main, date };
}

/** Runs the checks; resolves with { report, files } as the matrix wants. */
export async function runWorkerdRelay(root) {
  const example = await makeExample(root);
  const upstream = await startUpstream();
  const out = path.join(example.dir, 'out');
  let mf;
  let logged = '';
  try {
    await mkdir(out);
    const files = await bundle('workerd', `./${example.main}`, out, example.dir, { minify: true });
    const options = (port, vars = {}) => ({
      modules: true,
      scriptPath: path.join(out, example.main),
      modulesRoot: out,
      modulesRules: [
        { type: 'ESModule', include: ['**/*.js'] },
        { type: 'CompiledWasm', include: ['**/*.wasm'] },
      ],
      compatibilityDate: example.date,
      bindings: { UPSTREAM: `127.0.0.1:${port}`, VALIDATE: 'json', CONNECT_TIMEOUT: '5', ...vars },
      host: '127.0.0.1',
      port: 0,
      // The Worker's console.log lines (its structured log) come out of workerd's stdout.
      handleRuntimeStdio(stdout, stderr) {
        stdout.on('data', (d) => {
          logged += d;
        });
        stderr.on('data', () => {});
      },
    });
    mf = new Miniflare(options(/** @type {net.AddressInfo} */ (upstream.address()).port));
    const url = await mf.ready;

    const failures = [];
    let checks = 0;
    const check = (ok, what) => {
      checks++;
      if (!ok) failures.push(what);
    };
    const backends = new Set();
    for (const [name, s] of Object.entries(SCENARIOS)) {
      const ws = await overWebSocket(url, name);
      backends.add(ws.backend);
      check(ws.bytes.equals(s.want), `websocket ${name}: got ${ws.bytes.toString('hex')}, want ${s.want.toString('hex')}`);
      check(ws.code === s.close, `websocket ${name}: closed ${ws.code}, want ${s.close}`);
      if (s.reason) {
        let reason = null;
        try {
          reason = JSON.parse(ws.reason);
        } catch {}
        const fits = reason && Object.entries(s.reason).every(([k, v]) => reason[k] === v);
        check(fits, `websocket ${name}: close reason '${ws.reason}', want ${JSON.stringify(s.reason)}`);
      }
      const http = await overHttp(url, name);
      backends.add(http.backend);
      check(http.status === 200 && http.type === 'application/octet-stream', `http ${name}: ${http.status} ${http.type}`);
      check(http.bytes.equals(s.want), `http ${name}: got ${http.bytes.toString('hex')}, want ${s.want.toString('hex')}`);
    }
    // A binary message: workerd hands the Worker a Blob, which went upstream as no bytes at all.
    const binary = await overWebSocket(url, 'valid', { binary: true });
    check(
      binary.bytes.equals(SCENARIOS.valid.want) && binary.code === 1000,
      `websocket valid as a binary message: ${binary.code} ${binary.bytes.toString('hex')}`,
    );
    // The Worker's log: the broken frame is one warn line naming its channel, twice (once per transport).
    const logLines = () =>
      logged
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
    const lines = logLines();
    const frameErrors = lines.filter((l) => l.event === 'fault' && l.reason === 'frame-error' && l.channel === 2 && l.level === 'warn');
    check(frameErrors.length === 2, `the Worker logged ${frameErrors.length} frame-error lines, want 2: ${logged.slice(0, 300)}`);
    check(lines.filter((l) => l.event === 'close').length === 2 * Object.keys(SCENARIOS).length + 1, 'the Worker logged a close line per exchange');
    check(
      !lines.some((l) => l.reason === 'upstream-error'),
      `no exchange failed upstream, yet: ${lines.filter((l) => l.reason === 'upstream-error').map((l) => JSON.stringify(l))}`,
    );

    // With an idle timeout of 1 s: an upstream silent with a channel open is timed out.
    await mf.setOptions(options(/** @type {net.AddressInfo} */ (upstream.address()).port, { IDLE_TIMEOUT: '1' }));
    const idleUrl = await mf.ready;
    const silent = await overWebSocket(idleUrl, 'silent');
    let reason = null;
    try {
      reason = JSON.parse(silent.reason);
    } catch {}
    check(silent.bytes.equals(SILENT.want), `websocket silent: got ${silent.bytes.toString('hex')}, want ${SILENT.want.toString('hex')}`);
    check(
      silent.code === 1011 && reason?.reason === 'upstream-timeout' && reason?.phase === 'idle',
      `websocket silent: closed ${silent.code} '${silent.reason}'`,
    );
    // An upstream that stalls inside a record, with no channel open yet: timed out all the same.
    const stalled = await overWebSocket(idleUrl, 'stalled');
    let stalledReason = null;
    try {
      stalledReason = JSON.parse(stalled.reason);
    } catch {}
    check(stalled.bytes.equals(STALLED.want), `websocket stalled: got ${stalled.bytes.toString('hex')}, want ${STALLED.want.toString('hex')}`);
    check(
      stalled.code === 1011 && stalledReason?.reason === 'upstream-timeout' && stalledReason?.phase === 'idle',
      `websocket stalled inside a record: closed ${stalled.code} '${stalled.reason}'`,
    );
    // A client that leaves while upstream is silent: client-gone, and no upstream failure made of it.
    logged = '';
    await overWebSocket(idleUrl, 'silent', { after: (ws) => setTimeout(() => ws.close(1000), 200) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = logLines();
    check(
      left.some((l) => l.event === 'close' && l.end === 'client-gone'),
      `a client that left: ${logged.slice(0, 300)}`,
    );
    check(
      !left.some((l) => l.reason === 'upstream-error' || l.reason === 'upstream-timeout'),
      `a client that left was logged as an upstream failure: ${logged.slice(0, 300)}`,
    );
    // A client that sends far more than a deaf upstream takes is closed, not held in memory.
    logged = '';
    const flood = Buffer.alloc(512 * 1024, 0x41);
    const overrun = await overWebSocket(idleUrl, 'deaf', {
      after: (ws) => {
        for (let k = 0; k < 32 && ws.readyState === WebSocket.OPEN; k++) ws.send(flood);
      },
    });
    check(overrun.code === 1008, `a flooding client: closed ${overrun.code} '${overrun.reason}', want 1008`);
    check(
      logLines().some((l) => l.reason === 'client-overrun'),
      `a flooding client: no client-overrun line: ${logged.slice(0, 300)}`,
    );

    // VALIDATE=full, no ENDPOINT: each channel judged by the method its request line named.
    logged = '';
    await mf.setOptions(options(/** @type {net.AddressInfo} */ (upstream.address()).port, { VALIDATE: 'full' }));
    const autoUrl = await mf.ready;
    const autoWs = await overWebSocket(autoUrl, AUTO.lines);
    check(autoWs.bytes.equals(AUTO.want) && autoWs.code === 1000, `endpoint auto over a WebSocket: ${autoWs.code} ${autoWs.bytes.toString('hex')}`);
    const autoHttp = await overHttp(autoUrl, AUTO.lines);
    check(autoHttp.bytes.equals(AUTO.want), `endpoint auto over HTTP: ${autoHttp.bytes.toString('hex')}`);
    const refusedFrames = logLines().filter((l) => l.reason === 'frame-error');
    check(
      refusedFrames.length === 4 && refusedFrames.every((l) => l.channel === 2 || l.channel === 3),
      `endpoint auto: channels 2 (not a read result) and 3 (no line named it) refused, on both ways: ${JSON.stringify(refusedFrames)}`,
    );

    // An upstream that refuses: 502, the fault as JSON, before anything is relayed.
    await mf.setOptions(options(await closedPort()));
    const refusedUrl = await mf.ready;
    const refused = await fetch(refusedUrl, { method: 'POST', body: 'valid\n' });
    const fault = await refused.json().catch(() => null);
    check(refused.status === 502 && fault?.reason === 'upstream-error', `refused upstream: ${refused.status} ${JSON.stringify(fault)}`);
    // Bundled and minified, the Worker still judges schemas with the compiled judges.
    const judges = refused.headers.get('x-mcp-frames-judges');
    check(judges === 'compiled', `the Worker's x-mcp-frames-judges is '${judges}', not 'compiled'`);

    const backend = backends.size === 1 ? [...backends][0] : `several: ${[...backends].join(', ')}`;
    return { report: { backend, checks, failed: failures.length, failures }, files };
  } finally {
    await mf?.dispose();
    upstream.destroyAll();
    await new Promise((resolve) => upstream.close(() => resolve(null)));
    await rm(example.dir, { recursive: true, force: true });
  }
}
