import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import type { Backend } from '../src/backend/backend.js';
import { endpointCodec, readResource } from '../src/frame/endpoints.js';
import type { FrameCodec } from '../src/frame/codec.js';
import { COPY_BELOW, createRelay, type RelayOptions, RelayState, type RelayStats, type ValidationLevel } from '../src/relay/relay.js';
import type { StreamLimits } from '../src/records/limits.js';
import type { RelayFault } from '../src/relay/fault.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { ENTRY_FIELDS, KIND_RUN, type RecordSink } from '../src/records/reader.js';
import { pipeIterable } from '../src/streams/iterate.js';
import { exchanges, Gen, rng, stream } from './support/generate.js';
import { modelLimits, STREAM_VECTORS } from './support/vectors.js';
import { model, type Expected } from './support/relay-model.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 2 ** 31);
const VECTORS = STREAM_VECTORS;

async function relay(
  input: Uint8Array,
  cuts: number[],
  options: { level: ValidationLevel; codec: FrameCodec<unknown>; backend: Backend } & StreamLimits,
): Promise<Expected & { views: number; outputs: number; stats: RelayStats }> {
  const faults: RelayFault[] = [];
  const r = createRelay({
    validate: options.level,
    endpoint: options.codec,
    backend: options.backend,
    maxFrameBytes: options.maxFrameBytes,
    maxOpenChannels: options.maxOpenChannels,
    maxHeldBytes: options.maxHeldBytes,
    onFault: (f) => faults.push(f),
  });
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    chunks.push(input.slice(from, cut));
    from = cut;
  }
  const out: Uint8Array[] = [];
  let errored = false;
  const reading = (async () => {
    try {
      for await (const c of r.readable) out.push(c);
    } catch {
      errored = true;
    }
  })();
  await pipeIterable(chunks, r.writable).catch(() => {});
  await reading;
  const bytes = new Uint8Array(out.reduce((n, c) => n + c.length, 0));
  let at = 0;
  let views = 0;
  for (const c of out) {
    if (chunks.some((chunk) => chunk.buffer === c.buffer)) views++;
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, faults, errored, views, outputs: out.length, stats: r.stats };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe.each(BACKENDS.map((b) => [b.name, b] as const))('relay on %s', (_name, backend) => {
  for (const level of ['full', 'json', 'none'] as const) {
    it(`gives every public stream vector's bytes and faults (--validate ${level})`, async () => {
      for (const v of VECTORS) {
        const input = Buffer.from(v.hex, 'hex');
        const codec = endpointCodec(v.endpoint);
        const want = model(input, level, codec, ...modelLimits(v));
        for (const cuts of [[], Array.from({ length: input.length - 1 }, (_, k) => k + 1)]) {
          const got = await relay(input, cuts, { level, codec, backend, ...v.limits });
          expect(hex(got.bytes), v.name).toBe(hex(want.bytes));
          expect(got.faults, v.name).toEqual(want.faults);
          expect(got.errored, v.name).toBe(want.errored);
        }
      }
    });
  }

  it('forwards a clean stream unchanged: long runs as views of its input, short pieces gathered into one chunk', async () => {
    // Records of about 6 KiB: every one is longer than COPY_BELOW, so a clean stream goes out as views, never copied.
    const frame = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'x'.repeat(6000) }] } });
    const input = Buffer.concat([1, 2, 3].flatMap((ch) => [encodeResponse(ch, frame), encodeFinish(ch)]));
    const whole = await relay(input, [], { level: 'full', codec: readResource, backend });
    expect(hex(whole.bytes)).toBe(hex(input));
    expect([whole.views, whole.outputs, whole.stats.bytesCopied]).toEqual([1, 1, 0]);
    // Cut anywhere: pieces of COPY_BELOW bytes or more go as views of the chunks they came in;
    // only the shorter ones are copied, gathered into at most one output chunk per input chunk
    // between long pieces.
    for (const step of [1, 7, 1000, 5000, 9000]) {
      const cuts = Array.from({ length: Math.ceil(input.length / step) - 1 }, (_, k) => (k + 1) * step);
      const split = await relay(input, cuts, { level: 'full', codec: readResource, backend });
      expect(hex(split.bytes), `step ${step}`).toBe(hex(input));
      expect(split.outputs, `step ${step}`).toBeLessThanOrEqual(2 * (cuts.length + 1) + input.length / COPY_BELOW);
      if (step < COPY_BELOW) expect(split.views, `step ${step}`).toBe(0);
      else expect(split.views, `step ${step}`).toBeGreaterThan(0);
      // A short piece is copied at most twice: into its cut record, then into the outgoing chunk.
      expect(split.stats.bytesCopied, `step ${step}`).toBeLessThanOrEqual(2 * input.length);
    }
    // The small records of a vector, whole in one chunk, go as one view too: one run of the input.
    const vector = Buffer.from(VECTORS.find((v) => v.name === 'interleaved channels finish in their own order')!.hex, 'hex');
    const small = await relay(vector, [], { level: 'full', codec: endpointCodec('list-resources'), backend });
    expect(hex(small.bytes)).toBe(hex(vector));
    expect(small.outputs).toBe(1);
  });

  it('forwards a chunk of whole, valid records as the chunk itself, and views side by side in one buffer as one', () => {
    const frame = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'x'.repeat(6000) }] } });
    const whole = Buffer.concat([encodeResponse(1, frame), encodeFinish(1), encodeResponse(2, frame), encodeFinish(2)]);
    const out: Uint8Array[] = [];
    const state = new RelayState({ validate: 'json' }, backend, (bytes) => out.push(bytes));
    expect(state.push(whole)).toBeNull();
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(whole);
    // One record cut across three chunks sliced from one buffer, each piece long enough to go as a view:
    // it leaves as one view of that buffer.
    const long = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'y'.repeat(20_000) }] } });
    const record = Buffer.concat([encodeResponse(3, long), encodeFinish(3)]);
    const sliced: Uint8Array[] = [];
    const cut = new RelayState({ validate: 'json' }, backend, (bytes) => sliced.push(bytes));
    for (const [from, to] of [
      [0, 8000],
      [8000, record.length - 5000],
      [record.length - 5000, record.length],
    ])
      expect(cut.push(record.subarray(from, to))).toBeNull();
    expect(sliced.map((s) => [s.byteOffset - record.byteOffset, s.length])).toEqual([[0, record.length]]);
    expect(sliced[0].buffer).toBe(record.buffer);
  });

  it('forwards a short chunk as itself when it is most of its buffer, and copies a short run that keeps a larger buffer alive', () => {
    const small = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'hi' }] } });
    const pair = (ch: number) => new Uint8Array(Buffer.concat([encodeResponse(ch, small), encodeFinish(ch)]));
    // One small exchange per chunk, each chunk its own buffer (a socket that sends each answer alone): no copy.
    const out: Uint8Array[] = [];
    const state = new RelayState({ validate: 'json' }, backend, (bytes) => out.push(bytes));
    const chunks = [1, 2, 3].map(pair);
    for (const chunk of chunks) expect(state.push(chunk)).toBeNull();
    expect(out).toHaveLength(3);
    for (const [k, o] of out.entries()) expect(o).toBe(chunks[k]);
    expect(state.stats.bytesCopied).toBe(0);
    // The same exchange as a short view of a 64 KiB buffer: the view would keep 64 KiB alive in the queue, so it is copied.
    const big = new Uint8Array(64 * 1024);
    big.set(pair(4), 1000);
    const view = big.subarray(1000, 1000 + pair(4).length);
    const copied: Uint8Array[] = [];
    const other = new RelayState({ validate: 'json' }, backend, (bytes) => copied.push(bytes));
    expect(other.push(view)).toBeNull();
    expect(copied).toHaveLength(1);
    expect(copied[0].buffer).not.toBe(big.buffer);
    expect(Buffer.from(copied[0]).equals(Buffer.from(view))).toBe(true);
    expect(other.stats.bytesCopied).toBe(view.length);
    // A chunk of 64 KiB whose one valid record is short (the rest a frame that fails): the record is copied, not kept as a view.
    const bad = encodeResponse(6, new Uint8Array([0, 0x7b]));
    const filler = Buffer.concat(Array.from({ length: 3000 }, () => Buffer.concat([encodeResponse(7, new Uint8Array([0, 0x7b])), encodeFinish(7)])));
    const mixed = new Uint8Array(Buffer.concat([pair(5), bad, encodeFinish(6), filler]));
    const kept: Uint8Array[] = [];
    const third = new RelayState({ validate: 'json' }, backend, (bytes) => kept.push(bytes));
    expect(third.push(mixed)).toBeNull();
    expect(kept.every((k) => k.buffer !== mixed.buffer || k.length >= COPY_BELOW)).toBe(true);
    expect(kept.reduce((a, k) => a + k.length, 0)).toBeLessThan(mixed.length);
  });

  it('relays take turns with one gathering buffer: one stopped mid-chunk keeps its gathered bytes while another relays', () => {
    const small = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 'hi' }] } });
    const broken = new Uint8Array([0, 0x7b]);
    const join = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
    // Short pieces apart from each other: each is copied into the gathering buffer when the next one comes.
    const chunkOf = (base: number) =>
      join(
        encodeResponse(base + 1, small),
        encodeFinish(base + 1),
        encodeResponse(base + 2, broken),
        encodeFinish(base + 2),
        encodeResponse(base + 3, broken),
        encodeFinish(base + 3),
        encodeResponse(base + 4, broken),
        encodeFinish(base + 4),
      );
    const stoppedOut: Uint8Array[] = [];
    let faults = 0;
    const stopped = new RelayState(
      {
        validate: 'json',
        onFault: () => {
          if (++faults === 3) throw new Error('stop');
        },
      },
      backend,
      (bytes) => stoppedOut.push(bytes.slice()),
    );
    expect(() => stopped.push(chunkOf(0))).toThrow('stop');
    // Another relay takes whole chunks meanwhile, its short pieces gathered and sent.
    const otherOut: Uint8Array[] = [];
    const other = new RelayState({ validate: 'json', onFault: () => {} }, backend, (bytes) => otherOut.push(bytes.slice()));
    for (const base of [10, 20]) expect(other.push(chunkOf(base))).toBeNull();
    expect(other.stats.bytesCopied).toBeGreaterThan(0);
    const otherWant = join(
      ...[10, 20].flatMap((b) => [encodeResponse(b + 1, small), encodeFinish(b + 1), encodeFinish(b + 2), encodeFinish(b + 3), encodeFinish(b + 4)]),
    );
    expect(hex(join(...otherOut))).toBe(hex(otherWant));
    // The stopped relay then finishes its open channel: what it had gathered is its own, unchanged.
    stopped.abort();
    expect(hex(join(...stoppedOut))).toBe(hex(join(encodeResponse(1, small), encodeFinish(1), encodeFinish(2), encodeFinish(3), encodeFinish(4))));
  });

  it(`matches the model on 2,000 generated streams under random chunking (seed ${SEED})`, async () => {
    const g = new Gen(rng(SEED));
    for (let n = 0; n < 2000; n++) {
      const input = n % 2 === 0 ? stream(g) : exchanges(g);
      const cuts = Array.from({ length: g.int(4) }, () => g.int(input.length + 1)).sort((a, b) => a - b);
      const level = g.pick(['full', 'json', 'none'] as const);
      const maxOpenChannels = 1 + g.int(4);
      const maxHeldBytes = g.pick([64 << 20, 50 + g.int(400)]);
      const want = model(input, level, readResource, 4096, maxOpenChannels, maxHeldBytes);
      const got = await relay(input, cuts, { level, codec: readResource, backend, maxFrameBytes: 4096, maxOpenChannels, maxHeldBytes });
      const where = `seed ${SEED}, stream ${n}, level ${level}, cuts ${cuts}, input ${hex(input)}`;
      expect(hex(got.bytes), where).toBe(hex(want.bytes));
      expect(got.faults, where).toEqual(want.faults);
      expect(got.errored, where).toBe(want.errored);
    }
  });

  it('answers a hostile flood: channel ids, huge lengths, truncated tails', async () => {
    const frame = readResource.encode({ kind: 'result', result: { contents: [] } });
    // 10,000 channels opened, one past the limit of 4096 stops the stream.
    const flood: Uint8Array[] = [];
    for (let ch = 0; ch < 10_000; ch++) flood.push(encodeResponse(ch, frame));
    const input = Buffer.concat(flood);
    const got = await relay(input, [100_000, 200_000], { level: 'json', codec: readResource, backend });
    // The record error, then each of the 4096 channels the relay finished, in opening order.
    expect(got.faults[0]).toEqual({ reason: 'too-many-channels', offset: 4096 * (9 + frame.length) });
    expect(got.faults.slice(1)).toEqual(
      Array.from({ length: 4096 }, (_, ch) => ({ reason: 'incomplete', channel: ch, offset: ch * (9 + frame.length) })),
    );
    expect(got.errored).toBe(true);
    const want = model(input, 'json', readResource, 16 << 20, 4096);
    expect(hex(got.bytes)).toBe(hex(want.bytes));
    expect(got.faults).toEqual(want.faults);

    // A declared length of 2^32 - 1 is refused from the header, before a byte is held.
    const before = process.memoryUsage().arrayBuffers;
    const huge = Uint8Array.from([1, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0]);
    const big = await relay(huge, [], { level: 'json', codec: readResource, backend });
    expect(big.faults).toEqual([{ reason: 'oversize', offset: 0 }]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 << 20);

    // A tail cut inside a record: the open channel gets its finish, then the stream errors.
    const cut = Buffer.concat([encodeResponse(1, frame), encodeResponse(2, frame).subarray(0, 12)]);
    const tail = await relay(cut, [5], { level: 'json', codec: readResource, backend });
    expect(hex(tail.bytes)).toBe(hex(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)])));
    expect(tail.faults).toEqual([
      { reason: 'truncated', offset: 9 + frame.length },
      { reason: 'incomplete', channel: 1, offset: 0 },
    ]);
  });

  it(`takes a scan's records at once with the verdicts, faults, bytes and counts of one call a record (seed ${SEED})`, () => {
    // The same relay, its reader handed a sink with the calls made one record at a time, and those `batched` adds.
    const wrapped = (batched?: (sink: RecordSink) => Pick<RecordSink, 'fold' | 'records'>): Backend => ({
      ...backend,
      createReader: (limits, sink) =>
        backend.createReader(limits, {
          admit: (channel, length) => sink.admit(channel, length),
          response: (...args) => sink.response(...args),
          finish: (channel, offset) => sink.finish(channel, offset),
          settle: () => sink.settle?.(),
          ...batched?.(sink),
        }),
    });
    const oneByOne = wrapped();
    const run = (via: Backend, input: Uint8Array, cuts: number[], options: RelayOptions) => {
      const faults: RelayFault[] = [];
      const out: number[] = [];
      const state = new RelayState({ ...options, backend: via, onFault: (f) => faults.push(f) }, via, (bytes) => out.push(...bytes));
      let from = 0;
      let stopped: unknown = null;
      for (const cut of [...cuts, input.length]) {
        stopped ??= state.push(input.subarray(from, cut));
        from = cut;
      }
      stopped ??= state.end();
      const { validationSeconds, validationBuckets, ...counts } = state.stats;
      return { bytes: hex(Uint8Array.from(out)), faults, stopped, counts };
    };
    // The batched relay, its scans' entries counted on the way: how many exchanges the kernel folded into runs.
    let folded = 0;
    const counting = wrapped((sink) => ({
      fold: () => sink.fold!(),
      records: (scan, streamBase, verify) => {
        for (let e = 0; e < scan.count * ENTRY_FIELDS; e += ENTRY_FIELDS) if (scan.table[e] === KIND_RUN) folded += scan.table[e + 1];
        return sink.records!(scan, streamBase, verify);
      },
    }));
    const g = new Gen(rng(SEED ^ 0x5ca7));
    let batched = 0;
    for (let n = 0; n < 1000; n++) {
      // Several generated streams back to back: long scans, channels that stay open across them, limits met midway.
      const input = Buffer.concat(Array.from({ length: 1 + g.int(6) }, () => (g.int(2) === 0 ? stream(g) : exchanges(g))));
      const cuts = Array.from({ length: g.int(5) }, () => g.int(input.length + 1)).sort((a, b) => a - b);
      const options: RelayOptions = {
        validate: g.pick(['full', 'json', 'none'] as const),
        endpoint: readResource,
        maxFrameBytes: g.pick([4096, 16 << 20]),
        maxOpenChannels: g.pick([1 + g.int(5), 4096]),
        maxHeldBytes: g.pick([64 << 20, 50 + g.int(800)]),
      };
      const where = `seed ${SEED ^ 0x5ca7}, stream ${n}, ${JSON.stringify(options)}, cuts ${cuts}, input ${hex(input)}`;
      const want = run(oneByOne, input, cuts, options);
      expect(run(counting, input, cuts, options), where).toEqual(want);
      if (want.counts.responsesIn + want.counts.finishesIn > 1) batched++;
    }
    expect(batched).toBeGreaterThan(500);
    // The core folds whole exchanges; the JS kernel hands on every record, and the relay's JS applies the same rules.
    if (backend.name === 'js') expect(folded).toBe(0);
    else expect(folded).toBeGreaterThan(1000);
  });
});
