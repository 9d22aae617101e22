// A child process for the heap bound tests (test/heap-bound.test.ts): builds one
// large frame outside the JS heap, judges it through one entry point of the
// built package (dist/), and prints what came out as one JSON line.
//
//   node --max-old-space-size=N test/support/heap-child.mjs '{"shape":"numbers","mib":16,"entry":"decode","backend":"js"}'
//
// entry 'none' builds the frame and stops: the heap every entry starts from.
// entry 'parse' is JSON.parse of the body alone, what judging a value first costs.
// entry 'today' is the plain judge the compiled one replaces: JSON.parse, the SDK's safeParse, its first issue.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../../dist/', import.meta.url);
const lib = await import(new URL('runtime/node.js', DIST).href);
const config = JSON.parse(process.argv[2]);
const MiB = 1024 * 1024;

/** Writes pieces into a buffer allocated outside the JS heap, one after another. */
class Writer {
  constructor(size) {
    this.buf = Buffer.allocUnsafeSlow(size);
    this.at = 0;
  }
  put(s) {
    this.at += this.buf.write(s, this.at, 'utf8');
  }
  /** Repeats `unit` (with `sep` between) until `reserve` bytes are left: Buffer.fill repeats the pattern natively. */
  fill(unit, sep, reserve) {
    const step = Buffer.byteLength(unit) + Buffer.byteLength(sep);
    const n = Math.floor((this.buf.length - reserve - this.at + Buffer.byteLength(sep)) / step);
    if (n <= 0) return;
    this.put(unit);
    if (n > 1) {
      const end = this.at + (n - 1) * step;
      this.buf.fill(sep + unit, this.at, end);
      this.at = end;
    }
  }
  /** The tag, then what was written, padded with spaces to exactly `size` bytes. */
  done() {
    this.buf.fill(0x20, this.at);
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }
}

/** The frames: each fails the endpoint's schema, in a way a hostile peer would write it. */
const SHAPES = {
  // every item of the listing fails
  numbers: [
    'list-resources',
    0,
    (w, r) => {
      w.put('{"resources":[');
      w.fill('1', ',', r + 2);
      w.put(']}');
    },
  ],
  objects: [
    'list-resources',
    0,
    (w, r) => {
      w.put('{"resources":[');
      w.fill('{}', ',', r + 2);
      w.put(']}');
    },
  ],
  // valid resources, then one without a name at the very end
  'last-fails': [
    'list-resources',
    0,
    (w, r) => {
      w.put('{"resources":[');
      w.fill('{"name":"","uri":""}', ',', r + 40);
      w.put(',{"uri":"u"}]}');
    },
  ],
  // a bad blob in every item: zod's issues continue, so every item is judged
  blobs: [
    'read-resource',
    0,
    (w, r) => {
      w.put('{"contents":[');
      w.fill('{"uri":"u","blob":"!"}', ',', r + 2);
      w.put(']}');
    },
  ],
  // a dense unknown member, and a bad _meta the schema judges first
  'dense-unknown': [
    'list-resources',
    0,
    (w, r) => {
      w.put('{"x":[');
      w.fill('{}', ',', r + 60);
      w.put('],"resources":[],"_meta":{"progressToken":1.5}}');
    },
  ],
  // one text of non-Latin-1 characters (two bytes each in a JS string), with a uri of the wrong type
  'wide-text': [
    'read-resource',
    0,
    (w, r) => {
      w.put('{"contents":[{"uri":5,"text":"');
      w.fill('😀', '', r + 4);
      w.put('"}]}');
    },
  ],
  // an error object whose data is dense and whose code is not an integer
  'error-data': [
    'list-resources',
    1,
    (w, r) => {
      w.put('{"code":1.5,"message":"m","data":[');
      w.fill('[]', ',', r + 2);
      w.put(']}');
    },
  ],
  // more completion values than the 100 the schema allows
  'completion-values': [
    'complete',
    0,
    (w, r) => {
      w.put('{"completion":{"values":[');
      w.fill('""', ',', r + 3);
      w.put(']}}');
    },
  ],
  // a tool whose input schema has a property of the wrong type after many good ones
  'tool-properties': [
    'list-tools',
    0,
    (w, r) => {
      w.put('{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{');
      // Distinct names, written a block at a time.
      let k = 0;
      const block = [];
      const flush = () => {
        w.put(block.join(''));
        block.length = 0;
      };
      while (w.at + (block.length + 1) * 12 + r + 20 <= w.buf.length) {
        block.push(`${k ? ',' : ''}"p${(k++).toString(36).padStart(4, '0')}":{}`);
        if (block.length === 4096) flush();
      }
      flush();
      w.put(',"bad":1}}}]}');
    },
  ],
};

