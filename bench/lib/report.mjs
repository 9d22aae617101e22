// report.json and report.md: the numbers, the ratios, and the targets.

import { bundledTargets } from './bundled.mjs';
import { documentTable, documentTargets } from './documents.mjs';
import { scaleTargets } from './scale.mjs';
import { concurrentTargets, renderConcurrent } from './concurrent.mjs';
import { proxyTargets } from './proxy.mjs';
import { FAULT_US, warmFor } from './paired.mjs';
import { fmt, renderWire, wireTargets } from './wire.mjs';

export const FRAME_FIXTURES = ['listing-small', 'listing-medium', 'text-48k', 'text-1m', 'blob-48k', 'blob-1m', 'error'];
/** The real-server captures, one fixture per server (cases.mjs captureFixtures). */
const CAPTURES = ['servers-everything', 'servers-filesystem', 'servers-memory'];
/** The fixtures encode's target is judged on: the generated frames and the real servers' answers. */
const ENCODE_FIXTURES = [...FRAME_FIXTURES, ...CAPTURES];
const LISTINGS = ['listing-small', 'listing-medium'];
const BLOBS = ['blob-48k', 'blob-1m'];

/** The result of case `name` on `backend`, if it ran and was timed. */
export function lookup(results, name, backend) {
  const r = results.find((x) => x.name === name && x.backend === backend);
  return r?.opsPerSec ? r : null;
}

/**
 * The issue's targets, one entry per target and fixture. A ratio is a ratio
 * of speeds (ops/s), except "within 1.5x", which is a slowdown.
 */
function targetSpecs(wasm) {
  const specs = [];
  const speedup = (group, fixture, num, den, target, note) => specs.push({ group, fixture, num, den, target, comparison: '>=', note });
  // On the listings the JS path is no yardstick: native simdjson itself is under 2× of it there (the native/js column).
  for (const f of LISTINGS)
    speedup(
      'validate-only: wasm-simd ≥ 0.6× native simdjson on the listings',
      f,
      [`frame/validate/${f}`, 'wasm-simd'],
      [`peer/native/${f}`, 'simdjson-native'],
      0.6,
    );
  for (const f of BLOBS) speedup('validate-only: wasm ≥ 8× js on the blobs', f, [`frame/validate/${f}`, wasm], [`frame/validate/${f}`, 'js'], 8);
  // The relay's work on the listings is judged as validation is, against native simdjson, not the JS path (above).
  for (const f of BLOBS) speedup("the relay's work: wasm ≥ 8× js on the blobs", f, [`relay/work/${f}`, wasm], [`relay/work/${f}`, 'js'], 8);
  for (const f of FRAME_FIXTURES)
    speedup('wasm-simd ≥ 2× simdjson isValid', f, [`frame/validate/${f}`, 'wasm-simd'], [`peer/isvalid/${f}`, 'simdjson'], 2);
  for (const f of FRAME_FIXTURES) speedup('typed decode: wasm ≥ 1.0× js', f, [`frame/decode/${f}`, wasm], [`frame/decode/${f}`, 'js'], 1);
  speedup('typed decode: wasm ≥ 1.0× js', 'stream-10k', ['records/decode/stream-10k', wasm], ['records/decode/stream-10k', 'js'], 1);
  // "Within N× of bare JSON.parse" is a slowdown: bare JSON.parse's speed over typed decode's.
  const within = (group, fixture, den, target) =>
    specs.push({ group, fixture, num: [`peer/parse/${fixture}`, 'JSON.parse'], den, target, comparison: '<=' });
  // The blobs are reported in the decode table, not judged: on js their cost is the SDK's base64 rule checked in JavaScript,
  // and every supported host runs the core, which checks it (typed decode: wasm ≥ 1.0× js, below).
  for (const f of FRAME_FIXTURES.filter((f) => !BLOBS.includes(f)))
    within('typed decode under js within 1.5× of bare JSON.parse', f, [`frame/decode/${f}`, 'js'], 1.5);
  within('typed decode under js within 1.5× of bare JSON.parse', 'stream-10k', ['records/decode/stream-10k', 'js'], 1.5);
  // Encode returns a frame the caller keeps, so its peer copies the frame out too (the encode table has the peer that keeps nothing).
  for (const f of ENCODE_FIXTURES)
    speedup(
      'encode ≥ 1.0× JSON.stringify + encodeInto + the copy out',
      f,
      [`frame/encode/${f}`, wasm],
      [`peer/stringify-copy/${f}`, 'JSON.stringify'],
      1,
    );
  for (const f of ENCODE_FIXTURES)
    speedup('encodeInto ≥ 0.9× JSON.stringify + encodeInto', f, [`frame/encodeInto/${f}`, wasm], [`peer/stringify/${f}`, 'JSON.stringify'], 0.9);
  specs.push(...documentTargets(FRAME_FIXTURES));
  for (const f of ENCODE_FIXTURES) within('typed decode on wasm within 1.3× of bare JSON.parse', f, [`frame/decode/${f}`, wasm], 1.3);
  specs.push(...wireTargets(wasm));
  // The CLI at --validate full against json with the same --endpoint, whole processes in the same rounds: the
  // schema's verdict on every frame costs at most 15% more CPU. A slowdown: full's CPU over json's.
  for (const f of ['small', 'listing'])
    specs.push({
      group: 'the CLI relay at --validate full within 1.15× the CPU of --validate json (same --endpoint)',
      fixture: f,
      num: [`relay/cli-json/${f}`, 'mcp-frames'],
      den: [`relay/cli-full/${f}`, 'mcp-frames'],
      target: 1.15,
      comparison: '<=',
      metric: 'cpu',
    });
  specs.push(...bundledTargets(wasm));
  specs.push(...scaleTargets());
  specs.push(...concurrentTargets());
  specs.push(...proxyTargets());
  return specs;
}

