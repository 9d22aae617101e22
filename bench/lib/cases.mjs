// Every case benchmark.js times: a name (layer/op/fixture), the backend or
// peer it runs on, how many bytes one operation handles, a check that the
// answer is right, and the operation itself. Everything under test is
// reached through the package's public entry, 'mcp-frames'.
//
// A case's check runs once, before it is timed, and the case is not timed
// when the check fails. Checks compare against the fixture's own source
// value and its broken twins, never against another backend's answer.

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { decodeStream, ENDPOINTS, FrameError, loadBackend, pipeRelay, readResource } from 'mcp-frames';
import { loadServerFrames } from '../../test/fixtures/servers/frames.mjs';
import { concat, cycle, finishRecord, HEADER_SIZE, responseRecord } from './fixtures.mjs';

/** Where results go so that no operation's work is dead code. */
export let blackhole;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function sameBytes(actual, expected, what) {
  strictEqual(actual.length, expected.length, `${what}: ${actual.length} bytes, expected ${expected.length}`);
  ok(
    Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.length)),
    `${what}: bytes differ`,
  );
}

/**
 * The validate-only cases' inputs: small objects made one after another,
 * as the native peer's padded copies are. Read through the fixtures' own
 * items, which carry the values made with them, `bytes` cost listing-small
 * about 130 ns a frame in cache misses that the native peer did not pay.
 */
const slim = (f) => f.items.map((x) => ({ bytes: x.bytes, body: x.body }));

/** A check that runs `assert` on each of `list`. */
const each = (list, assert) => () => {
  for (const x of list) assert(x);
};

function expectFrameError(result, broken, what) {
  ok(result instanceof FrameError, `${what}: the ${broken.label} twin was accepted`);
  strictEqual(result.rule, broken.rule, `${what}: the ${broken.label} twin was refused for ${result.rule}, expected ${broken.rule}`);
  strictEqual(result.offset, broken.offset, `${what}: the ${broken.label} twin was refused at ${result.offset}, expected ${broken.offset}`);
}

/**
 * pipeRelay with validate 'json' between an input whose chunks are handed
 * to it at once, as 'data' events, and an output that counts what it is
 * written (and keeps a copy when `keep`): the relay's own work, with no
 * stream between the calls.
 */
function pipedRelay(backend, keep = false) {
  /** @type {{ bytes: number, chunks: Uint8Array[], faults: import('mcp-frames').RelayFault[] }} */
  const out = { bytes: 0, chunks: [], faults: [] };
  const take = (chunk) => {
    out.bytes += chunk.length;
    if (keep) out.chunks.push(Uint8Array.from(chunk));
  };
  const input = new Readable({ read() {} });
  const output = new Writable({
    highWaterMark: 2 ** 30,
    // Node's default _write passes a single chunk to writev too.
    writev(pieces, done) {
      for (const p of pieces) take(p.chunk);
      done();
    },
  });
  const piped = pipeRelay(input, output, { backend, validate: 'json', onFault: (f) => out.faults.push(f) });
  return { out, piped, push: (chunk) => input.emit('data', chunk), end: () => input.emit('end') };
}

/** Walks records by hand and parses each response's frame: what a user would write without the library. */
function parseStreamByHand(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const values = [];
  for (let i = 0; i < bytes.length; ) {
    const length = view.getUint32(i + 5, true);
    if (bytes[i] === 1) values.push(JSON.parse(decoder.decode(bytes.subarray(i + HEADER_SIZE + 1, i + HEADER_SIZE + length))));
    i += HEADER_SIZE + length;
  }
  return values;
}

/** Where the value of the top-level member `key` of the JSON object in raw[start, end) begins (loadServerFrames's locate). */
function locate(raw, start, end, path) {
  const want = encoder.encode(JSON.stringify(path[0]));
  const space = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  let depth = 0;
  for (let i = start; i < end; i++) {
    const c = raw[i];
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x22) {
      const from = i;
      for (i++; raw[i] !== 0x22; i++) if (raw[i] === 0x5c) i++;
      if (depth !== 1 || i + 1 - from !== want.length || !want.every((b, k) => raw[from + k] === b)) continue;
      let j = i + 1;
      while (space(raw[j])) j++;
      if (raw[j] !== 0x3a) continue;
      for (j++; space(raw[j]); j++);
      return j;
    }
  }
  return -1;
}

