// `npm run test:runtimes`: the smoke suite in six runtimes, then the bundler check; one line each, exit status 1 when any fails.
//
// # The lines
//
//   runtime NAME: pass (backend B, N checks)     or   runtime NAME: fail (reason)
//   bundler NAME: pass (backend B, N checks)     or   bundler NAME: fail (reason)
//
// A runtime that cannot start fails with its reason; nothing is skipped.
// A pass needs every check of the suite to hold, the backend to be
// wasm-simd (all six hosts run SIMD), and 'mcp-frames' to have resolved to
// the entry written for that host.
//
// # The vectors
//
// Read from ../shared/conformance beside the project, never copied into it,
// and handed to each runtime as data: on stdin, as a request body, or
// served to a page.
//
// Run from the project root after `npm run build`.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChild } from './run/process.js';
import { launchChromium } from './run/chromium.js';
import { bundle } from './run/bundle.js';
import { runWorkerd } from './run/workerd.js';
import { runEdge } from './run/edge.js';
import { makeConsumer, buildWithEsbuild, buildWithVite } from './run/bundlers.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';

const root = fileURLToPath(new URL('../../', import.meta.url));
const conformance = path.resolve(root, '../shared/conformance');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** The backend every host here must give: all six run WebAssembly SIMD. */
const EXPECTED_BACKEND = 'wasm-simd';

/** Why a report is not a pass, or null when it is one. */
function judge(report, { entry, expectEntry }) {
  if (report.failed > 0) return `${report.failed} of ${report.checks} checks failed; first: ${report.failures[0]}`;
  if (report.backend !== EXPECTED_BACKEND) return `backend ${report.backend} where ${EXPECTED_BACKEND} was expected (${report.checks} checks passed)`;
  if (entry !== undefined) {
    const want = path.join(root, expectEntry);
    if (!entry.some((file) => file === want)) return `'mcp-frames' did not resolve to ${expectEntry}`;
  }
  return null;
}

function line(kind, name, report, fault) {
  if (fault) return `${kind} ${name}: fail (${oneLine(fault)})`;
  return `${kind} ${name}: pass (backend ${report.backend}, ${report.checks} checks)`;
}

function oneLine(text) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > 400 ? flat.slice(0, 397) + '...' : flat;
}

async function main() {
  const started = performance.now();
  let vectors;
  try {
    const frames = JSON.parse(await readFile(path.join(conformance, 'frames.json'), 'utf8'));
    const streams = JSON.parse(await readFile(path.join(conformance, 'streams.json'), 'utf8'));
    vectors = JSON.stringify({ frames, streams });
  } catch (error) {
    console.log(`runtimes: fail (cannot read the vectors in ${conformance}: ${error.message})`);
    process.exitCode = 1;
    return;
  }

  let chromium = null;
  let chromiumFault = null;
  const chromiumOnce = async () => {
    if (!chromium && !chromiumFault) {
      try {
        chromium = await launchChromium();
      } catch (error) {
        chromiumFault = error.message;
      }
    }
    if (chromiumFault) throw new Error(chromiumFault);
    return chromium;
  };

  /** Each check resolves with { report, entry? } or throws its reason. */
  const runtimes = [
    ['node', async () => fromChild(await runChild(process.execPath, ['test/runtimes/hosts/process.js'], root, vectors))],
    [
      'deno',
      async () =>
        fromChild(await runChild(bin('deno'), ['run', '--no-prompt', '--no-lock', `--allow-read=${root}`, 'test/runtimes/hosts/deno.js'], root, vectors)),
    ],
    ['bun', async () => fromChild(await runChild(bin('bun'), ['test/runtimes/hosts/process.js'], root, vectors))],
    ['chromium', async () => runPage(await chromiumOnce(), root, vectors)],
    ['workerd', async () => fromBundle(await runWorkerd(root, vectors))],
    ['edge-runtime', async () => fromBundle(await runEdge(root, vectors))],
  ];
  const expectEntry = {
    node: 'dist/runtime/node.js',
    deno: 'dist/runtime/deno.js',
    bun: 'dist/runtime/node.js',
    chromium: 'dist/runtime/browser.js',
    workerd: 'dist/runtime/workerd.js',
    'edge-runtime': 'dist/core.js',
  };

  let failures = 0;
  const timings = [];
  const record = (kind, name, t0, result, error) => {
    let fault = error ? error.message : judge(result.report, { entry: result.entry, expectEntry: expectEntry[name] });
    if (!fault && result.extra) fault = result.extra(result.report);
    if (fault) failures++;
    console.log(line(kind, name, result?.report, fault));
    timings.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };

  for (const [name, run] of runtimes) {
    const t0 = performance.now();
    try {
      const result = await run();
      if (name === 'workerd') result.extra = (r) => (r.compilesFromBytes ? 'workerd compiled WebAssembly from bytes, so this run does not prove the entry avoids it' : null);
      if (name === 'chromium') result.extra = (r) => (r.before !== 'js' ? `backend read '${r.before}' before ready; the JS path should serve until the compile settles` : null);
      record('runtime', name, t0, result);
    } catch (error) {
      record('runtime', name, t0, null, error);
    }
  }

  const bundlerT0 = performance.now();
  let consumer = null;
  try {
    consumer = await makeConsumer(root);
  } catch (error) {
    for (const name of ['esbuild', 'vite']) record('bundler', name, bundlerT0, null, new Error(`cannot make the consumer folder: ${error.message}`));
  }
  if (consumer) {
    for (const [name, build] of [
      ['esbuild', buildWithEsbuild],
      ['vite', buildWithVite],
    ]) {
      const t0 = performance.now();
      try {
        const { out, inputs } = await build(consumer.dir);
        const browser = await chromiumOnce();
        const report = await browser.run(out, { '/vectors.json': vectors });
        record('bundler', name, t0, { report, entry: inputs, extra: problemsOf });
      } catch (error) {
        record('bundler', name, t0, null, error);
      }
    }
    await consumer.remove();
  }
  if (chromium) await chromium.close();

  const total = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`runtimes and bundlers: ${failures === 0 ? 'all passed' : `${failures} failed`} in ${total} s (${timings.join(', ')})`);
  process.exitCode = failures === 0 ? 0 : 1;
}

/** A child's report, with the file its runtime resolved 'mcp-frames' to. */
function fromChild(report) {
  return { report, entry: [fileURLToPath(report.entry)] };
}

/** A bundled host's report, with the files the bundle took in. */
function fromBundle({ report, inputs }) {
  return { report, entry: inputs };
}

/** The chromium runtime: hosts/browser.js bundled for the browser from inside the project, served, run. */
async function runPage(browser, root, vectors) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-page-'));
  try {
    const inputs = await bundle('browser', 'test/runtimes/hosts/browser.js', dir, root);
    await writeFile(path.join(dir, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<script type="module" src="./browser.js"></script>\n');
    const report = await browser.run(dir, { '/vectors.json': vectors });
    return { report, entry: inputs, extra: problemsOf };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Errors the page logged, which fail a check even when the suite passed. */
function problemsOf(report) {
  return report.problems?.length ? report.problems[0] : null;
}

main().catch((error) => {
  console.log(`runtimes: fail (the harness broke: ${error?.stack ?? error})`);
  process.exitCode = 1;
});
