// The relay beside a bare proxy, CPU against CPU: 16 concurrent clients over TCP, and small frames in process against native simdjson.
//
//   relay/tcp-concurrent/F   `mcp-frames relay --listen --upstream` (validate json), one process,
//                            16 clients at once         peer: bare Node TCP proxy process, same clients
//   relay/tcp-concurrent-full/F   the same with --validate full and the fixture's --endpoint (the
//                            streams carry no request lines), timed in the same turns
//   relay/in-process/small   pipeRelay (validate json) from 64 KiB chunks to a writable that drops them,
//                            ns a frame                 peer: native simdjson, one parse a frame body
//   relay/in-process-full/small   the same with validate full (listResources), beside json: not a target
//
// F is small (~150-byte listings), listing (16 KiB listings) or blob
// (768 KiB readResource blobs), each response followed by its finish; each
// client reads its own 8 MiB copy of the stream.
//
// # CPU of the relaying process, not wall time
//
// On a 2-core machine the load generator (the upstream and the 16 clients,
// this process) shares the cores with the relay, so wall time says as much
// about the load generator as about the relay. The judged figure is the
// relay process's CPU a byte: utime + stime from /proc/PID/stat, read
// before and after each round, against the bare proxy's over the same
// bytes. Each round times the relay, then the proxy, so both see the same
// moment of a shared machine, after WARM_ROUNDS rounds in the same turns
// that are not counted: a process new to the load compiles and grows its
// heaps over its first rounds. Every output is checked (SHA-256 of each
// client's bytes, no fault on stderr) before it is timed.
//
// # Page faults under continuous load
//
// The page faults judged (minflt from /proc, per MiB relayed) are each
// process's own under continuous load, after the rounds in turns: it relays
// round after round until its resident memory has stopped growing, then
// CONTINUOUS_ROUNDS rounds are counted (serverRounds). A process that
// takes turns sits idle more than half the time, and V8 then shrinks its
// young generation and grows it back, a fresh page at a time, however
// little the process allocates; the faults of the rounds in turns are in
// the report beside the judged ones. Memory given back and faulted in
// again is counted either way: only growth ends the warm-up.

import { Readable, Writable } from 'node:stream';
import { blobRead, frameViews, listingMedium } from './fixtures.mjs';
import { createRng } from './rng.mjs';
import { CLI, cpuFigures, faultsPerMiB, mean, measure, MiB, rmeOf, roundResult, serverRounds } from './rounds.mjs';
import { fmt, recordStream } from './wire.mjs';

const CLIENTS = 16;
const WARM_ROUNDS = 10;
/** Rounds of continuous load whose page faults are counted, and the most rounds before them for the process's memory to become steady. */
const CONTINUOUS_ROUNDS = 10;
const MAX_STEADY_ROUNDS = 150;
/**
 * Unmeasured passes of the in-process stream at each level before its
 * rounds: a process new to the relay compiles it and grows its heaps over
 * the first passes, and the CPU a frame fell by half, its page faults to
 * none, only after about eight passes of 64 MiB.
 */
const WARM_PASSES = 8;
const CHUNK = 64 * 1024;

/** A listing of one resource, about 150 bytes as a frame: the size most resources/read and short list answers have. */
export function listingSmall(rng) {
  const name = `r${rng.range(0, 99999)}`;
  return {
    resources: [{ uri: `file:///data/resources/${name}.txt`, name, mimeType: 'text/plain', size: rng.range(0, 99999), description: 'a text file' }],
  };
}

const FIXTURES = [
  {
    name: 'small',
    description: '8 MiB a client: ~150-byte listings, each response followed by its finish',
    distinct: 256,
    make: listingSmall,
    endpoint: 'list-resources',
  },
  {
    name: 'listing',
    description: '8 MiB a client: 16 KiB listResources pages, each followed by its finish',
    distinct: 64,
    make: listingMedium,
    endpoint: 'list-resources',
  },
  {
    name: 'blob',
    description: '8 MiB a client: 768 KiB readResource base64 blobs, each followed by its finish',
    distinct: 4,
    make: (r) => blobRead(r, 768 * 1024),
    endpoint: 'read-resource',
  },
];