/** The [numerator, denominator] case keys (`name@backend`) of the targets that compare speeds, each pair once: what bench/lib/paired.mjs times side by side. */
export function targetPairs(wasm) {
  const keys = new Map();
  for (const s of targetSpecs(wasm)) {
    // A target with a metric (CPU a byte, page faults a MiB) is judged as measured, not timed side by side.
    if (s.metric) continue;
    const pair = [`${s.num[0]}@${s.num[1]}`, `${s.den[0]}@${s.den[1]}`];
    keys.set(pair.join('|'), pair);
  }
  return [...keys.values()];
}

const fixed = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The report's summary of its targets: how many are met, within noise, missed and not judged. */
export function summarize(targets) {
  const count = (v) => targets.filter((t) => verdict(t) === v).length;
  return `${targets.length} targets: ${count('met')} met, ${count('within noise')} within noise, ${count('missed')} missed, ${count('not judged')} not judged`;
}

export function judgeTarget(spec, results, simdjsonNative, nativeBuilt, paired, cores = Number.POSITIVE_INFINITY) {
  const num = lookup(results, ...spec.num);
  const den = lookup(results, ...spec.den);
  const name = `${spec.group} — ${spec.fixture}`;
  const base = {
    name,
    group: spec.group,
    fixture: spec.fixture,
    comparison: spec.comparison,
    numerator: `${spec.num[0]}@${spec.num[1]}`,
    denominator: `${spec.den[0]}@${spec.den[1]}`,
  };
  // A target about spreading over cores says nothing on a machine with too few of them for the load generator and the workers.
  if (spec.minCores && cores < spec.minCores) {
    return { ...base, ratio: null, target: spec.target, met: null, note: `not judged: ${cores} cores, where ${spec.minCores} are needed` };
  }
  if (!num || !den) {
    const why =
      spec.den[1] === 'simdjson' && !simdjsonNative
        ? "simdjson's native addon did not load"
        : spec.den[1] === 'simdjson-native' && !nativeBuilt
          ? 'the native simdjson limit (bench/native) was not built'
          : 'a case was not run (filtered out or failed its check)';
    return { ...base, ratio: null, target: spec.target, met: null, note: why };
  }
  // A page-fault target is a count a MiB of the numerator's process, judged as measured; the denominator's is given beside it.
  if (spec.metric === 'faults') {
    const value = num.minorPageFaultsPerMiB;
    if (value == null) return { ...base, ratio: null, target: spec.target, met: null, note: 'no page faults were counted' };
    const met = value <= spec.target;
    return {
      ...base,
      metric: 'faults',
      ratio: fixed(value, 3),
      target: spec.target,
      met,
      by: `${met ? 'met' : 'missed'}; the bare proxy took ${fmt(den.minorPageFaultsPerMiB, 2)} a MiB`,
      withinNoise: false,
    };
  }
  // A CPU target compares bytes per CPU second of the whole process; the rest compare speed.
  const cpu = spec.metric === 'cpu';
  if (cpu && !(num.bytesPerCpuSecond && den.bytesPerCpuSecond))
    return { ...base, ratio: null, target: spec.target, met: null, note: 'no CPU time was measured' };
  const sequential = cpu ? num.bytesPerCpuSecond / den.bytesPerCpuSecond : num.opsPerSec / den.opsPerSec;
  // Where the two cases were also timed side by side (paired.mjs), that ratio is the one judged.
  const pair = cpu ? undefined : paired?.get(`${base.numerator}|${base.denominator}`);
  const ratio = pair ? pair.median : sequential;
  const met = spec.comparison === '>=' ? ratio >= spec.target : ratio <= spec.target;
  // How far from the target, as a factor: > 1 means that much short when missed, that much spare when met.
  const factor = spec.comparison === '>=' ? (met ? ratio / spec.target : spec.target / ratio) : met ? spec.target / ratio : ratio / spec.target;
  const noise = cpu ? Math.sqrt(num.cpuRme ** 2 + den.cpuRme ** 2) : Math.sqrt(num.rme ** 2 + den.rme ** 2);
  const distance = Math.abs(ratio / spec.target - 1) * 100;
  return {
    ...base,
    ratio: fixed(ratio, 3),
    target: spec.target,
    met,
    by: met ? `met with ${fixed(factor, 2)}× to spare` : `missed by ${fixed(factor, 2)}×`,
    marginOfErrorPercent: fixed(noise, 2),
    ...(pair
      ? {
          method: `median of ${pair.rounds / 2} twos of paired rounds (one in each order), CPU time`,
          pairedRange: [fixed(pair.min, 3), fixed(pair.max, 3)],
          pairedRounds: pair.each.map((x) => fixed(x, 3)),
          pairedCpus: pair.cpus,
          pairedFaults: pair.faultShares.map(([a, b]) => [fixed(a, 3), fixed(b, 3)]),
          warmSlices: pair.warmSlices,
          sequentialRatio: fixed(sequential, 3),
          withinNoise: spec.target >= pair.min && spec.target <= pair.max,
        }
      : { method: 'benchmark.js, cases timed one after another', withinNoise: distance < noise }),
    ...(spec.note ? { note: spec.note } : {}),
    ...(spec.limit ? { limit: limitOf(spec.limit, den, results, cpu) } : {}),
  };
}

