#!/usr/bin/env node
// The benchmarks: `npm run bench [-- --filter REGEX] [-- --quick]`.
//
// Builds the seeded fixtures, checks every selected case once, times the
// cases that passed with benchmark.js (one at a time, in this process), and
// writes report.json, report.md and report.svg. See bench/README.md.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { withHeadline } from './lib/headline.mjs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs as parseCliArgs } from 'node:util';
import Benchmark from 'benchmark';
import * as lib from 'mcp-frames';
import { bundledCases } from './lib/bundled.mjs';
import { buildCases } from './lib/cases.mjs';
import { CONCURRENT_NAMES, runConcurrentCases } from './lib/concurrent.mjs';
import { buildDocuments } from './lib/documents.mjs';
import { environment, loadSimdjson, ROOT, staleness } from './lib/env.mjs';
import { buildFixtures, DISTINCT_BYTES, describeFixture, SEED } from './lib/fixtures.mjs';
import { loadNative } from './lib/native.mjs';
import { pairedRatios } from './lib/paired.mjs';
import { PROXY_NAMES, runProxyCases } from './lib/proxy.mjs';
import { buildReport, renderMarkdown, summarize, targetPairs } from './lib/report.mjs';
import { runScaleCases, SCALE_NAMES } from './lib/scale.mjs';
import { renderSvg } from './lib/svg.mjs';
import { runWireCases, WIRE_NAMES } from './lib/wire.mjs';

const USAGE = `usage: node bench/run.mjs [--filter REGEX] [--quick] [--out DIR] [--list]

  --filter REGEX  run only the cases whose name (layer/op/fixture) or
                  name@backend matches REGEX, e.g. '^frame/validate/' or
                  'blob-1m@wasm-simd$'
  --quick         short runs for smoke testing; the numbers are noisy and
                  the report says so
  --out DIR       where to write the report; default bench/report for a
                  full run, bench/report/partial for --filter or --quick
  --list          print the case names and exit (those timed in rounds
                  against their yardsticks are marked '(rounds)')

  The cases timed in rounds (whole processes, streams of megabytes: relay/
  web-streams, cli, cli-full, tcp-single, tcp-scale, tcp-concurrent,
  in-process; proxy/) run after the rest; --filter selects them by name
  like any other case.
`;

/**
 * The cases timed in rounds, after the rest, in this order: their names, and what runs them (bench/lib/rounds.mjs).
 * @type {[string[], (options: any) => Promise<{ results: any[], fixtures: any[] }>][]}
 */
const ROUND_CASES = [
  [WIRE_NAMES, (o) => runWireCases({ ...o, seed: SEED })],
  [SCALE_NAMES, runScaleCases],
  [CONCURRENT_NAMES, runConcurrentCases],
  [PROXY_NAMES, runProxyCases],
];

