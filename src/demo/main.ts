// `npm start`: a real MCP server, a proxy speaking frames over TCP, the
// validating relay, and a client, all on loopback, in one command.
//
//   McpServer --SDK Client--> proxy --records/TCP--> relay --records/TCP--> client
//
// It prints each exchange (outcome, code, bytes, time), checks what arrived
// against what the server sent, compares the js and wasm backends on the
// session's own frames, and exits 0 only when every check holds.

import type net from 'node:net';
import { createHash } from 'node:crypto';
import { loadBackend } from '../backend/builds.js';
import type { Backend } from '../backend/backend.js';
import { createTcpRelay } from '../relay/tcp.js';
import type { ConnectionFault } from '../relay/tcp.js';
import { codecForMethod, createProxy } from './proxy.js';
import { DemoClient, type Exchange } from './client.js';
import { blobBytes, createDemoServer, HELLO, LISTING_SIZE, RESOURCE_NOT_FOUND } from './server.js';
import { isDeepStrictEqual } from 'node:util';

const out = (line = '') => process.stdout.write(`${line}\n`);
const mib = (n: number) => `${(n / 1048576).toFixed(2)} MiB`;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

/** A progress line on stderr: redrawn in place on a terminal, a few plain lines otherwise. */
function progress(label: string, total: number): (done: number) => void {
  let shown = -1;
  return (done) => {
    const pct = Math.min(100, Math.floor((done / total) * 100));
    if (process.stderr.isTTY) {
      if (pct !== shown) process.stderr.write(`\r  ${label}: ${mib(done)} of ~${mib(total)} (${pct}%)${pct === 100 ? '\n' : ''}`);
    } else if (Math.floor(pct / 25) !== Math.floor(shown / 25)) {
      process.stderr.write(`  ${label}: ${pct}%\n`);
    }
    shown = pct;
  };
}

function describeOutcome(e: Exchange): { outcome: string; code: string } {
  const o = e.outcome;
  if (o.outcome === 'error') return { outcome: 'mcp error', code: String(o.error.code) };
  if (o.outcome === 'frame-error') return { outcome: `frame error (${o.fault.reason})`, code: '' };
  return { outcome: o.outcome, code: '' };
}

/** MB/s of `work` over the frames, timed for about `ms` milliseconds after one warm-up pass. */
function throughput(frames: Array<{ method: string; payload: Uint8Array }>, work: (method: string, f: Uint8Array) => unknown, ms = 400): number {
  const bytes = frames.reduce((n, f) => n + f.payload.length, 0);
  for (const f of frames) work(f.method, f.payload);
  let rounds = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (const f of frames) work(f.method, f.payload);
    rounds++;
    elapsed = performance.now() - start;
  }
  return (bytes * rounds) / 1e6 / (elapsed / 1000);
}