/** Nanoseconds a byte of a case: its CPU where measured and `cpu` is asked for, else its wall time. */
const nsPerByte = (r, cpu) => (cpu && r.bytesPerCpuSecond ? 1e9 / r.bytesPerCpuSecond : 1e3 / r.mbPerSec);

/**
 * The most a target's ratio can be in this run, where the numerator does
 * the denominator's work and at least the work of `limit.cost` too (a
 * relay moves the bytes as the bare proxy does, and validates them at best
 * as fast as native simdjson): the denominator's time a byte over the sum
 * of both. Null where the cost case did not run.
 */
export function limitOf(limit, den, results, cpu) {
  const cost = lookup(results, ...limit.cost);
  if (!cost) return null;
  const d = nsPerByte(den, cpu);
  return { ratio: fixed(d / (d + nsPerByte(cost, cpu)), 3), how: limit.how, cost: `${limit.cost[0]}@${limit.cost[1]}` };
}

/** How close to its line a missed target must be, in this run and the one before, to be within the machine's noise. */
export const NOISE_BAND = 0.05;

/**
 * Marks each missed target that sits within NOISE_BAND of its line in this
 * run and sat within it (met or missed) in `previous`, the full run before:
 * a ratio moves by 5 to 10% between full runs of one commit on this kind of
 * machine, so such a target is neither met nor a miss to act on.
 */
