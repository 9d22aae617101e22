// The benchmark's inputs, built from a seed: the same bytes on every run.
//
// Each frame fixture carries its source value, its frame bytes (the tag,
// then JSON.stringify of the value, as UTF-8: exactly what encode writes),
// the body as a string (for the peers that take strings), and two broken
// twins with the fault each must be refused for. Records are written here
// by hand, from WIRE.md section 3, not with the library under test.

import { createRng } from './rng.mjs';

export const SEED = 0x6d63_7066; // "mcpf"

export const TAG_RESULT = 0x00;
export const TAG_ERROR = 0x01;
export const KIND_RESPONSE = 0x01;
export const KIND_FINISH = 0x02;
export const HEADER_SIZE = 9;

const KiB = 1024;
const MiB = 1024 * KiB;

const encoder = new TextEncoder();
const utf8Length = (s) => encoder.encode(s).length;

// ---------------------------------------------------------------------------
// Words.

const ASCII_WORDS = [
  ...'alpha beta report quarterly notes index config server client resource channel frame record stream buffer'.split(' '),
  ...'schema draft final archive backup summary design review budget release metrics invoice sprint roadmap ledger'.split(' '),
];
const NON_ASCII_WORDS = [
  ...'café naïve Grüße Größe façade résumé déjà-vu smørrebrød jalapeño Ærø данные отчёт κόσμος δεδομένα 東京'.split(' '),
  ...'日本語 資料 데이터 नमस्ते مرحبا ½ Ω €42 → ✓ 😀 🚀 📄 𝄞 🇫🇷'.split(' '),
];
const MIMES = ['text/markdown', 'text/plain', 'application/json', 'text/csv', 'application/pdf', 'image/png'];
const EXTS = {
  'text/markdown': 'md',
  'text/plain': 'txt',
  'application/json': 'json',
  'text/csv': 'csv',
  'application/pdf': 'pdf',
  'image/png': 'png',
};

function words(rng, n, nonAscii) {
  const out = [];
  for (let k = 0; k < n; k++) out.push(rng.chance(nonAscii) ? rng.pick(NON_ASCII_WORDS) : rng.pick(ASCII_WORDS));
  return out.join(' ');
}

function slug(rng) {
  return `${rng.pick(ASCII_WORDS)}-${rng.range(1, 9999)}`;
}

// ---------------------------------------------------------------------------
// Frames.

export function frameBytes(tag, value) {
  const text = JSON.stringify(value);
  const body = encoder.encode(text);
  const out = new Uint8Array(1 + body.length);
  out[0] = tag;
  out.set(body, 1);
  return out;
}

/** Builds value(pad) with pad = '' to measure, then pads with ASCII to exactly `target` bytes. */
function exactly(target, tag, build) {
  const size = frameBytes(tag, build('')).length;
  if (size > target) throw new Error(`fixture of ${size} bytes overshoots its target of ${target}`);
  return build('x'.repeat(target - size));
}

function resource(rng, k) {
  const mimeType = rng.pick(MIMES);
  const name = `${slug(rng)}.${EXTS[mimeType]}`;
  const r = {
    uri: `file:///srv/${k}/${name}`,
    name,
    description: words(rng, rng.range(1, 4), 0.3),
    mimeType,
  };
  if (rng.chance(0.7)) r.title = words(rng, rng.range(1, 2), 0.5);
  if (rng.chance(0.6)) r.size = rng.range(0, 5_000_000);
  if (rng.chance(0.2)) {
    r.annotations = { audience: rng.chance(0.5) ? ['user'] : ['user', 'assistant'], priority: rng.int(11) / 10 };
  }
  return r;
}

