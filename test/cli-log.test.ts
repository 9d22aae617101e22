// The CLI's event lines on stderr never pile up in memory: a stream of hostile frames makes a fault line per 18 bytes, and stderr may be read slowly.

import { Writable } from 'node:stream';
import { expect, test } from 'vitest';
import { BoundedLines } from '../src/cli/io.js';

test('a reader that does not keep up: at most the limit waits, the rest are counted, and one line says how many once it drained', async () => {
  const taken: string[] = [];
  const waiting: (() => void)[] = [];
  const slow = new Writable({
    write(chunk, _encoding, done) {
      taken.push(String(chunk));
      waiting.push(done);
    },
  });
  const limit = 64 * 1024;
  const lines = new BoundedLines(slow, limit);
  const line = JSON.stringify({ reason: 'frame-error', channel: 1, offset: 0, frame: { reason: 'empty', message: 'x'.repeat(60) } });
  const total = 100_000;
  let most = 0;
  for (let k = 0; k < total; k++) {
    lines.write(line);
    most = Math.max(most, slow.writableLength);
  }
  // What waits is bounded by the limit and one line, not by what was written.
  expect(most).toBeLessThanOrEqual(limit + line.length + 1);
  expect(lines.droppedTotal).toBeGreaterThan(total * 0.9);

  // The reader catches up.
  while (waiting.length > 0) {
    waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const summaries = taken.filter((t) => t.includes('"event":"log-dropped"')).map((t) => JSON.parse(t));
  expect(summaries).toHaveLength(1);
  expect(summaries[0]).toMatchObject({ level: 'warn', event: 'log-dropped', lines: lines.droppedTotal });
  // Every line is either written or counted.
  expect(taken.length - 1 + summaries[0].lines).toBe(total);

  // Lines flow again after the drain.
  lines.write(line);
  expect(taken.at(-1)).toBe(`${line}\n`);
});
