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

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readResource, FrameError } from '../../dist/runtime/node.js';
import { cycle, DISTINCT_BYTES, STATUS, TAG_RESULT } from './fixtures.mjs';
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
  'данные',
  'отчёт',
  'система',
  'работа',
  'вопрос',
  'решение',
  'время',
  'человек',
  'город',
  'дорога',
  'письмо',
  'книга',
  'история',
  'сегодня',
  'завтра',
  'большой',
  'новый',
  'последний',
  'хорошо',
  'быстро',
  'и',
  'в',
  'на',
  'не',
  'что',
  'это',
];
const CJK = [
  '東京',
  '日本語',
  '資料',
  '検索',
  '結果',
  '会議',
  '報告書',
  '今日',
  '明日',
  '時間',
  '中文',
  '测试',
  '数据',
  '系统',
  '问题',
  '解决',
  '城市',
  '历史',
  'です',
  'ました',
  'の',
  'は',
  'を',
];
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

/**
 * The first byte at or after `from` that is a plain ASCII character inside
 * a string (not a quote, not part of an escape), found by walking the text
 * from its start: a control byte put there is the text's first fault.
 */
function plainStringByte(body, from) {
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (!inString) {
      if (c === 0x22) inString = true;
    } else if (c === 0x5c) {
      i += body[i + 1] === 0x75 ? 5 : 1;
    } else if (c === 0x22) {
      inString = false;
    } else if (i >= from && c >= 0x20 && c < 0x80) {
      return i;
    }
  }
  if (from > 0) return plainStringByte(body, 0); // canada.json: its strings are all near the start
  throw new Error('no plain string byte in the document');
}

/**
 * A control byte inside a string halfway through (or wherever there is
 * one), and the text cut before its last byte that is not whitespace (the
 * corpus files end with a newline).
 */
function twins(bytes) {
  const at = 1 + plainStringByte(bytes.subarray(1), (bytes.length - 1) >> 1);
  const ctl = bytes.slice();
  ctl[at] = 0x1f;
  let last = bytes.length - 1;
  while ([0x20, 0x0a, 0x0d, 0x09].includes(bytes[last])) last--;
  const cut = bytes.slice(0, last);
  return [
    { label: 'control-char', bytes: ctl, status: STATUS.ControlChar, rule: 'control-char', offset: at },
    { label: 'cut', bytes: cut, status: STATUS.JsonEnd, rule: 'json-end', offset: cut.length },
  ];
}

function variantOf(body, padding) {
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = TAG_RESULT;
  bytes.set(body, 1);
  // simdjson reads up to `padding` bytes past the end; the bytes stay where they are.
  const padded = new Uint8Array(body.length + padding);
  padded.set(body);
  const text = decoder.decode(body);
  return { bytes, text, value: JSON.parse(text), padded };
}

function fixture(name, description, bodies, padding) {
  const variants = bodies.map((b) => variantOf(b, padding));
  const total = variants.reduce((n, v) => n + v.bytes.length, 0);
  return {
    name,
    kind: 'document',
    description,
    variants,
    bytesPerOp: total / variants.length,
    broken: twins(variants[0].bytes).map((t) => {
      const padded = new Uint8Array(t.bytes.length - 1 + padding);
      padded.set(t.bytes.subarray(1));
      return { ...t, padded };
    }),
  };
}

/**
 * The document fixtures. `padding` is the native limit's (0 when it is
 * not there): each variant keeps a padded copy of its body for it.
 */
export function buildDocuments(seed, padding = 64) {
  const out = [];
  for (const name of CORPUS) {
    const body = readFileSync(join(CORPUS_DIR, `${name}.json`));
    out.push(fixture(name, `simdjson's ${name}.json, as shipped in node_modules/simdjson/jsonexamples (one fixed document)`, [body], padding));
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
      padding,
    ),
  );
  out.push(
    fixture(
      'tool-result-64k',
      'tools/call result whose text item is a pretty-printed JSON document of about 62 KB, so escaped JSON (quotes, newlines, backslashes)',
      family(createRng(seed + 102), toolResult),
      padding,
    ),
  );
  return out;
}

// ---------------------------------------------------------------------------
// Cases.