export function markNoise(targets, previous) {
  const before = new Map((previous?.targets ?? []).map((t) => [t.name, t]));
  const near = (t) => t?.ratio != null && Math.abs(t.ratio / t.target - 1) <= NOISE_BAND;
  for (const t of targets) {
    if (t.met !== false) continue;
    const last = before.get(t.name);
    if (near(t) && near(last) && last.target === t.target)
      t.noise = { band: NOISE_BAND, previousRatio: last.ratio, previousRun: previous.generatedAt };
  }
  return targets;
}

/** One target's verdict: met, within noise, missed or not judged. */
export function verdict(t) {
  if (t.met === null) return 'not judged';
  if (t.met) return 'met';
  return t.noise ? 'within noise' : 'missed';
}

export function buildReport({
  env,
  args,
  options,
  seed,
  distinctBytes,
  fixtures,
  backends,
  simdjson,
  nativeSimdjson,
  results,
  paired,
  durationMs,
  previous,
}) {
  const report = {
    title: 'mcp-frames benchmarks',
    generatedAt: new Date().toISOString(),
    mode: args.quick ? 'quick' : 'full',
    filter: args.filter,
    durationSeconds: Math.round(durationMs / 1000),
    ...env,
    backends: {
      ...backends,
      note: "'wasm' is the build loadBackend('wasm') picked on this host; the js-against-wasm cases run on it",
    },
    simdjson,
    nativeSimdjson,
    benchmark: {
      library: 'benchmark.js',
      statistics: args.quick ? 'shortened for --quick: numbers are for smoke testing only' : "benchmark.js's defaults",
      maxTime: options.maxTime,
      minSamples: options.minSamples,
      minTime: options.minTime,
      notes: [
        'each case runs alone, one after another, in one process; its check runs once before it is timed',
        'MB/s counts 10^6 bytes of the operation input (the frame, the record stream) per second; encode counts the bytes it writes',
        'rme is the relative margin of error of the mean at 95% confidence, in percent',
        'a frame fixture smaller than distinctBytes is a family of distinct frames of one shape, at least distinctBytes in all, taken in turn, so that no branch predictor learns a repeated input; bytes is the mean frame size',
      ],
    },
    seed,
    distinctBytes,
    fixtures,
    cases: results.map((r) =>
      r.opsPerSec
        ? {
            ...r,
            opsPerSec: fixed(r.opsPerSec, 2),
            mbPerSec: fixed(r.mbPerSec, 2),
            rme: fixed(r.rme, 2),
            meanMs: fixed(r.meanMs, 6),
            deviationMs: fixed(r.deviationMs, 6),
          }
        : r,
    ),
  };
  report.targets = markNoise(
    targetSpecs(backends.wasm).map((s) => judgeTarget(s, results, simdjson.native, nativeSimdjson?.built, paired, env.machine.cores)),
    previous,
  );
  return report;
}

// ---------------------------------------------------------------------------
// Markdown.

const mbs = (r) => (r ? `${fmt(r.mbPerSec, r.mbPerSec < 10 ? 2 : r.mbPerSec < 100 ? 1 : 0)} ±${fmt(r.rme, 1)}%` : '—');
const ratio = (a, b) => (a && b ? `${fmt(a.opsPerSec / b.opsPerSec, 2)}×` : '—');