/** The TCP relay at each level: the op, and its --validate. */
const TCP_LEVELS = [
  ['tcp-concurrent', 'json'],
  ['tcp-concurrent-full', 'full'],
];

/** The cases by name (layer/op/fixture). */
export const CONCURRENT_NAMES = [
  ...TCP_LEVELS.flatMap(([op]) => FIXTURES.map((f) => `relay/${op}/${f.name}`)),
  'relay/in-process/small',
  'relay/in-process-full/small',
];

/**
 * The result of a server's rounds taken in turns (`runs`), with the page
 * faults a MiB judged taken under continuous load (`continuous`, from
 * serverRounds) and the ones of the rounds in turns beside them.
 */
function usageResult(base, runs, continuous, total) {
  const { minorPageFaultsPerMiB: takingTurns, ...figures } = cpuFigures(runs, total);
  const faults = continuous?.faults.every((x) => x != null)
    ? {
        minorPageFaultsPerMiB: faultsPerMiB(continuous.faults, total),
        minorPageFaultsPerMiBTakingTurns: takingTurns,
        continuousWarmUpRounds: continuous.warmUpRounds,
      }
    : {};
  return roundResult(
    base,
    runs.map((r) => r.wall),
    total,
    { clients: CLIENTS, ...figures, ...faults },
  );
}

/** The TCP relay at each level `wanted` and the bare proxy, in the same turns. */
async function tcpConcurrentCase(f, rounds, progress, wanted) {
  const total = CLIENTS * f.stream.length;
  const levels = TCP_LEVELS.filter(([op]) => wanted(`relay/${op}/${f.name}`));
  // At full the fixture's endpoint is named: `--endpoint auto` would refuse every frame of a stream with no request lines.
  const flags = (validate) => ['--validate', validate, ...(validate === 'full' ? ['--endpoint', f.endpoint] : [])];
  const { runs, continuous } = await serverRounds(f, {
    name: `relay/${levels.map(([op]) => op).join('+')}/${f.name}`,
    servers: [
      ...levels.map(([op, validate]) => [op, (up) => [CLI, 'relay', '--listen', '127.0.0.1:0', '--upstream', up, ...flags(validate)]]),
      ['peer', (up) => ['bench/peers/tcp-proxy.mjs', '--listen', '127.0.0.1:0', '--upstream', up]],
    ],
    count: CLIENTS,
    rounds,
    warmUp: WARM_ROUNDS,
    continuousRounds: CONTINUOUS_ROUNDS,
    maxSteadyRounds: MAX_STEADY_ROUNDS,
    progress,
  });
  return [
    ...levels.map(([op, validate]) =>
      usageResult(
        {
          layer: 'relay',
          op,
          fixture: f.name,
          backend: 'mcp-frames',
          name: `relay/${op}/${f.name}`,
          impl: `\`mcp-frames relay --listen --upstream ${flags(validate).join(' ')}\`, one process, 16 clients at once`,
        },
        runs[op],
        continuous[op],
        total,
      ),
    ),
    usageResult(
      {
        layer: 'peer',
        op: 'tcp-proxy-concurrent',
        fixture: f.name,
        backend: 'node',
        name: `peer/tcp-proxy-concurrent/${f.name}`,
        impl: 'a bare Node TCP proxy process (socket.pipe both ways), the same 16 clients',
      },
      runs.peer,
      continuous.peer,
      total,
    ),
  ];
}

/** pipeRelay at `validate` over `chunks` into a writable that counts; resolves with the bytes out and the faults reported. */
async function pipeOnce(lib, backend, validate, chunks) {
  let bytes = 0;
  // A plain Readable pushing the chunks as asked: Readable.from's async iterator costs a promise a chunk.
  let next = 0;
  const input = new Readable({
    highWaterMark: 4 * CHUNK,
    read() {
      while (next < chunks.length) if (!this.push(chunks[next++])) return;
      this.push(null);
    },
  });
  const output = new Writable({
    highWaterMark: 1 << 20,
    writev(pieces, done) {
      for (const p of pieces) bytes += p.chunk.length;
      done();
    },
    write(piece, _encoding, done) {
      bytes += piece.length;
      done();
    },
  });
  let faults = 0;
  const { done } = lib.pipeRelay(input, output, { backend, validate, endpoint: lib.listResources, onFault: () => faults++ });
  const end = await done;
  if (end.end !== 'ended') throw new Error(`pipeRelay ended ${end.end}`);
  return { bytes, faults };
}

