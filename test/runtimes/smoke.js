// The smoke suite every runtime runs: the public vectors with 'auto' and 'js', the encode round trip, one relayed stream.
//
// # Runtime-neutral
//
// Plain ES2022 JavaScript, so every host loads it as it is or bundled; it
// uses only what all six hosts have: TextEncoder, Web Streams, Promise. No
// node:, Deno or DOM API. The host entry (hosts/<host>.js) imports the
// package its own way and hands it in with the vectors, which the harness
// read from spec/vectors: the suite never reads a file.
//
// # What "auto" means here
//
// 'auto' is whatever the entry the host resolved chose: the default backend
// once `ready` has settled. The suite reports its name; the harness decides
// whether it is the one this host must give (wasm-simd everywhere here).
//
// # What a match is (spec/vectors/README.md)
//
// A result or an MCP error deep-equals the expected value, member order
// aside; a frame error matches on reason and tag; a stream matches outcome
// for outcome, and on its end (ok, or record error with reason and offset).

/** The most failures reported back; the count is always exact. */
const MAX_REPORTED = 5;

/**
 * Runs the suite against `lib` (the package's namespace, as the host
 * imported it) with `vectors` ({ frames, streams }, conformance's files),
 * and `client` (mcp-frames/client, as the host imported it) when given.
 * Resolves with { backend, checks, failures, vectors }.
 */
export async function runSmoke(lib, vectors, client) {
  const failures = [];
  let checks = 0;
  const check = (ok, what) => {
    checks++;
    if (!ok) failures.push(what);
  };

  const readyName = await lib.ready;
  // loadBackend is on every entry, made from that host's own builds: the one way to pick a backend.
  check(typeof lib.loadBackend === 'function', 'loadBackend is missing');
  const auto = lib.loadBackend('auto');
  const js = lib.loadBackend('js');
  check(readyName === auto.name, `ready resolved '${readyName}' but loadBackend('auto') is '${auto.name}'`);
  check(lib.backend === auto.name, `backend reads '${lib.backend}' but loadBackend('auto') is '${auto.name}'`);
  check(js.name === 'js', `loadBackend('js') is named '${js.name}'`);
  check(lib.listResources.backend === auto.name, `a codec's backend reads '${lib.listResources.backend}', not '${auto.name}'`);
  for (const internal of ['jsBackend', 'defaultBackend', 'UNSUPPORTED_RESULTS']) check(!(internal in lib), `the entry exports ${internal}`);
  for (const name of ['wasm-simd', 'wasm-scalar']) {
    let got;
    try {
      got = lib.loadBackend(name).name;
    } catch (error) {
      got = `${error?.name}: ${error?.message}`;
    }
    check(got === name, `loadBackend('${name}') gave ${got}`);
  }

  for (const [label, backend] of [
    ['auto', auto],
    ['js', js],
  ]) {
    for (const v of vectors.frames) {
      const where = `${label} frames.json '${v.name}'`;
      try {
        const codec = codecFor(lib, v).withBackend(backend);
        const got = answerFrame(lib, codec, hexToBytes(v.hex));
        check(sameFrame(got, v.expect), `${where}: want ${JSON.stringify(v.expect)}, got ${JSON.stringify(got)}`);
        if (v.expect.kind === 'result' || v.expect.kind === 'error') roundTrip(lib, codec, v, where, check);
      } catch (error) {
        check(false, `${where}: threw ${describe(error)}`);
      }
    }
    for (const v of vectors.streams) {
      const bytes = hexToBytes(v.hex);
      for (const [cut, chunks] of [
        ['whole', [bytes]],
        ['byte by byte', splitEvery(bytes, 1)],
      ]) {
        const where = `${label} streams.json '${v.name}' (${cut})`;
        try {
          const events = lib.decodeStream(chunks, { endpoint: codecFor(lib, v), backend, ...v.limits });
          const got = answerStream(lib, events);
          check(sameStream(got, v.expect), `${where}: want ${JSON.stringify(v.expect)}, got ${JSON.stringify(got)}`);
        } catch (error) {
          check(false, `${where}: threw ${describe(error)}`);
        }
      }
    }
  }

  try {
    await relayOneStream(lib, vectors, check);
  } catch (error) {
    check(false, `relay: threw ${describe(error)}`);
  }

  if (client) {
    try {
      await clientOverStreams(lib, client, check);
    } catch (error) {
      check(false, `client: threw ${describe(error)}`);
    }
  }

  // The judges compiled at build time must survive however this host got the package (bundled, minified).
  check(lib.schemaJudges === 'compiled', `schemaJudges is '${lib.schemaJudges}', not 'compiled': schema checks fell back to the SDK's own`);
  for (const [label, backend] of [
    ['auto', auto],
    ['js', js],
  ]) {
    try {
      await relayFullWithoutZod(lib, vectors, backend, label, check);
    } catch (error) {
      check(false, `${label} full relay: threw ${describe(error)}`);
    }
  }

  return {
    backend: lib.backend,
    checks,
    failed: failures.length,
    failures: failures.slice(0, MAX_REPORTED),
    vectors: { frames: vectors.frames.length, streams: vectors.streams.length },
  };
}

