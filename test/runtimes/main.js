// `npm run test:runtimes`: the smoke suite in eight runtimes, then the bundler check; one line each, exit status 1 when any fails.
//
// # The runtimes
//
// node (the Node running this harness), node22 and node24 (binaries from
// npm, see run/node-versions.js), deno, bun, chromium (see run/chromium.js
// for which one), workerd and edge-runtime; then the page built by esbuild
// and by vite, run in the same Chromium. workerd-relay is not the smoke
// suite: it is examples/worker relaying a real upstream in workerd, with
// checks of its own (run/workerd-relay.js); nor is tarball: the packed
// package installed in a fresh consumer project, which runs the README's
// quick start (run/tarball.js).
//
// # The lines
//
//   runtime NAME: pass (backend B, N checks, WHAT RAN)   or   runtime NAME: fail (reason)
//   bundler NAME: pass (backend B, N checks, WHAT RAN)   or   bundler NAME: fail (reason)
//   runtime NAME: not available on this platform (why)
//
// then one summary line with the timings. A runtime that cannot start fails
// with its reason; nothing is skipped. The one exception is a runtime whose
// binaries do not exist for this platform at all (Node 22 and 24 from npm
// are linux x64 only): its line says so, and it counts neither way. On linux
// x64, which is CI, every runtime runs. A pass needs every check of the
// suite to hold, the backend to be wasm-simd (all of these hosts run SIMD),
// and 'mcp-frames' to have resolved to the entry written for that host.
//
// # The vectors
//
// Read from the project's spec/vectors and handed to each runtime as data: on stdin (node, deno, bun), as a
// request body (workerd, edge-runtime), or served to a page (chromium and
// the bundled pages).
//
// # One at a time
//
// The checks run one after another: the machine has two cores, the whole
// matrix takes seconds, and the lines come out in a fixed order. One
// Chromium serves the chromium runtime and both bundled pages.
//
// Run from anywhere after `npm run build`.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './run/bundle.js';
import { makeConsumer, buildNodeWithEsbuild, buildWithEsbuild, buildWithVite } from './run/bundlers.js';
import { launchChromium } from './run/chromium.js';
import { runEdge } from './run/edge.js';
import { NotAvailable, nodeBinary } from './run/node-versions.js';
import { runChild } from './run/process.js';
import { runWorkerd } from './run/workerd.js';
import { runTarball } from './run/tarball.js';
import { runWorkerdRelay } from './run/workerd-relay.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const conformance = path.join(root, 'spec/vectors');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** The backend every host here must give: all of them run WebAssembly SIMD. */
const EXPECTED_BACKEND = 'wasm-simd';

/** How long one check may take, start to report, before it fails. */
const CHECK_TIMEOUT_MS = 120_000;

const PAGE = '<!doctype html>\n<meta charset="utf-8">\n<link rel="icon" href="data:,">\n<script type="module" src="./browser.js"></script>\n';

/**
 * The checks, in the order they print. `run(vectors)` resolves with
 * { report, files } (files: what 'mcp-frames' resolved to, or what the
 * bundle took in) or throws the reason. `entry` is the file that must be
 * among them; `extra(report)` names a host-specific fault, or null.
 */
function checks(chromium) {
  return [
    {
      kind: 'runtime',
      name: 'node',
      entry: 'dist/runtime/node.js',
      run: async (vectors) => fromChild(await runChild(process.execPath, ['test/runtimes/hosts/process.js'], root, vectors)),
    },
    ...['node22', 'node24'].map((name) => ({
      kind: 'runtime',
      name,
      entry: 'dist/runtime/node.js',
      run: async (vectors) => fromChild(await runChild(await nodeBinary(name), ['test/runtimes/hosts/process.js'], root, vectors)),
      extra: (report) => (report.runtime?.startsWith(`Node v${name.slice(4)}.`) ? null : `ran ${report.runtime}, not Node ${name.slice(4)}`),
    })),
    {
      kind: 'runtime',
      name: 'deno',
      entry: 'dist/runtime/deno.js',
      // Read access to the package only: the entry reads build/ itself; the vectors come on stdin.
      run: async (vectors) =>
        fromChild(
          await runChild(bin('deno'), ['run', '--no-prompt', '--no-lock', `--allow-read=${root}`, 'test/runtimes/hosts/deno.js'], root, vectors),
        ),
    },
    {
      kind: 'runtime',
      name: 'bun',
      entry: 'dist/runtime/node.js',
      run: async (vectors) => fromChild(await runChild(bin('bun'), ['test/runtimes/hosts/process.js'], root, vectors)),
    },
    {
      kind: 'runtime',
      name: 'chromium',
      entry: 'dist/runtime/browser.js',
      run: async (vectors) => {
        const browser = await chromium();
        return { ...(await runPage(browser, vectors)), ran: browser.name };
      },
      extra: pageFault,
    },
    {
      kind: 'runtime',
      name: 'workerd',
      entry: 'dist/runtime/workerd.js',
      run: async (vectors) => runWorkerd(root, vectors),
      extra: (report) =>
        report.compilesFromBytes ? 'workerd compiled WebAssembly from bytes, so this run cannot show that the entry never does' : null,
    },
    {
      kind: 'runtime',
      name: 'workerd-relay',
      entry: 'dist/runtime/worker.js',
      // The Worker example relaying a real upstream: its own checks, not the smoke suite (the vectors are not used).
      run: async () => runWorkerdRelay(root),
    },
    {
      kind: 'runtime',
      name: 'edge-runtime',
      entry: 'dist/runtime/core.js',
      run: async (vectors) => runEdge(root, vectors),
    },
    {
      kind: 'runtime',
      name: 'tarball',
      entry: 'dist/runtime/node.js',
      // The packed package installed in a fresh consumer, the README's quick start run there (run/tarball.js).
      // The entry is the file Node resolved inside the installed package, named by its path there.
      run: async () => {
        const { report, entry } = await runTarball(root);
        return { report, files: [path.join(root, entry)], ran: `npm install of the packed tarball, Node ${process.version}` };
      },
    },
  ];
}

