// The README's benchmark table, made from a report's judged targets: what a reader sees first is what the report says.
//
// Each row gathers the targets whose numerator case (and, where given, group)
// it names, and gives the range of their judged ratios, the fixtures at both
// ends, and how many met their line. A row with no target in the report is
// left out. `npm run bench` writes the table into README.md between the two
// markers after a full run, `node bench/render.mjs --readme` does it from the
// committed report, and a test holds the README to the committed report.

export const HEADLINE_START = '<!-- benchmark table: written by bench/lib/headline.mjs from bench/report/report.json -->';
export const HEADLINE_END = '<!-- end of benchmark table -->';

/**
 * The rows, in the order the README shows them. `num` matches a target's
 * numerator case (name@backend), `group` its group where the numerator
 * alone is ambiguous; `unit` says how to read the ratio.
 */
export const HEADLINE_ROWS = [
  {
    what: 'validate-only on wasm-simd',
    against: 'native simdjson (C++), one parse a body',
    num: /^frame\/validate\/.*@wasm-simd$/,
    den: /^peer\/native\//,
    unit: 'as fast',
  },
  { what: 'validate-only on wasm-simd', against: 'npm `simdjson` `isValid`', num: /^frame\/validate\//, den: /^peer\/isvalid\//, unit: 'as fast' },
  { what: 'validate-only on wasm', against: 'the pure-JS path (blobs, prose)', num: /^frame\/validate\//, den: /@js$/, unit: 'as fast' },
  {
    what: 'typed decode on wasm',
    against: 'bare `TextDecoder` + `JSON.parse`',
    num: /^peer\/parse\//,
    den: /^frame\/decode\/.*@wasm/,
    unit: 'the time',
  },
  {
    what: 'encode',
    against: '`JSON.stringify` + `encodeInto` + the copy out',
    num: /^frame\/encode\//,
    den: /^peer\/stringify-copy\//,
    unit: 'as fast',
  },
  {
    what: 'Web Streams relay (`createRelay`), CPU',
    against: 'validate-only of the same frames',
    num: /^relay\/web-streams\//,
    group: /CPU/,
    unit: 'as fast',
  },
  { what: 'CLI relay, file to file, CPU a byte', against: 'a bare Node pipe', num: /^relay\/cli\//, unit: 'as cheap' },
  { what: 'CLI relay `--validate full`, CPU', against: 'the same with `--validate json`', num: /^relay\/cli-full\//, unit: 'the CPU' },
  {
    what: 'TCP relay, 16 clients, CPU a byte',
    against: 'a bare Node TCP proxy',
    num: /^relay\/tcp-concurrent\//,
    group: /CPU a byte/,
    unit: 'as cheap',
  },
  {
    what: 'TCP relay `--validate full`, 16 clients, CPU a byte',
    against: 'a bare Node TCP proxy',
    num: /^relay\/tcp-concurrent-full\//,
    group: /CPU a byte/,
    unit: 'as cheap',
  },
  { what: '`mcp-frames proxy`, small reads', against: "the SDK's `Client`", num: /^proxy\/read-small\//, unit: 'as fast' },
  { what: '`mcp-frames proxy`, 1 MiB answers, CPU', against: 'the relay (`full`) on the same answers', num: /^proxy\/answer-1m\//, unit: 'the CPU' },
];

const REPORT_URL = 'https://github.com/mcp-frames/mcp-frames/blob/main/bench/report/report.md';
const BENCH_README_URL = 'https://github.com/mcp-frames/mcp-frames/blob/main/bench/README.md';

const ratio = (x) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;

/** The targets of `report` a row gathers: judged ones only, in the report's order. */
function targetsOf(report, row) {
  return report.targets.filter(
    (t) =>
      typeof t.ratio === 'number' &&
      row.num.test(t.numerator) &&
      (row.den === undefined || row.den.test(t.denominator)) &&
      (row.group === undefined || row.group.test(t.group)),
  );
}

/** One row's cells, or null when the report has none of its targets. */
function cells(report, row) {
  const targets = targetsOf(report, row);
  if (targets.length === 0) return null;
  const sorted = [...targets].sort((a, b) => a.ratio - b.ratio);
  const low = sorted[0];
  const high = sorted[sorted.length - 1];
  const range =
    low === high || low.ratio === high.ratio
      ? `${ratio(low.ratio)} (${low.fixture})`
      : `${ratio(low.ratio)} (${low.fixture}) to ${ratio(high.ratio)} (${high.fixture})`;
  const lines = [...new Set(targets.map((t) => `${t.comparison === '<=' ? '≤' : '≥'} ${t.target}×`))];
  const met = targets.filter((t) => t.met === true).length;
  return [row.what, row.against, `${range} ${row.unit}`, `${lines.join(', ')}: ${met} of ${targets.length} met`];
}

/** The table, as markdown lines between the markers. */
export function renderHeadline(report) {
  const { machine, runtime } = report;
  const out = [
    HEADLINE_START,
    `From the committed full run of ${report.generatedAt.slice(0, 10)} (${machine.cpu}, ${machine.cores} cores, Node ${runtime.version.replace(/^v/, '')}): each ratio as the [report](${REPORT_URL}) judges it, over its fixtures. The report lists every case and every target, met or missed; [bench/README.md](${BENCH_README_URL}) says how to run and read it.`,
    '',
    '| operation | compared with | ratio | target |',
    '| --- | --- | --- | --- |',
  ];
  for (const row of HEADLINE_ROWS) {
    const c = cells(report, row);
    if (c) out.push(`| ${c.join(' | ')} |`);
  }
  out.push(HEADLINE_END);
  return out.join('\n');
}

/** `readme` with its table replaced by the one `report` makes; an Error when the markers are missing. */
export function withHeadline(readme, report) {
  const start = readme.indexOf(HEADLINE_START);
  const end = readme.indexOf(HEADLINE_END);
  if (start < 0 || end < start) throw new Error('README.md has no benchmark table markers');
  return readme.slice(0, start) + renderHeadline(report) + readme.slice(end + HEADLINE_END.length);
}
