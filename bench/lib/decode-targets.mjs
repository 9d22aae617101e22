// The typed decode, encode and 'full' relay targets, and the cases they need that the other modules do not time.
//
// bench/run.mjs runs the cases; bench/lib/report.mjs judges the targets,
// which live in ./decode-specs.mjs (no build needed to render a report) and
// are re-exported here:
//
//   decodeTargets(wasm)        ratio targets, in targetSpecs' shape
//                              ({ group, fixture, num, den, target, comparison }):
//                              - typed decode on wasm within 1.3× of bare
//                                TextDecoder + JSON.parse, on every frame fixture;
//                              - the relay's work with validate 'full' at least
//                                2× what it was when 'full' built every frame
//                                (the '-by-build' cases below do exactly that
//                                work, so the ratio is taken side by side);
//   decodeSpeedTargets()       absolute targets: { group, fixture, case, mbPerSec, comparison }
//                              - the base64 check at 5 GB/s or more with wasm-simd
//                                on the blob fixtures;
//   judgeSpeedTarget(s, rs)    one such target judged on the results, in the
//                              shape report.targets entries have;
//   decodeCases(frames, b)     the benchmark.js cases those targets read that
//                              cases.mjs does not make, in its shape:
//                              strings/base64/F (the check alone, on the
//                              blob's bytes in a core's memory) and
//                              relay/work-full/F, relay/work-full-by-build/F;
//   runRelayFullCases(opts)    the 96 MiB streams of bench/lib/wire.mjs
//                              through createRelay with validate 'full', today's
//                              and by-build, in rounds (as wire.mjs times its
//                              long streams): relay/long-stream-full/F and
//                              relay/long-stream-full-by-build/F, F = listing
//                              and small, results in the report's shape.
//
// The issue's relay target is on relay/long-stream with 'full' on listings:
// the long-stream specs are that target; the relay/work specs say the same
// of one push at a time (on listing-small, one 150-byte record a push, the
// push's own cost bounds the ratio: see the report).
//
//   captureCases(backends)     typed decode, bare JSON.parse, encode, bare
//                              JSON.stringify + encodeInto, and that with a
//                              copy out (limits.mjs) on the real-server
//                              captures (test/fixtures/servers/),
//                              one fixture per server: its frames
//                              taken in turn, each through its own endpoint's
//                              codec. The decode and encode targets name them
//                              as they name the generated fixtures.
//                              bench/decode-interleaved.mjs times the same
//                              frames in CPU time, interleaved.

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { RelayState } from '../../dist/relay/relay.js';
import { buildFrame, registerBuild } from '../../dist/frame/build.js';
import { FrameError } from '../../dist/frame/frame-error.js';
import { createRelay, listResources, loadBackend } from '../../dist/runtime/node.js';
import { buildWireFixtures, roundResult, through } from './wire.mjs';
import { CoreInstance } from '../../dist/backend/wasm/instance.js';
import { readBuild } from '../../dist/backend/builds.js';
import { isBase64Bytes } from '../../dist/contract/base64.js';
import { BLOBS, RELAY_FIXTURES } from './decode-specs.mjs';
import { STRINGIFY_COPY } from './limits.mjs';
import { concat, cycle, finishRecord, responseRecord } from './fixtures.mjs';
import { ENDPOINTS } from '../../dist/frame/endpoints.js';
import { locate } from '../../dist/contract/locate.js';
import { loadServerFrames } from '../../test/fixtures/servers/frames.mjs';

export { decodeSpeedTargets, decodeTargets, judgeSpeedTarget } from './decode-specs.mjs';

/**
 * A list-resources codec whose relay judge is what 'full' did when it built
 * frames: buildFrame on the payload, the frame thrown away. For the
 * '-by-build' cases, which time that work beside the byte judge's.
 */
export function buildingCodec() {
  const codec = Object.create(listResources);
  registerBuild(
    codec,
    (payload, fault) => buildFrame(listResources, payload, fault),
    (payload) => {
      const frame = buildFrame(listResources, payload, null);
      return frame instanceof FrameError ? frame : null;
    },
  );
  return codec;
}

