// prom-client is an optional dependency that only `relay --metrics` loads: the library and the CLI's other commands run without it.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = process.cwd();
let dir = '';

// The package as installed without its optional dependency: dist and package.json copied, every
// other package of node_modules linked beside it.
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-no-prom-'));
  const pkg = path.join(dir, 'node_modules', 'mcp-frames');
  fs.mkdirSync(pkg, { recursive: true });
  for (const name of ['package.json', 'dist', 'build']) fs.cpSync(path.join(root, name), path.join(pkg, name), { recursive: true });
  for (const name of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (name === 'prom-client' || name === '.bin' || name === 'mcp-frames') continue;
    fs.symlinkSync(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name));
  }
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], script?: string) {
  const argv = script ? ['--input-type=module', '-e', script] : [path.join(dir, 'node_modules', 'mcp-frames', 'dist', 'cli', 'main.js'), ...args];
  return spawnSync(process.execPath, argv, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
}

describe('without prom-client', () => {
  it('it is not there to be found', () => {
    expect(run([], "import('prom-client').then(() => console.log('found'), (e) => console.log(e.code))").stdout.trim()).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('the library loads and encodes, and the CLI decodes', () => {
    const r = run(
      [],
      "const m = await import('mcp-frames'); console.log(m.listResources.encode({ kind: 'result', result: { resources: [] } }).length)",
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(String(1 + '{"resources":[]}'.length));
    const hex = Buffer.from('\u0000{"resources":[]}').toString('hex');
    const d = spawnSync(
      process.execPath,
      [path.join(dir, 'node_modules/mcp-frames/dist/cli/main.js'), 'decode', '--endpoint', 'list-resources', '--hex'],
      {
        input: `${hex}\n`,
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(d.status).toBe(0);
    expect(JSON.parse(d.stdout)).toEqual({ kind: 'result', result: { resources: [] } });
  });

  it('relay --metrics is a usage error (status 2) that names what to install', () => {
    const r = run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:9', '--metrics', '127.0.0.1:0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--metrics needs prom-client.*npm install prom-client/);
  });
});
