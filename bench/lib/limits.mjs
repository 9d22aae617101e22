// What the report shows beside its targets, never counted as one: why two targets are measured against the peers they are.
//
// # The listings: native simdjson against the JS path
//
// The listings' validate target measures the core against native
// simdjson: simdjson 0.9.1 compiled from the npm package's sources, its
// haswell kernel (256-bit AVX2) where the CPU has it, the body parsed where
// it lies in a padded buffer by one reused dom::parser (bench/native),
// timed on the frame fixtures' bodies (`peer/native/<frame fixture>`). A
// ratio to the JS path was no yardstick there: native simdjson itself runs
// under 2× the JS path on a small listing, so "5× js" asked the core, 128-bit
// SIMD behind a JS call and a copy into its memory, to outrun it. The row
// here is that ratio of native simdjson to the JS path, taken by the
// targets' paired method.
//
// # Encode beside a bare peer that keeps nothing
//
// Encode returns a frame the caller keeps, copied out of its scratch
// buffer at exactly the frame's length, so its target's peer,
// `peer/stringify-copy/<fixture>`, makes that copy too: JSON.stringify,
// encodeInto a buffer made once, then Node's Buffer.from, which pools as
// encode does (under 4 KiB into a shared 8 KiB pool, above it into an
// ArrayBuffer of its own). The rows here give encode against the bare peer
// without the copy, which keeps nothing (the next call writes over its
// bytes): the copy is the difference between the two.

const LISTINGS = ['listing-small', 'listing-medium'];

/** What the copying peer does, for its cases' descriptions (cases.mjs). */
export const STRINGIFY_COPY =
  "JSON.stringify(value), TextEncoder.encodeInto a buffer allocated once, then Buffer.from of the frame's bytes: a frame of its own, copied as encode copies its own (under 4 KiB into a shared 8 KiB pool, above it into an ArrayBuffer of its own)";

/** The group of the copying peer's rows, which renderLimits shows in a table of their own. */
const COPY_GROUP = 'encode ÷ stringify + encodeInto, no copy';

/**
 * The limits, as target specs that are not targets: the ratio a target asks
 * for, taken of the limit instead of the core, and encode's ratio to bare
 * with the copy out, on `encodeFixtures`, on the `wasm` backend as the
 * encode target takes it. They are timed side by side as the targets are
 * (targetPairs) and shown apart, never met or missed.
 */
export function limitSpecs(wasm, encodeFixtures) {
  const copies = encodeFixtures.map((f) => ({
    group: COPY_GROUP,
    bounds: 'encode against the bare peer that keeps nothing',
    fixture: f,
    num: [`frame/encode/${f}`, wasm],
    den: [`peer/stringify/${f}`, 'JSON.stringify'],
    target: 1,
    comparison: '>=',
  }));
  const natives = LISTINGS.map((f) => ({
    group: 'native simdjson ÷ the JS path',
    bounds: 'why the listings are judged against native simdjson, not against the JS path',
    fixture: f,
    num: [`peer/native/${f}`, 'simdjson-native'],
    den: [`frame/validate/${f}`, 'js'],
    target: 5,
    comparison: '>=',
  }));
  return [...natives, ...copies];
}

const num = (x, d = 2) => (x == null ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));

/** The Limits section of report.md, or null when no limit was measured; `targets` are the report's, for the encode target's ratio beside each copy row. */
export function renderLimits(limits, targets = []) {
  const measured = limits.filter((l) => l.ratio != null);
  if (measured.length === 0) return null;
  const range = (l) => (l.pairedRange ? `${num(l.pairedRange[0])}–${num(l.pairedRange[1])}×` : '(benchmark.js ratio)');
  const out = [];
  const natives = measured.filter((l) => l.group !== COPY_GROUP);
  if (natives.length) {
    out.push(
      'Native simdjson itself, C++ with its AVX2 kernel parsing the listings’ bodies in place, against the JS path, timed side by side as the targets are (bench/lib/limits.mjs). "wasm ≥ 5× js" on the listings would ask the WebAssembly core for 5 ÷ this ratio of native simdjson’s speed, beyond native simdjson wherever the ratio is under 5, so the listings’ validate target is taken against native simdjson instead, at 0.6× as for the documents. These rows are not targets and are not counted above.',
    );
    out.push('');
    out.push('| validate-only | fixture | ratio | what "5× js" would ask of the core | the twos ranged |');
    out.push('| --- | --- | ---: | --- | --- |');
    for (const l of natives) out.push(`| ${l.group} | ${l.fixture} | ${num(l.ratio)}× | ${num(5 / l.ratio)}× native simdjson | ${range(l)} |`);
  }
  const copies = measured.filter((l) => l.group === COPY_GROUP);
  if (copies.length) {
    if (natives.length) out.push('');
    out.push(
      "Encode's target peer copies the frame out, as encode must: encode returns a frame the caller keeps. Here encode is beside bare `JSON.stringify` + `encodeInto` without that copy, a peer that keeps nothing (the next call writes over its bytes), timed side by side as the targets are (bench/lib/limits.mjs). The copy is the difference between the two columns. These rows are not targets and are not counted above.",
    );
    out.push('');
    out.push("| fixture | encode ÷ bare, no copy | the twos ranged | encode ÷ (bare + copy) (the target's ratio) |");
    out.push('| --- | ---: | --- | ---: |');
    for (const l of copies) {
      const target = targets.find((t) => t.numerator === l.numerator && t.denominator === `peer/stringify-copy/${l.fixture}@JSON.stringify`);
      out.push(`| ${l.fixture} | ${num(l.ratio)}× | ${range(l)} | ${target?.ratio == null ? '—' : `${num(target.ratio)}×`} |`);
    }
  }
  return out.join('\n');
}