/** The per-operation tables (and report.svg's panels): columns are (label, name prefix, backend); ratios are (label, column, column). */
export function tableSpecs(wasm) {
  const W = wasm;
  return [
    {
      title: 'Validate-only (tag and strict JSON text, no value built)',
      panel: 'frame/validate — validate-only: tag + strict JSON',
      fixtures: FRAME_FIXTURES,
      columns: [
        ['js', 'frame/validate', 'js'],
        ['wasm-simd', 'frame/validate', 'wasm-simd'],
        ['wasm-scalar', 'frame/validate', 'wasm-scalar'],
        ['simdjson isValid', 'peer/isvalid', 'simdjson'],
        ['simdjson + TextDecoder', 'peer/isvalid-decode', 'simdjson'],
        ['memcpy', 'peer/memcpy', 'memcpy'],
        ['native simdjson', 'peer/native', 'simdjson-native'],
      ],
      ratios: [
        ['wasm-simd/js', 1, 0],
        ['wasm-scalar/js', 2, 0],
        ['wasm-simd/simdjson', 1, 3],
        ['wasm-simd/(simdjson+TD)', 1, 4],
        ['wasm-simd/memcpy', 1, 5],
        ['wasm-simd/native', 1, 6],
        ['native/js', 6, 0],
      ],
    },
    documentTable,
    {
      title: 'Typed decode (bytes to the SDK value, under the full contract)',
      panel: 'frame/decode — typed decode: bytes → SDK value',
      fixtures: FRAME_FIXTURES,
      columns: [
        ['js', 'frame/decode', 'js'],
        [W, 'frame/decode', W],
        ['bare JSON.parse', 'peer/parse', 'JSON.parse'],
        ['memcpy', 'peer/memcpy', 'memcpy'],
      ],
      ratios: [
        ['wasm/js', 1, 0],
        ['js/bare', 0, 2],
        ['wasm/bare', 1, 2],
        ['wasm/memcpy', 1, 3],
      ],
    },
    {
      title: 'Encode (SDK value to bytes, refusing what decode refuses)',
      panel: 'frame/encode — SDK value → bytes (same code on both backends)',
      fixtures: FRAME_FIXTURES,
      columns: [
        ['js', 'frame/encode', 'js'],
        [W, 'frame/encode', W],
        ['stringify + encodeInto', 'peer/stringify', 'JSON.stringify'],
        ['stringify + encodeInto + copy', 'peer/stringify-copy', 'JSON.stringify'],
        ['memcpy', 'peer/memcpy', 'memcpy'],
      ],
      ratios: [
        ['wasm/js', 1, 0],
        ['wasm/bare', 1, 2],
        ['wasm/(bare+copy)', 1, 3],
        ['wasm/memcpy', 1, 4],
      ],
    },
    {
      title: "The relay's work (pipeRelay, validate 'json': scan, verify, forward views; one record stream a call)",
      panel: "relay/work — the relay's work: pipeRelay, one record stream a call",
      fixtures: [...FRAME_FIXTURES, 'stream-10k'],
      columns: [
        ['js', 'relay/work', 'js'],
        [W, 'relay/work', W],
        ['memcpy', 'peer/memcpy', 'memcpy'],
      ],
      ratios: [
        ['wasm/js', 1, 0],
        ['wasm/memcpy', 1, 2],
      ],
    },
    {
      title: 'Records: typed decode of the whole stream',
      panel: 'records/decode — stream-10k: typed decode of the whole stream',
      fixtures: ['stream-10k'],
      columns: [
        ['decode js', 'records/decode', 'js'],
        [`decode ${W}`, 'records/decode', W],
        ['bare JSON.parse loop', 'peer/parse', 'JSON.parse'],
        ['memcpy', 'peer/memcpy', 'memcpy'],
      ],
      ratios: [
        ['decode wasm/js', 1, 0],
        ['decode js/bare', 0, 2],
        ['decode wasm/memcpy', 1, 3],
      ],
    },
  ];
}