/**
 * mcp-frames/client over a pair of Web Streams, as a Worker or a page gives
 * it one: a fake proxy reads its request lines and answers channel by
 * channel with a result, an MCP error and a finish alone.
 */
async function clientOverStreams(lib, client, check) {
  const up = new TransformStream();
  const down = new TransformStream();
  const c = await client.connect({ readable: down.readable, writable: up.writable });
  const answers = (async () => {
    const writer = down.writable.getWriter();
    const reader = up.readable.getReader();
    const text = new TextDecoder();
    let held = '';
    for (let answered = 0; answered < 3; ) {
      const { done, value } = await reader.read();
      if (done) break;
      held += text.decode(value, { stream: true });
      for (let lf = held.indexOf('\n'); lf >= 0; lf = held.indexOf('\n')) {
        const line = JSON.parse(held.slice(0, lf));
        held = held.slice(lf + 1);
        answered++;
        const uri = line.params?.uri;
        if (uri === 'ok') {
          const frame = lib.readResource.encode({ kind: 'result', result: { contents: [{ uri: 'ok', text: 'hi' }] } });
          await writer.write(concat([lib.encodeResponse(line.channel, frame), lib.encodeFinish(line.channel)]));
        } else if (uri === 'missing') {
          const frame = lib.readResource.encode({ kind: 'error', error: { code: -32002, message: 'Resource not found', data: { uri } } });
          await writer.write(concat([lib.encodeResponse(line.channel, frame), lib.encodeFinish(line.channel)]));
        } else await writer.write(lib.encodeFinish(line.channel));
      }
    }
    await writer.close();
  })();
  const [ok, missing, dropped] = await Promise.allSettled([
    c.readResource({ uri: 'ok' }),
    c.readResource({ uri: 'missing' }),
    c.readResource({ uri: 'dropped' }),
  ]);
  check(ok.status === 'fulfilled' && ok.value.contents[0].text === 'hi', `client: a result: ${JSON.stringify(ok)}`);
  check(
    missing.status === 'rejected' && missing.reason instanceof client.McpError && missing.reason.code === -32002,
    `client: an MCP error as McpError: ${describe(missing.status === 'rejected' ? missing.reason : missing.value)}`,
  );
  check(
    dropped.status === 'rejected' && dropped.reason instanceof client.NotCarriedError,
    `client: a finish alone: ${describe(dropped.status === 'rejected' ? dropped.reason : dropped.value)}`,
  );
  await answers;
  const end = await c.close();
  check(end.end === 'ok', `client: the stream ended ${JSON.stringify(end)}`);
}

