// A frame that fails the schema costs at most 4× its size in heap: a 16 MiB frame that fails the schema gives its FrameError within 4× its size of heap, through every entry point, on every backend.
//
// Each case runs in a child process (test/support/heap-child.mjs, on dist/)
// whose old generation is capped at the heap it starts with plus four times
// the frame, and whose young generation is cut to 1 MiB so that it adds
// little room of its own: the case passes only if it finishes with its
// FrameError inside that. The control case shows the cap bites: JSON.parse
// of one such body alone, what judging a parsed value costs before any
// schema runs, dies under it.

import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';

const CHILD = fileURLToPath(new URL('./support/heap-child.mjs', import.meta.url));
const MiB = 1024 * 1024;
const FRAME_MIB = 16;

interface Config {
  shape: string;
  mib: number;
  entry: 'none' | 'parse' | 'today' | 'decode' | 'tryDecode' | 'stream' | 'relay' | 'inspect';
  backend: string;
}

interface Ran {
  out?: Record<string, unknown>;
  status: number | null;
  signal: string | null;
  stderr: string;
}

const flagsFor = (limitMiB?: number) => (limitMiB ? [`--max-old-space-size=${limitMiB}`, '--max-semi-space-size=1'] : ['--expose-gc']);
const lineOf = (stdout: string) => {
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
};

/** Runs the child, with the old generation capped at `limitMiB` when given: its JSON line, or how it died. */
function run(config: Config, limitMiB?: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...flagsFor(limitMiB), CHILD, JSON.stringify(config)],
      { encoding: 'utf8', maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: string }) | null;
        resolve({
          out: lineOf(stdout),
          status: e ? (typeof e.code === 'number' ? e.code : -1) : 0,
          signal: e?.signal ?? null,
          stderr: stderr.slice(-2000),
        });
      },
    );
  });
}

/** The heap a child holds once its frame is built: every case starts there. */
const base = (() => {
  const config: Config = { shape: 'numbers', mib: FRAME_MIB, entry: 'none', backend: 'js' };
  const r = spawnSync(process.execPath, [...flagsFor(), CHILD, JSON.stringify(config)], { encoding: 'utf8' });
  return { out: lineOf(r.stdout) };
})();
const BASE_MIB = Math.ceil((base.out?.heapUsed as number) / MiB);
const LIMIT_MIB = BASE_MIB + 4 * FRAME_MIB;

/** Frames that fail the schema (heap-child.mjs builds them), each with the start of the error it must give. */
const SHAPES: Record<string, string> = {
  numbers: 'resources.0: Invalid input: expected object, received number',
  objects: 'resources.0.name: Invalid input: expected string, received undefined',
  'last-fails': '.name: Invalid input: expected string, received undefined',
  blobs: 'contents.0.blob: Invalid Base64 string',
  'dense-unknown': '_meta.progressToken: Invalid input',
  'wide-text': 'contents.0: Invalid input',
  'error-data': 'code: Invalid input: expected int, received number',
  'completion-values': 'completion.values: Too big: expected array to have <=100 items',
  'tool-properties': 'tools.0.inputSchema.properties.bad: Invalid input',
};

/** The entry points other than decode, each on three of the hostile frames, without aborting. */
const ENTRIES = ['tryDecode', 'stream', 'relay'] as const;
const ENTRY_SHAPES = ['numbers', 'objects', 'blobs'];

function expectRefused(r: Ran, shape: string) {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.status, r.stderr).toBe(0);
  const out = (r.out?.line as Record<string, unknown>) ?? r.out;
  expect(out?.reason).toBe('body');
  expect(out?.rule).toBe('schema');
  expect(String(out?.message)).toContain(SHAPES[shape]);
}

test('the heap a child starts from is measured', () => {
  expect(base.out?.heapUsed).toBeGreaterThan(MiB);
  expect(BASE_MIB).toBeLessThan(64);
});

test(`control: JSON.parse of one 16 MiB body of [{},{},…] alone does not fit in ${4 * FRAME_MIB} MiB over the base`, async () => {
  const r = await run({ shape: 'objects', mib: FRAME_MIB, entry: 'parse', backend: 'js' }, LIMIT_MIB);
  expect(r.out).toBeUndefined();
  expect(r.signal ?? r.status).not.toBe(0);
});

// The children run a few at a time (vitest's maxConcurrency): each is a process of its own.
describe.concurrent.each(BACKEND_ROWS)(`%s: within the base plus ${4 * FRAME_MIB} MiB of heap`, (name) => {
  test.each(Object.keys(SHAPES))(`decode: %s`, async (shape) => {
    expectRefused(await run({ shape, mib: FRAME_MIB, entry: 'decode', backend: name }, LIMIT_MIB), shape);
  });

  for (const entry of ENTRIES) {
    test.each(ENTRY_SHAPES)(`${entry}: %s`, async (shape) => {
      expectRefused(await run({ shape, mib: FRAME_MIB, entry, backend: name }, LIMIT_MIB), shape);
    });
  }

  test('inspect (the CLI, capped alike): objects', async () => {
    const r = await run({ shape: 'objects', mib: FRAME_MIB, entry: 'inspect', backend: name }, LIMIT_MIB);
    expect(r.out?.signal).toBeNull();
    expect(r.out?.status, String(r.out?.stderr)).toBe(0);
    expectRefused(r, 'objects');
  });
});

describe.concurrent("the error is the one the SDK's safeParse gives (the same frames at 256 KiB, where safeParse still fits)", () => {
  test.each(Object.keys(SHAPES))('%s', async (shape) => {
    const [today, decoded] = await Promise.all([
      run({ shape, mib: 0.25, entry: 'today', backend: 'js' }),
      run({ shape, mib: 0.25, entry: 'decode', backend: 'js' }),
    ]);
    const { ms: _a, ...want } = today.out ?? {};
    const { ms: _b, ...got } = decoded.out ?? {};
    expect(got).toEqual(want);
  });
});
