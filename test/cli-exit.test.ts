// Honest exit statuses: a failed write or read is never reported as success.
//
//   74  a write error other than EPIPE, or any read error: one line naming the file and the cause
//   2   an input that is a directory, stdin included: refused before anything is read
//   0   the reader of stdout went away (EPIPE): a quiet exit
//
// /dev/full answers every write with ENOSPC; /proc/self/mem answers a read at offset 0 with EIO.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-exit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });
const streamFile = path.join(dir, 'stream.bin');
fs.writeFileSync(streamFile, Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]));

/** Runs the bin through a shell, so that redirections (`> /dev/full`, `< DIR`) are real file descriptors. */
function sh(command: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', command], { encoding: 'utf8', env: { ...process.env, BIN: bin }, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const linux = process.platform === 'linux';

describe.runIf(linux)('exit 74: a write that fails', () => {
  it.each([
    ['relay to stdout', `node "$BIN" relay ${streamFile} > /dev/full`, 'stdout'],
    ['relay to a file', `node "$BIN" relay ${streamFile} /dev/full`, '/dev/full'],
    ['inspect', `node "$BIN" inspect --endpoint list-resources ${streamFile} > /dev/full`, 'stdout'],
    ['inspect --json', `node "$BIN" inspect --endpoint list-resources --json ${streamFile} > /dev/full`, 'stdout'],
    ['decode', `echo 00 | node "$BIN" decode --endpoint list-resources --hex > /dev/full`, 'stdout'],
    ['conformance', `node "$BIN" conformance --backend js > /dev/full`, 'stdout'],
  ])('%s', (_name, command, file) => {
    const r = sh(command);
    expect(r.stderr).toBe(`mcp-frames: cannot write ${file}: no space left on the device\n`);
    expect(r.status).toBe(74);
  });
});

describe.runIf(linux)('exit 74: a read that fails', () => {
  it.each([
    ['relay', `node "$BIN" relay /proc/self/mem /dev/null`],
    ['inspect', `node "$BIN" inspect --endpoint list-resources /proc/self/mem`],
  ])('%s', (_name, command) => {
    const r = sh(command);
    expect(r.stderr).toBe('mcp-frames: cannot read /proc/self/mem: input/output error\n');
    expect(r.status).toBe(74);
  });
});

describe('exit 2: a directory given as input is refused', () => {
  it.each([
    ['relay, named', `node "$BIN" relay ${dir}`, `relay: cannot read ${dir}: is a directory`],
    ['relay, on stdin', `node "$BIN" relay < ${dir}`, 'relay: cannot read stdin: is a directory'],
    ['inspect, named', `node "$BIN" inspect --endpoint list-resources ${dir}`, `inspect: cannot read ${dir}: is a directory`],
    ['inspect, on stdin', `node "$BIN" inspect --endpoint list-resources < ${dir}`, 'inspect: cannot read stdin: is a directory'],
    ['decode, on stdin', `node "$BIN" decode --endpoint list-resources --hex < ${dir}`, 'decode: cannot read stdin: is a directory'],
  ])('%s', (_name, command, message) => {
    const r = sh(command);
    expect(r.stderr).toBe(`mcp-frames: ${message}\n`);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(2);
  });
});

describe('exit 0: the reader of stdout went away', () => {
  it('relay | head, inspect | head', () => {
    const big = path.join(dir, 'big.bin');
    const parts: Uint8Array[] = [];
    for (let ch = 0; ch < 20_000; ch++) parts.push(encodeResponse(ch, frame), encodeFinish(ch));
    fs.writeFileSync(big, Buffer.concat(parts));
    for (const command of [
      `node "$BIN" relay ${big} | head -c 10 > /dev/null`,
      `node "$BIN" inspect --endpoint list-resources --json ${big} | head -n 1 > /dev/null`,
    ]) {
      const r = sh(`${command}; echo "status \${PIPESTATUS[0]}" >&2`);
      expect(r.stderr, command).toBe('status 0\n');
    }
  });
});

describe('relay --listen: upstream failures are lines on stderr', () => {
  it('a refused upstream: one line naming the connection and the cause, and the client is reset', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const child = spawn(
      process.execPath,
      [bin, 'relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstreamPort}`, '--connect-timeout', '2'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const poll = setInterval(() => {
          const first = stderr.split('\n')[0];
          if (stderr.includes('\n')) {
            clearInterval(poll);
            resolve(Number(JSON.parse(first).listening.split(':')[1]));
          }
        }, 10);
        child.once('exit', () => reject(new Error(`relay exited: ${stderr}`)));
      });
      const ended = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('end', () => resolve('end'));
        socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      expect(ended).toBe('ECONNRESET');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const lines = stderr
        .split('\n')
        .filter(Boolean)
        .slice(1)
        .map((l) => JSON.parse(l));
      expect(lines).toEqual([expect.objectContaining({ connection: 1, reason: 'upstream-error', cause: 'refused', code: 'ECONNREFUSED' })]);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses a timeout that is not seconds, and a timeout without --listen', () => {
    for (const [args, message] of [
      [
        ['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--idle-timeout', 'soon'],
        "--idle-timeout must be a number of seconds from 0 to 2147483, not 'soon'",
      ],
      [['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--connect-timeout', '1e3'], '--connect-timeout must be a number of seconds'],
      [['--idle-timeout', '5'], '--idle-timeout goes with --listen and --upstream'],
    ] as const) {
      const r = spawnSync(process.execPath, [bin, 'relay', ...args], { encoding: 'utf8', input: '' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});

describe.runIf(linux)('a stderr that fails changes nothing but the lines it loses', () => {
  // 20,000 responses whose frames fail: one fault line each on stderr, whose reader exits at once (EPIPE).
  const faulty = path.join(dir, 'faulty.bin');
  fs.writeFileSync(
    faulty,
    Buffer.concat(Array.from({ length: 20_000 }, (_, ch) => Buffer.concat([encodeResponse(ch, Uint8Array.of(0, 0x7b)), encodeFinish(ch)]))),
  );

  it('relay: every record as when stderr is read, and the exit status of the stream', () => {
    const read = sh(`node "$BIN" relay ${faulty} ${dir}/out-read.bin 2>/dev/null`);
    const gone = sh(`node "$BIN" relay ${faulty} ${dir}/out-gone.bin 2> >(exit 0)`);
    expect(read.status).toBe(0);
    // Before, the first line after the reader left was an uncaught EPIPE: status 1, the output cut short.
    expect(gone.status).toBe(0);
    expect(fs.readFileSync(`${dir}/out-gone.bin`)).toEqual(fs.readFileSync(`${dir}/out-read.bin`));
  });

  it('a usage error still exits 2, a write error 74', () => {
    expect(sh(`node "$BIN" inspect --endpoint nope ${faulty} 2>/dev/full`).status).toBe(2);
    expect(sh(`node "$BIN" relay ${streamFile} /dev/full 2>/dev/full`).status).toBe(74);
  });
});