// Encoding: decode(encode(v)) deep-equals JSON.parse(JSON.stringify(v)),
// and the body is compact JSON in the value's own member order (WIRE.md 5).
function roundTrip(lib, codec, v, where, check) {
  const frame = v.expect.kind === 'result' ? { kind: 'result', result: v.expect.result } : { kind: 'error', error: v.expect.error };
  const value = v.expect.kind === 'result' ? v.expect.result : v.expect.error;
  const bytes = codec.encode(frame);
  const tag = v.expect.kind === 'result' ? lib.TAG_RESULT : lib.TAG_ERROR;
  check(bytes[0] === tag, `${where}: encode wrote tag ${bytes[0]}, want ${tag}`);
  const body = new TextDecoder().decode(bytes.subarray(1));
  check(body === JSON.stringify(value), `${where}: encode wrote ${body}, want compact ${JSON.stringify(value)}`);
  const back = answerFrame(lib, codec, bytes);
  const want =
    v.expect.kind === 'result'
      ? { kind: 'result', result: JSON.parse(JSON.stringify(value)) }
      : { kind: 'error', error: JSON.parse(JSON.stringify(value)) };
  check(sameFrame(back, want), `${where}: decode(encode(v)) gave ${JSON.stringify(back)}`);
}

// The relay: channel 1 carries a valid result, channel 2 a frame with an
// unknown tag. Downstream must get channel 1's response and finish byte for
// byte, and channel 2's finish alone (not carried), with one frame-error
// fault on channel 2. The stream goes in as 5-byte chunks, so records are
// cut across chunks and forwarded both as views and as copies.
async function relayOneStream(lib, vectors, check) {
  const good = vectors.frames.find((v) => v.endpoint === 'list-resources' && v.expect.kind === 'result');
  if (!good) throw new Error('no list-resources result among the frame vectors');
  const payload = hexToBytes(good.hex);
  const input = concat([lib.encodeResponse(1, payload), lib.encodeResponse(2, Uint8Array.of(0x07)), lib.encodeFinish(1), lib.encodeFinish(2)]);
  const want = concat([lib.encodeResponse(1, payload), lib.encodeFinish(1), lib.encodeFinish(2)]);

  const faults = [];
  const got = await relayBytes(lib.createRelay({ onFault: (f) => faults.push(f) }), splitEvery(input, 5));
  check(sameBytes(got, want), `relay: forwarded ${bytesToHex(got)}, want ${bytesToHex(want)}`);
  check(
    faults.length === 1 && faults[0].reason === 'frame-error' && faults[0].channel === 2 && faults[0].frame.reason === 'unknown-tag',
    `relay: faults ${JSON.stringify(faults)}, want one unknown-tag frame-error on channel 2`,
  );
}

// A 'full' relay of valid results, for each endpoint with such vectors:
// every record is forwarded byte for byte, no fault is reported, and no zod
// schema of the endpoint runs, counted by a spy on every node of its
// schema. The compiled judges give every verdict; a fallback to the SDK's
// schemas would call them on each frame. The spy is shown to count by one
// safeParse of the same value.
async function relayFullWithoutZod(lib, vectors, backend, label, check) {
  const endpoints = new Set(vectors.frames.filter((v) => v.expect.kind === 'result').map((v) => v.endpoint));
  for (const name of endpoints) {
    const codec = codecFor(lib, { endpoint: name });
    const payloads = vectors.frames.filter((v) => v.endpoint === name && v.expect.kind === 'result').map((v) => hexToBytes(v.hex));
    const input = concat(payloads.flatMap((p, i) => [lib.encodeResponse(i + 1, p), lib.encodeFinish(i + 1)]));
    const faults = [];
    const spy = spyOnSchema(codec.schema);
    let got;
    try {
      got = await relayBytes(lib.createRelay({ validate: 'full', endpoint: codec, backend, onFault: (f) => faults.push(f) }), splitEvery(input, 64));
    } finally {
      spy.restore();
    }
    const where = `${label} full relay of ${payloads.length} ${name} results`;
    check(sameBytes(got, input), `${where}: not forwarded byte for byte`);
    check(faults.length === 0, `${where}: faults ${JSON.stringify(faults.slice(0, 2))}`);
    check(spy.calls() === 0, `${where}: a zod schema ran ${spy.calls()} times`);
    const witness = spyOnSchema(codec.schema);
    codec.schema.safeParse(JSON.parse(new TextDecoder().decode(payloads[0].subarray(1))));
    witness.restore();
    check(witness.calls() > 0, `${where}: the spy counted no call of safeParse itself`);
  }
}

