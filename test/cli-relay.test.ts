// `mcp-frames relay` through the built bin: every public stream vector on
// both backends, files, and real TCP connections carrying 64 MiB.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpointCodec, listResources, readResource } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { limitFlags, modelLimits, STREAM_VECTORS } from './support/vectors.js';
import { model } from './support/relay-model.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');
const VECTORS = STREAM_VECTORS;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('mcp-frames relay', () => {
  for (const backend of ['js', 'wasm']) {
    it(`--validate full answers every public stream vector exactly (--backend ${backend})`, () => {
      for (const v of VECTORS) {
        const input = Buffer.from(v.hex, 'hex');
        const want = model(input, 'full', endpointCodec(v.endpoint), ...modelLimits(v));
        const r = spawnSync(
          process.execPath,
          [bin, 'relay', '--validate', 'full', '--endpoint', v.endpoint, '--backend', backend, ...limitFlags(v)],
          {
            input,
            maxBuffer: 1 << 26,
          },
        );
        expect(hex(r.stdout), v.name).toBe(hex(want.bytes));
        expect(lines(r.stderr.toString()), v.name).toEqual(want.faults);
        expect(r.status, v.name).toBe(want.errored ? 1 : 0);
      }
    });
  }

  it('relays between files, and refuses bad usage with status 2', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-'));
    const v = VECTORS.find((x) => x.name === 'frame error inside a stream')!;
    const input = Buffer.from(v.hex, 'hex');
    fs.writeFileSync(path.join(dir, 'in.bin'), input);
    const r = spawnSync(process.execPath, [bin, 'relay', path.join(dir, 'in.bin'), path.join(dir, 'out.bin')]);
    expect(r.status).toBe(0);
    const want = model(input, 'json', listResources, 16 << 20, 4096);
    expect(hex(fs.readFileSync(path.join(dir, 'out.bin')))).toBe(hex(want.bytes));
    expect(lines(r.stderr.toString())).toEqual(want.faults);
    fs.rmSync(dir, { recursive: true });

    for (const args of [
      ['--validate', 'some'],
      ['--validate', 'full'],
      ['--listen', '127.0.0.1:1'],
      ['--listen', 'nope', '--upstream', '127.0.0.1:1'],
    ]) {
      const bad = spawnSync(process.execPath, [bin, 'relay', ...args], { input: '' });
      expect(bad.status, args.join(' ')).toBe(2);
      expect(bad.stderr.toString(), args.join(' ')).toMatch(/^mcp-frames: relay: /);
    }
  });

  it('relays real TCP connections, 64 MiB of mixed frames, each connection on its own, in bounded memory', async () => {
    // The upstream: for each connection, a stream of mixed records, written
    // as the socket drains. It also works out what the relay must forward.
    const listing = listResources.encode({
      kind: 'result',
      result: {
        resources: Array.from({ length: 100 }, (_, k) => ({ uri: `file:///r/${k}`, name: `résumé ${k}`, _meta: { k } })),
        nextCursor: 'c',
      },
    });
    const blob = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'b', blob: Buffer.alloc(36 * 1024, 7).toString('base64') }] } });
    const text = readResource.encode({ kind: 'result', result: { contents: [{ uri: 't', text: 'héllo\n"wörld"\t😀 '.repeat(2000) }] } });
    const error = readResource.encode({ kind: 'error', error: { code: -32602, message: 'Invalid params', data: { uri: 'x' } } });
    const broken = Buffer.from('\u0000{"contents":[1e400]}', 'latin1');
    const TOTAL = 64 * 1024 * 1024;

    function* records(): Generator<{ bytes: Uint8Array; forward: boolean }> {
      let sent = 0;
      for (let n = 0; sent < TOTAL; n++) {
        const ch = n % 1000;
        const frame = [listing, blob, text, error][n % 4];
        const response = encodeResponse(ch, n % 97 === 0 ? broken : frame);
        yield { bytes: response, forward: n % 97 !== 0 };
        if (n % 89 === 0) yield { bytes: encodeResponse(ch, frame), forward: false }; // an extra response: dropped
        yield { bytes: encodeFinish(ch), forward: true };
        sent += response.length + 9;
      }
    }

    const expected: Array<{ hash: string; bytes: number }> = [];
    const upstream = net.createServer(async (socket) => {
      socket.on('error', () => {});
      const hash = createHash('sha256');
      let bytes = 0;
      const slot = expected.length;
      expected.push({ hash: '', bytes: 0 });
      for (const r of records()) {
        if (r.forward) {
          hash.update(r.bytes);
          bytes += r.bytes.length;
        }
        if (!socket.write(r.bytes)) await new Promise((resolve) => socket.once('drain', resolve));
      }
      expected[slot] = { hash: hash.digest('hex'), bytes };
      socket.end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as net.AddressInfo).port;

    const child = spawn(process.execPath, [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstreamPort}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const faults: Array<{ connection: number; reason: string }> = [];
    let stderr = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const first = stderr.split('\n')[0];
        if (stderr.includes('\n') && first.includes('listening')) resolve(Number(JSON.parse(first).listening.split(':')[1]));
      });
      child.once('exit', () => reject(new Error(`relay exited: ${stderr}`)));
    });

    async function client(): Promise<{ hash: string; bytes: number }> {
      const socket = net.connect(port, '127.0.0.1');
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of socket) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
      }
      return { hash: hash.digest('hex'), bytes };
    }

    try {
      // Two clients at once, each with its own upstream connection and relay state.
      const got = await Promise.all([client(), client()]);
      expect(got.map((g) => g.bytes)).toEqual(expected.map((e) => e.bytes));
      expect(got.map((g) => g.hash).sort()).toEqual(expected.map((e) => e.hash).sort());
      expect(expected[0].bytes).toBeGreaterThan(TOTAL * 0.9);

      // The relay's last fault lines can reach this process after the clients' sockets end (two pipes, no order
      // between them): the lines are read once stderr has been quiet for 200 ms (at most 5 s). A count that differs
      // after that is the relay's.
      for (let heard = -1, waited = 0; heard !== stderr.length && waited < 5000; waited += 200) {
        heard = stderr.length;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      for (const line of stderr.split('\n').slice(1).filter(Boolean)) faults.push(JSON.parse(line));
      const perConnection = (c: number, reason: string) => faults.filter((f) => f.connection === c && f.reason === reason).length;
      const n = [...records()].length;
      expect(n).toBeGreaterThan(1000);
      for (const c of [1, 2]) {
        expect(perConnection(c, 'frame-error')).toBeGreaterThan(0);
        expect(perConnection(c, 'sequence-violation')).toBeGreaterThan(0);
        expect(perConnection(c, 'frame-error')).toBe(perConnection(1, 'frame-error'));
      }

      // Resident memory: the relay's peak stays far below what went through it (2 x 64 MiB).
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const peak = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
      console.log(`relay process peak resident memory: ${(peak / 1048576).toFixed(1)} MiB for 2 x ${TOTAL / 1048576} MiB relayed`);
      expect(peak).toBeLessThan(160 * 1024 * 1024);
    } finally {
      child.kill('SIGTERM');
      upstream.close();
    }
  }, 120_000);
});

describe('mcp-frames relay into a pipe that closes', () => {
  it('exits 0 when the reader goes away early (| head)', () => {
    const frame = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'x'.repeat(60_000) }] } });
    const parts: Uint8Array[] = [];
    for (let ch = 0; ch < 300; ch++) parts.push(encodeResponse(ch, frame), encodeFinish(ch));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-head-'));
    fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.concat(parts));
    const r = spawnSync(
      'bash',
      ['-c', `node ${JSON.stringify(bin)} relay ${JSON.stringify(path.join(dir, 'big.bin'))} | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    fs.rmSync(dir, { recursive: true });
    expect(r.stdout.trim()).toBe('0');
  });
});