async function main(): Promise<number> {
  const blob = blobBytes();
  const mcp = createDemoServer(blob);
  const frames: Array<{ method: string; payload: Uint8Array }> = [];
  const proxy = await createProxy(mcp, { onExchange: (_c, method, payload) => payload && frames.push({ method, payload }) });
  const proxyPort = await listen(proxy.server);
  const faults: ConnectionFault[] = [];
  const relay = createTcpRelay({ upstream: { host: '127.0.0.1', port: proxyPort }, onFault: (f) => faults.push(f) });
  const relayPort = await listen(relay);
  const wasm = loadBackend('auto');

  out('mcp-frames demo: McpServer -> SDK Client -> proxy -> [TCP] -> relay -> [TCP] -> client');
  out(`  proxy on 127.0.0.1:${proxyPort}, relay on 127.0.0.1:${relayPort}, relay validates JSON with backend ${wasm.name}`);
  out();

  let report: (n: number) => void = () => {};
  const client = await DemoClient.connect(relayPort, '127.0.0.1', { backend: wasm, onBytes: (n) => report(n) });
  const exchanges: Exchange[] = [];

  // The listing, page by page.
  let cursor: string | undefined;
  const items: Array<Record<string, unknown>> = [];
  do {
    const e = await client.exchange('resources/list', cursor === undefined ? {} : { cursor });
    exchanges.push(e);
    if (e.outcome.outcome !== 'result') break;
    const page = e.outcome.result as { resources: Array<Record<string, unknown>>; nextCursor?: string };
    items.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor !== undefined);

  exchanges.push(await client.exchange('resources/read', { uri: 'demo://hello' }));

  // The long part: 4 MiB of blob, about 5.6 MiB of base64 on the wire.
  const before = client.received;
  report = (
    (p) => (n: number) =>
      p(n - before)
  )(progress('reading demo://blob', Math.ceil(blob.length / 3) * 4));
  const blobExchange = await client.exchange('resources/read', { uri: 'demo://blob' });
  report = () => {};
  exchanges.push(blobExchange);

  exchanges.push(await client.exchange('resources/read', { uri: 'demo://missing' }));
  exchanges.push(await client.exchange('resources/read', { uri: 'not a uri' }));
  exchanges.push(await client.exchange('prompts/list', {}));

  out(' #  ch  method          target            outcome        code        bytes      time');
  exchanges.forEach((e, k) => {
    const { outcome, code } = describeOutcome(e);
    const target = String(e.params?.uri ?? e.params?.cursor ?? (e.method === 'resources/list' ? '(first page)' : ''));
    out(
      `${String(k + 1).padStart(2)}  ${String(e.channel).padStart(2)}  ${e.method.padEnd(15)} ${target.slice(0, 17).padEnd(17)} ${outcome.padEnd(14)} ${code.padEnd(8)} ${String(e.bytes).padStart(10)}  ${e.ms.toFixed(1).padStart(6)} ms`,
    );
    if (e.outcome.outcome === 'error' && e.mcpError) {
      const sent = e.outcome.error;
      out(`              -> McpError ${e.mcpError.code} "${sent.message}"${'data' in sent ? `, data ${JSON.stringify(sent.data)}` : ''}`);
    }
  });
  out();

  // What arrived, against what the server sent.
  const checks: Array<[string, boolean]> = [];
  const code = (i: number) =>
    exchanges[i].outcome.outcome === 'error' ? (exchanges[i].outcome as { error: { code: number } }).error.code : undefined;
  checks.push([
    `listing: ${items.length} of ${LISTING_SIZE} resources over ${exchanges.filter((e) => e.method === 'resources/list').length} pages`,
    items.length === LISTING_SIZE,
  ]);
  checks.push([
    'listing: _meta and vendor members arrived as sent',
    isDeepStrictEqual(items[7]._meta, { 'vendor.example/rank': 7, 'vendor.example/tags': ['é', '日本'] }) &&
      isDeepStrictEqual(items[11]['x-vendor'], { shard: 2, note: null }),
  ]);
  const hello = exchanges.find((e) => e.params?.uri === 'demo://hello')!;
  checks.push(['demo://hello: text arrived as sent', hello.outcome.outcome === 'result' && isDeepStrictEqual(hello.outcome.result, HELLO)]);
  const blobResult = blobExchange.outcome.outcome === 'result' ? (blobExchange.outcome.result as { contents: Array<{ blob: string }> }) : null;
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 16);
  const got = blobResult ? Buffer.from(blobResult.contents[0].blob, 'base64') : new Uint8Array(0);
  checks.push([`demo://blob: ${mib(got.length)}, sha256 ${sha(got)}…, the server's bytes`, sha(got) === sha(blob)]);
  const at = (uri: string) => exchanges.findIndex((e) => e.params?.uri === uri);
  checks.push([
    `demo://missing: ${RESOURCE_NOT_FOUND} with data naming the URI`,
    code(at('demo://missing')) === RESOURCE_NOT_FOUND && isDeepStrictEqual(exchanges[at('demo://missing')].mcpError?.data, { uri: 'demo://missing' }),
  ]);
  checks.push(['not a uri: -32602 (invalid params)', code(at('not a uri')) === -32602]);
  checks.push(['prompts/list: -32601 (method not found)', code(exchanges.length - 1) === -32601]);
  checks.push([`relay: ${faults.length} faults on a clean session`, faults.length === 0]);
  for (const [text, ok] of checks) out(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
  out();

  // The session's own frames, js against the core.
  const js = loadBackend('js');
  const bytes = frames.reduce((n, f) => n + f.payload.length, 0);
  out(`Throughput on this session's ${frames.length} frames (${mib(bytes)}), same bytes, side by side:`);
  const rows: Array<[string, (b: Backend) => (method: string, f: Uint8Array) => unknown]> = [
    ['validate (tag + strict JSON)', (b) => (_m, f) => b.verifyFrame(f)],
    ['typed decode (+ JSON.parse + SDK schema)', (b) => (m, f) => codecForMethod(m)!.withBackend(b).tryDecode(f)],
  ];
  for (const [label, work] of rows) {
    const a = throughput(frames, work(js));
    const w = throughput(frames, work(wasm));
    out(`  ${label.padEnd(42)} js ${a.toFixed(0).padStart(6)} MB/s   ${wasm.name} ${w.toFixed(0).padStart(6)} MB/s   ${(w / a).toFixed(2)}x`);
  }
  out('  (one run on a shared machine: see bench/report for the measured benchmark)');

  client.close();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await proxy.close();
  const failed = checks.filter(([, ok]) => !ok).length;
  out();
  out(failed ? `${failed} check(s) failed` : `all ${checks.length} checks passed`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
