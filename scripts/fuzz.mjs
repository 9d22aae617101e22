// `npm run fuzz -- --count N --seed S`: frames and record streams through every backend against the reference models.
//
// Runs test/fuzz.test.ts under vitest with N cases (four frames for every
// stream) from seed S. `npm test` runs the same file with 100,000 cases and
// a seed from the clock. A failure prints the seed and the case; the same
// --count and --seed give the same inputs again.
//
//   npm run fuzz                                   100,000 cases, a new seed
//   npm run fuzz -- --count 1000000 --seed 7       a million, about a minute and a half per 100k on two cores
//   npm run fuzz -- --backends js,wasm-simd        fewer backends (default: js, wasm-simd, wasm-scalar)

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
let values;
try {
  ({ values } = parseArgs({
    options: { count: { type: 'string' }, seed: { type: 'string' }, backends: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }));
} catch (error) {
  console.error(`fuzz: ${error.message}`);
  process.exit(2);
}
if (values.help) {
  console.log('npm run fuzz -- [--count N] [--seed S] [--backends js,wasm-simd,wasm-scalar]');
  process.exit(0);
}
const count = values.count ?? '100000';
if (!/^\d+$/.test(count)) {
  console.error(`fuzz: --count must be a whole number, not '${count}'`);
  process.exit(2);
}
const seed = values.seed ?? String(Date.now() % 2 ** 31);
if (!/^\d+$/.test(seed) || Number(seed) >= 2 ** 31) {
  console.error(`fuzz: --seed must be a whole number below 2^31, not '${seed}'`);
  process.exit(2);
}
console.error(`fuzz: ${Number(count).toLocaleString('en')} cases, seed ${seed}${values.backends ? `, backends ${values.backends}` : ''}`);
const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
const env = {
  ...process.env,
  MCP_FRAMES_FUZZ_COUNT: count,
  MCP_FRAMES_SEED: seed,
  MCP_FRAMES_FUZZ_PROGRESS: '1',
  ...(values.backends ? { MCP_FRAMES_BACKENDS: values.backends } : {}),
};
const run = spawnSync(vitest, ['run', 'test/fuzz.test.ts', '--testTimeout', '0'], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