/** Runs `fn` once unmeasured, then once measured (rounds.mjs measure). */
async function cpuRuns(fn) {
  await fn();
  return measure(fn);
}

/** The in-process case at each level: its name and its pipeRelay validate option. */
const IN_PROCESS = [
  ['relay/in-process/small', 'json'],
  ['relay/in-process-full/small', 'full'],
];

async function inProcessCases(lib, f, native, rounds, wanted, progress) {
  const backend = lib.loadBackend('auto');
  const chunks = [];
  for (let at = 0; at < f.stream.length; at += CHUNK) chunks.push(f.stream.subarray(at, at + CHUNK));
  const frames = f.records / 2;
  const levels = IN_PROCESS.filter(([name]) => wanted(name));
  for (const [name, validate] of levels) {
    progress(`${name}: checking`);
    const check = await pipeOnce(lib, backend, validate, chunks);
    if (check.bytes !== f.stream.length || check.faults !== 0)
      throw new Error(`${name}: ${check.bytes} of ${f.stream.length} bytes, ${check.faults} faults`);
  }
  // simdjson reads up to its padding past the end: each body is copied once, before timing, into a padded buffer of its own.
  const padded = native
    ? frameViews(f.stream).map((frame) => {
        const b = frame.subarray(1);
        const p = new Uint8Array(b.length + native.padding);
        p.set(b);
        return p;
      })
    : [];
  const lengths = padded.map((p) => p.length - native.padding);
  if (native && padded.some((p, k) => !native.isValid(p, lengths[k])))
    throw new Error('relay/in-process: simdjson refuses a frame body of the stream');
  for (const [name, validate] of levels) {
    progress(`${name}: warming up`);
    for (let w = 0; w < WARM_PASSES; w++) await pipeOnce(lib, backend, validate, chunks);
  }
  /** @type {{ wall: number, cpu: number, faults: number }[][]} */
  const relayRuns = levels.map(() => []);
  const peerRuns = [];
  for (let r = 0; r < rounds; r++) {
    progress(`relay/in-process: round ${r + 1} of ${rounds}`);
    for (const [k, [, validate]] of levels.entries()) relayRuns[k].push(await cpuRuns(() => pipeOnce(lib, backend, validate, chunks)));
    if (native)
      peerRuns.push(
        await cpuRuns(() => {
          for (let k = 0; k < padded.length; k++) native.isValid(padded[k], lengths[k]);
        }),
      );
  }
  const perFrame = (runs) => ({
    cpuSeconds: Math.round(mean(runs.map((x) => x.cpu)) * 1e4) / 1e4,
    cpuRme: Math.round(rmeOf(runs.map((x) => x.cpu)) * 100) / 100,
    bytesPerCpuSecond: f.stream.length / mean(runs.map((x) => x.cpu)),
    cpuNanosecondsPerByte: Math.round((mean(runs.map((x) => x.cpu)) / f.stream.length) * 1e9 * 1000) / 1000,
    cpuNanosecondsPerFrame: Math.round((mean(runs.map((x) => x.cpu)) / frames) * 1e9 * 10) / 10,
    minorPageFaultsPerMiB: faultsPerMiB(
      runs.map((x) => x.faults),
      f.stream.length,
    ),
    frames,
  });
  const results = levels.map(([name, validate], k) =>
    roundResult(
      {
        layer: 'relay',
        op: name.split('/')[1],
        fixture: f.name,
        backend: backend.name,
        name,
        impl: `pipeRelay (validate ${validate}${validate === 'full' ? ', listResources' : ''}, ${backend.name}), 64 KiB chunks in, a writable that counts`,
      },
      relayRuns[k].map((x) => x.wall),
      f.stream.length,
      perFrame(relayRuns[k]),
    ),
  );
  if (native)
    results.push(
      roundResult(
        {
          layer: 'peer',
          op: 'simdjson-each',
          fixture: f.name,
          backend: 'native',
          name: `peer/simdjson-each/${f.name}`,
          impl: `native simdjson ${native.version} (${native.kernel}): one parse a frame body, one reused parser`,
        },
        peerRuns.map((x) => x.wall),
        f.stream.length,
        perFrame(peerRuns),
      ),
    );
  return results;
}

