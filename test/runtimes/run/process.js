// Node, Deno and Bun: the host file in a child process, the vectors on its stdin, its report as the last line of its stdout.

import { spawn } from 'node:child_process';

/** How long a child may run. */
const TIMEOUT_MS = 60_000;

/**
 * Runs `command args` in `cwd` with `input` on stdin. Resolves with the JSON
 * report the child printed last; rejects with the reason it did not (cannot
 * start, exit status and stderr, timeout, no report).
 */
export function runChild(command, args, cwd, input) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      // NO_COLOR: Deno colours its error lines, which would reach the reason as escape codes.
      child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    } catch (error) {
      reject(new Error(`cannot start ${command}: ${error.message}`));
      return;
    }
    const out = [];
    const err = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${TIMEOUT_MS / 1000} s`));
    }, TIMEOUT_MS);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${command}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (code !== 0) {
        // The line that names the error (Node and Bun: 'TypeError: …', Deno: 'error: …'), else the last one.
        const lines = stderr
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        const why = lines.find((l) => /^(error:|\w*Error\b)/.test(l)) ?? lines.at(-1);
        reject(new Error(`exited with ${signal ?? `status ${code}`}${why ? `: ${why}` : ''}`));
        return;
      }
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`printed no report (stdout: ${JSON.stringify(stdout.slice(0, 200))})`));
      }
    });
    child.stdin.on('error', () => {}); // a child that dies early closes its stdin; the exit says why
    child.stdin.end(input);
  });
}
