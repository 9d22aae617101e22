// The README's examples run, and print what their comments say.
//
// Each ```js block is written into the package folder (so `import
// 'mcp-frames'` resolves to this package by its own name) and run by Node;
// every `console.log(...); // TEXT` line's TEXT must be the next line it
// printed.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

describe('README examples', () => {
  it('has examples for every layer', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  blocks.forEach((code, k) => {
    it(`example ${k + 1} runs and prints what it says`, () => {
      const file = path.join(root, `.readme-example-${k + 1}.mjs`);
      fs.writeFileSync(file, code);
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
