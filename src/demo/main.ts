// `npm start`: real MCP servers over stdio, `mcp-frames proxy`, `mcp-frames relay --validate full` (each channel judged by
// the method its request line named), and a client,
// all on loopback, each a process of its own.
//
//   server-everything --stdio--> mcp-frames proxy --records/TCP--> mcp-frames relay --records/TCP--> client
//   the demo's server --stdio--> mcp-frames proxy --records/TCP--> mcp-frames relay --records/TCP--> client
//
// Each server runs behind a tee (src/demo/tee.ts) that keeps a copy of what
// it wrote on stdout. The client checks every frame that reaches it against
// that copy, byte for byte, and the server errors that must pass through
// unchanged (-32603 from server-everything, -32002 and -32601 from the
// demo's server). It exits 0 only when every check holds.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADER_SIZE, KIND_RESPONSE } from '../records/record.js';
import { RESOURCE_NOT_FOUND } from './server.js';

const out = (line = '') => process.stdout.write(`${line}\n`);
const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli', 'main.js');
const node = process.execPath;

interface Running {
  child: ChildProcess;
  port: number;
  /** The JSON lines it wrote on stderr. */
  lines: () => Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs `mcp-frames ARGS`; resolves once it prints its listening line. */
function runCli(args: string[]): Promise<Running> {
  const child = spawn(node, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const lines = () =>
    stderr
      .split('\n')
      .slice(0, -1)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const listening = lines().find((l) => typeof l.listening === 'string');
      if (listening) resolve({ child, port: Number(String(listening.listening).split(':').at(-1)), lines, exited });
    });
    child.once('exit', () => reject(new Error(`mcp-frames ${args[0]} exited: ${stderr}`)));
  });
}

/** A client of the relay: one request line per exchange, and the frame (or none) that came back on its channel. */
async function connect(port: number): Promise<{
  exchange(method: string, params: Record<string, unknown>): Promise<{ frame: Uint8Array | null; ms: number }>;
  close(): void;
}> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  // Chunks are kept as they come and joined once a record is whole: joining at every chunk copies a 4 MiB frame hundreds of times.
  let chunks: Buffer[] = [];
  let held = 0;
  let need = HEADER_SIZE;
  const frames = new Map<number, Uint8Array>();
  const waiting = new Map<number, (frame: Uint8Array | null) => void>();
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    held += chunk.length;
    while (held >= need) {
      let buffered = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      chunks = [buffered];
      const length = buffered.readUInt32LE(5);
      need = HEADER_SIZE + length;
      if (held < need) break;
      const channel = buffered.readUInt32LE(1);
      if (buffered[0] === KIND_RESPONSE) frames.set(channel, Uint8Array.from(buffered.subarray(HEADER_SIZE, need)));
      else {
        waiting.get(channel)?.(frames.get(channel) ?? null);
        waiting.delete(channel);
        frames.delete(channel);
      }
      buffered = buffered.subarray(need);
      chunks = buffered.length ? [buffered] : [];
      held = buffered.length;
      need = HEADER_SIZE;
    }
  });
  let next = 1;
  return {
    exchange(method, params) {
      const channel = next++;
      const started = performance.now();
      return new Promise((resolve) => {
        waiting.set(channel, (frame) => resolve({ frame, ms: performance.now() - started }));
        socket.write(`${JSON.stringify({ channel, method, params })}\n`);
      });
    },
    close: () => socket.destroy(),
  };
}

/** The result and error members of each response line in a server's raw stdout, as latin1 text (so that equality is byte equality). */
function membersOf(copy: string): Set<string> {
  const members = new Set<string>();
  for (const line of readFileSync(copy).toString('latin1').split('\n')) {
    const m = /^\{"result":([\s\S]*),"jsonrpc":"2\.0","id":\d+\}$/.exec(line) ?? /^\{"jsonrpc":"2\.0","id":\d+,"error":([\s\S]*)\}$/.exec(line);
    if (m) members.add(m[1]);
  }
  return members;
}

interface Row {
  server: string;
  method: string;
  target: string;
  frame: Uint8Array | null;
  ms: number;
}

