// The benchmark report's verdicts: a miss near its line in two full runs running is within noise, not a miss.

import { describe, expect, it } from 'vitest';
// @ts-expect-error: the benchmark harness is plain JavaScript without declarations.
import { markNoise, summarize, verdict } from '../bench/lib/report.mjs';

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