/** One resource, its fields drawn at random, padded to exactly 150 bytes in the cursor. */
function listingSmall(rng) {
  for (;;) {
    const mimeType = rng.pick(MIMES);
    const name = `${slug(rng)}.${EXTS[mimeType]}`;
    const build = (pad) => ({ resources: [{ uri: `file:///srv/${rng.pick(ASCII_WORDS)}/${name}`, name, mimeType }], nextCursor: `c${pad}` });
    const value = build('');
    const size = frameBytes(TAG_RESULT, value).length;
    if (size <= 150) {
      value.nextCursor += 'x'.repeat(150 - size);
      return value;
    }
  }
}

/** 100 resources; drawn again (rarely) until they fit in 16 KiB, then padded to exactly that. */
export function listingMedium(rng) {
  for (;;) {
    const resources = [];
    for (let k = 0; k < 100; k++) resources.push(resource(rng, k));
    const build = (pad) => ({ resources, nextCursor: `page-2${pad}` });
    if (frameBytes(TAG_RESULT, build('')).length <= 16 * KiB) return exactly(16 * KiB, TAG_RESULT, build);
  }
}

/** One line of log-like text: words, some non-ASCII, quotes, backslashes, tabs and a rare control byte. */
function textLine(rng) {
  const parts = [];
  const n = rng.range(4, 14);
  for (let k = 0; k < n; k++) {
    const r = rng.next();
    if (r < 0.72) parts.push(rng.pick(ASCII_WORDS));
    else if (r < 0.86) parts.push(rng.pick(NON_ASCII_WORDS));
    else if (r < 0.91) parts.push(`"${rng.pick(ASCII_WORDS)}"`);
    else if (r < 0.94) parts.push(`C:\\${rng.pick(ASCII_WORDS)}\\${rng.pick(ASCII_WORDS)}`);
    else if (r < 0.97) parts.push(`${rng.range(0, 65535)}\t${rng.range(0, 9)}`);
    else if (r < 0.985) parts.push(`bell\u0007${rng.pick(ASCII_WORDS)}`);
    else parts.push(`{"k":${rng.range(0, 99)}}`);
  }
  return `${parts.join(' ')}\n`;
}

/** Escaped UTF-8 size of s inside a JSON string (JSON.stringify's escaping is per character). */
const escapedSize = (s) => utf8Length(JSON.stringify(s)) - 2;

function textRead(rng, target) {
  const uri = 'file:///srv/logs/app-2025.log';
  const shell = (text) => ({ contents: [{ uri, mimeType: 'text/plain', text }] });
  const overhead = frameBytes(TAG_RESULT, shell('')).length;
  const lines = [];
  let size = overhead;
  for (;;) {
    const line = textLine(rng);
    const n = escapedSize(line);
    if (size + n > target) break;
    lines.push(line);
    size += n;
  }
  return exactly(target, TAG_RESULT, (pad) => shell(lines.join('') + pad));
}

function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
}

export function blobRead(rng, target) {
  const shell = (uri, blob) => ({ contents: [{ uri, mimeType: 'application/octet-stream', blob }] });
  const overhead = frameBytes(TAG_RESULT, shell('file:///srv/blobs/archive.bin', '')).length;
  const chars = Math.floor((target - overhead) / 4) * 4;
  const blob = base64(rng.bytes((chars / 4) * 3));
  return exactly(target, TAG_RESULT, (pad) => shell(`file:///srv/blobs/archive${pad}.bin`, blob));
}

function errorObject(rng) {
  return {
    code: -32002,
    message: `Resource not found: file:///srv/private/${rng.pick(NON_ASCII_WORDS)}/Größe.md`,
    data: { uri: `file:///srv/private/${slug(rng)}.md`, reason: words(rng, 6, 0.4), retryable: false },
  };
}

// ---------------------------------------------------------------------------
// Records.

function record(kind, channel, payload) {
  const out = new Uint8Array(HEADER_SIZE + payload.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, channel, true);
  new DataView(out.buffer).setUint32(5, payload.length, true);
  out.set(payload, HEADER_SIZE);
  return out;
}

