// Rule 4.1, case by case: the corpus in test/corpus/json.ts through the JS scanner and every backend's verifyFrame.

import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { JSON_CASES, type JsonCase } from './corpus/json.js';
import { validateJsonText } from '../src/contract/json-text.js';
import { Status } from '../src/wire/status.js';

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function bytesOf(c: JsonCase): Uint8Array {
  return typeof c.text === 'string' ? encoder.encode(c.text) : Uint8Array.from(c.text);
}

/** Refusals for the grammar's sake, which JSON.parse must share. */
const GRAMMAR: readonly number[] = [Status.JsonSyntax, Status.JsonEnd, Status.Trailing, Status.BadEscape, Status.ControlChar];

const STATUS_NAME = Object.fromEntries(Object.entries(Status).map(([k, v]) => [v, k])) as Record<number, string>;

/** A fault as readable data, so that a mismatch reads well. */
const shown = (f: { status: number; offset: number } | null) => (f ? { status: STATUS_NAME[f.status] ?? f.status, offset: f.offset } : null);

function checkVerdict(c: JsonCase, got: { status: number; offset: number } | null, shift: number): void {
  if (c.expect === 'accept') {
    expect(shown(got)).toBeNull();
    return;
  }
  expect(got, 'refused').not.toBeNull();
  if (c.status !== undefined) expect(shown(got)?.status).toBe(STATUS_NAME[c.status]);
  if (c.offset !== undefined) expect(got?.offset).toBe(c.offset + shift);
}

test('the corpus is well formed', () => {
  const names = new Set<string>();
  for (const c of JSON_CASES) {
    expect(c.name).toMatch(/^[yni]_/);
    expect(names.has(c.name), `duplicate name ${c.name}`).toBe(false);
    names.add(c.name);
    if (c.name.startsWith('y_')) expect(c.expect).toBe('accept');
    if (c.name.startsWith('n_')) expect(c.expect).toBe('refuse');
    if (c.name.startsWith('i_')) expect(c.why, `${c.name} says why`).toBeTruthy();
  }
});

describe('validateJsonText', () => {
  test.each(JSON_CASES.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const bytes = bytesOf(c);
    checkVerdict(c, validateJsonText(bytes, 0, bytes.length), 0);
  });

  test('offsets are indexes into the bytes given, from any start', () => {
    const wrong: string[] = [];
    for (const c of JSON_CASES) {
      const text = bytesOf(c);
      const padded = new Uint8Array(text.length + 7);
      padded.fill(0x7b); // '{' around the text, which the scanner must not read
      padded.set(text, 3);
      try {
        checkVerdict(c, validateJsonText(padded, 3, 3 + text.length), 3);
      } catch {
        wrong.push(c.name);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('JSON.parse agrees where it can', () => {
  test.each(JSON_CASES.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const bytes = bytesOf(c);
    if (c.expect === 'accept') {
      // Accepted text is valid UTF-8 and JSON.parse takes it.
      const text = strictDecoder.decode(bytes);
      expect(() => JSON.parse(text)).not.toThrow();
      return;
    }
    const status = c.status ?? validateJsonText(bytes, 0, bytes.length)?.status;
    if (status !== undefined && GRAMMAR.includes(status)) {
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
    }
  });
});

describe.each(BACKEND_ROWS)('verifyFrame on %s', (_name, backend) => {
  test.each(JSON_CASES.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const text = bytesOf(c);
    for (const tag of [0x00, 0x01]) {
      const payload = new Uint8Array(text.length + 1);
      payload[0] = tag;
      payload.set(text, 1);
      checkVerdict(c, backend.verifyFrame(payload), 1);
      // The same payload as a view into a larger buffer, with junk on both sides.
      const outer = new Uint8Array(payload.length + 16).fill(0xff);
      outer.set(payload, 8);
      checkVerdict(c, backend.verifyFrame(outer.subarray(8, 8 + payload.length)), 1);
    }
  });
});