/** The bundler checks: each builds the page in the consumer folder, then runs it in Chromium. */
function bundlerChecks(chromium, consumer) {
  /** @type {[string, (dir: string) => Promise<{ out: string, inputs: string[] }>][]} */
  const bundlers = [
    ['esbuild', buildWithEsbuild],
    ['vite', buildWithVite],
  ];
  const pages = bundlers.map(([name, build]) => ({
    kind: 'bundler',
    name,
    entry: 'dist/runtime/browser.js',
    run: async (vectors) => {
      const { dir } = await consumer();
      const { out, inputs } = await build(dir);
      const browser = await chromium();
      const report = await browser.run(out, { '/vectors.json': vectors });
      return { report, files: inputs, ran: browser.name };
    },
    extra: pageFault,
  }));
  const node = {
    kind: 'bundler',
    name: 'esbuild-node',
    entry: 'dist/runtime/node.js',
    run: async (vectors) => {
      const { dir } = await consumer();
      const { file, inputs } = await buildNodeWithEsbuild(dir);
      const report = await runChild(process.execPath, [file], dir, vectors);
      return { report, files: inputs, ran: report.runtime };
    },
  };
  return [...pages, node];
}

/** Why a check's outcome is not a pass, or null when it is one. */
function judge(check, { report, files }) {
  if (report.failed > 0) return `${report.failed} of ${report.checks} checks failed; first: ${report.failures[0]}`;
  if (report.backend !== EXPECTED_BACKEND)
    return `backend ${report.backend} where ${EXPECTED_BACKEND} was expected (all ${report.checks} checks passed)`;
  const want = path.join(root, check.entry);
  if (!files.includes(want)) return `'mcp-frames' did not resolve to ${check.entry}`;
  return check.extra?.(report) ?? null;
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
    return 1;
  }

  const chromium = once(launchChromium);
  const consumer = once(() => makeConsumer(root));
  let failed = 0;
  let missing = 0;
  let timedOut = false;
  const timings = [];
  for (const check of [...checks(chromium), ...bundlerChecks(chromium, consumer)]) {
    const t0 = performance.now();
    let fault;
    let outcome;
    try {
      outcome = await withTimeout(check.run(vectors), CHECK_TIMEOUT_MS);
      fault = judge(check, outcome);
    } catch (error) {
      if (error instanceof NotAvailable) {
        missing++;
        console.log(`${check.kind} ${check.name}: ${error.message}`);
        continue;
      }
      fault = error instanceof Error ? error.message : String(error);
      if (error instanceof TimeoutError) timedOut = true;
    }
    if (fault) failed++;
    console.log(fault ? `${check.kind} ${check.name}: fail (${oneLine(fault)})` : `${check.kind} ${check.name}: pass (${passDetail(outcome)})`);
    timings.push(`${check.name} ${seconds(t0)}`);
  }

  await chromium
    .settled()
    ?.then((browser) => browser.close())
    .catch(() => {});
  await consumer
    .settled()
    ?.then((c) => c.remove())
    .catch(() => {});
  console.log(`runtimes and bundlers: ${failed === 0 ? 'all passed' : `${failed} failed`} in ${seconds(started)} (${timings.join(', ')})`);
  // The plain closing line CI reads: every runtime and bundler is one test.
  console.log(`${timings.length - failed} passed, ${failed} failed${missing ? `, ${missing} not available on this platform` : ''}`);
  // A check that timed out may leave its runtime holding the event loop open.
  if (timedOut) process.exit(1);
  return failed === 0 ? 0 : 1;
}

/** A child's report, with the file its runtime resolved 'mcp-frames' to, and which runtime it was. */
function fromChild(report) {
  return { report, files: [fileURLToPath(report.entry)], ran: report.runtime };
}

/** What a pass line says: the backend, the checks, and what ran them when the host told. */
function passDetail({ report, ran }) {
  return [`backend ${report.backend}`, `${report.checks} checks`, ...(ran ? [ran] : [])].join(', ');
}

/** The chromium runtime: hosts/browser.js bundled for the browser from inside the project (self-reference), served, run. */
async function runPage(browser, vectors) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-page-'));
  try {
    const files = await bundle('browser', 'test/runtimes/hosts/browser.js', dir, root);
    await writeFile(path.join(dir, 'index.html'), PAGE);
    const report = await browser.run(dir, { '/vectors.json': vectors });
    return { report, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What a page got wrong besides the suite: `backend` must already name the
 * core as the package loads, before `ready` is awaited (Chromium compiles
 * the builds synchronously, so the first call runs on the core), and an
 * error the page logged fails it too.
 */
function pageFault(report) {
  if (report.before !== EXPECTED_BACKEND) return `backend read '${report.before}' as the package loaded; the core should serve from the first call`;
  return report.problems?.length ? `the page logged: ${report.problems[0]}` : null;
}

/** `make()` run at most once, on first call; `settled()` gives its promise if it was ever made. */
function once(make) {
  let made = null;
  const get = () => (made ??= make());
  get.settled = () => made;
  return get;
}

class TimeoutError extends Error {}

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no report within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function oneLine(text) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > 400 ? `${flat.slice(0, 397)}...` : flat;
}

function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    console.log(`runtimes: fail (the harness broke: ${oneLine(error?.stack ?? error)})`);
    process.exitCode = 1;
  },
);