/** Takes the elements of `list` in turn, round and round (the cases' frames, so that no branch predictor learns one). */
export function cycle(list) {
  let i = 0;
  const n = list.length;
  return () => {
    const v = list[i];
    i = i + 1 === n ? 0 : i + 1;
    return v;
  };
}

export const responseRecord = (channel, payload) => record(KIND_RESPONSE, channel, payload);
export const finishRecord = (channel) => record(KIND_FINISH, channel, new Uint8Array(0));

/** The frames (tag and body) of the response records of a record stream, as views of it. */
export function frameViews(stream) {
  const out = [];
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  for (let at = 0; at < stream.length; at += HEADER_SIZE + view.getUint32(at + 5, true)) {
    if (stream[at] === KIND_RESPONSE) out.push(stream.subarray(at + HEADER_SIZE, at + HEADER_SIZE + view.getUint32(at + 5, true)));
  }
  return out;
}

export function concat(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Broken twins.

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
export function brokenTwins(bytes) {
  const at = 1 + plainStringByte(bytes.subarray(1), (bytes.length - 1) >> 1);
  const ctl = bytes.slice();
  ctl[at] = 0x1f;
  let last = bytes.length - 1;
  while ([0x20, 0x0a, 0x0d, 0x09].includes(bytes[last])) last--;
  const cut = bytes.slice(0, last);
  return [
    { label: 'control-char', bytes: ctl, rule: 'control-char', offset: at },
    { label: 'cut', bytes: cut, rule: 'json-end', offset: cut.length },
  ];
}

// ---------------------------------------------------------------------------
// The fixtures.

const decoder = new TextDecoder();

/**
 * A branch predictor learns an input that repeats: on this machine the
 * core's scalar path validates one 48 KiB text 1.8x faster when it sees
 * the same bytes every time than when the bytes differ, which flatters the
 * branchy code and not the plain copies. So a frame fixture smaller than
 * this is a family of distinct frames of the same shape, together at least
 * this large, and the cases take them in turn.
 */
export const DISTINCT_BYTES = MiB;

function variant(tag, value) {
  const bytes = frameBytes(tag, value);
  return {
    value,
    frame: tag === TAG_RESULT ? { kind: 'result', result: value } : { kind: 'error', error: value },
    bytes,
    body: decoder.decode(bytes.subarray(1)),
    /** What the relay reads for this frame: its response on channel 1, then the finish. */
    relayChunk: concat([responseRecord(1, bytes), finishRecord(1)]),
  };
}

/** `make()` returns a new value on each call, from a generator that goes on. */
function frameFixture(name, description, endpoint, tag, make) {
  const first = variant(tag, make());
  const count = Math.max(1, Math.ceil(DISTINCT_BYTES / first.bytes.length));
  const variants = [first];
  while (variants.length < count) variants.push(variant(tag, make()));
  // Copied again, one after another, the variants' bytes lie together, as
  // frames just read from a socket do, not spread among the values made with
  // them (which cost listing-small about 300 ns a frame in cache misses).
  for (const v of variants) v.bytes = v.bytes.slice();
  for (const v of variants) v.relayChunk = v.relayChunk.slice();
  const total = variants.reduce((n, v) => n + v.bytes.length, 0);
  return {
    name,
    kind: 'frame',
    description,
    endpoint,
    tag,
    variants,
    /** The mean frame size: the bytes one operation handles. */
    bytesPerOp: total / variants.length,
    ...first,
    /** Broken twins of the first variant. */
    broken: brokenTwins(first.bytes),
  };
}

/**
 * 10,000 records in one buffer: 5,000 exchanges (a response, then its
 * finish), with up to 8 channels open at once, so responses and finishes
 * interleave. Payloads are small listings (one resource each) and, one in
 * ten, error frames.
 */
function streamFixture(rng) {
  const parts = [];
  const expected = [];
  const open = [];
  let nextChannel = 0;
  const EXCHANGES = 5000;
  while (expected.length < EXCHANGES || open.length > 0) {
    const mayOpen = nextChannel < EXCHANGES && open.length < 8;
    if (mayOpen && (open.length === 0 || rng.chance(0.55))) {
      const channel = nextChannel++;
      const isError = rng.chance(0.1);
      const value = isError
        ? { code: -32000 - rng.int(100), message: words(rng, rng.range(2, 5), 0.2) }
        : { resources: [{ uri: `file:///srv/${slug(rng)}.md`, name: words(rng, 1, 0.3), mimeType: rng.pick(MIMES) }] };
      parts.push(responseRecord(channel, frameBytes(isError ? TAG_ERROR : TAG_RESULT, value)));
      open.push(channel);
      expected.push({ channel, outcome: isError ? 'error' : 'result', value });
    } else {
      const channel = open.splice(rng.int(open.length), 1)[0];
      parts.push(finishRecord(channel));
    }
  }
  const bytes = concat(parts);
  // Outcomes arrive in finish order; keep them by channel for the check.
  return {
    name: 'stream-10k',
    kind: 'stream',
    description:
      '10,000 records in one buffer: 5,000 responses (small listings, one in ten an error frame), each followed later by its finish, up to 8 channels open',
    endpoint: 'list-resources',
    bytes,
    variants: [{ bytes }],
    bytesPerOp: bytes.length,
    records: parts.length,
    exchanges: expected,
  };
}

/** All fixtures, in report order. Each generator has its own seeded stream. */
export function buildFixtures(seed = SEED) {
  const rng = (k) => createRng(seed + k);
  const from = (k, make) => {
    const r = rng(k);
    return () => make(r);
  };
  return [
    frameFixture('listing-small', 'resources/list, 1 resource (150 B)', 'list-resources', TAG_RESULT, from(1, listingSmall)),
    frameFixture(
      'listing-medium',
      'resources/list, 100 resources with non-ASCII titles and descriptions (16 KiB)',
      'list-resources',
      TAG_RESULT,
      from(2, listingMedium),
    ),
    frameFixture(
      'text-48k',
      'resources/read, text with escapes and non-ASCII (48 KiB twin of text-1m)',
      'read-resource',
      TAG_RESULT,
      from(3, (r) => textRead(r, 48 * KiB)),
    ),
    frameFixture(
      'text-1m',
      'resources/read, text with escapes and non-ASCII (1 MiB)',
      'read-resource',
      TAG_RESULT,
      from(3, (r) => textRead(r, MiB)),
    ),
    frameFixture(
      'blob-48k',
      'resources/read, base64 blob (48 KiB twin of blob-1m)',
      'read-resource',
      TAG_RESULT,
      from(4, (r) => blobRead(r, 48 * KiB)),
    ),
    frameFixture(
      'blob-1m',
      'resources/read, base64 blob (1 MiB)',
      'read-resource',
      TAG_RESULT,
      from(4, (r) => blobRead(r, MiB)),
    ),
    frameFixture('error', 'MCP error frames (tag 0x01): code, message and data, with non-ASCII', 'read-resource', TAG_ERROR, from(5, errorObject)),
    streamFixture(rng(6)),
  ];
}

/** Byte statistics of a fixture, over all its variants, for the report. */
export function describeFixture(f) {
  let total = 0;
  let nonAscii = 0;
  let escapes = 0;
  for (const { bytes } of f.variants) {
    total += bytes.length;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] >= 0x80) nonAscii++;
      else if (bytes[i] === 0x5c) escapes++;
    }
  }
  return {
    bytes: Math.round(f.bytesPerOp),
    variants: f.variants.length,
    totalBytes: total,
    nonAsciiShare: Math.round((nonAscii / total) * 1000) / 1000,
    backslashShare: Math.round((escapes / total) * 1000) / 1000,
  };
}
