// The mcp-frames command line, run as a user runs it: the built bin, spawned.
//
// Every vector in spec/vectors goes through `decode --hex` and `inspect --json`
// with the js backend, judged by the rules of spec/vectors/README.md. The
// output shapes (member order, the end line, exit statuses) are held here
// exactly, since scripts depend on them.

import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FRAME_VECTORS, limitFlags, STREAM_VECTORS, type StreamVector } from './support/vectors.js';

const root = process.cwd();
const bin = path.resolve(root, 'dist/cli/main.js');
const frames = FRAME_VECTORS;
const streams = STREAM_VECTORS;

function run(args: string[], input?: string | Buffer): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [bin, ...args], { input, cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, timeout: 30_000 });
}

/** stdout as lines, without the newline that ends the last one. */
function lines(stdout: string): string[] {
  expect(stdout === '' || stdout.endsWith('\n')).toBe(true);
  return stdout === '' ? [] : stdout.slice(0, -1).split('\n');
}

/** The members a frame error's line has, in the order the CLI prints them. */
const FRAME_ERROR_ORDER = ['reason', 'tag', 'rule', 'message', 'offset'];

function expectFrameErrorMembers(got: Record<string, unknown>, lead: string[], want: { reason: string; tag?: number }): void {
  expect(got.reason).toBe(want.reason);
  expect(got.tag).toBe(want.tag);
  expect(typeof got.message).toBe('string');
  if (want.reason === 'body') {
    expect(typeof got.rule).toBe('string');
    expect(Number.isInteger(got.offset)).toBe(true);
  }
  const order = [...lead, ...FRAME_ERROR_ORDER.filter((k) => k in got)];
  expect(Object.keys(got)).toEqual(order);
}

const endLine = (end: StreamVector['expect']['end']): string =>
  end.kind === 'ok' ? '{"end":"ok"}' : JSON.stringify({ end: 'record-error', reason: end.reason, offset: end.offset });

