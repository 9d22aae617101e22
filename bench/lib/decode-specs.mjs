// The typed decode, encode and 'full' relay targets as specs for bench/lib/report.mjs: what is
// compared with what, and the absolute base64 target. No imports, so that the
// report renders without a build; the cases they read are made by
// bench/lib/decode-targets.mjs.

const FRAME_FIXTURES = ['listing-small', 'listing-medium', 'text-48k', 'text-1m', 'blob-48k', 'blob-1m', 'error'];
export const BLOBS = ['blob-48k', 'blob-1m'];
/** The real-server captures, one fixture per server (decode-targets.mjs captureFixtures). */
export const CAPTURES = ['servers-everything', 'servers-filesystem', 'servers-memory'];
export const RELAY_FIXTURES = ['listing-small', 'listing-medium', 'stream-10k'];

/** The typed decode, encode and 'full' relay ratio targets, in targetSpecs' shape. `wasm` is the build loadBackend('wasm') picked. */
export function decodeTargets(wasm) {
  const specs = [];
  for (const f of [...FRAME_FIXTURES, ...CAPTURES]) {
    specs.push({
      group: 'typed decode on wasm within 1.3× of bare JSON.parse',
      fixture: f,
      num: [`peer/parse/${f}`, 'JSON.parse'],
      den: [`frame/decode/${f}`, wasm],
      target: 1.3,
      comparison: '<=',
    });
  }
  for (const f of ['listing', 'small']) {
    specs.push({
      group: "relay/long-stream with validate 'full' on listings: ≥ 2× the relay that built every frame",
      fixture: f,
      num: [`relay/long-stream-full/${f}`, wasm],
      den: [`relay/long-stream-full-by-build/${f}`, wasm],
      target: 2,
      comparison: '>=',
      note: "the denominator does the work 'full' did when it built frames: buildFrame on every response, the value thrown away",
    });
  }
  for (const f of RELAY_FIXTURES) {
    specs.push({
      group: "the relay's work with validate 'full': wasm ≥ 2× the relay that built every frame",
      fixture: f,
      num: [`relay/work-full/${f}`, wasm],
      den: [`relay/work-full-by-build/${f}`, wasm],
      target: 2,
      comparison: '>=',
      note: "the denominator does the work 'full' did when it built frames: buildFrame on every response, the value thrown away",
    });
  }
  return specs;
}

/** The absolute base64 targets: MB/s of one case. */
export function decodeSpeedTargets() {
  return BLOBS.map((f) => ({
    group: 'the base64 check ≥ 5 GB/s with wasm-simd on the blob fixtures',
    fixture: f,
    case: [`strings/base64/${f}`, 'wasm-simd'],
    mbPerSec: 5000,
    comparison: '>=',
  }));
}

/** One absolute target judged on the results: an entry in the shape of report.targets' (ratio is the case's MB/s over the target's). */
export function judgeSpeedTarget(spec, results) {
  const r = results.find((x) => x.name === spec.case[0] && x.backend === spec.case[1]);
  const base = {
    name: `${spec.group} — ${spec.fixture}`,
    group: spec.group,
    fixture: spec.fixture,
    comparison: spec.comparison,
    numerator: `${spec.case[0]}@${spec.case[1]}`,
    denominator: `${spec.mbPerSec} MB/s`,
  };
  if (!r?.opsPerSec) return { ...base, ratio: null, target: 1, met: null, note: 'a case was not run (filtered out or failed its check)' };
  const ratio = r.mbPerSec / spec.mbPerSec;
  const met = spec.comparison === '>=' ? ratio >= 1 : ratio <= 1;
  const factor = met === (spec.comparison === '>=') ? ratio : 1 / ratio;
  return {
    ...base,
    ratio: Math.round(ratio * 1000) / 1000,
    target: 1,
    met,
    by: met
      ? `met with ${factor.toFixed(2)}× to spare (${Math.round(r.mbPerSec)} MB/s)`
      : `missed by ${(1 / factor).toFixed(2)}× (${Math.round(r.mbPerSec)} MB/s)`,
    marginOfErrorPercent: Math.round(r.rme * 100) / 100,
    withinNoise: Math.abs(ratio - 1) * 100 < r.rme,
  };
}

/** The names of the long-stream cases runRelayFullCases makes, for --filter. */
export const RELAY_FULL_NAMES = ['listing', 'small'].flatMap((f) => [`relay/long-stream-full/${f}`, `relay/long-stream-full-by-build/${f}`]);