/**
 * The real-server captures (test/fixtures/servers/) as fixtures: one per
 * server, its answers that every backend decodes (the targets time frames
 * that decode), each with its endpoint's codec, its value (JSON.parse's)
 * and the bytes encode writes for that value (JSON.stringify's; a server
 * may write its own, with other whitespace).
 */
function captureFixtures({ js, wasm }) {
  const byServer = new Map();
  for (const f of loadServerFrames(locate)) {
    const codec = ENDPOINTS[f.endpoint];
    if ([js, wasm].some((b) => codec.withBackend(b).tryDecode(f.frame) instanceof FrameError)) continue;
    const value = JSON.parse(decoder.decode(f.frame.subarray(1)));
    const written = encoder.encode(`\u0000${JSON.stringify(value)}`);
    written[0] = f.frame[0];
    const frame = f.isError ? { kind: 'error', error: value } : { kind: 'result', result: value };
    const list = byServer.get(f.file) ?? byServer.set(f.file, []).get(f.file);
    list.push({ codec, bytes: f.frame, value, frame, written, tag: f.frame[0] });
  }
  return [...byServer].map(([file, items]) => ({
    name: `servers-${file}`,
    kind: 'capture',
    of: `: the ${items.length} answers captured from ${file} (test/fixtures/servers/${file}.jsonl), taken in turn, each by its endpoint's codec`,
    items,
    broken: [],
    bytesPerOp: items.reduce((a, x) => a + x.bytes.length, 0) / items.length,
    writtenPerOp: items.reduce((a, x) => a + x.written.length, 0) / items.length,
  }));
}

/**
 * The cases: on the frame fixtures and the stream (`frames`, from
 * fixtures.mjs), the real servers' captures, and the `documents`
 * (documents.mjs). `simdjson` is env.loadSimdjson()'s answer, `native`
 * native.loadNative()'s. Returns the cases, the captures, and the backends
 * they ran on: js, wasm (the build loadBackend('wasm') picks), wasmSimd and
 * wasmScalar.
 */
