// The CLI's one warning when schema checks fall back to the SDK's own schemas, with the SDK's drift made by hand.

import { describe, expect, it, vi } from 'vitest';
import { SchemaDrift } from '../src/contract/judge-kit.js';

vi.mock('../src/contract/schema.js', () => ({
  COMPILED_DRIFT: new SchemaDrift('an SDK schema changed since the judges were generated (at shape.blob):\n  was …\n  now …'),
  schemaJudges: 'sdk',
}));

const { judgesInUse } = await import('../src/cli/judges.js');

/** An Io whose stderr lines are kept. */
function io() {
  const err: string[] = [];
  return { err, io: { err: (line: string) => err.push(line) } as never };
}

describe('after a fallback to the SDK schemas', () => {
  it('says so once on stderr, naming the reason, and gives sdk', () => {
    const { err, io: given } = io();
    expect(judgesInUse(given, true)).toBe('sdk');
    expect(err).toEqual([
      "mcp-frames: warning: schema checks fall back to the SDK's own schemas, with the same verdicts at a slower speed: an SDK schema changed since the judges were generated (at shape.blob):",
    ]);
  });

  it("leaves the warning to the caller that owns it (a cluster's primary)", () => {
    const { err, io: given } = io();
    expect(judgesInUse(given, false)).toBe('sdk');
    expect(err).toEqual([]);
  });
});