function expectFrameError(result, broken, what) {
  ok(result instanceof FrameError, `${what}: the ${broken.label} twin was accepted`);
  strictEqual(result.rule, broken.rule, `${what}: the ${broken.label} twin was refused for ${result.rule}, expected ${broken.rule}`);
  strictEqual(result.offset, broken.offset, `${what}: the ${broken.label} twin was refused at ${result.offset}, expected ${broken.offset}`);
}

/** Where results go so that no operation's work is dead code. */
export let blackhole;

/**
 * The cases of the document fixtures: validate on each backend, and the
 * peers. `simdjson` is env.loadSimdjson()'s answer, `native` native.loadNative()'s.
 */
export function documentCases(fixtures, { js, wasmSimd, wasmScalar }, simdjson, native) {
  const cases = [];
  const add = (c) => cases.push({ defer: false, ...c, layer: c.layer, name: `${c.layer}/${c.op}/${c.fixture}` });
  for (const f of fixtures) {
    const V = f.variants;
    const n = f.bytesPerOp;
    for (const b of [js, wasmSimd, wasmScalar]) {
      const codec = readResource.withBackend(b);
      const next = cycle(V);
      add({
        layer: 'frame',
        op: 'validate',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `codec.validate on ${b.name}`,
        check() {
          for (const v of V) strictEqual(codec.validate(v.bytes), null, 'validate: the fixture was refused');
          for (const t of f.broken) {
            expectFrameError(codec.validate(t.bytes), t, 'validate');
            deepStrictEqual(b.verifyFrame(t.bytes), { status: t.status, offset: t.offset }, `verifyFrame on the ${t.label} twin`);
          }
        },
        fn: () => (blackhole = codec.validate(next().bytes)),
      });
    }
    {
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'parse',
        fixture: f.name,
        backend: 'JSON.parse',
        bytes: n,
        impl: 'JSON.parse(new TextDecoder().decode(body)): no checks beyond JSON.parse',
        check: () => {
          for (const v of V) deepStrictEqual(JSON.parse(decoder.decode(v.bytes.subarray(1))), v.value, 'parse: the value differs');
        },
        fn: () => (blackhole = JSON.parse(decoder.decode(next().bytes.subarray(1)))),
      });
    }
    if (simdjson.native) {
      const isValid = simdjson.isValid;
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'isvalid',
        fixture: f.name,
        backend: 'simdjson',
        bytes: n,
        impl: 'npm simdjson isValid(body) on a string decoded beforehand: TextDecoder not timed',
        check: () => {
          for (const v of V) strictEqual(isValid(v.text), true, 'simdjson refused the fixture');
          for (const t of f.broken) strictEqual(isValid(decoder.decode(t.bytes.subarray(1))), false, `simdjson accepted the ${t.label} twin`);
        },
        fn: () => (blackhole = isValid(next().text)),
      });
    }
    if (native.native) {
      const isValid = native.isValid;
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'native',
        fixture: f.name,
        backend: 'simdjson-native',
        bytes: n,
        impl: `simdjson ${native.version} (${native.kernel} kernel) parsing the body in place from a padded Uint8Array, one dom::parser reused (bench/native)`,
        check: () => {
          for (const v of V) strictEqual(isValid(v.padded, v.bytes.length - 1), true, 'native simdjson refused the fixture');
          for (const t of f.broken) strictEqual(isValid(t.padded, t.bytes.length - 1), false, `native simdjson accepted the ${t.label} twin`);
        },
        fn: () => {
          const v = next();
          blackhole = isValid(v.padded, v.bytes.length - 1);
        },
      });
    }
    {
      const dst = new Uint8Array(Math.max(...V.map((v) => v.bytes.length)));
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'memcpy',
        fixture: f.name,
        backend: 'memcpy',
        bytes: n,
        impl: 'Uint8Array.prototype.set of the same bytes into a buffer allocated once: the physical limit',
        check() {
          for (const { bytes } of V) {
            dst.fill(0);
            dst.set(bytes);
            ok(Buffer.compare(Buffer.from(dst.buffer, 0, bytes.length), Buffer.from(bytes)) === 0, 'memcpy: bytes differ');
          }
        },
        fn: () => dst.set(next().bytes),
      });
    }
  }
  return cases;
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