export function buildCases(frames, documents, simdjson, native) {
  const js = loadBackend('js');
  const wasm = loadBackend('wasm');
  const wasmSimd = loadBackend('wasm-simd');
  const wasmScalar = loadBackend('wasm-scalar');
  const backends = { js, wasm, wasmSimd, wasmScalar };
  const cases = [];
  /** A case of fixture `f` whose operation `fn` takes the next of `c.list` (f's items by default) each call. */
  const add = (f, layer, op, backend, { list = f.items, ...c }) => {
    const next = cycle(list);
    const fn = c.fn;
    cases.push({
      bytes: f.bytesPerOp,
      ...c,
      layer,
      op,
      fixture: f.name,
      backend,
      name: `${layer}/${op}/${f.name}`,
      fn: () => (blackhole = fn(next())),
    });
  };

  for (const f of frames) {
    if (f.kind === 'stream') {
      streamCases(f);
      continue;
    }
    const codec = ENDPOINTS[f.endpoint];
    f.of = '';
    f.items = f.variants.map((v) => ({ ...v, codec, written: v.bytes, tag: f.tag }));
    typedCases(f);
    validateCases(f, codec);
    relayCases(
      f,
      f.variants.map((v) => v.relayChunk),
      { input: concat([responseRecord(1, f.broken[0].bytes), finishRecord(1)]), output: finishRecord(1), rule: f.broken[0].rule },
    );
    peerCases(f);
  }
  const captures = captureFixtures(backends);
  for (const f of captures) typedCases(f);
  for (const f of documents) {
    f.items = f.variants;
    validateCases(f, readResource);
    peerCases(f);
  }
  return { cases, backends, captures };

  /** Typed decode, encode and encodeInto on js and wasm, and their bare peers: JSON.parse, JSON.stringify + encodeInto, and that with a copy out. */
  function typedCases(f) {
    const written = f.writtenPerOp ?? f.bytesPerOp;
    for (const b of [js, wasm]) {
      const items = f.items.map((x) => ({ ...x, c: x.codec.withBackend(b) }));
      add(f, 'frame', 'decode', b.name, {
        list: items,
        impl: `codec.decode on ${b.name}: screen (or verify), TextDecoder, JSON.parse, SDK schema${f.of}`,
        check() {
          for (const x of items) deepStrictEqual(x.c.decode(x.bytes), x.frame, 'decode: the value differs from the fixture source');
          for (const t of f.broken) expectFrameError(items[0].c.tryDecode(t.bytes), t, 'decode');
        },
        fn: (x) => x.c.decode(x.bytes),
      });
      add(f, 'frame', 'encode', b.name, {
        list: items,
        bytes: written,
        impl: `codec.encode on ${b.name}: one pass that checks and writes UTF-8, the SDK schema on the value as written, the copy out${f.of}`,
        check: each(items, (x) => sameBytes(x.c.encode(x.frame), x.written, 'encode')),
        fn: (x) => x.c.encode(x.frame),
      });
      const target = new Uint8Array(Math.max(...items.map((x) => x.written.length)));
      add(f, 'frame', 'encodeInto', b.name, {
        list: items,
        bytes: written,
        impl: `codec.encodeInto on ${b.name}: encode's pass, then the frame copied into a buffer allocated once${f.of}`,
        check: each(items, (x) => sameBytes(target.subarray(0, x.c.encodeInto(x.frame, target).written), x.written, 'encodeInto')),
        fn: (x) => x.c.encodeInto(x.frame, target),
      });
    }
    parseCase(f);
    const out = new Uint8Array(1 + 3 * Math.max(...f.items.map((x) => x.written.length)));
    const stringify = (x) => {
      out[0] = x.tag;
      return out.subarray(0, 1 + encoder.encodeInto(JSON.stringify(x.value), out.subarray(1)).written);
    };
    add(f, 'peer', 'stringify', 'JSON.stringify', {
      bytes: written,
      impl: `JSON.stringify(value) then TextEncoder.encodeInto a buffer allocated once: no walk, no schema, no allocation${f.of}`,
      check: each(f.items, (x) => sameBytes(stringify(x), x.written, 'stringify')),
      fn: stringify,
    });
    add(f, 'peer', 'stringify-copy', 'JSON.stringify', {
      bytes: written,
      impl: `JSON.stringify(value), TextEncoder.encodeInto a buffer allocated once, then Buffer.from of the frame's bytes: a frame of its own, copied as encode copies its own (pooled under 4 KiB)${f.of}`,
      check: each(f.items, (x) => sameBytes(Buffer.from(stringify(x)), x.written, 'stringify-copy')),
      fn: (x) => Buffer.from(stringify(x)),
    });
  }

  /** Bare JSON.parse of the body: typed decode's peer, and the documents'. */
  function parseCase(f) {
    add(f, 'peer', 'parse', 'JSON.parse', {
      impl: `JSON.parse(new TextDecoder().decode(body)): no checks beyond JSON.parse, no schema${f.of ?? ''}`,
      check: each(f.items, (x) => deepStrictEqual(JSON.parse(decoder.decode(x.bytes.subarray(1))), x.value, 'parse: the value differs')),
      fn: (x) => JSON.parse(decoder.decode(x.bytes.subarray(1))),
    });
  }

  /** Validate-only (tag and strict JSON text, no value built) on the three backends. */
  function validateCases(f, codec) {
    const list = slim(f);
    for (const b of [js, wasmSimd, wasmScalar]) {
      const c = codec.withBackend(b);
      add(f, 'frame', 'validate', b.name, {
        list,
        impl: `codec.validate on ${b.name}`,
        check() {
          for (const x of list) strictEqual(c.validate(x.bytes), null, 'validate: the fixture was refused');
          for (const t of f.broken) expectFrameError(c.validate(t.bytes), t, 'validate');
        },
        fn: (x) => c.validate(x.bytes),
      });
    }
  }

  /** The peers that only judge or parse JSON, and memcpy: on frame fixtures and documents. */
  function peerCases(f) {
    if (f.kind === 'document') parseCase(f);
    if (simdjson.native) {
      const isValid = simdjson.isValid;
      const list = slim(f);
      const check = () => {
        for (const x of list) strictEqual(isValid(x.body), true, 'simdjson refused the fixture');
        for (const t of f.broken) strictEqual(isValid(decoder.decode(t.bytes.subarray(1))), false, `simdjson accepted the ${t.label} twin`);
      };
      add(f, 'peer', 'isvalid', 'simdjson', {
        list,
        impl: 'npm simdjson isValid(body) on a string decoded beforehand: TextDecoder not timed',
        check,
        fn: (x) => isValid(x.body),
      });
      if (f.kind === 'frame')
        add(f, 'peer', 'isvalid-decode', 'simdjson', {
          list,
          impl: 'simdjson.isValid(new TextDecoder().decode(body)): TextDecoder timed too',
          check,
          fn: (x) => isValid(decoder.decode(x.bytes.subarray(1))),
        });
    }
    // Native simdjson, the limit of the validate targets: each body in a padded copy of its own (simdjson reads past the end).
    if (native.native) {
      const pad = (bytes) => {
        const padded = new Uint8Array(bytes.length - 1 + native.padding);
        padded.set(bytes.subarray(1));
        return { padded, length: bytes.length - 1, label: '' };
      };
      const bodies = f.items.map((x) => pad(x.bytes));
      const broken = f.broken.map((t) => ({ ...pad(t.bytes), label: t.label }));
      add(f, 'peer', 'native', 'simdjson-native', {
        list: bodies,
        impl: `simdjson ${native.version} (${native.kernel} kernel) parsing the body in place from a padded Uint8Array, one dom::parser reused (bench/native): the limit`,
        check() {
          for (const b of bodies) strictEqual(native.isValid(b.padded, b.length), true, 'native simdjson refused the fixture');
          for (const b of broken) strictEqual(native.isValid(b.padded, b.length), false, `native simdjson accepted the ${b.label} twin`);
        },
        fn: (b) => native.isValid(b.padded, b.length),
      });
    }
    memcpyCase(f);
  }

  function memcpyCase(f) {
    const dst = new Uint8Array(Math.max(...f.variants.map((v) => v.bytes.length)));
    add(f, 'peer', 'memcpy', 'memcpy', {
      list: f.variants,
      impl: 'Uint8Array.prototype.set of the same bytes into a buffer allocated once: the physical limit',
      check() {
        for (const { bytes } of f.variants) {
          dst.fill(0);
          dst.set(bytes);
          sameBytes(dst.subarray(0, bytes.length), bytes, 'memcpy');
        }
      },
      fn: (v) => dst.set(v.bytes),
    });
  }

  function streamCases(f) {
    const bytes = f.bytes;
    const codec = ENDPOINTS[f.endpoint];
    const byChannel = new Map(f.exchanges.map((e) => [e.channel, e]));
    const responses = f.exchanges.length;

    // The same stream with channel 0's frame broken: a control byte inside its first string.
    const first = f.exchanges[0];
    const firstRecordLength = HEADER_SIZE + bytes[5] + (bytes[6] << 8);
    const brokenFrame = bytes.slice(HEADER_SIZE, firstRecordLength);
    brokenFrame[brokenFrame.indexOf(0x22, brokenFrame.indexOf(0x3a) + 1) + 1] = 0x1f; // the first character of the first string value
    const brokenInput = concat([responseRecord(first.channel, brokenFrame), bytes.subarray(firstRecordLength)]);

    // Typed decode of the whole stream: outcomes under the full contract.
    for (const b of [js, wasm]) {
      add(f, 'records', 'decode', b.name, {
        list: [bytes],
        impl: `decodeStream(bytes, { endpoint: ${f.endpoint}, backend: ${b.name} }): every outcome built and judged`,
        check() {
          const events = decodeStream(bytes, { endpoint: codec, backend: b });
          strictEqual(events.length, responses + 1, 'decodeStream: outcome count');
          deepStrictEqual(events.at(-1), { end: 'ok' }, 'decodeStream: the stream end');
          for (const e of /** @type {any[]} */ (events.slice(0, -1))) {
            const want = byChannel.get(e.channel);
            ok(want, `decodeStream: an outcome for unknown channel ${e.channel}`);
            strictEqual(e.outcome, want.outcome, `decodeStream: channel ${e.channel}`);
            deepStrictEqual(e.outcome === 'result' ? e.result : e.error, want.value, `decodeStream: channel ${e.channel}'s value`);
          }
          const bad = decodeStream(brokenInput, { endpoint: codec, backend: b });
          const broken = /** @type {any} */ (bad.find((e) => 'channel' in e && e.channel === first.channel));
          strictEqual(broken?.outcome, 'frame-error', 'decodeStream: the broken frame');
          strictEqual(broken.fault.rule, 'control-char', 'decodeStream: the broken frame rule');
        },
        fn: () => decodeStream(bytes, { endpoint: codec, backend: b }),
      });
    }
    relayCases(f, [bytes], { input: brokenInput, output: bytes.subarray(firstRecordLength), rule: 'control-char' });
    add(f, 'peer', 'parse', 'JSON.parse', {
      list: [bytes],
      impl: 'records walked by hand, JSON.parse(new TextDecoder().decode(frame body)) per response: no checks, no schema',
      check: () =>
        deepStrictEqual(
          parseStreamByHand(bytes),
          f.exchanges.map((e) => e.value),
          'parse: the values differ from the fixture source',
        ),
      fn: parseStreamByHand,
    });
    memcpyCase(f);
  }

  /**
   * The relay's own work: pipeRelay (validate 'json') pushed `inputs` in
   * turn, one a call (pipedRelay). `broken` is a stream with one broken
   * frame, what the relay must forward of it, and the rule it breaks.
   */
  function relayCases(f, inputs, broken) {
    for (const b of [js, wasm]) {
      const relay = pipedRelay(b);
      let pushed = 0;
      add(f, 'relay', 'work', b.name, {
        list: inputs,
        bytes: inputs.reduce((a, x) => a + x.length, 0) / inputs.length,
        impl: `pipeRelay on ${b.name}, validate 'json', each record stream handed over as one chunk, to a writable that counts: records scanned, frames verified, valid bytes forwarded as views`,
        check() {
          const fresh = pipedRelay(b, true);
          for (const input of inputs) fresh.push(input);
          fresh.end();
          sameBytes(concat(fresh.out.chunks), concat(inputs), 'relay: forwarded bytes');
          strictEqual(fresh.out.faults.length, 0, 'relay: faults on a valid stream');
          const bad = pipedRelay(b, true);
          bad.push(broken.input);
          bad.end();
          sameBytes(concat(bad.out.chunks), broken.output, 'relay: forwarded bytes of the broken stream');
          strictEqual(bad.out.faults.length, 1, 'relay: faults on the broken stream');
          const [fault] = bad.out.faults;
          strictEqual('frame' in fault && fault.frame.rule, broken.rule, 'relay: the broken frame rule');
        },
        fn(input) {
          pushed += input.length;
          relay.push(input);
        },
        after() {
          strictEqual(relay.out.faults.length, 0, 'relay: faults while timed');
          strictEqual(relay.out.bytes, pushed, 'relay: bytes forwarded while timed');
        },
      });
    }
  }
}
