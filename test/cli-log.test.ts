// The CLI's event lines on stderr never pile up in memory (a stream of hostile frames makes a fault line per 18 bytes, and stderr may be read slowly), and go out in writes of whole lines of at most PIPE_BUF.

import { Writable } from 'node:stream';
import { expect, test } from 'vitest';
import { BoundedLines } from '../src/cli/io.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const line = JSON.stringify({ reason: 'frame-error', channel: 1, offset: 0, frame: { reason: 'empty', message: 'x'.repeat(60) } });

/** A stream that takes each write only when told to. */
function slowStream() {
  const taken: string[] = [];
  const waiting: (() => void)[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      taken.push(String(chunk));
      waiting.push(done);
    },
  });
  return { stream, taken, waiting };
}

test('a reader that does not keep up: at most the limit waits, the rest are counted, and one line says how many once it drained', async () => {
  const { stream, taken, waiting } = slowStream();
  const limit = 64 * 1024;
  const lines = new BoundedLines(stream, limit);
  const total = 100_000;
  let most = 0;
  for (let k = 0; k < total; k++) {
    lines.write(line);
    most = Math.max(most, stream.writableLength);
  }
  // What waits is bounded by the limit and one write, not by what was written.
  expect(most).toBeLessThanOrEqual(limit + 4096);
  expect(lines.droppedTotal).toBeGreaterThan(total * 0.9);

  // The reader catches up.
  await turn();
  while (waiting.length > 0) {
    waiting.shift()!();
    await turn();
  }
  const written = taken.join('').split('\n').slice(0, -1);
  const summaries = written.filter((t) => t.includes('"event":"log-dropped"')).map((t) => JSON.parse(t));
  expect(summaries).toHaveLength(1);
  expect(summaries[0]).toMatchObject({ level: 'warn', event: 'log-dropped', lines: lines.droppedTotal });
  // Every line is either written or counted.
  expect(written.length - 1 + summaries[0].lines).toBe(total);

  // Lines flow again after the drain.
  lines.write(line);
  await turn();
  expect(taken.at(-1)).toBe(`${line}\n`);
});

test('lines of one turn go out at its end, in writes of whole lines of at most 4096 bytes; flush writes at once', async () => {
  const { stream, taken, waiting } = slowStream();
  const lines = new BoundedLines(stream);
  for (let k = 0; k < 100; k++) lines.write(`${k} ${line}`);
  // Only what filled a write went out during the turn.
  expect(taken.length).toBeLessThan(100 / 5);
  await turn();
  while (waiting.length > 0) {
    waiting.shift()!();
    await turn();
  }
  const all = taken.join('');
  expect(all.split('\n').slice(0, -1)).toEqual(Array.from({ length: 100 }, (_, k) => `${k} ${line}`));
  for (const write of taken) {
    expect(Buffer.byteLength(write)).toBeLessThanOrEqual(4096);
    expect(write.endsWith('\n')).toBe(true);
  }
  expect(taken.length).toBeLessThan(100 / 5);

  lines.write('last');
  lines.flush();
  expect(taken.at(-1)).toBe('last\n');
});

test('a reader that never catches up: the count still goes out once a period, with one drain listener at most', () => {
  const { stream } = slowStream();
  let clock = 0;
  const lines = new BoundedLines(stream, 64 * 1024, () => clock);
  for (let k = 0; k < 2000; k++) lines.write(line);
  lines.flush();
  const first = lines.droppedTotal;
  expect(first).toBeGreaterThan(0);
  const waitingBefore = stream.writableLength;
  // Time passes, lines keep coming, the reader takes nothing.
  for (let second = 1; second <= 5; second++) {
    clock = second * 1000;
    for (let k = 0; k < 1000; k++) lines.write(line);
    expect(stream.listenerCount('drain')).toBe(1);
  }
  // Each period added one count line to what waits, and nothing else.
  const added = stream.writableLength - waitingBefore;
  expect(added).toBeGreaterThan(0);
  expect(added).toBeLessThan(5 * 200);
  expect(lines.droppedTotal).toBe(first + 5000);
});
