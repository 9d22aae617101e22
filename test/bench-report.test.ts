// The benchmark report's verdicts: a miss near its line in two full runs running is within noise, not a miss.

import { describe, expect, it } from 'vitest';
// @ts-expect-error: the benchmark harness is plain JavaScript without declarations.
import { judgeTarget, limitOf, markNoise, summarize, targetPairs, verdict } from '../bench/lib/report.mjs';

type Target = { name: string; ratio: number | null; target: number; met: boolean | null; noise?: unknown };

const target = (name: string, ratio: number | null, met: boolean | null, line = 1): Target => ({ name, ratio, target: line, met });

describe('markNoise', () => {
  it('marks a miss within 5% of its line in this run and the one before, and nothing else', () => {
    const previous = {
      generatedAt: '2026-12-01T00:00:00Z',
      targets: [
        target('near both', 1.02, true),
        target('far before', 0.9, false),
        target('near now only', 0.8, false),
        target('moved line', 0.97, false, 0.9),
      ],
    };
    const now = [
      target('near both', 0.96, false),
      target('far before', 0.97, false),
      target('near now only', 0.99, false),
      target('moved line', 0.97, false),
      target('far now', 0.94, false),
      target('met', 1.2, true),
      target('not judged', null, null),
    ];
    markNoise(now, previous);
    expect(now.map(verdict)).toEqual(['within noise', 'missed', 'missed', 'missed', 'missed', 'met', 'not judged']);
    expect(now[0].noise).toEqual({ band: 0.05, previousRatio: 1.02, previousRun: '2026-12-01T00:00:00Z' });
    expect(summarize(now)).toBe('7 targets: 1 met, 1 within noise, 4 missed, 1 not judged');
  });

  it('judges a run with no run before alone', () => {
    const now = [target('near', 0.99, false)];
    markNoise(now, undefined);
    expect(verdict(now[0])).toBe('missed');
  });
});

describe('limitOf', () => {
  const results = [
    { name: 'validate', backend: 'native', opsPerSec: 1, bytesPerCpuSecond: 2e9, mbPerSec: 4000 },
    { name: 'validate-wall', backend: 'native', opsPerSec: 1, mbPerSec: 2000 },
  ];
  const bare = { bytesPerCpuSecond: 1e9, mbPerSec: 500 };

  it("is the denominator's time a byte over that time plus the cost case's, in CPU where both have it", () => {
    // 1 ns a byte for the bare case, 0.5 for the cost: at most 1 / 1.5.
    expect(limitOf({ cost: ['validate', 'native'], how: 'h' }, bare, results, true)).toEqual({ ratio: 0.667, how: 'h', cost: 'validate@native' });
    // A cost case with no CPU figures counts its wall time (2000 MB/s: 0.5 ns a byte).
    expect(limitOf({ cost: ['validate-wall', 'native'], how: 'h' }, bare, results, true)?.ratio).toBe(0.667);
    // Wall time on both sides: 2 ns a byte for the bare case, 0.25 for the cost.
    expect(limitOf({ cost: ['validate', 'native'], how: 'h' }, bare, results, false)?.ratio).toBe(0.889);
  });

  it('is null where the cost case did not run', () => {
    expect(limitOf({ cost: ['absent', 'native'], how: 'h' }, bare, results, true)).toBeNull();
  });
});

describe('a page-fault target', () => {
  const spec = (target: number) => ({
    group: 'faults',
    fixture: 'f',
    num: ['relay', 'mcp-frames'],
    den: ['bare', 'node'],
    target,
    comparison: '<=',
    metric: 'faults',
  });
  const results = [
    { name: 'relay', backend: 'mcp-frames', opsPerSec: 1, minorPageFaultsPerMiB: 1.25 },
    { name: 'bare', backend: 'node', opsPerSec: 2, minorPageFaultsPerMiB: 9.5 },
  ];

  it("is judged on the numerator's count a MiB, with the denominator's beside it, not on a ratio of speeds", () => {
    const missed = judgeTarget(spec(0.5), results, true, true, new Map());
    expect(missed).toMatchObject({ ratio: 1.25, target: 0.5, met: false, metric: 'faults', by: 'missed; the bare proxy took 9.50 a MiB' });
    expect(verdict(missed)).toBe('missed');
    expect(judgeTarget(spec(2), results, true, true, new Map())).toMatchObject({ ratio: 1.25, met: true });
  });

  it('is not judged where no faults were counted', () => {
    const none = [{ ...results[0], minorPageFaultsPerMiB: undefined }, results[1]];
    expect(verdict(judgeTarget(spec(0.5), none, true, true, new Map()))).toBe('not judged');
  });

  it('is timed in no pair: nothing of it runs side by side', () => {
    const pairs: string[][] = targetPairs('wasm-simd');
    expect(pairs.some(([a]) => a.startsWith('relay/tcp-concurrent/'))).toBe(false);
  });
});
