// Every benchmark case: a name (layer/op/fixture), the backend or peer it
// runs on, how many bytes one operation handles, a check that the answer is
// right, and the operation itself.
//
// A case's check runs once, before it is timed, and the case is not timed
// when the check fails. Checks compare against the fixture's own source
// value and its broken twins, never against another backend's answer.

import { deepStrictEqual, strictEqual, ok } from 'node:assert/strict';
import { listResources, readResource, createRelay, decodeStream, FrameError } from '../../dist/runtime/node.js';
// The backends' own calls are internal: loaded where they are made, not through the entry.
import { loadBackend } from '../../dist/backend/builds.js';
import { RelayState } from '../../dist/relay/relay.js';
import { writeFrame } from '../../dist/contract/body-writer.js';
import { judge, judgeError } from '../../dist/contract/schema.js';
import { concat, cycle, responseRecord, finishRecord, HEADER_SIZE, TAG_RESULT } from './fixtures.mjs';
import { nativeFrameCase, STRINGIFY_COPY } from './limits.mjs';

const CODECS = { 'list-resources': listResources, 'read-resource': readResource };
const MAX_FRAME = 16 * 1024 * 1024;

/** Where results go so that no operation's work is dead code. */
export let blackhole;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function sameBytes(actual, expected, what) {
  strictEqual(actual.length, expected.length, `${what}: ${actual.length} bytes, expected ${expected.length}`);
  ok(
    Buffer.compare(
      Buffer.from(actual.buffer, actual.byteOffset, actual.length),
      Buffer.from(expected.buffer, expected.byteOffset, expected.length),
    ) === 0,
    `${what}: bytes differ`,
  );
}

function expectFrameError(result, broken, what) {
  ok(result instanceof FrameError, `${what}: the ${broken.label} twin was accepted`);
  strictEqual(result.rule, broken.rule, `${what}: the ${broken.label} twin was refused for ${result.rule}, expected ${broken.rule}`);
  strictEqual(result.offset, broken.offset, `${what}: the ${broken.label} twin was refused at ${result.offset}, expected ${broken.offset}`);
}