beforeAll(() => {
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: build first (npx tsc -p tsconfig.json)`);
});

describe('decode --hex: every frame vector, backend js', () => {
  for (const endpoint of ['list-resources', 'read-resource']) {
    const vectors = frames.filter((v) => v.endpoint === endpoint);

    it(`${endpoint}: ${vectors.length} vectors, one line each, answered exactly`, () => {
      const r = run(['decode', '--endpoint', endpoint, '--backend', 'js', '--hex'], `${vectors.map((v) => v.hex).join('\n')}\n`);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const out = lines(r.stdout);
      expect(out).toHaveLength(vectors.length);
      vectors.forEach((v, i) => {
        const got = JSON.parse(out[i]);
        const want = v.expect;
        expect(got.kind, v.name).toBe(want.kind);
        if (want.kind === 'result') {
          expect(Object.keys(got)).toEqual(['kind', 'result']);
          expect(got.result, v.name).toStrictEqual(want.result);
          // Members in the order the server wrote them: JSON.parse's order of the body.
          const body = Buffer.from(v.hex, 'hex').subarray(1).toString('utf8');
          expect(JSON.stringify(got.result), v.name).toBe(JSON.stringify(JSON.parse(body)));
        } else if (want.kind === 'error') {
          expect(Object.keys(got)).toEqual(['kind', 'error']);
          expect(got.error, v.name).toStrictEqual(want.error);
        } else {
          expectFrameErrorMembers(got, ['kind'], want);
        }
      });
    });
  }
});

describe('decode --hex: lines', () => {
  const list = ['decode', '--endpoint', 'list-resources', '--backend', 'js', '--hex'];
  const empty = '007b227265736f7572636573223a5b5d7d';

  it('a line that is not hex prints input-error in its place, goes on, and exits 1', () => {
    const r = run(list, `00zz\nabc\n\n${empty.toUpperCase()}\r\n${empty}`);
    expect(r.status).toBe(1);
    const out = lines(r.stdout).map((l) => JSON.parse(l));
    expect(out).toHaveLength(5);
    expect(out[0]).toEqual({ kind: 'input-error', line: 1, message: expect.stringContaining('column 3') });
    expect(Object.keys(out[0])).toEqual(['kind', 'line', 'message']);
    expect(out[1]).toEqual({ kind: 'input-error', line: 2, message: expect.stringContaining('odd') });
    expect(out[2]).toMatchObject({ kind: 'frame-error', reason: 'empty' });
    expect(out[3]).toEqual({ kind: 'result', result: { resources: [] } });
    expect(out[4]).toEqual({ kind: 'result', result: { resources: [] } });
  });

  it('spaces, a byte-order mark and a lone "\\r" are not hex', () => {
    const r = run(list, `00 \n\ufeff00\n0\r0\n`);
    expect(r.status).toBe(1);
    expect(lines(r.stdout).map((l) => JSON.parse(l).kind)).toEqual(['input-error', 'input-error', 'input-error']);
  });

  it('empty input prints nothing; a lone newline is one empty payload', () => {
    expect(run(list, '')).toMatchObject({ status: 0, stdout: '' });
    const r = run(list, '\n');
    expect(r.status).toBe(0);
    expect(lines(r.stdout).map((l) => JSON.parse(l))).toEqual([{ kind: 'frame-error', reason: 'empty', message: expect.any(String) }]);
  });

  it('a line longer than a frame at the frame limit is an input error, not held: the lines after it are answered', async () => {
    // 40 MiB of digits and no newline grew the process by 90 MB a second; 1.1 GB ended in a RangeError and exit 70.
    const long = '0'.repeat(40 * 1024 * 1024);
    const r = run(list, `${empty}\n${long}\n${empty}\n`);
    expect(r.status).toBe(1);
    expect(lines(r.stdout).map((l) => JSON.parse(l))).toEqual([
      { kind: 'result', result: { resources: [] } },
      { kind: 'input-error', line: 2, message: expect.stringContaining(`a line of ${long.length} characters, longer than 33554432 hex digits`) },
      { kind: 'result', result: { resources: [] } },
    ]);
    // What the reader holds of such a line: nothing past the limit, however it is chunked.
    const { readLines, LongLine } = await import('../src/cli/hex.js');
    async function* chunks() {
      for (let k = 0; k < 10; k++) yield '1'.repeat(100);
      yield '\nab\r\n';
    }
    const got: unknown[] = [];
    for await (const line of readLines(chunks(), 64)) got.push(line);
    expect(got).toEqual([new LongLine(1000), 'ab']);
  });

  it('keeps order over many lines', () => {
    const input = `${Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? empty : i % 3 === 1 ? '' : 'x')).join('\n')}\n`;
    const r = run(list, input);
    expect(r.status).toBe(1);
    const kinds = lines(r.stdout).map((l) => JSON.parse(l).kind);
    expect(kinds).toHaveLength(5000);
    expect(kinds).toEqual(kinds.map((_, i) => ['result', 'frame-error', 'input-error'][i % 3]));
  });
});

describe('inspect --json: every stream vector, backend js', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-cli-'));
    return () => fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const v of streams) {
    it(v.name, () => {
      const file = path.join(dir, 'stream.bin');
      fs.writeFileSync(file, Buffer.from(v.hex, 'hex'));
      const r = run(['inspect', '--endpoint', v.endpoint, '--backend', 'js', '--json', ...limitFlags(v), file]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(v.expect.end.kind === 'ok' ? 0 : 1);
      const out = lines(r.stdout);
      expect(out).toHaveLength(v.expect.outcomes.length + 1);
      v.expect.outcomes.forEach((want, i) => {
        const got = JSON.parse(out[i]);
        if (want.outcome === 'frame-error') {
          expect(got.channel).toBe(want.channel);
          expect(got.outcome).toBe('frame-error');
          expectFrameErrorMembers(got, ['channel', 'outcome'], { reason: want.reason!, tag: want.tag });
        } else {
          expect(got).toStrictEqual(want);
          expect(Object.keys(got)).toEqual(Object.keys(want));
        }
      });
      expect(out.at(-1)).toBe(endLine(v.expect.end));
    });
  }
});

describe('inspect: the table, from stdin', () => {
  for (const v of streams) {
    it(v.name, () => {
      const r = run(['inspect', '--endpoint', v.endpoint, '--backend', 'js', ...limitFlags(v), '-'], Buffer.from(v.hex, 'hex'));
      expect(r.stderr).toBe('');
      expect(r.status).toBe(v.expect.end.kind === 'ok' ? 0 : 1);
      const out = lines(r.stdout);
      expect(out[0]).toMatch(/^ +channel +outcome +summary$/);
      const rows = out.slice(1, -1);
      expect(rows).toHaveLength(v.expect.outcomes.length);
      rows.forEach((row, i) => {
        const [channel, outcome] = row.trim().split(/ +/);
        expect(Number(channel)).toBe(v.expect.outcomes[i].channel);
        expect(outcome).toBe(v.expect.outcomes[i].outcome);
        // Aligned: the outcome column starts at the same place in every row.
        expect(row.indexOf(outcome, 10)).toBe(out[0].indexOf('outcome'));
      });
      const end = v.expect.end;
      const bytes = v.hex.length / 2;
      if (end.kind === 'ok')
        expect(out.at(-1)).toBe(`stream ended ok: ${bytes} bytes, ${rows.length} outcome${rows.length === 1 ? '' : 's'}, backend js`);
      else
        expect(out.at(-1)).toMatch(new RegExp(`^stream stopped: record error ${end.reason} at offset ${end.offset} \\(.*\\); ${bytes} bytes read`));
    });
  }

  it('summarizes results and errors', () => {
    const exchange = (channel: number, body: string): Buffer => {
      const payload = Buffer.from(body, 'utf8');
      const header = Buffer.alloc(9);
      header[0] = 1;
      header.writeUInt32LE(channel, 1);
      header.writeUInt32LE(payload.length, 5);
      const finish = Buffer.alloc(9);
      finish[0] = 2;
      finish.writeUInt32LE(channel, 1);
      return Buffer.concat([header, payload, finish]);
    };
    const read = `\u0000${JSON.stringify({
      contents: [
        { uri: 'a', text: 'x'.repeat(4000) },
        { uri: 'b', blob: 'AAAA' },
      ],
    })}`;
    const list = `\u0000${JSON.stringify({ resources: [1, 2, 3].map((i) => ({ uri: `u${i}`, name: `n${i}` })), nextCursor: 'c1' })}`;
    const err = `\u0001${JSON.stringify({ code: -32601, message: 'Method\nnot found' })}`;
    const r1 = run(['inspect', '--endpoint', 'read-resource', '--backend', 'js'], Buffer.concat([exchange(1, read), exchange(2, err)]));
    expect(r1.status).toBe(0);
    expect(r1.stdout).toContain('2 contents (1 text, 1 blob, 3.9 KiB)');
    expect(r1.stdout).toContain('code -32601 Method\\nnot found');
    const r2 = run(['inspect', '--endpoint', 'list-resources', '--backend', 'js'], exchange(4294967295, list));
    expect(r2.status).toBe(0);
    expect(r2.stdout).toContain('4294967295  result              3 resources, nextCursor c1');
  });
});

describe('inspect: limits', () => {
  const one = streams.find((v) => v.name === 'one exchange')!;
  const interleaved = streams.find((v) => v.name === 'interleaved channels finish in their own order')!;

  it('--max-frame-bytes is checked from the header', () => {
    const length = Buffer.from(one.hex, 'hex').readUInt32LE(5);
    const over = run(
      ['inspect', '--endpoint', 'list-resources', '--backend', 'js', '--json', '--max-frame-bytes', String(length - 1)],
      Buffer.from(one.hex, 'hex'),
    );
    expect(over.status).toBe(1);
    expect(lines(over.stdout)).toEqual(['{"end":"record-error","reason":"oversize","offset":0}']);
    const fits = run(
      ['inspect', '--endpoint', 'list-resources', '--backend', 'js', '--json', '--max-frame-bytes', String(length)],
      Buffer.from(one.hex, 'hex'),
    );
    expect(fits.status).toBe(0);
  });

  it('--max-open-channels stops a stream that opens one too many', () => {
    const r = run(
      ['inspect', '--endpoint', 'list-resources', '--backend', 'js', '--json', '--max-open-channels', '1'],
      Buffer.from(interleaved.hex, 'hex'),
    );
    expect(r.status).toBe(1);
    const out = lines(r.stdout);
    expect(out.slice(0, -1).map((l) => JSON.parse(l))).toEqual([{ channel: 1, outcome: 'incomplete' }]);
    expect(JSON.parse(out.at(-1)!)).toMatchObject({ end: 'record-error', reason: 'too-many-channels' });
  });
});

describe('bad usage exits 2 with one line on stderr', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown command', ['frob'], /unknown command 'frob'/],
    ['an unknown top-level flag', ['--frob'], /unknown flag '--frob'/],
    ['an unknown flag', ['decode', '--endpoint', 'list-resources', '--hex', '--frob'], /unknown option '--frob'/i],
    ['decode without --endpoint', ['decode', '--hex'], /--endpoint NAME is required/],
    ['an unknown endpoint', ['decode', '--endpoint', 'nope', '--hex'], /unknown endpoint 'nope'/],
    ['an endpoint that is a property of Object', ['inspect', '--endpoint', 'constructor'], /unknown endpoint 'constructor'/],
    ['decode without --hex', ['decode', '--endpoint', 'list-resources'], /--hex is required/],
    ['decode with a file', ['decode', '--endpoint', 'list-resources', '--hex', 'x.txt'], /unexpected argument 'x.txt'/],
    ['--endpoint with no value', ['inspect', '--endpoint'], /argument missing/],
    ['an unknown backend', ['inspect', '--endpoint', 'list-resources', '--backend', 'gpu'], /--backend must be one of js, wasm/],
    [
      'a limit that is not a number',
      ['inspect', '--endpoint', 'list-resources', '--max-frame-bytes', '16MiB'],
      /--max-frame-bytes must be a whole number/,
    ],
    ['a negative limit', ['inspect', '--endpoint', 'list-resources', '--max-frame-bytes=-1'], /--max-frame-bytes must be a whole number/],
    ['a frame limit above 2^32 - 1', ['inspect', '--endpoint', 'list-resources', '--max-frame-bytes', '4294967296'], /from 0 to 4294967295/],
    [
      'zero open channels',
      ['inspect', '--endpoint', 'list-resources', '--max-open-channels', '0'],
      /--max-open-channels must be a whole number from 1/,
    ],
    ['two files', ['inspect', '--endpoint', 'list-resources', 'a', 'b'], /unexpected argument 'b'/],
    ['a file that does not exist', ['inspect', '--endpoint', 'list-resources', 'no/such/file.bin'], /cannot read no\/such\/file.bin: no such file/],
    ['a directory', ['inspect', '--endpoint', 'list-resources', '.'], /cannot read \.: is a directory/],
    ['a vectors folder without vectors', ['conformance', '--backend', 'js', 'src'], /cannot read .*frames\.json/],
    [
      'endpoint auto on a relay that does not judge schemas',
      ['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--validate', 'json', '--endpoint', 'auto'],
      /--endpoint auto judges schemas, which only --validate full does/,
    ],
    [
      'a request line limit that is not a number',
      ['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--validate', 'full', '--max-line-bytes', 'lots'],
      /--max-line-bytes must be a whole number/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const r = run(args, '');
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^mcp-frames: /);
      expect(r.stderr).toMatch(message);
    });
  }
});

describe('--backend wasm', () => {
  // The core is built in parallel: unavailable, it must say so and exit 2;
  // available, it must answer exactly as js does.
  it('decode: not available (exit 2), or the same output as js', () => {
    const input = `${frames
      .filter((v) => v.endpoint === 'read-resource')
      .map((v) => v.hex)
      .join('\n')}\n`;
    const args = (backend: string) => ['decode', '--endpoint', 'read-resource', '--backend', backend, '--hex'];
    const js = run(args('js'), input);
    const wasm = run(args('wasm'), input);
    if (wasm.status === 2) {
      expect(wasm.stderr).toMatch(/^mcp-frames: backend wasm is not available: .+\n$/);
      expect(wasm.stdout).toBe('');
    } else {
      expect(wasm.status).toBe(js.status);
      expect(wasm.stdout).toBe(js.stdout);
    }
  });

  it('inspect --json: not available (exit 2), or the same output as js', () => {
    for (const v of streams) {
      const args = (backend: string) => ['inspect', '--endpoint', v.endpoint, '--backend', backend, '--json', ...limitFlags(v)];
      const input = Buffer.from(v.hex, 'hex');
      const js = run(args('js'), input);
      const wasm = run(args('wasm'), input);
      if (wasm.status === 2) {
        expect(wasm.stderr).toMatch(/^mcp-frames: backend wasm is not available: .+\n$/);
      } else {
        expect(wasm.status, v.name).toBe(js.status);
        expect(wasm.stdout, v.name).toBe(js.stdout);
      }
    }
  });
});

describe('conformance', () => {
  it('answers every vector the package ships with js, and says so', () => {
    const r = run(['conformance', '--backend', 'js']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const total = frames.length + streams.length;
    expect(lines(r.stdout).at(-1)).toBe(`conformance (js): ${total}/${total} vectors answered exactly`);
    expect(lines(r.stdout).filter((l) => l.startsWith('ok '))).toHaveLength(total);
  });

  it('a vector it does not answer exactly is a miss, and the status is 1', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-vectors-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'frames.json'),
        JSON.stringify([
          { name: 'wrong on purpose', endpoint: 'list-resources', hex: '00', expect: { kind: 'frame-error', reason: 'empty' } },
          { name: 'right', endpoint: 'list-resources', hex: '', expect: { kind: 'frame-error', reason: 'empty' } },
        ]),
      );
      fs.writeFileSync(path.join(dir, 'streams.json'), '[]');
      const r = run(['conformance', '--backend', 'js', dir]);
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/^MISS .*wrong on purpose$/m);
      expect(lines(r.stdout).at(-1)).toBe('conformance (js): 1/2 vectors answered exactly');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a vector whose expectation cannot be printed is a miss like any other, not the end of the run', () => {
    // Nested 200,000 deep: JSON.stringify of it overflowed the stack while its MISS line was written (exit 70).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-vectors-'));
    try {
      const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
      fs.writeFileSync(
        path.join(dir, 'frames.json'),
        `[{"name":"deep","endpoint":"list-resources","hex":"00","expect":${deep}},{"name":"right","endpoint":"list-resources","hex":"","expect":{"kind":"frame-error","reason":"empty"}}]`,
      );
      fs.writeFileSync(path.join(dir, 'streams.json'), '[]');
      const r = run(['conformance', '--backend', 'js', dir]);
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/^MISS .*deep$/m);
      expect(r.stdout).toMatch(/want: \(not printable: /);
      expect(lines(r.stdout).at(-1)).toBe('conformance (js): 1/2 vectors answered exactly');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('help and version', () => {
  for (const args of [['help'], ['--help'], ['-h']]) {
    it(`mcp-frames ${args.join(' ')}`.trimEnd(), () => {
      const r = run(args);
      expect(r.status).toBe(0);
      for (const text of [
        'decode',
        'inspect',
        'conformance',
        '--max-frame-bytes',
        '16777216 (16 MiB)',
        '4294967295 (2^32 - 1)',
        'default 4096',
        'Exit status',
      ]) {
        expect(r.stdout).toContain(text);
      }
    });
  }

  it('no command is bad usage: the short usage on stderr, nothing on stdout, status 2', () => {
    const r = run([]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcp-frames: no command\nUsage:\n/);
    for (const command of ['decode', 'inspect', 'relay', 'conformance']) expect(r.stderr).toContain(`mcp-frames ${command} `);
    // Short: the command lines, not the flags' table or the exit statuses.
    expect(r.stderr).not.toContain('Exit status');
    expect(r.stderr.split('\n').length).toBeLessThan(20);
  });

  // Each command's help names exactly the flags its parser takes.
  const FLAGS: Record<string, string[]> = {
    decode: ['--endpoint', '--backend', '--hex'],
    inspect: ['--endpoint', '--backend', '--json', '--max-frame-bytes', '--max-open-channels', '--max-held-bytes'],
    relay: [
      '--validate',
      '--endpoint',
      '--backend',
      '--max-frame-bytes',
      '--max-open-channels',
      '--max-held-bytes',
      '--listen',
      '--upstream',
      '--connect-timeout',
      '--idle-timeout',
      '--drain-timeout',
      '--workers',
      '--metrics',
      '--log-level',
    ],
    conformance: ['--backend'],
  };
  const ALL_FLAGS = new Set(Object.values(FLAGS).flat());
  for (const [command, flags] of Object.entries(FLAGS)) {
    it(`mcp-frames ${command} --help prints that command's flags only, status 0`, () => {
      const r = run([command, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`mcp-frames ${command} `);
      const named = new Set(r.stdout.match(/--[a-z-]+/g)!.filter((f) => ALL_FLAGS.has(f)));
      expect([...named].sort()).toEqual([...flags].sort());
      for (const other of Object.keys(FLAGS)) if (other !== command) expect(r.stdout).not.toContain(`mcp-frames ${other} `);
      expect(r.stdout).not.toContain('Exit status');
    });
  }

  it('--version prints the package version', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(run(['--version'])).toMatchObject({ status: 0, stdout: `${version}\n` });
  });
});
