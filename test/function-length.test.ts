// No function of the package runs past 120 lines: a connection's life, a codec, a command is read as named parts, not
// one closure.
//
// Every folder of src/ is held to it, but for generated code (src/contract/generated/, written by
// scripts/gen-judges.mjs). The core (assembly/) is not: its stage 1 is one loop on purpose, as its notes say.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const FOLDERS = fs
  .readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `src/${e.name}`);
const MAX_LINES = 120;

/** Every function with a body in `file` longer than MAX_LINES, as `file:line name (n lines)`. */
function longFunctions(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      const name = 'name' in node && node.name ? (node.name as ts.Node).getText(source) : '(anonymous)';
      if (lines > MAX_LINES) found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('functions in the package', () => {
  it.each(FOLDERS)(`%s: none is longer than ${MAX_LINES} lines`, (folder) => {
    const files = fs
      .readdirSync(path.join(root, folder))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${folder}/${f}`);
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});
