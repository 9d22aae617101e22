// The CLI's surface on hostile input: option values, the metrics endpoint's HTTP clients, and backends
// loaded from builds that are not good cores. Each case failed on the code before its fix.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'dist/cli/main.js');

/** The CLI run to its end; a command line that starts a relay instead is sent SIGTERM after 10 s (it drains: status 0). */
function run(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { input: '', encoding: 'utf8', timeout: 10_000 });
}

describe('option values', () => {
  it('a timeout too short to be a millisecond is refused, not taken as 0 (no timeout)', () => {
    for (const flag of ['--connect-timeout', '--idle-timeout', '--drain-timeout']) {
      const r = run(['relay', '--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', flag, '0.0001']);
      expect(r.status, flag).toBe(2);
      expect(r.stderr, flag).toContain(`mcp-frames: relay: ${flag} must be 0 (none) or at least a millisecond (0.001), not '0.0001'`);
    }
    // 0 itself still means none, and half a millisecond or more rounds to at least 1 ms.
    expect(run(['relay', '--idle-timeout', '0']).stderr).toContain('--idle-timeout goes with --listen');
    expect(run(['relay', '--idle-timeout', '0.0005']).stderr).toContain('--idle-timeout goes with --listen');
  });

  it('a flag that takes a value, given twice, is refused rather than one of them silently winning', () => {
    for (const args of [
      ['inspect', '--endpoint', 'list-resources', '--endpoint', 'read-resource', '--json'],
      ['inspect', '--endpoint', 'list-resources', '--max-frame-bytes', '5', '--max-frame-bytes=70000', '--json'],
      ['decode', '--hex', '--endpoint', 'list-resources', '--backend', 'js', '--backend', 'wasm'],
      ['relay', '--validate', 'none', '--validate', 'json'],
    ]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /^mcp-frames: (inspect|decode|relay): --[a-z-]+ is given twice \('.*' and '.*'\); see mcp-frames --help\n$/,
      );
    }
    // A boolean flag given twice says the same thing twice: it is taken.
    expect(run(['inspect', '--endpoint', 'list-resources', '--json', '--json']).status).toBe(0);
  });
});