function parseArgs(argv) {
  let values;
  try {
    ({ values } = parseCliArgs({
      args: argv,
      options: {
        filter: { type: 'string' },
        quick: { type: 'boolean', default: false },
        out: { type: 'string' },
        list: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new Error(`${error.message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  return values;
}

/** benchmark.js's defaults for a full run; short runs for --quick. */
function benchOptions(quick) {
  return quick ? { maxTime: 0.1, minSamples: 3, minTime: 0.01, initCount: 1 } : {};
}

const fmt = (x, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const clock = (ms) => {
  const s = Math.round(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

/** A line on stderr per finished case: the count, the time so far and an estimate of the time left. */
function createProgress(total) {
  const started = Date.now();
  let done = 0;
  return {
    finish(c, note) {
      const elapsed = Date.now() - started;
      done++;
      process.stderr.write(`[${done}/${total} ${clock(elapsed)} eta ${clock((elapsed / done) * (total - done))}] ${c.name} @${c.backend}  ${note}\n`);
    },
    elapsed: () => Date.now() - started,
  };
}

function check(c) {
  try {
    c.check();
    return null;
  } catch (error) {
    return error.message;
  }
}

function time(c, options) {
  return new Promise((resolve) => {
    const bench = new Benchmark(`${c.name}@${c.backend}`, {
      ...options,
      fn: c.fn,
      onComplete: () => resolve(bench),
      onError: () => resolve(bench),
    });
    bench.run({ async: true });
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const filter = args.filter ? new RegExp(args.filter) : null;
  const partial = Boolean(filter || args.quick);
  const outDir = args.out ? resolve(args.out) : join(ROOT, 'bench', 'report', partial ? 'partial' : '');

  const simdjson = loadSimdjson();
  if (!simdjson.native)
    process.stderr.write(`warning: simdjson: ${simdjson.error}; its cases are left out and the targets against it are not judged\n`);
  const native = loadNative();
  if (!native.native)
    process.stderr.write(`warning: native simdjson: ${native.error}; its cases are left out and the targets against it are not judged\n`);
  for (const w of staleness()) process.stderr.write(`warning: ${w}\n`);

  const frames = buildFixtures(SEED);
  const documents = buildDocuments(SEED);
  const built = buildCases(frames, documents, simdjson, native);
  const { backends } = built;
  const all = [...built.cases, ...(await bundledCases([...frames, ...built.captures], backends))];
  const selected = (name) => !filter || filter.test(name);
  const cases = all.filter((c) => selected(c.name) || selected(`${c.name}@${c.backend}`));
  const wanted = (name) => selected(name) || selected(`${name}@mcp-frames`) || selected(`${name}@wasm-simd`);
  if (args.list) {
    for (const c of cases) process.stdout.write(`${c.name}@${c.backend}\n`);
    // Timed in rounds, each against its yardsticks (the bare proxy, the other backends): one name a case.
    for (const [names] of ROUND_CASES) for (const name of names.filter(wanted)) process.stdout.write(`${name} (rounds)\n`);
    return;
  }
  if (cases.length === 0 && !ROUND_CASES.some(([names]) => names.some(wanted)))
    throw new Error(`no case matches --filter ${args.filter}; try --list`);

  const options = benchOptions(args.quick);
  const env = environment(Benchmark);
  const progress = createProgress(cases.length);
  process.stderr.write(
    `mcp-frames bench: ${cases.length} of ${all.length} cases, ${args.quick ? 'quick' : 'full'} run, ` +
      `${env.machine.cpu} x${env.machine.cores}, node ${process.version}, wasm = ${backends.wasm.name}` +
      `${native.native ? `, native simdjson ${native.version} (${native.kernel} kernel)` : ''}\n`,
  );

  const results = [];
  /** @type {Record<string, unknown>[]} */
  const wireFixtures = [];
  let failures = 0;
  for (const c of cases) {
    const base = { name: c.name, layer: c.layer, op: c.op, fixture: c.fixture, backend: c.backend, impl: c.impl, bytes: c.bytes };
    const failed = check(c);
    if (failed) {
      failures++;
      results.push({ ...base, checked: false, error: `check failed: ${failed}` });
      progress.finish(c, `FAILED its check, not timed: ${failed}`);
      continue;
    }
    const bench = await time(c, options);
    if (bench.error) {
      failures++;
      results.push({ ...base, checked: true, error: `threw while timed: ${bench.error.message ?? bench.error}` });
      progress.finish(c, `ERROR while timed: ${bench.error.message ?? bench.error}`);
      continue;
    }
    let afterError = null;
    try {
      c.after?.();
    } catch (error) {
      afterError = error.message;
      failures++;
    }
    const s = bench.stats;
    /** @type {Record<string, unknown>} */
    const result = {
      ...base,
      checked: true,
      opsPerSec: bench.hz,
      mbPerSec: (bench.hz * c.bytes) / 1e6,
      rme: s.rme,
      samples: s.sample.length,
      meanMs: s.mean * 1000,
      deviationMs: s.deviation * 1000,
      load1: Math.round(os.loadavg()[0] * 100) / 100,
    };
    if (afterError) result.error = `check after timing failed: ${afterError}`;
    results.push(result);
    progress.finish(
      c,
      `${fmt(result.opsPerSec)} ops/s  ${fmt(result.mbPerSec, 1)} MB/s  ±${fmt(s.rme, 2)}%  (${s.sample.length} samples)${afterError ? `  FAILED after: ${afterError}` : ''}`,
    );
  }

  const progressLine = (line) => process.stderr.write(`${line}\n`);
  // The targets' ratios again, their two cases side by side (bench/lib/paired.mjs): only cases timed above, which passed their checks.
  const timed = new Set(results.filter((r) => 'opsPerSec' in r && r.opsPerSec).map((r) => `${r.name}@${r.backend}`));
  const byKey = new Map(cases.map((c) => [`${c.name}@${c.backend}`, c]));
  const pairs = targetPairs(backends.wasm.name).filter(([a, b]) => timed.has(a) && timed.has(b));
  const paired = pairedRatios(pairs, byKey, { quick: args.quick, progress: progressLine });
  for (const [names, run] of ROUND_CASES) {
    if (!names.some(wanted)) continue;
    const round = await run({ lib, native, quick: args.quick, wanted, progress: progressLine });
    results.push(...round.results);
    wireFixtures.push(...round.fixtures);
  }

  env.machine.loadAverageAtEnd = os.loadavg().map((x) => Math.round(x * 100) / 100);
  // The full run before, which a missed target near its line is judged against (markNoise); a partial run is judged alone.
  let previous;
  try {
    if (!partial) previous = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'));
  } catch {}
  const report = buildReport({
    previous,
    env,
    args: { filter: args.filter ?? null, quick: args.quick },
    options: { ...Benchmark.options, ...options },
    seed: SEED,
    distinctBytes: DISTINCT_BYTES,
    fixtures: [
      ...[...frames, ...documents].map((f) => ({
        name: f.name,
        kind: f.kind,
        description: f.description,
        ...describeFixture(f),
        ...('records' in f ? { records: f.records } : {}),
      })),
      ...wireFixtures,
    ],
    backends: { wasm: backends.wasm.name, auto: lib.backend },
    simdjson: { package: simdjson.package, version: simdjson.version, native: simdjson.native, path: simdjson.path, error: simdjson.error },
    nativeSimdjson: { built: native.native, version: native.version, kernel: native.kernel, path: native.path, error: native.error },
    results,
    paired,
    durationMs: progress.elapsed(),
  });
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'report.md'), renderMarkdown(report));
  writeFileSync(join(outDir, 'report.svg'), renderSvg(report));
  // The README's table follows the committed report: only a full run into bench/report/ writes it.
  if (!partial && !args.out) {
    const readme = join(ROOT, 'README.md');
    writeFileSync(readme, withHeadline(readFileSync(readme, 'utf8'), report));
  }
  process.stderr.write(
    `wrote ${relative(process.cwd(), outDir) || '.'}/report.{json,md,svg} in ${clock(progress.elapsed())}: ` +
      `${results.length - failures} cases timed, ${failures} failed; ${summarize(report.targets)}\n`,
  );
  if (failures > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(2);
});