const [endpoint, tag, write] = SHAPES[config.shape];
const size = Math.round(config.mib * MiB);
const w = new Writer(size);
w.put(tag === 0 ? '\u0000' : '\u0001');
write(w, 64);
const payload = w.done();

const backend = lib.loadBackend(config.backend);
const codec = lib.endpointCodec ? lib.endpointCodec(endpoint) : lib.ENDPOINTS[endpoint];
const typed = codec.withBackend(backend);

/** A record stream holding the frame on channel 7, then its finish. */
function records() {
  const head = Buffer.alloc(9);
  head[0] = 1;
  head.writeUInt32LE(7, 1);
  head.writeUInt32LE(payload.length, 5);
  const finish = Buffer.alloc(9);
  finish[0] = 2;
  finish.writeUInt32LE(7, 1);
  return [new Uint8Array(head), payload, new Uint8Array(finish)];
}

globalThis.gc?.();
const before = process.memoryUsage();
let out;
const started = process.hrtime.bigint();
switch (config.entry) {
  case 'none':
    out = { heapUsed: before.heapUsed };
    break;
  case 'parse':
    out = { parsed: typeof JSON.parse(new TextDecoder().decode(payload.subarray(1))) };
    break;
  case 'today': {
    const { locate } = await import(new URL('contract/locate.js', DIST).href);
    const { ErrorObjectSchema } = await import(new URL('contract/schema.js', DIST).href);
    const value = JSON.parse(new TextDecoder().decode(payload.subarray(1)));
    const verdict = (payload[0] === 0 ? codec.schema : ErrorObjectSchema).safeParse(value);
    if (verdict.success) out = { accepted: true };
    else {
      const issue = verdict.error.issues[0];
      const where = issue.path.length ? issue.path.map(String).join('.') : '(the body)';
      out = lib.FrameError.body('schema', locate(payload, 1, payload.length, issue.path), `${where}: ${issue.message}`).toJSON();
    }
    break;
  }
  case 'decode':
    try {
      typed.decode(payload);
      out = { accepted: true };
    } catch (e) {
      out = e.toJSON ? e.toJSON() : { thrown: String(e) };
    }
    break;
  case 'tryDecode': {
    const r = typed.tryDecode(payload);
    out = r instanceof lib.FrameError ? r.toJSON() : { accepted: true };
    break;
  }
  case 'stream': {
    const decoder = new lib.StreamDecoder({ endpoint: codec, backend, maxFrameBytes: 2 * size });
    const events = [];
    for (const chunk of records()) events.push(...decoder.push(chunk));
    events.push(...decoder.end());
    const outcome = events.find((e) => e.channel === 7);
    out = outcome?.outcome === 'frame-error' ? outcome.fault.toJSON() : { outcome: outcome?.outcome };
    break;
  }
  case 'relay': {
    const faults = [];
    const relay = lib.createRelay({ validate: 'full', endpoint: codec, backend, maxFrameBytes: 2 * size, onFault: (f) => faults.push(f) });
    const input = new ReadableStream({
      start(c) {
        for (const chunk of records()) c.enqueue(chunk);
        c.close();
      },
    });
    const reader = input.pipeThrough(relay).getReader();
    while (!(await reader.read()).done);
    const fault = faults.find((f) => f.reason === 'frame-error');
    out = fault ? fault.frame : { faults: faults.map((f) => f.reason) };
    break;
  }
  case 'inspect': {
    // The CLI in its own process, limited as this one is, on a file holding the records.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-heap-'));
    try {
      const file = join(dir, 'records.bin');
      writeFileSync(file, Buffer.concat(records()));
      const limit = process.execArgv.find((a) => a.startsWith('--max-old-space-size'));
      const cli = fileURLToPath(new URL('cli/main.js', DIST));
      const r = spawnSync(
        process.execPath,
        [...(limit ? [limit, '--max-semi-space-size=1'] : []), cli, 'inspect', '--endpoint', endpoint, '--backend', config.backend, '--json', file],
        {
          encoding: 'utf8',
          maxBuffer: 64 * MiB,
        },
      );
      const lines = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const line = lines.find((l) => l.frame || l.outcome === 'frame-error');
      out = { status: r.status, signal: r.signal, line, stderr: r.stderr.slice(0, 500) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    break;
  }
  default:
    throw new Error(`unknown entry ${config.entry}`);
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
process.stdout.write(`${JSON.stringify({ ...out, ms, bytes: payload.length })}\n`);
