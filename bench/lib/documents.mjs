// Documents for validate-only cases: simdjson's corpus, generated prose, a tool result whose text is escaped JSON.
//
// These are bodies no endpoint's schema would take as a whole (twitter.json
// is not a ListResourcesResult), so they are only validated: tag and strict
// JSON text, on js, wasm-simd and wasm-scalar, against the peers that also
// only judge or parse JSON: TextDecoder + JSON.parse, npm simdjson's
// isValid, and simdjson itself, native, as the limit (bench/native/).
//
// simdjson's corpus is read from node_modules/simdjson/jsonexamples/, where
// the npm package ships it; it is not copied into this repository. Each of
// those files is one fixed document, so its cases take the same bytes every
// time; at 65 KB to 3.3 MB, the smaller ones may let a branch predictor
// learn part of them. The generated documents are families of distinct
// frames, 1 MiB in all, like the other fixtures.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenTwins, DISTINCT_BYTES, TAG_RESULT } from './fixtures.mjs';
import { createRng } from './rng.mjs';
import { ROOT } from './env.mjs';

/** simdjson's standard corpus, as the issue lists it. */
const CORPUS = ['twitter', 'citm_catalog', 'canada', 'github_events', 'gsoc-2018', 'update-center'];
const CORPUS_DIR = join(ROOT, 'node_modules', 'simdjson', 'jsonexamples');

/** Every document fixture, in report order. */
export const DOCUMENT_FIXTURES = [...CORPUS, 'prose-300k', 'tool-result-64k'];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------
// Generated text.

const CYRILLIC = [
  ...'данные отчёт система работа вопрос решение время человек город дорога письмо книга история'.split(' '),
  ...'сегодня завтра большой новый последний хорошо быстро и в на не что это'.split(' '),
];
const CJK = '東京 日本語 資料 検索 結果 会議 報告書 今日 明日 時間 中文 测试 数据 系统 问题 解决 城市 历史 です ました の は を'.split(' ');
const ENDINGS = ['. ', '. ', '. ', '! ', '? ', '.\n', '.\n\n', '; ', ': '];

/** About `target` bytes of UTF-8 prose: Cyrillic and CJK words, ASCII punctuation, some quotes and numbers. */
function prose(rng, target) {
  let out = '';
  let size = 0;
  while (size < target) {
    const words = [];
    for (let k = rng.range(5, 16); k > 0; k--) {
      const r = rng.next();
      if (r < 0.5) words.push(rng.pick(CYRILLIC));
      else if (r < 0.93) words.push(rng.pick(CJK));
      else if (r < 0.97) words.push(`"${rng.pick(CYRILLIC)}"`);
      else words.push(String(rng.range(1, 2025)));
      if (rng.chance(0.08)) words[words.length - 1] += ',';
    }
    const sentence = words.join(' ') + rng.pick(ENDINGS);
    out += sentence;
    size += encoder.encode(sentence).length;
  }
  return out;
}

/** A resources/read result holding one text of about 300 KB of prose. */
function proseRead(rng) {
  return {
    contents: [{ uri: `file:///srv/books/chapter-${rng.range(1, 99)}.txt`, mimeType: 'text/plain', text: prose(rng, 300_000) }],
  };
}

/** A tools/call result whose one text item is a JSON document, pretty-printed, so escaped once more. */
function toolResult(rng) {
  const records = [];
  let size = 0;
  while (size < 62_000) {
    const r = {
      id: `rec-${rng.range(1, 1e9)}`,
      title: `${rng.pick(CYRILLIC)} ${rng.pick(['report', 'summary', 'ledger', 'plan'])} ${rng.range(1, 999)}`,
      url: `https://example.com/items/${rng.range(1, 1e6)}?ref=search&q=${rng.pick(['alpha', 'beta', 'gamma'])}`,
      score: Math.round(rng.next() * 1e6) / 1e6,
      tags: Array.from({ length: rng.range(0, 5) }, () => rng.pick(['draft', 'final', 'q3', 'urgent', 'archive', '東京'])),
      author: { name: rng.pick(['Ada', 'Grace', 'Linus', 'Ørsted']), verified: rng.chance(0.5) },
      created: `2025-${String(rng.range(1, 12)).padStart(2, '0')}-${String(rng.range(1, 28)).padStart(2, '0')}T12:00:00Z`,
      summary: `Line one.\nLine "two" with a path C:\\data\\${rng.pick(['a', 'b'])}.\n`,
    };
    records.push(r);
    size += JSON.stringify(r, null, 2).length;
  }
  return {
    content: [{ type: 'text', text: JSON.stringify({ query: 'report', total: records.length, records }, null, 2) }],
    isError: false,
  };
}