/**
 * Runs the cases whose names pass `wanted`; `quick` runs fewer rounds.
 * `native` is bench/lib/native.mjs's loadNative() answer, or null.
 */
export async function runConcurrentCases({ lib, native, quick, wanted, progress, seed = 0x636f6e63 }) {
  const inProcess = IN_PROCESS.some(([name]) => wanted(name));
  const tcpWanted = (f) => TCP_LEVELS.some(([op]) => wanted(`relay/${op}/${f.name}`));
  const selected = FIXTURES.filter((f) => tcpWanted(f) || (f.name === 'small' && inProcess));
  if (selected.length === 0) return { results: [], fixtures: [] };
  progress('concurrent: building the streams');
  const fixtures = selected.map((f, k) => ({ ...f, ...recordStream(createRng(seed + k), 8 * MiB, f.distinct, f.make) }));
  const rounds = quick ? 2 : 5;
  const results = [];
  for (const f of fixtures) if (tcpWanted(f)) results.push(...(await tcpConcurrentCase(f, rounds, progress, wanted)));
  const small = fixtures.find((f) => f.name === 'small');
  if (small && inProcess) {
    // The in-process case reads a 64 MiB stream of the same frames, as the CLI cases do.
    const long = { ...small, ...recordStream(createRng(seed), 64 * MiB, small.distinct, small.make) };
    results.push(...(await inProcessCases(lib, long, native?.native ? native : null, rounds, wanted, progress)));
  }
  return {
    results,
    fixtures: fixtures.map((f) => ({
      name: `concurrent-${f.name}`,
      kind: 'wire',
      description: f.description,
      bytes: f.stream.length,
      records: f.records,
    })),
  };
}

/** The targets of these cases, as target specs (bench/lib/report.mjs judges them). */
export function concurrentTargets() {
  const specs = [];
  // What validating every frame costs at the least: native simdjson on the same frames (one parse a ~150-byte body; 16 KiB listings).
  const validation = {
    small: { cost: ['peer/simdjson-each/small', 'native'], how: 'the bare proxy plus native simdjson parsing every frame body' },
    listing: { cost: ['peer/native/listing-medium', 'simdjson-native'], how: 'the bare proxy plus native simdjson on 16 KiB listings' },
  };
  for (const [f, target] of [
    ['small', 0.6],
    ['listing', 0.7],
    ['blob', 0.8],
  ]) {
    specs.push({
      group: "the TCP relay, 16 concurrent clients: a bare proxy's CPU a byte over the relay's",
      fixture: f,
      num: [`relay/tcp-concurrent/${f}`, 'mcp-frames'],
      den: [`peer/tcp-proxy-concurrent/${f}`, 'node'],
      target,
      comparison: '>=',
      metric: 'cpu',
      ...(validation[f] ? { limit: validation[f] } : {}),
    });
  }
  // At full, the schema judged on every frame besides rule 4.1.
  for (const [f, target] of [
    ['small', 0.7],
    ['listing', 0.55],
    ['blob', 0.9],
  ]) {
    specs.push({
      group: "the TCP relay at --validate full, 16 concurrent clients: a bare proxy's CPU a byte over the relay's",
      fixture: f,
      num: [`relay/tcp-concurrent-full/${f}`, 'mcp-frames'],
      den: [`peer/tcp-proxy-concurrent/${f}`, 'node'],
      target,
      comparison: '>=',
      metric: 'cpu',
      ...(validation[f] ? { limit: validation[f] } : {}),
    });
  }
  // A count, not a ratio: the relay's own page faults a MiB relayed, the bare proxy's beside it.
  for (const f of FIXTURES.map((x) => x.name))
    specs.push({
      group: 'the TCP relay, 16 concurrent clients: page faults a MiB relayed under continuous load, after warm-up',
      fixture: f,
      num: [`relay/tcp-concurrent/${f}`, 'mcp-frames'],
      den: [`peer/tcp-proxy-concurrent/${f}`, 'node'],
      target: 0.5,
      comparison: '<=',
      metric: 'faults',
    });
  specs.push({
    group: "the relay in process on small frames within 2.5× native simdjson's CPU a frame (simdjson's CPU over the relay's ≥ 0.4)",
    fixture: 'small',
    num: ['relay/in-process/small', 'wasm-simd'],
    den: ['peer/simdjson-each/small', 'native'],
    target: 0.4,
    comparison: '>=',
    metric: 'cpu',
  });
  return specs;
}