/** Splits bytes into chunks of at most `size`, as views. */
function chunks(bytes, size = 64 * 1024) {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** The relay end to end: a ReadableStream of chunks piped through it, the output read to the end. */
async function relayThrough(backend, input, onFault) {
  const relay = createRelay({ backend, onFault });
  const source = new ReadableStream({
    start(controller) {
      for (const chunk of input) controller.enqueue(chunk);
      controller.close();
    },
  });
  const reader = source.pipeThrough(relay).getReader();
  const out = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** Walks records by hand and parses each response's frame: what a user would write without the library. */
function parseStreamByHand(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const values = [];
  for (let i = 0; i < bytes.length; ) {
    const kind = bytes[i];
    const length = view.getUint32(i + 5, true);
    if (kind === 1) values.push(JSON.parse(decoder.decode(bytes.subarray(i + HEADER_SIZE + 1, i + HEADER_SIZE + length))));
    i += HEADER_SIZE + length;
  }
  return values;
}

/**
 * The cases for these fixtures. `backends` holds js, wasm (the build
 * loadBackend('wasm') picked), wasmSimd and wasmScalar; `simdjson` is the
 * result of env.loadSimdjson(), `native` of native.loadNative() (the limit,
 * timed on the frames too: bench/lib/limits.mjs).
 */
export function buildCases(fixtures, simdjson, native) {
  const js = loadBackend('js');
  const wasm = loadBackend('wasm');
  const wasmSimd = loadBackend('wasm-simd');
  const wasmScalar = loadBackend('wasm-scalar');
  const pair = [js, wasm];
  const cases = [];
  const add = (c) => cases.push({ defer: false, ...c, name: `${c.layer}/${c.op}/${c.fixture}` });

  for (const f of fixtures) {
    if (f.kind === 'frame') frameCases(f);
    else streamCases(f);
  }
  return { cases, backends: { js, wasm, wasmSimd, wasmScalar } };

  function frameCases(f) {
    const codec = CODECS[f.endpoint];
    const V = f.variants;
    const n = f.bytesPerOp;

    // Typed decode: bytes -> SDK value, under the full contract.
    for (const b of pair) {
      const c = codec.withBackend(b);
      const next = cycle(V);
      add({
        layer: 'frame',
        op: 'decode',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `${f.endpoint} codec.decode on ${b.name}: screen (or verify), TextDecoder, JSON.parse, SDK schema`,
        check() {
          for (const v of V) deepStrictEqual(c.decode(v.bytes), v.frame, 'decode: the value differs from the fixture source');
          for (const t of f.broken) expectFrameError(c.tryDecode(t.bytes), t, 'decode');
        },
        fn: () => (blackhole = c.decode(next().bytes)),
      });
    }

    // Validate-only: tag and strict JSON text, no value built.
    for (const b of [js, wasmSimd, wasmScalar]) {
      const c = codec.withBackend(b);
      const next = cycle(V);
      add({
        layer: 'frame',
        op: 'validate',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `${f.endpoint} codec.validate on ${b.name}`,
        check() {
          for (const v of V) strictEqual(c.validate(v.bytes), null, 'validate: the fixture was refused');
          for (const t of f.broken) {
            expectFrameError(c.validate(t.bytes), t, 'validate');
            deepStrictEqual(b.verifyFrame(t.bytes), { status: t.status, offset: t.offset }, `verifyFrame on the ${t.label} twin`);
          }
        },
        fn: () => (blackhole = c.validate(next().bytes)),
      });
    }

    // Encode: SDK value -> bytes, refusing what decode would refuse.
    for (const b of pair) {
      const c = codec.withBackend(b);
      const next = cycle(V);
      add({
        layer: 'frame',
        op: 'encode',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `${f.endpoint} codec.encode on ${b.name}: one pass that checks and writes UTF-8, the SDK schema on the value as written, the copy out`,
        check: () => {
          for (const v of V) sameBytes(c.encode(v.frame), v.bytes, 'encode');
        },
        fn: () => (blackhole = c.encode(next().frame)),
      });
    }

    // encodeInto: encode's work written into a buffer the caller keeps, as the stringify peer writes.
    {
      const target = new Uint8Array(Math.max(...V.map((v) => v.bytes.length)));
      for (const b of pair) {
        const c = codec.withBackend(b);
        const next = cycle(V);
        add({
          layer: 'frame',
          op: 'encodeInto',
          fixture: f.name,
          backend: b.name,
          bytes: n,
          impl: `${f.endpoint} codec.encodeInto on ${b.name}: encode's pass, then the frame copied into a buffer allocated once`,
          check: () => {
            for (const v of V) {
              const { written } = c.encodeInto(v.frame, target);
              sameBytes(target.subarray(0, written), v.bytes, 'encodeInto');
            }
          },
          fn: () => (blackhole = c.encodeInto(next().frame, target)),
        });
      }
    }

    relayCases(
      f.name,
      V.map((v) => v.relayChunk),
      {
        brokenInput: concat([responseRecord(1, f.broken[0].bytes), finishRecord(1)]),
        brokenOutput: finishRecord(1),
        brokenRule: f.broken[0].rule,
      },
    );

    // Peers on the same bytes.
    {
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'parse',
        fixture: f.name,
        backend: 'JSON.parse',
        bytes: n,
        impl: 'JSON.parse(new TextDecoder().decode(body)): no checks beyond JSON.parse, no schema',
        check: () => {
          for (const v of V) {
            deepStrictEqual(JSON.parse(decoder.decode(v.bytes.subarray(1))), v.value, 'parse: the value differs from the fixture source');
          }
        },
        fn: () => (blackhole = JSON.parse(decoder.decode(next().bytes.subarray(1)))),
      });
    }
    if (simdjson.native) {
      const isValid = simdjson.isValid;
      const brokenBodies = f.broken.map((t) => decoder.decode(t.bytes.subarray(1)));
      const checkSimdjson = () => {
        for (const v of V) strictEqual(isValid(v.body), true, 'simdjson refused the fixture');
        for (const [k, s] of brokenBodies.entries()) strictEqual(isValid(s), false, `simdjson accepted the ${f.broken[k].label} twin`);
      };
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'isvalid',
        fixture: f.name,
        backend: 'simdjson',
        bytes: n,
        impl: 'simdjson.isValid(body) on a string decoded beforehand: TextDecoder not timed',
        check: checkSimdjson,
        fn: () => (blackhole = isValid(next().body)),
      });
      const nextBytes = cycle(V);
      add({
        layer: 'peer',
        op: 'isvalid-decode',
        fixture: f.name,
        backend: 'simdjson',
        bytes: n,
        impl: 'simdjson.isValid(new TextDecoder().decode(body)): TextDecoder timed too',
        check: checkSimdjson,
        fn: () => (blackhole = isValid(decoder.decode(nextBytes().bytes.subarray(1)))),
      });
    }
    {
      const out = new Uint8Array(1 + 3 * Math.max(...V.map((v) => v.body.length)));
      const stringify = (v) => {
        const text = JSON.stringify(v.value);
        out[0] = f.tag;
        return 1 + encoder.encodeInto(text, out.subarray(1)).written;
      };
      const next = cycle(V);
      add({
        layer: 'peer',
        op: 'stringify',
        fixture: f.name,
        backend: 'JSON.stringify',
        bytes: n,
        impl: 'JSON.stringify(value) then TextEncoder.encodeInto a buffer allocated once: no walk, no schema, no allocation',
        check: () => {
          for (const v of V) sameBytes(out.subarray(0, stringify(v)), v.bytes, 'stringify');
        },
        fn: () => (blackhole = stringify(next())),
      });
      const nextCopy = cycle(V);
      add({
        layer: 'peer',
        op: 'stringify-copy',
        fixture: f.name,
        backend: 'JSON.stringify',
        bytes: n,
        impl: `${STRINGIFY_COPY}: not a target's peer (bench/lib/limits.mjs)`,
        check: () => {
          for (const v of V) sameBytes(Buffer.from(out.subarray(0, stringify(v))), v.bytes, 'stringify-copy');
        },
        fn: () => (blackhole = Buffer.from(out.subarray(0, stringify(nextCopy())))),
      });
    }
    memcpyCase(f);
    // Native simdjson on these bodies: the limit of the validate targets (bench/lib/limits.mjs).
    if (native?.native) add(nativeFrameCase(f, native));
    partCases(f, codec);
  }

  /**
   * The steps of decode and encode, one at a time, to see where their time
   * goes. Not part of a default run (see --parts): they answer "why", not
   * "how fast".
   */
  function partCases(f, codec) {
    const V = f.variants;
    const n = f.bytesPerOp;
    const schemaOf = (value) => (f.tag === TAG_RESULT ? judge(codec.schema, value) : judgeError(value));
    const part = (op, impl, check, step) => {
      const next = cycle(V);
      add({
        layer: 'part',
        op,
        fixture: f.name,
        backend: 'js',
        bytes: n,
        extra: true,
        impl,
        check: () => V.forEach(check),
        fn: () => (blackhole = step(next())),
      });
    };
    part(
      'textdecode',
      'new TextDecoder().decode(body): the UTF-8 to string step of decode',
      (v) => strictEqual(decoder.decode(v.bytes.subarray(1)), v.body, 'textdecode'),
      (v) => decoder.decode(v.bytes.subarray(1)),
    );
    part(
      'jsonparse',
      'JSON.parse(body string) on a string decoded beforehand: the value-building step of decode',
      (v) => deepStrictEqual(JSON.parse(v.body), v.value, 'jsonparse'),
      (v) => JSON.parse(v.body),
    );
    part(
      'schema',
      `the SDK schema's safeParse (judge) on a value parsed beforehand: the schema step of decode and of encode`,
      (v) => strictEqual(schemaOf(v.value), null, 'schema refused the fixture'),
      (v) => schemaOf(v.value),
    );
    const accept = () => null;
    part(
      'walk',
      'writeFrame(tag, value) judging nothing: the one-pass encode walk (checks, UTF-8 into the scratch buffer, the copy the schema judges, the copy out)',
      (v) => sameBytes(writeFrame(f.tag, v.value, accept), v.bytes, 'walk'),
      (v) => writeFrame(f.tag, v.value, accept),
    );
    part(
      'stringify',
      'JSON.stringify(value) alone',
      (v) => strictEqual(JSON.stringify(v.value), v.body, 'stringify'),
      (v) => JSON.stringify(v.value),
    );
    const out = new Uint8Array(1 + 3 * Math.max(...V.map((v) => v.body.length)));
    part(
      'encodeinto',
      'TextEncoder.encodeInto(text) into a buffer allocated once',
      (v) => strictEqual(encoder.encodeInto(v.body, out).written, v.bytes.length - 1, 'encodeinto'),
      (v) => encoder.encodeInto(v.body, out),
    );
  }

  function streamCases(f) {
    const bytes = f.bytes;
    const n = bytes.length;
    const codec = CODECS[f.endpoint];
    const byChannel = new Map(f.exchanges.map((e) => [e.channel, e]));
    const responses = f.exchanges.length;

    // The same stream with channel 0's frame broken: a control byte inside its first string.
    const first = f.exchanges[0];
    const firstRecordLength = HEADER_SIZE + bytes[5] + (bytes[6] << 8);
    const brokenFrame = bytes.slice(HEADER_SIZE, firstRecordLength);
    const at = brokenFrame.indexOf(0x22, brokenFrame.indexOf(0x3a) + 1) + 1; // the first character of the first string value
    brokenFrame[at] = 0x1f;
    const brokenInput = concat([responseRecord(first.channel, brokenFrame), bytes.subarray(firstRecordLength)]);
    const brokenOutput = bytes.subarray(firstRecordLength);

    // Record scan plus validate on the backend's reader, with a sink that only counts.
    for (const b of pair) {
      const makeReader = () => {
        const sink = {
          responses: 0,
          finishes: 0,
          faults: 0,
          admit: () => 0,
          response(_channel, _offset, _bytes, _start, _length, status) {
            this.responses++;
            if (status !== 0) this.faults++;
          },
          finish() {
            this.finishes++;
          },
        };
        return { sink, reader: b.createReader({ maxFrameBytes: MAX_FRAME, verify: true }, sink) };
      };
      const { reader } = makeReader();
      add({
        layer: 'records',
        op: 'scan',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `${b.name}.createReader with verify (the kernel checks each frame as it scans) and a counting sink`,
        check() {
          const run = makeReader();
          strictEqual(run.reader.push(bytes), null, 'scan: record error');
          strictEqual(run.reader.end(), null, 'scan: record error at the end');
          deepStrictEqual([run.sink.responses, run.sink.finishes, run.sink.faults], [responses, responses, 0], 'scan: responses, finishes, faults');
          const bad = makeReader();
          bad.reader.push(brokenInput);
          deepStrictEqual([bad.sink.responses, bad.sink.faults], [responses, 1], 'scan: the broken stream');
        },
        fn: () => (blackhole = reader.push(bytes)),
      });
    }

    // Typed decode of the whole stream: outcomes under the full contract.
    for (const b of pair) {
      add({
        layer: 'records',
        op: 'decode',
        fixture: f.name,
        backend: b.name,
        bytes: n,
        impl: `decodeStream(bytes, { endpoint: ${f.endpoint}, backend: ${b.name} }): every outcome built and judged`,
        check() {
          const events = decodeStream(bytes, { endpoint: codec, backend: b });
          strictEqual(events.length, responses + 1, 'decodeStream: outcome count');
          deepStrictEqual(events[events.length - 1], { end: 'ok' }, 'decodeStream: the stream end');
          for (const e of /** @type {any[]} */ (events.slice(0, -1))) {
            const want = byChannel.get(e.channel);
            ok(want, `decodeStream: an outcome for unknown channel ${e.channel}`);
            strictEqual(e.outcome, want.outcome, `decodeStream: channel ${e.channel}`);
            deepStrictEqual(e.outcome === 'result' ? e.result : e.error, want.value, `decodeStream: channel ${e.channel}'s value`);
          }
          const bad = decodeStream(brokenInput, { endpoint: codec, backend: b });
          const broken = /** @type {any} */ (bad.find((e) => 'channel' in e && e.channel === first.channel));
          ok(broken, 'decodeStream: no outcome for the broken frame');
          strictEqual(broken.outcome, 'frame-error', 'decodeStream: the broken frame');
          strictEqual(broken.fault.rule, 'control-char', 'decodeStream: the broken frame rule');
        },
        fn: () => (blackhole = decodeStream(bytes, { endpoint: codec, backend: b })),
      });
    }

    relayCases(f.name, [bytes], { brokenInput, brokenOutput, brokenRule: 'control-char' });

    add({
      layer: 'peer',
      op: 'parse',
      fixture: f.name,
      backend: 'JSON.parse',
      bytes: n,
      impl: 'records walked by hand, JSON.parse(new TextDecoder().decode(frame body)) per response: no checks, no schema',
      check() {
        const values = parseStreamByHand(bytes);
        deepStrictEqual(
          values,
          f.exchanges.map((e) => e.value),
          'parse: the values differ from the fixture source',
        );
      },
      fn: () => (blackhole = parseStreamByHand(bytes)),
    });
    memcpyCase(f);
  }

  /**
   * The relay's own work (RelayState.push) and the relay end to end through
   * its streams. `inputs` are the variants' streams, taken in turn.
   */
  function relayCases(fixture, inputs, expect) {
    const n = inputs.reduce((a, x) => a + x.length, 0) / inputs.length;
    for (const b of pair) {
      let forwarded = 0;
      let pushed = 0;
      const core = new RelayState({ validate: 'json' }, b, (bytes) => (forwarded += bytes.length));
      const next = cycle(inputs);
      add({
        layer: 'relay',
        op: 'work',
        fixture,
        backend: b.name,
        bytes: n,
        impl: `RelayState.push on ${b.name}, validate 'json': records scanned, frames verified, valid bytes forwarded as views`,
        check() {
          const out = [];
          const faults = [];
          const fresh = new RelayState({ validate: 'json', onFault: (x) => faults.push(x) }, b, (x) => out.push(x.slice()));
          for (const input of inputs) strictEqual(fresh.push(input), null, 'relay: record error');
          strictEqual(fresh.end(), null, 'relay: record error at the end');
          sameBytes(concat(out), concat(inputs), 'relay: forwarded bytes');
          strictEqual(faults.length, 0, 'relay: faults on a valid stream');
          const badOut = [];
          const badFaults = [];
          const bad = new RelayState({ validate: 'json', onFault: (x) => badFaults.push(x) }, b, (x) => badOut.push(x.slice()));
          bad.push(expect.brokenInput);
          bad.end();
          sameBytes(concat(badOut), expect.brokenOutput, 'relay: forwarded bytes of the broken stream');
          strictEqual(badFaults.length, 1, 'relay: faults on the broken stream');
          strictEqual(badFaults[0].frame?.rule, expect.brokenRule, 'relay: the broken frame rule');
        },
        fn: () => {
          const input = next();
          pushed += input.length;
          blackhole = core.push(input);
        },
        after() {
          strictEqual(core.faultCount, 0, 'relay: faults while timed');
          strictEqual(forwarded, pushed, 'relay: bytes forwarded while timed');
        },
      });
    }
    const inputChunks = inputs.map((x) => chunks(x));
    for (const b of pair) {
      let faults = 0;
      const next = cycle(inputChunks);
      add({
        layer: 'relay',
        op: 'stream',
        fixture,
        backend: b.name,
        bytes: n,
        defer: true,
        impl: `createRelay on ${b.name}: a ReadableStream of 64 KiB chunks piped through it, the output read to the end`,
        async checkAsync() {
          for (const [k, input] of inputs.entries()) {
            const seen = [];
            const out = await relayThrough(b, inputChunks[k], (x) => seen.push(x));
            sameBytes(concat(out), input, 'relay stream: output');
            strictEqual(seen.length, 0, 'relay stream: faults on a valid stream');
          }
          const badSeen = [];
          const bad = await relayThrough(b, chunks(expect.brokenInput), (x) => badSeen.push(x));
          sameBytes(concat(bad), expect.brokenOutput, 'relay stream: output of the broken stream');
          strictEqual(badSeen.length, 1, 'relay stream: faults on the broken stream');
        },
        fn: (deferred) => {
          relayThrough(b, next(), () => faults++).then(
            (out) => {
              blackhole = out;
              deferred.resolve();
            },
            (error) => {
              faults += 1e9;
              blackhole = error;
              deferred.resolve();
            },
          );
        },
        after: () => strictEqual(faults, 0, 'relay stream: faults or errors while timed'),
      });
    }
  }

  function memcpyCase(f) {
    const V = f.variants;
    const dst = new Uint8Array(Math.max(...V.map((v) => v.bytes.length)));
    const next = cycle(V);
    add({
      layer: 'peer',
      op: 'memcpy',
      fixture: f.name,
      backend: 'memcpy',
      bytes: f.bytesPerOp,
      impl: 'Uint8Array.prototype.set of the same bytes into a buffer allocated once: the physical limit',
      check() {
        for (const { bytes } of V) {
          dst.fill(0);
          dst.set(bytes);
          sameBytes(dst.subarray(0, bytes.length), bytes, 'memcpy');
        }
      },
      fn: () => dst.set(next().bytes),
    });
  }
}
