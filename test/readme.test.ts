// The README's examples run, and print what their comments say.
//
// Each ```js block is written into the package folder (so `import
// 'mcp-frames'` resolves to this package by its own name) and run by Node;
// every `console.log(...); // TEXT` line's TEXT must be the next line it
// printed. The proxy's examples talk to "the proxy above" on
// 127.0.0.1:7000: the test runs that proxy (over the server-everything the
// project installs), on a free port it puts in their place, and runs the
// README's `mcp-frames request` line against it too.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayProcess, startCli } from './support/relay-process.js';

const root = path.resolve(import.meta.dirname, '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

const PROXY_AT = '127.0.0.1:7000';
const require = createRequire(import.meta.url);
const everything = () => {
  const dir = path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
  return path.join(dir, 'dist', 'index.js');
};

describe('README examples', () => {
  let proxy: RelayProcess;
  beforeAll(async () => {
    proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', '--', process.execPath, everything(), 'stdio']);
  });
  afterAll(() => proxy?.kill());
  const here = () => `127.0.0.1:${proxy.port}`;

  it('has examples for every layer', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  it("the proxy example's request line runs as written, against the proxy", async () => {
    const line = /^mcp-frames request (127\.0\.0\.1:\d+) (\S+)( \{\S*\})?/m.exec(readme);
    expect(line, 'the README shows `mcp-frames request`').not.toBeNull();
    expect(line![1]).toBe(PROXY_AT);
    const args = ['request', here(), line![2], ...(line![3] ? [line![3].trim()] : [])];
    const run = spawn(process.execPath, [path.join(root, 'dist', 'cli', 'main.js'), ...args]);
    let stdout = '';
    run.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    const status = await new Promise((resolve) => run.on('close', resolve));
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'result' });
  });

  blocks.forEach((code, k) => {
    it(`example ${k + 1} runs and prints what it says`, () => {
      const file = path.join(root, `.readme-example-${k + 1}.mjs`);
      fs.writeFileSync(file, code.replaceAll(PROXY_AT, here()));
      try {
        const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 30_000 });
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        const said = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
        expect(r.stdout.trimEnd().split('\n')).toEqual(said);
      } finally {
        fs.rmSync(file);
      }
    });
  });
});

describe("README's benchmark table", () => {
  it('is the one the committed report makes (node bench/render.mjs writes it)', async () => {
    // @ts-expect-error: a plain .mjs module of the benchmarks, with no types
    const { renderHeadline, HEADLINE_START, HEADLINE_END } = await import('../bench/lib/headline.mjs');
    const report = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'report', 'report.json'), 'utf8'));
    const start = readme.indexOf(HEADLINE_START);
    const end = readme.indexOf(HEADLINE_END);
    expect(start, 'the markers around the table').toBeGreaterThanOrEqual(0);
    expect(readme.slice(start, end + HEADLINE_END.length)).toBe(renderHeadline(report));
    // Every row names a ratio and its target: none is empty.
    expect(renderHeadline(report)).toMatch(/\| [^|]+× \([^)]+\)[^|]* \| [≥≤] /);
  });
});