/**
 * The cases decodeTargets and decodeSpeedTargets read that cases.mjs does
 * not make, in its shape. `frames` are buildFixtures' fixtures; `backends`
 * what buildCases returns ({ js, wasm, wasmSimd, wasmScalar }).
 */
export function decodeCases(frames, backends) {
  const cases = [];
  const add = (c) => cases.push({ defer: false, ...c, name: `${c.layer}/${c.op}/${c.fixture}` });
  const byName = new Map(frames.map((f) => [f.name, f]));

  // The base64 check alone, on each variant's blob where a core holds it (its memory): what decode pays for it.
  for (const name of BLOBS) {
    const f = byName.get(name);
    if (!f) continue;
    for (const backend of [backends.wasmSimd, backends.wasmScalar, backends.js]) {
      const check = backend.strings ? (bytes, s, e) => backend.strings.base64Bytes(bytes, s, e) : isBase64Bytes;
      const spans = residentBlobs(f, backend);
      const next = cycle(spans);
      add({
        layer: 'strings',
        op: 'base64',
        fixture: name,
        backend: backend.name,
        bytes: f.bytesPerOp,
        impl: `the SDK's base64 rule on the blob's bytes, ${backend.strings ? `in place in a core's memory (${backend.name})` : 'in JS (isBase64Bytes)'}; bytes counts the whole frame, as decode's figures do`,
        check() {
          for (const span of spans) {
            strictEqual(check(span.bytes, span.start, span.end), true, 'the blob was refused');
            const saved = span.bytes[span.end - 5];
            span.bytes[span.end - 5] = 0x21; // '!'
            const refused = !check(span.bytes, span.start, span.end);
            span.bytes[span.end - 5] = saved;
            ok(refused, 'a blob with a bad byte was accepted');
          }
        },
        fn: () => {
          const span = next();
          return check(span.bytes, span.start, span.end);
        },
      });
    }
  }

  // The relay's work with validate 'full', today's and as it was (buildFrame on every response).
  const old = buildingCodec();
  for (const name of RELAY_FIXTURES) {
    const f = byName.get(name);
    if (!f) continue;
    const inputs = f.kind === 'frame' ? f.variants.map((v) => v.relayChunk) : [f.bytes];
    const n = inputs.reduce((a, x) => a + x.length, 0) / inputs.length;
    for (const [op, endpoint] of [
      ['work-full', listResources],
      ['work-full-by-build', old],
    ]) {
      for (const backend of [backends.js, backends.wasm]) {
        let forwarded = 0;
        let pushed = 0;
        const relay = new RelayState({ validate: 'full', endpoint }, backend, (bytes) => (forwarded += bytes.length));
        const next = cycle(inputs);
        add({
          layer: 'relay',
          op,
          fixture: name,
          backend: backend.name,
          bytes: n,
          impl:
            op === 'work-full'
              ? `RelayState.push on ${backend.name}, validate 'full': each frame judged on its bytes (judgeFrame), none built`
              : `RelayState.push on ${backend.name}, validate 'full' building each frame: buildFrame on each response, the frame thrown away`,
          check() {
            const out = [];
            const faults = [];
            const fresh = new RelayState({ validate: 'full', endpoint, onFault: (x) => faults.push(x) }, backend, (x) => out.push(x.slice()));
            for (const input of inputs) strictEqual(fresh.push(input), null, 'relay: record error');
            strictEqual(fresh.end(), null, 'relay: record error at the end');
            deepStrictEqual(Buffer.from(concat(out)), Buffer.from(concat(inputs)), 'relay: forwarded bytes');
            strictEqual(faults.length, 0, 'relay: faults on a valid stream');
            // A frame the schema refuses (a resource that is a number), with its finish: the finish goes alone, one 'schema' fault.
            const bad = [];
            const badFaults = [];
            const broken = new RelayState({ validate: 'full', endpoint, onFault: (x) => badFaults.push(x) }, backend, (x) => bad.push(x.slice()));
            broken.push(concat([responseRecord(7, new TextEncoder().encode('\u0000{"resources":[1]}')), finishRecord(7)]));
            broken.end();
            deepStrictEqual(Buffer.from(concat(bad)), Buffer.from(finishRecord(7)), 'relay: forwarded bytes of the broken stream');
            strictEqual(badFaults.length, 1, 'relay: faults on the broken stream');
            strictEqual(badFaults[0].frame?.rule, 'schema', 'relay: the broken frame rule');
          },
          fn: () => {
            const input = next();
            pushed += input.length;
            relay.push(input);
          },
          after() {
            strictEqual(relay.faultCount, 0, 'relay: faults while timed');
            strictEqual(forwarded, pushed, 'relay: bytes forwarded while timed');
          },
        });
      }
    }
  }
  return cases;
}

/** The capture fixtures' names, as the targets name them (decode-specs.mjs). */
export { CAPTURES } from './decode-specs.mjs';

/**
 * The real-server captures as fixtures: one per server, its frames that
 * every backend decodes (an answer the SDK's schema refuses is left out:
 * the targets time frames that decode), each with its endpoint's codec, its
 * value (JSON.parse's) and the bytes encode writes for that value (those of
 * JSON.stringify; a server may write its own, with other whitespace).
 */
export function captureFixtures(backends) {
  const encoder = new TextEncoder();
  const byServer = new Map();
  for (const f of loadServerFrames(locate)) {
    const codec = ENDPOINTS[f.endpoint];
    if ([backends.js, backends.wasm].some((b) => codec.withBackend(b).tryDecode(f.frame) instanceof FrameError)) continue;
    const value = JSON.parse(new TextDecoder().decode(f.frame.subarray(1)));
    const written = encoder.encode(`\u0000${JSON.stringify(value)}`);
    written[0] = f.frame[0];
    const frame = f.isError ? { kind: 'error', error: value } : { kind: 'result', result: value };
    const list = byServer.get(f.file) ?? byServer.set(f.file, []).get(f.file);
    list.push({ codec, bytes: f.frame, value, frame, written, tag: f.frame[0] });
  }
  return [...byServer].map(([file, items]) => ({
    name: `servers-${file}`,
    file,
    items,
    bytesPerOp: items.reduce((a, x) => a + x.bytes.length, 0) / items.length,
    writtenPerOp: items.reduce((a, x) => a + x.written.length, 0) / items.length,
  }));
}

/** Typed decode and encode on the captures, with their bare peers: see captureCases above. */
export function captureCases(backends) {
  const cases = [];
  const add = (c) => cases.push({ defer: false, ...c, name: `${c.layer}/${c.op}/${c.fixture}` });
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  for (const f of captureFixtures(backends)) {
    const what = `the ${f.items.length} answers captured from ${f.file} (test/fixtures/servers/${f.file}.jsonl), taken in turn, each by its endpoint's codec`;
    for (const b of [backends.js, backends.wasm]) {
      const items = f.items.map((x) => ({ ...x, c: x.codec.withBackend(b) }));
      const next = cycle(items);
      add({
        layer: 'frame',
        op: 'decode',
        fixture: f.name,
        backend: b.name,
        bytes: f.bytesPerOp,
        impl: `codec.decode on ${b.name}: ${what}`,
        check() {
          for (const x of items) deepStrictEqual(x.c.decode(x.bytes), x.frame, 'decode: the value differs from JSON.parse of the capture');
        },
        fn: () => {
          const x = next();
          return x.c.decode(x.bytes);
        },
      });
      const nextEncode = cycle(items);
      add({
        layer: 'frame',
        op: 'encode',
        fixture: f.name,
        backend: b.name,
        bytes: f.writtenPerOp,
        impl: `codec.encode on ${b.name} of the values of ${what}`,
        check() {
          for (const x of items) deepStrictEqual(Buffer.from(x.c.encode(x.frame)), Buffer.from(x.written), "encode: not JSON.stringify's bytes");
        },
        fn: () => {
          const x = nextEncode();
          return x.c.encode(x.frame);
        },
      });
      const target = new Uint8Array(Math.max(...f.items.map((x) => x.written.length)));
      const nextInto = cycle(items);
      add({
        layer: 'frame',
        op: 'encodeInto',
        fixture: f.name,
        backend: b.name,
        bytes: f.writtenPerOp,
        impl: `codec.encodeInto on ${b.name}, into a buffer allocated once, of the values of ${what}`,
        check() {
          for (const x of items) {
            const { written } = x.c.encodeInto(x.frame, target);
            deepStrictEqual(Buffer.from(target.subarray(0, written)), Buffer.from(x.written), "encodeInto: not JSON.stringify's bytes");
          }
        },
        fn: () => {
          const x = nextInto();
          return x.c.encodeInto(x.frame, target);
        },
      });
    }
    const nextParse = cycle(f.items);
    add({
      layer: 'peer',
      op: 'parse',
      fixture: f.name,
      backend: 'JSON.parse',
      bytes: f.bytesPerOp,
      impl: `JSON.parse(new TextDecoder().decode(body)) of ${what}`,
      check() {
        for (const x of f.items) deepStrictEqual(JSON.parse(decoder.decode(x.bytes.subarray(1))), x.value, 'parse');
      },
      fn: () => JSON.parse(decoder.decode(nextParse().bytes.subarray(1))),
    });
    const out = new Uint8Array(1 + 3 * Math.max(...f.items.map((x) => x.written.length)));
    const stringify = (x) => {
      const text = JSON.stringify(x.value);
      out[0] = x.tag;
      return 1 + encoder.encodeInto(text, out.subarray(1)).written;
    };
    const nextStringify = cycle(f.items);
    add({
      layer: 'peer',
      op: 'stringify',
      fixture: f.name,
      backend: 'JSON.stringify',
      bytes: f.writtenPerOp,
      impl: `JSON.stringify(value) then TextEncoder.encodeInto a buffer allocated once, on the values of ${what}`,
      check() {
        for (const x of f.items) deepStrictEqual(Buffer.from(out.subarray(0, stringify(x))), Buffer.from(x.written), 'stringify');
      },
      fn: () => stringify(nextStringify()),
    });
    const nextCopy = cycle(f.items);
    add({
      layer: 'peer',
      op: 'stringify-copy',
      fixture: f.name,
      backend: 'JSON.stringify',
      bytes: f.writtenPerOp,
      impl: `${STRINGIFY_COPY}, on the values of ${what}: not a target's peer (bench/lib/limits.mjs)`,
      check() {
        for (const x of f.items) deepStrictEqual(Buffer.from(out.subarray(0, stringify(x))), Buffer.from(x.written), 'stringify-copy');
      },
      fn: () => Buffer.from(out.subarray(0, stringify(nextCopy()))),
    });
  }
  return cases;
}

/**
 * Each variant's frame of a blob fixture, and where its blob's content is:
 * for a WebAssembly backend, copied once into the memory of a core made for
 * the case (the backend's kit reads bytes there in place, as it reads a
 * frame decode holds), for js in the fixture's own bytes.
 */
function residentBlobs(f, backend) {
  const spans = f.variants.map((v) => {
    const start = Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.length).indexOf('"blob":"') + 8;
    return { bytes: v.bytes, start, end: v.bytes.indexOf(0x22, start) };
  });
  if (!backend.strings) return spans;
  const core = new CoreInstance(new WebAssembly.Instance(new WebAssembly.Module(readBuild(backend.name === 'wasm-simd' ? 'simd' : 'scalar')), {}));
  const total = spans.reduce((a, s) => a + s.bytes.length + 16, 0);
  core.reserve(total);
  let at = 0;
  return spans.map((span) => {
    core.write(span.bytes, at);
    const bytes = core.bytes.subarray(core.scratch + at, core.scratch + at + span.bytes.length);
    at += (span.bytes.length + 16) & ~15;
    return { ...span, bytes };
  });
}

// ---------------------------------------------------------------------------
// The long streams with validate 'full'.

/** `stream` through createRelay with 'full' and `endpoint`, 64 KiB chunks; resolves with the bytes out, their SHA-256 when asked, and the faults. */
async function relayFull(backend, endpoint, stream, hash) {
  const faults = [];
  const relay = createRelay({ backend, validate: 'full', endpoint, onFault: (f) => faults.push(f) });
  return { ...(await through(relay, stream, hash)), faults };
}

/** The stream with its first response made one the schema refuses (a resource's uri a number, same length), and what the relay must forward of it. */
export function brokenForSchema(f) {
  const stream = f.stream.slice();
  const length = new DataView(stream.buffer, 5, 4).getUint32(0, true);
  const text = new TextDecoder().decode(stream.subarray(10, 9 + length));
  const at = text.indexOf('"uri":"') + 6;
  const end = text.indexOf('"', at + 1) + 1;
  stream.set(new TextEncoder().encode(`${text.slice(0, at)}${'1'.repeat(end - at)}${text.slice(end)}`), 10);
  return { stream, expected: stream.slice(9 + length) };
}

/**
 * relay/long-stream-full/F and relay/long-stream-full-by-build/F (F in
 * `names`: listing, small) on loadBackend('auto') and js, in `rounds`
 * rounds, each round running every case once so that they share the moment.
 * Each case is checked first: the output is the input (SHA-256) with no
 * fault, and a stream with one frame the schema refuses forwards all but
 * that response, with one 'schema' fault. Returns report results.
 */
/**
 * @param {{ seed: number, names?: string[], rounds?: number, progress?: (note: string) => void }} options
 */
export async function runRelayFullCases({ seed, names = ['listing', 'small'], rounds = 5, progress = () => {} }) {
  const fixtures = buildWireFixtures(seed, names);
  const old = buildingCodec();
  const cases = [];
  for (const backend of [loadBackend('auto'), loadBackend('js')]) {
    cases.push({
      op: 'long-stream-full',
      backend,
      endpoint: listResources,
      impl: `createRelay({ validate: 'full' }) on ${backend.name}, 64 KiB chunks`,
    });
    cases.push({
      op: 'long-stream-full-by-build',
      backend,
      endpoint: old,
      impl: `createRelay({ validate: 'full' }) on ${backend.name}, 64 KiB chunks, its judge buildFrame on every response, as 'full' was when it built frames`,
    });
  }
  const results = [];
  for (const f of fixtures) {
    const broken = brokenForSchema(f);
    const brokenSha = createHash('sha256').update(broken.expected).digest('hex');
    for (const c of cases) {
      progress(`relay/${c.op}/${f.name}@${c.backend.name}: checking`);
      const got = await relayFull(c.backend, c.endpoint, f.stream, true);
      ok(
        got.bytes === f.stream.length && got.sha256 === f.sha256 && got.faults.length === 0,
        `relay/${c.op}/${f.name}@${c.backend.name}: the output is not the input`,
      );
      const bad = await relayFull(c.backend, c.endpoint, broken.stream, true);
      ok(
        bad.sha256 === brokenSha && bad.faults.length === 1 && bad.faults[0].frame?.rule === 'schema',
        `relay/${c.op}/${f.name}@${c.backend.name}: the broken stream`,
      );
    }
    /** @type {number[][]} */
    const seconds = cases.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [k, c] of cases.entries()) {
        progress(`relay/${c.op}/${f.name}@${c.backend.name}: round ${r + 1} of ${rounds}`);
        const t0 = performance.now();
        const got = await relayFull(c.backend, c.endpoint, f.stream, false);
        seconds[k].push((performance.now() - t0) / 1000);
        ok(got.bytes === f.stream.length && got.faults.length === 0, `relay/${c.op}/${f.name}@${c.backend.name}: output or faults while timed`);
      }
    }
    for (const [k, c] of cases.entries()) {
      results.push(
        roundResult(
          { name: `relay/${c.op}/${f.name}`, layer: 'relay', op: c.op, fixture: f.name, backend: c.backend.name, impl: c.impl },
          seconds[k],
          f.stream.length,
        ),
      );
    }
  }
  return results;
}