// ---------------------------------------------------------------------------
// Fixtures.

function variantOf(body) {
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = TAG_RESULT;
  bytes.set(body, 1);
  const text = decoder.decode(body);
  return { bytes, body: text, value: JSON.parse(text) };
}

function fixture(name, description, bodies) {
  const variants = bodies.map(variantOf);
  const total = variants.reduce((n, v) => n + v.bytes.length, 0);
  return {
    name,
    kind: 'document',
    description,
    variants,
    bytesPerOp: total / variants.length,
    broken: brokenTwins(variants[0].bytes),
  };
}

/** The document fixtures. */
export function buildDocuments(seed) {
  const out = [];
  for (const name of CORPUS) {
    const body = readFileSync(join(CORPUS_DIR, `${name}.json`));
    out.push(fixture(name, `simdjson's ${name}.json, as shipped in node_modules/simdjson/jsonexamples (one fixed document)`, [body]));
  }
  const family = (rng, make) => {
    const first = encoder.encode(JSON.stringify(make(rng)));
    const bodies = [first];
    while (bodies.length * first.length < DISTINCT_BYTES) bodies.push(encoder.encode(JSON.stringify(make(rng))));
    return bodies;
  };
  out.push(
    fixture(
      'prose-300k',
      'resources/read, one text of about 300 KB of Cyrillic and CJK words with ASCII punctuation',
      family(createRng(seed + 101), proseRead),
    ),
  );
  out.push(
    fixture(
      'tool-result-64k',
      'tools/call result whose text item is a pretty-printed JSON document of about 62 KB, so escaped JSON (quotes, newlines, backslashes)',
      family(createRng(seed + 102), toolResult),
    ),
  );
  return out;
}

// ---------------------------------------------------------------------------
// Targets and the report's table.

/** The targets on documents, and wasm-simd against wasm-scalar on every fixture. */
export function documentTargets(frameFixtures) {
  const specs = [];
  const speedup = (group, fixture, num, den, target) => specs.push({ group, fixture, num, den, target, comparison: '>=' });
  for (const [f, target] of [
    ['twitter', 0.6],
    ['citm_catalog', 0.6],
    ['gsoc-2018', 0.8],
  ]) {
    speedup(
      `validate-only: wasm-simd ≥ ${target}× native simdjson`,
      f,
      [`frame/validate/${f}`, 'wasm-simd'],
      [`peer/native/${f}`, 'simdjson-native'],
      target,
    );
  }
  speedup(
    'validate-only: wasm-simd ≥ 3× js on prose',
    'prose-300k',
    ['frame/validate/prose-300k', 'wasm-simd'],
    ['frame/validate/prose-300k', 'js'],
    3,
  );
  for (const f of [...frameFixtures, ...DOCUMENT_FIXTURES])
    speedup('validate-only: wasm-simd never below wasm-scalar', f, [`frame/validate/${f}`, 'wasm-simd'], [`frame/validate/${f}`, 'wasm-scalar'], 1);
  return specs;
}

/** The report.md table of the documents. */
export const documentTable = {
  title: 'Validate-only on documents (simdjson’s corpus, prose, a tool result), against native simdjson',
  panel: 'frame/validate — documents: simdjson’s corpus, prose, a tool result',
  fixtures: DOCUMENT_FIXTURES,
  columns: [
    ['js', 'frame/validate', 'js'],
    ['wasm-simd', 'frame/validate', 'wasm-simd'],
    ['wasm-scalar', 'frame/validate', 'wasm-scalar'],
    ['bare JSON.parse', 'peer/parse', 'JSON.parse'],
    ['simdjson isValid', 'peer/isvalid', 'simdjson'],
    ['native simdjson', 'peer/native', 'simdjson-native'],
    ['memcpy', 'peer/memcpy', 'memcpy'],
  ],
  ratios: [
    ['wasm-simd/js', 1, 0],
    ['wasm-simd/wasm-scalar', 1, 2],
    ['wasm-simd/native', 1, 5],
    ['wasm-simd/memcpy', 1, 6],
  ],
};