function renderTable(spec, results, fixtureInfo) {
  const head = ['fixture', 'bytes', ...spec.columns.map((c) => `${c[0]} MB/s`), ...spec.ratios.map((r) => r[0])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, k) => (k === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  let any = false;
  for (const f of spec.fixtures) {
    const cells = spec.columns.map((c) => lookup(results, `${c[1]}/${f}`, c[2]));
    if (cells.every((c) => !c)) continue;
    any = true;
    const bytes = fixtureInfo.find((x) => x.name === f)?.bytes;
    lines.push(`| ${f} | ${fmt(bytes)} | ${cells.map(mbs).join(' | ')} | ${spec.ratios.map((r) => ratio(cells[r[1]], cells[r[2]])).join(' | ')} |`);
  }
  return any ? lines.join('\n') : null;
}

export function renderMarkdown(report) {
  const r = report;
  const out = [];
  out.push(`# ${r.title}`);
  out.push('');
  out.push(
    `${r.machine.cpu} (${r.machine.cores} logical cores, ${r.machine.os}), Node ${r.runtime.version} (V8 ${r.runtime.v8}), ` +
      `${r.mode} run of ${r.cases.length} cases in ${Math.round(r.durationSeconds / 60)} min, ${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC. ` +
      `'wasm' is ${r.backends.wasm} here; 'auto' picked ${r.backends.auto}.`,
  );
  out.push('');
  if (r.mode === 'quick' || r.filter) {
    out.push(
      `> **Partial run**${r.mode === 'quick' ? ' (--quick: short runs, noisy numbers)' : ''}${r.filter ? `, filter \`${r.filter}\`` : ''}. Do not quote these numbers.`,
    );
    out.push('');
  }
  out.push(
    r.simdjson.native
      ? `simdjson ${r.simdjson.version}: the native addon loaded (\`${r.simdjson.path}\`).`
      : `**simdjson ${r.simdjson.version}: the native addon did NOT load** (${r.simdjson.error}). Its cases were left out; no comparison was made against its JSON.parse fallback.`,
  );
  out.push('');
  if (r.nativeSimdjson) {
    out.push(
      r.nativeSimdjson.built
        ? `Native simdjson ${r.nativeSimdjson.version}, the limit: built from the npm package's sources (\`${r.nativeSimdjson.path}\`); the **${r.nativeSimdjson.kernel}** kernel ran.`
        : `**Native simdjson was not built** (${r.nativeSimdjson.error}). Its cases were left out and the targets against it are not judged.`,
    );
    out.push('');
  }
  out.push('## How to read this');
  out.push('');
  out.push(
    '- Every case checked its answer once before it was timed: decode deep-equals the fixture source, validate accepts the fixture and refuses its broken twins with the expected rule and offset, scans count the right records, relays forward exactly the valid bytes.',
  );
  out.push(
    '- MB/s is 10^6 bytes of the operation input per second (the frame, or the record stream); encode counts the bytes it writes, which are the same frame. ± is the relative margin of error at 95% confidence. A ratio is a ratio of speeds: 2× means twice as fast.',
  );
  out.push(
    "- **simdjson isValid** takes a JS string, so it is given the body already decoded by TextDecoder, outside the timing: the peer at its best. The **simdjson + TextDecoder** column times the decoding too, which is what a caller holding bytes pays. The target is judged against the first, the harder one. The addon copies the string to UTF-8 and builds a fresh `dom::parser` on every call, so it is not simdjson's raw speed, and on the 1 MiB fixtures its speed depends on whether malloc hands that memory back between calls: blob-1m ran at about 0.6 GB/s in some processes and 2 GB/s in others.",
  );
  out.push(
    "- **bare JSON.parse** is `JSON.parse(new TextDecoder().decode(body))`: no strict-JSON checks, no schema. **stringify + encodeInto** is `JSON.stringify` then `TextEncoder.encodeInto` into a buffer allocated once: no walk, no schema, no allocation. Encode returns a frame of its own: under 4 KiB carved from a shared 8 KiB slab, as Node's Buffer pool does, and above that in a fresh ArrayBuffer, which on this VM costs page faults (about 0.85 per 16 KiB frame, 12 µs each). **stringify + encodeInto + copy** is the bare peer, then `Buffer.from` of the frame's bytes: the copy encode makes, pooled the same way: encode's target peer.",
  );
  out.push(
    "- **native simdjson** is simdjson itself, compiled from the npm package's sources with a binding of ours (bench/native): the bytes are parsed where they lie, in a padded Uint8Array, by one `dom::parser` reused for every call. It is the limit the documents are judged against; it builds simdjson's DOM tape on the way, which is the work its validation is.",
  );
  out.push('- **memcpy** is `Uint8Array.prototype.set` of the same bytes: the physical limit; wasm/memcpy says how close to it a case comes.');
  out.push('- Encode never calls a backend: its js and wasm rows run the same code, and their difference is noise.');
  out.push(
    '- A fixture under 1 MiB is a family of distinct frames taken in turn (see Fixtures), so that no branch predictor learns a repeated input.',
  );
  out.push(
    '- All cases ran in one process, one after another: the JIT has seen every earlier fixture, as in a relay with mixed traffic. A case run alone can differ (bench/README.md, Profile one case).',
  );
  out.push('');

  out.push('## Targets');
  out.push('');
  const pairs = r.targets.filter((t) => t.pairedRange);
  const paired = pairs[0];
  if (paired) {
    const pct = (/** @type {number} */ x) => `${Math.round(x * 100)}%`;
    const warm = warmFor(r.mode === 'quick');
    const capped = pairs.filter((t) => t.warmSlices >= warm.max);
    out.push(
      `Where both cases of a ratio are functions timed in this process, the ratio judged is the ${paired.method}: after the benchmark.js pass, the two cases ran in turn in slices of CPU time, round after round, and the ratio was taken within each round (bench/lib/paired.mjs). The rounds go in twos, one in each order, and a two's ratio is the geometric mean of its two rounds' ratios: the case timed second in a round pays for collecting the first one's garbage (up to twice as slow on blob-1m decode), and this cancels that. Before its rounds, a pair's two cases ran in turn, a slice each, until neither ran more than ${pct(warm.gain)} faster than in the slices before, nor lost more than ${pct(warm.faultShare)} of its CPU time to page faults, at ${FAULT_US} µs a fault, or for ${warm.max} slices at most (warmSlices): a process new to a case that returns ArrayBuffers, as encode does, grows its C heap for a second or two. A case that takes page faults in every slice, as one that makes fresh memory of 128 KiB or more on every call does, never meets the second condition, and its pair's warm-up runs all ${warm.max} slices. In this run ${capped.length} of ${pairs.length} pairs ran all ${warm.max}${capped.length ? ` (${[...new Set(capped.map((t) => t.fixture))].join(', ')})` : ''}. The range given is the twos'; report.json gives every round's ratio (pairedRounds), the CPU each ended on (pairedCpus), and the share of each round's two slices, numerator's then denominator's, lost to page faults (pairedFaults). benchmark.js times each case alone, minutes apart from the other, and on this shared machine that alone moved ratios by up to a third between runs of one commit. Its ratio is in the last column. The other targets (the wire, CLI, TCP and scale cases, and CPU-per-byte targets) are judged as measured.`,
    );
    out.push('');
  }
  out.push('| target | fixture | ratio | needed | met | by how much | benchmark.js ratio |');
  out.push('| --- | --- | ---: | ---: | --- | --- | ---: |');
  for (const t of r.targets) {
    const unit = t.metric === 'faults' ? '' : '×';
    const needed = `${t.comparison === '>=' ? '≥' : '≤'} ${t.target}${unit}`;
    const met = verdict(t) === 'missed' ? '**missed**' : verdict(t);
    const noise = t.pairedRange
      ? ` (the twos ranged ${fmt(t.pairedRange[0], 2)}–${fmt(t.pairedRange[1], 2)}×, across the target)`
      : ` (within the ±${t.marginOfErrorPercent}% margin of error)`;
    const last = t.noise ? `; ${fmt(t.noise.previousRatio, 2)}× in the run before, also within ${Math.round(t.noise.band * 100)}% of the line` : '';
    const limit = t.met === false && t.limit ? `; at most ${fmt(t.limit.ratio, 2)}× here: ${t.limit.how}` : '';
    const how = t.met === null ? t.note : `${t.by}${t.withinNoise ? noise : ''}${last}${limit}`;
    out.push(
      `| ${t.group} | ${t.fixture}${t.note && t.met !== null ? ` (${t.note})` : ''} | ${t.ratio == null ? '—' : `${fmt(t.ratio, 2)}${unit}`} | ${needed} | ${met} | ${how} | ${t.sequentialRatio == null ? '' : `${fmt(t.sequentialRatio, 2)}×`} |`,
    );
  }
  out.push('');
  out.push(
    `${summarize(r.targets)}. A missed target within ${Math.round(NOISE_BAND * 100)}% of its line in this run and in the full run before is within noise: a ratio moves by 5 to 10% between full runs of one commit here. For "within 1.5×" the ratio is a slowdown (bare JSON.parse speed over typed decode speed).`,
  );
  out.push('');

  out.push('## Results');
  out.push('');
  for (const spec of tableSpecs(r.backends.wasm)) {
    const table = renderTable(spec, r.cases, r.fixtures);
    if (!table) continue;
    out.push(`### ${spec.title}`);
    out.push('');
    out.push(table);
    out.push('');
  }

  for (const section of [renderWire(r.cases, r.backends.wasm), renderConcurrent(r.cases)]) {
    if (!section) continue;
    out.push(section);
    out.push('');
  }
  const scale = r.cases.filter((c) => c.op === 'tcp-scale' && c.opsPerSec);
  if (scale.length) {
    out.push('### The TCP relay on every core (16 clients, --validate full, --workers 1 and 2)');
    out.push('');
    out.push('| fixture | workers | MB/s (all clients) | ± | relay CPU s | load generator CPU s | other processes CPU s | cores busy |');
    out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const c of scale)
      out.push(
        `| ${c.fixture} | ${c.backend} | ${fmt(c.mbPerSec)} | ${fmt(c.rme, 1)}% | ${fmt(c.cpuSeconds, 2)} | ${fmt(c.loadGeneratorCpuSeconds, 2)} | ${fmt(c.otherCpuSeconds, 2)} | ${fmt(c.machineBusyCores, 2)} |`,
      );
    out.push('');
  }

  out.push('## Every case');
  out.push('');
  out.push('| case | backend | bytes | ops/s | MB/s | ± | samples | what runs |');
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const c of r.cases) {
    if (c.error) out.push(`| \`${c.name}\` | ${c.backend} | ${fmt(c.bytes)} | — | — | — | — | **${c.error}** |`);
    else
      out.push(
        `| \`${c.name}\` | ${c.backend} | ${fmt(c.bytes)} | ${fmt(c.opsPerSec, c.opsPerSec < 100 ? 1 : 0)} | ${fmt(c.mbPerSec, 1)} | ${fmt(c.rme, 2)}% | ${c.samples} | ${c.impl} |`,
      );
  }
  out.push('');

  out.push('## Fixtures');
  out.push('');
  out.push(
    `From a seeded generator (bench/lib/fixtures.mjs, seed 0x${r.seed.toString(16)}). A fixture smaller than ${fmt(r.distinctBytes)} bytes is a family of distinct frames ` +
      'of the same shape, that many bytes in all, and each case takes them in turn: a branch predictor learns an input that repeats, and would flatter branchy code. "bytes" is the mean frame size.',
  );
  out.push('');
  out.push('| fixture | bytes | distinct frames | bytes in all | non-ASCII | backslashes | what it is |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const f of r.fixtures)
    out.push(
      `| ${f.name} | ${fmt(f.bytes)} | ${fmt(f.variants)} | ${fmt(f.totalBytes)} | ${f.nonAsciiShare == null ? '—' : `${fmt(f.nonAsciiShare * 100, 1)}%`} | ${f.backslashShare == null ? '—' : `${fmt(f.backslashShare * 100, 1)}%`} | ${f.description} |`,
    );
  out.push('');

  out.push('## Environment');
  out.push('');
  out.push(
    `- runtime: ${r.runtime.description}; ${r.runtime.platform}/${r.runtime.arch}; ${r.machine.totalMemoryGiB} GiB; load average ${r.machine.loadAverageAtStart.join(' ')} at the start, ${(r.machine.loadAverageAtEnd ?? []).join(' ')} at the end`,
  );
  out.push(
    `- versions: ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  out.push(`- builds: ${r.builds.map((b) => `${b.path} (${fmt(b.bytes)} B, sha256 ${b.sha256}…)`).join(', ')}`);
  out.push(`- benchmark.js: ${r.benchmark.statistics} (maxTime ${r.benchmark.maxTime} s, minSamples ${r.benchmark.minSamples})`);
  out.push('');
  return out.join('\n');
}