/** Counts the runs of every zod node under `schema` (its _zod.run and a check's _zod.check), until restored. */
function spyOnSchema(schema) {
  let calls = 0;
  const undo = [];
  const seen = new Set();
  const visit = (node) => {
    if (!node || typeof node !== 'object' || !node._zod || seen.has(node)) return;
    seen.add(node);
    for (const member of ['run', 'check']) {
      const original = node._zod[member];
      if (typeof original !== 'function') continue;
      node._zod[member] = function (...args) {
        calls++;
        return original.apply(this, args);
      };
      undo.push(() => {
        node._zod[member] = original;
      });
    }
    const def = node._zod.def;
    for (const key of ['element', 'innerType', 'valueType', 'keyType', 'catchall', 'in', 'out']) visit(def[key]);
    for (const key of ['options', 'checks']) for (const child of def[key] ?? []) visit(child);
    for (const child of Object.values(def.shape ?? {})) visit(child);
  };
  visit(schema);
  return {
    calls: () => calls,
    restore: () => {
      for (const u of undo) u();
    },
  };
}

/** The bytes a relay writes for `chunks`. */
async function relayBytes(relay, chunks) {
  const queue = [...chunks];
  const source = new ReadableStream({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const out = [];
  const reader = source.pipeThrough(relay).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(value.slice());
  }
  return concat(out);
}

// The library's answers, in the vectors' own form.

function codecFor(lib, v) {
  const codec = lib.ENDPOINTS[v.endpoint];
  if (!codec) throw new Error(`unknown endpoint '${v.endpoint}'`);
  return codec;
}

function answerFrame(lib, codec, bytes) {
  const frame = codec.tryDecode(bytes);
  if (frame instanceof lib.FrameError) return { kind: 'frame-error', ...faultMembers(frame) };
  return frame.kind === 'result' ? { kind: 'result', result: frame.result } : { kind: 'error', error: frame.error };
}

function answerStream(lib, events) {
  const outcomes = [];
  let end;
  for (const e of events) {
    if (lib.isEnd(e)) end = e.end === 'ok' ? { kind: 'ok' } : { kind: 'record-error', reason: e.reason, offset: e.offset };
    else if (e.outcome === 'result') outcomes.push({ channel: e.channel, outcome: e.outcome, result: e.result });
    else if (e.outcome === 'error') outcomes.push({ channel: e.channel, outcome: e.outcome, error: e.error });
    else if (e.outcome === 'frame-error') outcomes.push({ channel: e.channel, outcome: e.outcome, ...faultMembers(e.fault) });
    else outcomes.push({ channel: e.channel, outcome: e.outcome });
  }
  return { outcomes, end };
}

function faultMembers(fault) {
  return fault.tag === undefined ? { reason: fault.reason } : { reason: fault.reason, tag: fault.tag };
}

// Matching, by the README's rules.

function sameFrame(got, want) {
  if (got.kind !== want.kind) return false;
  if (want.kind === 'result') return deepEqual(got.result, want.result);
  if (want.kind === 'error') return deepEqual(got.error, want.error);
  return got.reason === want.reason && got.tag === want.tag;
}

function sameOutcome(got, want) {
  if (got.channel !== want.channel || got.outcome !== want.outcome) return false;
  if (want.outcome === 'result') return deepEqual(got.result, want.result);
  if (want.outcome === 'error') return deepEqual(got.error, want.error);
  if (want.outcome === 'frame-error') return got.reason === want.reason && got.tag === want.tag;
  return true;
}

function sameStream(got, want) {
  return (
    got.outcomes.length === want.outcomes.length && got.outcomes.every((o, i) => sameOutcome(o, want.outcomes[i])) && deepEqual(got.end, want.end)
  );
}

/** JSON values equal, member order aside; numbers by Object.is, as node:util's isDeepStrictEqual. */
function deepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

// Bytes.

function hexToBytes(hex) {
  if (hex.length % 2 !== 0 || /[^0-9a-f]/i.test(hex)) throw new Error(`not hex: ${hex.slice(0, 40)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function splitEvery(bytes, size) {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