/** The markdown section of these cases, or null when none ran. */
export function renderConcurrent(cases) {
  const find = (name) => cases.find((c) => c.name === name && c.cpuSeconds != null);
  const out = [];
  const tcp = FIXTURES.map((f) => f.name).filter((f) => TCP_LEVELS.some(([op]) => find(`relay/${op}/${f}`)));
  if (tcp.length) {
    out.push(`### The TCP relay and a bare proxy, ${CLIENTS} concurrent clients: CPU of the relaying process`);
    out.push('');
    out.push(
      `The two processes take turns, a round each: first ${WARM_ROUNDS} rounds not counted (a process new to the load compiles and grows its heaps), then the rounds timed. ` +
        `Page faults are counted twice: in those rounds (in turns), and under continuous load, each process alone, round after round, once its resident memory has stopped growing (after the warm-up rounds given, at most ${MAX_STEADY_ROUNDS}), over ${CONTINUOUS_ROUNDS} rounds: the figure judged. ` +
        'A process idle half the time has its young generation shrunk by V8 and grown back, a fresh page at a time.',
    );
    out.push('');
    out.push(
      '| fixture | relay CPU ns/byte | bare CPU ns/byte | bare ÷ relay | relay page faults/MiB, continuous (warm-up rounds) | bare, continuous (warm-up rounds) | relay, in turns | bare, in turns |',
    );
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const faults = (c) => (c ? `${fmt(c.minorPageFaultsPerMiB, 2)} (${c.continuousWarmUpRounds ?? '—'})` : '—');
    for (const [op, validate] of TCP_LEVELS)
      for (const f of tcp) {
        const r = find(`relay/${op}/${f}`);
        if (!r) continue;
        const p = find(`peer/tcp-proxy-concurrent/${f}`);
        out.push(
          `| ${f} (${validate}) | ${fmt(r.cpuNanosecondsPerByte, 3)} | ${fmt(p?.cpuNanosecondsPerByte, 3)} | ${p ? fmt(p.cpuSeconds / r.cpuSeconds, 2) : '—'} | ${faults(r)} | ${faults(p)} | ${fmt(r.minorPageFaultsPerMiBTakingTurns, 2)} | ${fmt(p?.minorPageFaultsPerMiBTakingTurns, 2)} |`,
        );
      }
    out.push('');
  }
  const rows = [...IN_PROCESS.map(([name]) => name), 'peer/simdjson-each/small'].map(find).filter(Boolean);
  if (rows.length) {
    out.push('### The relay in process on small frames (64 MiB of ~150-byte listings, 64 KiB chunks), CPU');
    out.push('');
    out.push('| case | ns/frame | ns/byte | page faults/MiB |');
    out.push('| --- | ---: | ---: | ---: |');
    for (const c of rows)
      out.push(`| ${c.impl} | ${fmt(c.cpuNanosecondsPerFrame, 1)} | ${fmt(c.cpuNanosecondsPerByte, 3)} | ${fmt(c.minorPageFaultsPerMiB, 2)} |`);
    out.push('');
  }
  return out.length ? out.join('\n') : null;
}
