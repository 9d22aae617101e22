// The status enum of the core (assembly/status.ts) and its TypeScript mirror (src/wire/status.ts) say the same thing.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { Status } from '../src/wire/status.js';

const SOURCE = readFileSync(fileURLToPath(new URL('../assembly/status.ts', import.meta.url)), 'utf8');
const LINES = SOURCE.split('\n');
const DECLARATION = /^export const ([A-Z][A-Z0-9_]*): i32 = (-?\d+);\s*$/;

interface Declared {
  name: string;
  value: number;
  line: number;
}

const declared: Declared[] = LINES.flatMap((text, line) => {
  const m = DECLARATION.exec(text);
  return m ? [{ name: m[1], value: Number(m[2]), line }] : [];
});

/** SCREAMING_SNAKE to PascalCase: BAD_KIND -> BadKind, UTF8 -> Utf8, OK -> Ok. */
const pascal = (name: string) =>
  name
    .split('_')
    .map((w) => w[0] + w.slice(1).toLowerCase())
    .join('');

test('every export of assembly/status.ts is a plain `export const NAME: i32 = N;`', () => {
  const exports = LINES.filter((l) => /^\s*export\b/.test(l));
  expect(exports.length).toBeGreaterThan(0);
  for (const l of exports) expect(l, 'an export this test cannot read').toMatch(DECLARATION);
});

test('the name mapping reads as intended', () => {
  expect(pascal('BAD_KIND')).toBe('BadKind');
  expect(pascal('JSON_SYNTAX')).toBe('JsonSyntax');
  expect(pascal('OK')).toBe('Ok');
  expect(pascal('UTF8')).toBe('Utf8');
  expect(pascal('TOO_MANY_CHANNELS')).toBe('TooManyChannels');
});

test('the core defines exactly the statuses of the mirror, with the same numbers', () => {
  const core = Object.fromEntries(declared.map((d) => [pascal(d.name), d.value]));
  expect(core).toEqual({ ...Status });
});

test('no two statuses share a name or a number', () => {
  const names = declared.map((d) => d.name);
  const values = declared.map((d) => d.value);
  expect(new Set(names).size).toBe(names.length);
  expect(new Set(values).size).toBe(values.length);
  const mirror = Object.values(Status);
  expect(new Set(mirror).size).toBe(mirror.length);
});

test.each(declared.map((d) => [d.name, d] as const))('%s has a one-line doc comment right above it', (_name, d) => {
  const above = LINES[d.line - 1] ?? '';
  expect(above.trim(), `line ${d.line} of assembly/status.ts`).toMatch(/^\/\*\* .+ \*\/$/);
});
