// The open-channel table against a Map: random opens, closes and admits, ids that collide, and the opening order.

import { describe, expect, it } from 'vitest';
import { Status } from '../src/wire/status.js';
import { ALREADY_OPEN, OpenChannels } from '../src/exchange/open-channels.js';
import { Gen, rng } from './support/generate.js';

describe('OpenChannels', () => {
  it('lists its channels and their lengths for a kernel that folds, while they are few and the table small', () => {
    const table = new OpenChannels<number>(4096, Number.MAX_SAFE_INTEGER);
    const ids = new Uint32Array(8);
    const lengths = new Float64Array(8);
    expect(table.list(ids, lengths, 8)).toBe(0);
    for (const [channel, length] of [
      [7, 70],
      [2 ** 32 - 1, 1],
      [300, 3000],
    ])
      table.open(channel, length, 0);
    const n = table.list(ids, lengths, 8);
    expect(n).toBe(3);
    const listed = Array.from(ids.subarray(0, n), (id, k) => [id, lengths[k]]).sort((a, b) => a[0] - b[0]);
    expect(listed).toEqual([
      [7, 70],
      [300, 3000],
      [2 ** 32 - 1, 1],
    ]);
    // More than asked for: none listed.
    expect(table.list(ids, lengths, 2)).toBe(-1);
    // A table grown past 64 slots is not walked, however few it holds now; an empty one always answers 0.
    for (let c = 1000; c < 1040; c++) table.open(c, 1, 0);
    for (let c = 1000; c < 1040; c++) table.close(c);
    expect(table.size).toBe(3);
    expect(table.list(ids, lengths, 8)).toBe(-1);
    for (const c of [7, 2 ** 32 - 1, 300]) table.close(c);
    expect(table.list(ids, lengths, 8)).toBe(0);
  });

  it('agrees with a Map on 200,000 random operations, and keeps the opening order', () => {
    const g = new Gen(rng(20261130));
    for (const range of [8, 64, 5000, 2 ** 32]) {
      const table = new OpenChannels<number>(100_000, Number.MAX_SAFE_INTEGER);
      const model = new Map<number, { value: number; length: number }>();
      let held = 0;
      for (let n = 0; n < 50_000; n++) {
        // Ids that share hash slots: multiples of a power of two, and plain small ids.
        const channel = g.int(2) === 0 ? g.int(range) >>> 0 : (g.int(64) * 65536) >>> 0;
        const op = g.int(3);
        if (op === 0 && !model.has(channel)) {
          const length = g.int(1000);
          table.open(channel, length, n);
          model.set(channel, { value: n, length });
          held += length;
        } else if (op === 1) {
          const want = model.get(channel);
          const got = table.close(channel);
          if (got !== want?.value) expect.fail(`op ${n}: close(${channel}) gave ${got}, the Map ${want?.value}`);
          if (want) held -= want.length;
          model.delete(channel);
        } else if (table.get(channel) !== model.get(channel)?.value) {
          expect.fail(`op ${n}: get(${channel}) gave ${table.get(channel)}, the Map ${model.get(channel)?.value}`);
        }
        if (table.size !== model.size || table.held !== held) expect.fail(`op ${n}: size ${table.size}/${model.size}, held ${table.held}/${held}`);
      }
      expect(table.closeAll()).toEqual([...model].map(([channel, { value }]) => [channel, value]));
      expect(table.size).toBe(0);
    }
  });

  it('judges the channel limit before the held limit, and counts a reopened channel once', () => {
    const table = new OpenChannels<null>(2, 100);
    table.open(1, 60, null);
    expect(table.admit(1, 40)).toBe(Status.Ok);
    expect(table.admit(1, 41)).toBe(Status.HeldLimit);
    table.open(2, 10, null);
    expect(table.admit(3, 0)).toBe(Status.TooManyChannels);
    expect(table.admit(2, 30)).toBe(Status.Ok);
    table.close(1);
    expect(table.admit(3, 90)).toBe(Status.Ok);
    expect(table.admit(3, 91)).toBe(Status.HeldLimit);
  });
});

describe('OpenChannels against chosen ids', () => {
  it("ids a peer chooses to share a slot under Knuth's multiplier spread out: each table draws its own", () => {
    // The inverse of 0x9e3779b1 modulo 2^32, by Newton's iteration: k times it hashed to slot 0 for every k.
    let inverse = 0x9e3779b1;
    for (let i = 0; i < 5; i++) inverse = Math.imul(inverse, 2 - Math.imul(0x9e3779b1, inverse));
    expect(Math.imul(0x9e3779b1, inverse)).toBe(1);
    const table = new OpenChannels<number>(10_000, Number.MAX_SAFE_INTEGER);
    for (let k = 1; k <= 4000; k++) table.open(Math.imul(k, inverse) >>> 0, 0, k);
    // With the fixed multiplier the longest probe was 4000: every lookup walked every open channel.
    expect(table.longestProbe()).toBeLessThan(64);
    for (let k = 1; k <= 4000; k++) expect(table.get(Math.imul(k, inverse) >>> 0)).toBe(k);
  });

  it("take() gives admit()'s verdict, then opens a closed channel and leaves an open one alone", () => {
    const g = new Gen(rng(20261204));
    const taken = new OpenChannels<number>(6, 3000);
    const stepwise = new OpenChannels<number>(6, 3000);
    const verdicts = new Set<number>();
    for (let n = 0; n < 20_000; n++) {
      const channel = g.int(10);
      if (g.int(3) === 0) {
        expect(taken.close(channel)).toBe(stepwise.close(channel));
        continue;
      }
      const length = g.int(800);
      const admitted = stepwise.admit(channel, length);
      const want = admitted !== Status.Ok ? admitted : stepwise.has(channel) ? ALREADY_OPEN : Status.Ok;
      if (want === Status.Ok) stepwise.open(channel, length, n);
      const got = taken.take(channel, length, n);
      if (got !== want) expect.fail(`op ${n}: take(${channel}, ${length}) gave ${got}, admit and has ${want}`);
      verdicts.add(got);
      expect([taken.size, taken.held]).toEqual([stepwise.size, stepwise.held]);
    }
    expect([...verdicts].sort((a, b) => a - b)).toEqual([ALREADY_OPEN, Status.Ok, Status.TooManyChannels, Status.HeldLimit]);
    expect(taken.closeAll()).toEqual(stepwise.closeAll());
  });
});