async function main(): Promise<number> {
  const require = createRequire(import.meta.url);
  const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
  const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-demo-'));
  const running: Running[] = [];
  try {
    const servers = [
      { name: 'everything', command: [node, everything, 'stdio'], copy: join(dir, 'everything.out') },
      { name: 'demo', command: [node, join(here, 'stdio-server.js')], copy: join(dir, 'demo.out') },
    ];
    const pipelines: Array<{ proxy: Running; relay: Running }> = [];
    for (const s of servers) {
      const proxy = await runCli(['proxy', '--listen', '127.0.0.1:0', '--', node, join(here, 'tee.js'), s.copy, '--', ...s.command]);
      running.push(proxy);
      const relay = await runCli(['relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${proxy.port}`, '--validate', 'full']);
      running.push(relay);
      pipelines.push({ proxy, relay });
    }
    out('mcp-frames demo: MCP server --stdio--> mcp-frames proxy --TCP--> mcp-frames relay --validate full --TCP--> client');
    for (const [k, s] of servers.entries()) {
      out(
        `  ${s.name.padEnd(10)} proxy on 127.0.0.1:${pipelines[k].proxy.port}, relay on 127.0.0.1:${pipelines[k].relay.port}: ${s.command.slice(1).join(' ')}`,
      );
    }
    out();

    const rows: Row[] = [];
    const ask = async (server: number, method: string, params: Record<string, unknown>) => {
      const client = await connect(pipelines[server].relay.port);
      const { frame, ms } = await client.exchange(method, params);
      client.close();
      rows.push({ server: servers[server].name, method, target: String(params.uri ?? params.name ?? ''), frame, ms });
    };
    // server-everything: texts and blobs, in flight at once on one connection, then a resource it does not have.
    const client = await connect(pipelines[0].relay.port);
    const reads = await Promise.all(
      Array.from({ length: 8 }, (_, k) => client.exchange('resources/read', { uri: `test://static/resource/${k + 1}` })),
    );
    client.close();
    for (const [k, r] of reads.entries())
      rows.push({ server: 'everything', method: 'resources/read', target: `test://static/resource/${k + 1}`, ...r });
    await ask(0, 'resources/read', { uri: 'test://static/resource/1000' });
    // Its other methods: the relay judges each channel by the method its request line named.
    await ask(0, 'resources/list', {});
    await ask(0, 'resources/templates/list', {});
    await ask(0, 'tools/list', {});
    await ask(0, 'tools/call', { name: 'echo', arguments: { message: 'through the proxy and the relay' } });
    await ask(0, 'prompts/list', {});
    await ask(0, 'prompts/get', { name: 'simple_prompt' });
    await ask(0, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '1' } });
    // The demo's server: a text, a 4 MiB blob, a resource it does not have, and a method it does not serve.
    await ask(1, 'resources/read', { uri: 'demo://hello' });
    await ask(1, 'resources/read', { uri: 'demo://blob' });
    await ask(1, 'resources/read', { uri: 'demo://missing' });
    await ask(1, 'prompts/list', {});

    out(' #  server      method                    target                       outcome      code          bytes      time');
    const members = servers.map((s) => membersOf(s.copy));
    let exact = 0;
    rows.forEach((r, k) => {
      const body = r.frame ? Buffer.from(r.frame.subarray(1)) : null;
      const error = r.frame?.[0] === 1 ? (JSON.parse(body!.toString('utf8')) as { code: number }) : null;
      if (body && members[r.server === 'everything' ? 0 : 1].has(body.toString('latin1'))) exact++;
      const outcome = !r.frame ? 'not carried' : error ? 'mcp error' : 'result';
      out(
        `${String(k + 1).padStart(2)}  ${r.server.padEnd(10)}  ${r.method.padEnd(25)} ${r.target.slice(0, 28).padEnd(28)} ${outcome.padEnd(12)} ${String(error?.code ?? '').padEnd(8)} ${String(r.frame?.length ?? 0).padStart(10)}  ${r.ms.toFixed(1).padStart(6)} ms`,
      );
    });
    out();

    const codeOfFrame = (frame: Uint8Array) => (JSON.parse(Buffer.from(frame.subarray(1)).toString()) as { code: number }).code;
    const codeOf = (target: string, method = 'resources/read') => {
      const r = rows.find((x) => x.target === target && x.method === method);
      return r?.frame?.[0] === 1 ? (JSON.parse(Buffer.from(r.frame.subarray(1)).toString()) as { code: number }).code : undefined;
    };
    const checks: Array<[string, boolean]> = [
      [`every exchange answered with a frame: ${rows.filter((r) => r.frame).length} of ${rows.length}`, rows.every((r) => r.frame)],
      [`every frame is the server's result or error member, byte for byte as it wrote it: ${exact} of ${rows.length}`, exact === rows.length],
      ['server-everything: an unknown resource is its -32603, passed through', codeOf('test://static/resource/1000') === -32603],
      [`demo server: demo://missing is ${RESOURCE_NOT_FOUND} (resource not found), passed through`, codeOf('demo://missing') === RESOURCE_NOT_FOUND],
      [
        'demo server: prompts/list is -32601 (method not found), passed through',
        rows.some((r) => r.server === 'demo' && r.method === 'prompts/list' && r.frame?.[0] === 1 && codeOfFrame(r.frame) === -32601),
      ],
    ];
    // Everything but the listening lines is a fault: there should be none.
    await new Promise((r) => setTimeout(r, 100));
    const faults = running.flatMap((r) => r.lines().filter((l) => l.event !== 'listening'));
    checks.push([`proxies and relays: ${faults.length} faults`, faults.length === 0]);
    for (const [text, ok] of checks) out(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    for (const f of faults) out(`       ${JSON.stringify(f)}`);

    for (const r of running) r.child.kill('SIGTERM');
    const codes = await Promise.all(running.map((r) => r.exited));
    const drained = codes.every((c) => c === 0);
    out(`  ${drained ? 'ok  ' : 'FAIL'} every proxy and relay drained on SIGTERM and exited 0`);
    checks.push(['', drained]);
    const failed = checks.filter(([, ok]) => !ok).length;
    out();
    out(failed ? `${failed} check(s) failed` : `all ${checks.length} checks passed`);
    return failed ? 1 : 0;
  } finally {
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
