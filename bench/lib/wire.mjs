// The relay at wire speed: 96 MiB record streams through the relay in process, through the CLI, and over TCP.
//
// One operation moves 96 MiB, and the CLI and TCP cases time whole
// processes, so each case runs in rounds (bench/lib/rounds.mjs):
//
//   relay/web-streams/F   createRelay in this process, 64 KiB chunks   peer: validate-only of the same frames
//   relay/cli/F           `mcp-frames relay FILE /dev/null`             peer: a bare Node pipe of the same file
//                                                                     (reported beside it: the same pipe reading 256 KiB at a time, as the relay does)
//   relay/tcp-single/F    `mcp-frames relay --listen --upstream`        peer: a bare Node TCP proxy process
//                         (one client: reported, not judged; the 16-client cases in concurrent.mjs are)
//
// F is blob (1 MiB base64 reads), listing (16 KiB listings) or small (~80 B
// listings). For the CLI and TCP cases both wall-time throughput and CPU
// seconds of the relaying process are measured; CPU is what a relay costs
// its operator, and it is steadier than wall time on a shared machine.
// Every case checks its output before it is timed. The in-process cases then
// run WARM_PASSES unmeasured passes of each: a process new to a 96 MiB stream
// of 768 KiB records grows the core's memory, its heaps and its compiled
// code over the first passes: on blobs the relay's CPU a byte fell
// fivefold, and its page faults from 13.7 to 0.1 a MiB, after three.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT } from './env.mjs';
import { blobRead, describeFixture, frameBytes, frameViews, listingMedium, TAG_RESULT } from './fixtures.mjs';
import { createRng } from './rng.mjs';
import { CLI, cpuFigures, measure, MiB, roundResult, serverRounds } from './rounds.mjs';

const STREAM_BYTES = 96 * MiB;
/** What the CLI relay reads a file in (src/streams/read-slabs.ts): the bare pipe's second figure reads as much. */
const LARGE_READ = 256 * 1024;
const CHUNK = 64 * 1024;
const WARM_PASSES = 4;

/** A listing of about 80 bytes: one resource with a short uri and name. */
function listingTiny(rng) {
  const name = `r${rng.range(0, 99999)}`;
  return { resources: [{ uri: `file:///d/${name}`, name }] };
}

/**
 * `make(rng)` frames (`distinct` of them) taken in turn, each as a response
 * followed by its finish, until the stream reaches `bytes`; records written
 * by hand (WIRE.md section 3), straight into one buffer.
 */
export function recordStream(rng, bytes, distinct, make) {
  const frames = Array.from({ length: distinct }, () => frameBytes(TAG_RESULT, make(rng)));
  let size = 0;
  let count = 0;
  while (size < bytes) size += 18 + frames[count++ % distinct].length;
  const stream = new Uint8Array(size);
  const view = new DataView(stream.buffer);
  let at = 0;
  for (let k = 0; k < count; k++) {
    const frame = frames[k % distinct];
    const channel = k % 4096;
    stream[at] = 1;
    view.setUint32(at + 1, channel, true);
    view.setUint32(at + 5, frame.length, true);
    stream.set(frame, at + 9);
    at += 9 + frame.length;
    stream[at] = 2;
    view.setUint32(at + 1, channel, true);
    at += 9;
  }
  return { stream, records: 2 * count, sha256: createHash('sha256').update(stream).digest('hex') };
}

/** A 96 MiB record stream (recordStream), with its frames as views of it: the validate-only peer reads exactly the relay's bytes. */
function longStream(rng, distinct, make) {
  const { stream, sha256 } = recordStream(rng, STREAM_BYTES, distinct, make);
  return { stream, frames: frameViews(stream), sha256 };
}

const WIRE_FIXTURES = [
  {
    name: 'blob',
    description: '96 MiB: 1 MiB readResource base64 blobs, each response followed by its finish',
    distinct: 8,
    make: (r) => blobRead(r, MiB),
  },
  {
    name: 'listing',
    description: '96 MiB: 16 KiB listResources pages of 100 resources, each followed by its finish',
    distinct: 64,
    make: listingMedium,
  },
  { name: 'small', description: '96 MiB: listings of about 80 bytes (one resource), each followed by its finish', distinct: 256, make: listingTiny },
];

/** The fixtures named in `names`, each from its own seeded generator. */
function buildWireFixtures(seed, names) {
  return WIRE_FIXTURES.filter((f) => names.includes(f.name)).map((f, k) => ({
    name: f.name,
    description: f.description,
    distinct: f.distinct,
    ...longStream(createRng((seed ^ 0x77697265) + k), f.distinct, f.make),
  }));
}

// ---------------------------------------------------------------------------
// In process.

/**
 * 64 KiB chunks of `stream` through `transform` (a { writable, readable }
 * pair), the output counted; resolves with the byte count and, with `hash`
 * (for a check, never while timed), the output's SHA-256.
 */
async function through(transform, stream, hash = false) {
  let at = 0;
  const source = new ReadableStream({
    pull(controller) {
      if (at >= stream.length) controller.close();
      else {
        controller.enqueue(stream.subarray(at, at + CHUNK));
        at += CHUNK;
      }
    },
  });
  const reader = source.pipeThrough(transform).getReader();
  const h = hash ? createHash('sha256') : null;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes, sha256: h?.digest('hex') };
    bytes += value.length;
    h?.update(value);
  }
}

/** The relay over `stream`; with `hash`, the SHA-256 of its output too (for the check, never while timed). */
async function relayOnce(lib, backend, stream, hash = false) {
  const relay = lib.createRelay({ backend, validate: 'json' });
  const { bytes, sha256 } = await through(relay, stream, hash);
  return { bytes, sha256, faults: relay.stats.faults };
}

/** codec.validate on every frame (validate judges no schema: any endpoint's codec does); the count refused. */
function validateAll(codec, frames) {
  let faults = 0;
  for (const frame of frames) if (codec.validate(frame) !== null) faults++;
  return faults;
}

async function longStreamCases(lib, fixtures, backends, rounds, progress) {
  const results = [];
  for (const f of fixtures) {
    for (const backend of backends) {
      const codec = lib.readResource.withBackend(backend);
      progress(`relay/web-streams/${f.name}@${backend.name}: checking`);
      const check = await relayOnce(lib, backend, f.stream, true);
      if (check.bytes !== f.stream.length || check.sha256 !== f.sha256 || check.faults !== 0) {
        throw new Error(`relay/web-streams/${f.name}@${backend.name}: the output is not the input (${check.bytes} bytes, ${check.faults} faults)`);
      }
      if (validateAll(codec, f.frames) !== 0) throw new Error(`peer/validate-only/${f.name}@${backend.name}: a frame of the fixture was refused`);
      progress(`relay/web-streams/${f.name}@${backend.name}: warming up`);
      for (let w = 0; w < WARM_PASSES; w++) {
        await relayOnce(lib, backend, f.stream);
        validateAll(codec, f.frames);
        await through(new TransformStream(), f.stream);
      }
      /** @type {Record<'relay' | 'peer' | 'floor', { wall: number, cpu: number, faults: number }[]>} */
      const runs = { relay: [], peer: [], floor: [] };
      for (let r = 0; r < rounds; r++) {
        progress(`relay/web-streams/${f.name}@${backend.name}: round ${r + 1} of ${rounds}`);
        const relayed = await measure(() => relayOnce(lib, backend, f.stream));
        if (relayed.value.bytes !== f.stream.length || relayed.value.faults !== 0)
          throw new Error(`relay: ${relayed.value.bytes} of ${f.stream.length} bytes, ${relayed.value.faults} faults while timed`);
        runs.relay.push(relayed);
        runs.peer.push(await measure(async () => validateAll(codec, f.frames)));
        const floor = await measure(async () => (await through(new TransformStream(), f.stream)).bytes);
        if (floor.value !== f.stream.length) throw new Error('identity stream: bytes lost');
        runs.floor.push(floor);
      }
      const result = (layer, op, backendName, impl, list, extra) =>
        roundResult(
          { layer, op, fixture: f.name, backend: backendName, name: `${layer}/${op}/${f.name}`, impl },
          list.map((x) => x.wall),
          f.stream.length,
          extra,
        );
      results.push(
        result('relay', 'web-streams', backend.name, `createRelay({ validate: 'json' }) on ${backend.name}, 64 KiB chunks`, runs.relay, {
          ...cpuFigures(runs.relay, f.stream.length, 4),
        }),
        result('peer', 'validate-only', backend.name, `codec.validate on each frame of the stream (${backend.name})`, runs.peer, {
          ...cpuFigures(
            runs.peer.map(({ cpu }) => ({ cpu })),
            f.stream.length,
            4,
          ),
        }),
        result(
          'peer',
          'identity-stream',
          `web-streams-${backend.name}-round`,
          'the same 64 KiB chunks through an identity TransformStream: what Web Streams alone cost, the floor for createRelay',
          runs.floor,
          cpuFigures(runs.floor, f.stream.length, 4),
        ),
      );
    }
  }
  return results;
}

// ---------------------------------------------------------------------------
// Processes.

const HOOK = new URL('../peers/rusage-hook.mjs', import.meta.url).pathname;

/** Runs `node --import HOOK ...args` to its end; resolves with wall seconds, the process's CPU seconds and its page faults. */
function runProcess(args, dir) {
  const usageFile = join(dir, `rusage-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', HOOK, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MCP_FRAMES_RUSAGE_FILE: usageFile },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').at(-1)}`));
      const u = JSON.parse(readFileSync(usageFile, 'utf8'));
      rmSync(usageFile, { force: true });
      resolve({ wall, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6, faults: u.minorPageFault });
    });
  });
}

function processResult(layer, op, f, backend, impl, runs) {
  return roundResult(
    { layer, op, fixture: f.name, backend, name: `${layer}/${op}/${f.name}`, impl },
    runs.map((r) => r.wall),
    f.stream.length,
    cpuFigures(runs, f.stream.length),
  );
}

/** The endpoint each fixture's frames answer: what `relay --validate full` judges them by. */
const CLI_ENDPOINTS = { blob: 'read-resource', listing: 'list-resources', small: 'list-resources' };

/**
 * The CLI cases of `fixtures`; `fullOf(f)` says whether relay/cli-full/F runs too, in the same rounds.
 * @param {(f: any) => boolean} [fullOf]
 */
async function cliCases(fixtures, rounds, progress, fullOf = () => false) {
  const dir = mkdtempSync(join(os.tmpdir(), 'mcp-frames-wire-'));
  const results = [];
  try {
    for (const f of fixtures) {
      const full = fullOf(f);
      const input = join(dir, `${f.name}.bin`);
      const output = join(dir, `${f.name}.out`);
      writeFileSync(input, f.stream);
      progress(`relay/cli/${f.name}: checking`);
      await runProcess([CLI, 'relay', input, output], dir);
      const sha = createHash('sha256').update(readFileSync(output)).digest('hex');
      rmSync(output);
      if (sha !== f.sha256) throw new Error(`relay/cli/${f.name}: the output file is not the input`);
      // At full, the fixture's endpoint: the CLI judges every frame by it. Its yardstick is json with the same
      // --endpoint, which loads the same modules (the SDK's schemas), so that the ratio is the judging's alone.
      const fullArgs = [CLI, 'relay', '--validate', 'full', '--endpoint', CLI_ENDPOINTS[f.name], input];
      const jsonArgs = [CLI, 'relay', '--validate', 'json', '--endpoint', CLI_ENDPOINTS[f.name], input];
      if (full) {
        progress(`relay/cli-full/${f.name}: checking`);
        await runProcess([...fullArgs, output], dir);
        const fullSha = createHash('sha256').update(readFileSync(output)).digest('hex');
        rmSync(output);
        if (fullSha !== f.sha256) throw new Error(`relay/cli-full/${f.name}: the output file is not the input (a frame refused?)`);
      }
      const relay = [];
      const relayFull = [];
      const relayJson = [];
      const peer = [];
      const peerLarge = [];
      for (let r = 0; r < rounds; r++) {
        progress(`relay/cli/${f.name}: round ${r + 1} of ${rounds}`);
        relay.push(await runProcess([CLI, 'relay', input, '/dev/null'], dir));
        if (full) {
          relayFull.push(await runProcess([...fullArgs, '/dev/null'], dir));
          relayJson.push(await runProcess([...jsonArgs, '/dev/null'], dir));
        }
        peer.push(await runProcess(['bench/peers/pipe.mjs', input, '/dev/null'], dir));
        peerLarge.push(await runProcess(['bench/peers/pipe.mjs', input, '/dev/null', String(LARGE_READ)], dir));
      }
      if (full)
        results.push(
          processResult(
            'relay',
            'cli-full',
            f,
            'mcp-frames',
            `\`mcp-frames relay --validate full --endpoint ${CLI_ENDPOINTS[f.name]} FILE /dev/null\` (backend auto), the whole process, in the same rounds as relay/cli`,
            relayFull,
          ),
          processResult(
            'relay',
            'cli-json',
            f,
            'mcp-frames',
            `\`mcp-frames relay --validate json --endpoint ${CLI_ENDPOINTS[f.name]} FILE /dev/null\`: relay/cli-full's yardstick, the same modules loaded`,
            relayJson,
          ),
        );
      results.push(
        processResult('relay', 'cli', f, 'mcp-frames', '`mcp-frames relay FILE /dev/null` (validate json, backend auto), the whole process', relay),
        processResult(
          'peer',
          'cli-pipe',
          f,
          'node',
          'a bare Node pipe: fs.createReadStream(FILE).pipe(fs.createWriteStream(/dev/null)), the whole process',
          peer,
        ),
        processResult(
          'peer',
          'cli-pipe-256k',
          f,
          'node',
          'the same bare Node pipe reading 256 KiB at a time (highWaterMark), as the relay reads a file: reported, not judged',
          peerLarge,
        ),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function tcpCases(fixtures, rounds, progress) {
  const results = [];
  for (const f of fixtures) {
    const { runs } = await serverRounds(f, {
      name: `relay/tcp-single/${f.name}`,
      servers: [
        ['relay', (up) => [CLI, 'relay', '--listen', '127.0.0.1:0', '--upstream', up]],
        ['peer', (up) => ['bench/peers/tcp-proxy.mjs', '--listen', '127.0.0.1:0', '--upstream', up]],
      ],
      count: 1,
      rounds,
      progress,
    });
    results.push(
      processResult(
        'relay',
        'tcp-single',
        f,
        'mcp-frames',
        '`mcp-frames relay --listen --upstream` (validate json, backend auto) between a loopback upstream and a client',
        runs.relay,
      ),
      processResult('peer', 'tcp-proxy', f, 'node', 'a bare Node TCP proxy process (socket.pipe both ways), same harness', runs.peer),
    );
  }
  return results;
}

/** The wire-speed cases by name (layer/op/fixture). */
export const WIRE_NAMES = ['web-streams', 'cli', 'cli-full', 'tcp-single'].flatMap((op) =>
  ['blob', 'listing', 'small'].map((f) => `relay/${op}/${f}`),
);

/**
 * Runs the wire-speed cases whose names pass `wanted` (a predicate on
 * 'layer/op/fixture'); `quick` runs fewer rounds. Returns report results
 * and the fixtures' descriptions.
 */
export async function runWireCases({ lib, seed, quick, wanted, progress }) {
  const selected = WIRE_NAMES.filter(wanted);
  if (selected.length === 0) return { results: [], fixtures: [] };
  progress('wire: building the 96 MiB streams');
  const fixtures = buildWireFixtures(
    seed,
    ['blob', 'listing', 'small'].filter((name) => selected.some((n) => n.endsWith(`/${name}`))),
  );
  const pick = (op) => fixtures.filter((f) => selected.includes(`relay/${op}/${f.name}`));
  const rounds = quick ? 2 : 5;
  const backends = [lib.loadBackend('auto'), lib.loadBackend('js')];
  const results = [];
  results.push(...(await longStreamCases(lib, pick('web-streams'), backends, rounds, progress)));
  // relay/cli-full/F runs in relay/cli/F's rounds, so that the two are timed side by side.
  const cliFixtures = fixtures.filter((f) => selected.includes(`relay/cli/${f.name}`) || selected.includes(`relay/cli-full/${f.name}`));
  results.push(...(await cliCases(cliFixtures, rounds, progress, (f) => selected.includes(`relay/cli-full/${f.name}`))));
  results.push(...(await tcpCases(pick('tcp-single'), rounds, progress)));
  return {
    results,
    fixtures: fixtures.map((f) => ({
      name: f.name,
      kind: 'wire',
      description: f.description,
      ...describeFixture({ variants: [{ bytes: f.stream }], bytesPerOp: f.stream.length }),
      variants: f.distinct,
      records: f.frames.length * 2,
    })),
  };
}

/**
 * The wire-speed and CLI targets. `metric: 'cpu'` compares bytes per CPU second of the
 * relaying process (the peer's CPU per byte over the relay's); the rest
 * compare throughput.
 */
export function wireTargets(wasm) {
  const specs = [];
  for (const [f, target] of [
    ['blob', 0.6],
    ['listing', 0.8],
    ['small', 1.0],
  ]) {
    const spec = {
      fixture: f,
      num: [`relay/web-streams/${f}`, wasm],
      den: [`peer/validate-only/${f}`, wasm],
      target,
      comparison: '>=',
      limit: {
        cost: [`peer/identity-stream/${f}`, `web-streams-${wasm}-round`],
        how: 'validate-only plus the same chunks through an identity TransformStream',
      },
    };
    specs.push({ ...spec, group: `the Web Streams relay ≥ ${target}× validate-only of the same frames, wall time` });
    specs.push({ ...spec, group: `the Web Streams relay ≥ ${target}× validate-only of the same frames, CPU time`, metric: 'cpu' });
  }
  // The CLI relay, judged on CPU a byte: wall time on 2 cores measures the machine as much as the relay. The
  // single-client TCP relay is reported, not judged: its targets are the 16-client ones (concurrent.mjs).
  for (const [f, target] of [
    ['blob', 0.85],
    ['listing', 0.8],
    ['small', 0.7],
  ]) {
    specs.push({
      group: `the CLI relay ≥ ${target}× a bare Node pipe of the file, CPU per byte`,
      fixture: f,
      num: [`relay/cli/${f}`, 'mcp-frames'],
      den: [`peer/cli-pipe/${f}`, 'node'],
      target,
      comparison: '>=',
      metric: 'cpu',
      // What validating the listings costs at the least, as for the TCP relay (concurrent.mjs).
      ...(f === 'listing'
        ? { limit: { cost: ['peer/native/listing-medium', 'simdjson-native'], how: 'a bare Node pipe plus native simdjson on 16 KiB listings' } }
        : {}),
    });
  }
  return specs;
}

/** A figure with `d` decimals and thousands separators, or a dash for none: every table of the report writes them so. */
export const fmt = (x, d = 0) => (x == null ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));

/** The markdown section of the wire-speed cases, or null when none ran. */
export function renderWire(cases, wasm) {
  const find = (name, backend) => cases.find((c) => c.name === name && c.backend === backend && c.opsPerSec);
  const out = [];
  const long = ['blob', 'listing', 'small'].filter((f) => find(`relay/web-streams/${f}`, wasm));
  if (long.length) {
    out.push('### The Web Streams relay in process (96 MiB streams in 64 KiB chunks, createRelay)');
    out.push('');
    out.push(
      `| fixture | relay ${wasm} MB/s | validate-only ${wasm} MB/s | ratio | relay js MB/s | validate-only js MB/s | ratio | page faults per MiB (${wasm}) | identity TransformStream MB/s |`,
    );
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const f of long) {
      const r = find(`relay/web-streams/${f}`, wasm);
      const v = find(`peer/validate-only/${f}`, wasm);
      const rj = find(`relay/web-streams/${f}`, 'js');
      const vj = find(`peer/validate-only/${f}`, 'js');
      out.push(
        `| ${f} | ${fmt(r?.mbPerSec)} ±${fmt(r?.rme, 1)}% | ${fmt(v?.mbPerSec)} ±${fmt(v?.rme, 1)}% | ${r && v ? fmt(r.opsPerSec / v.opsPerSec, 2) : '—'}× | ${fmt(rj?.mbPerSec)} | ${fmt(vj?.mbPerSec)} | ${rj && vj ? fmt(rj.opsPerSec / vj.opsPerSec, 2) : '—'}× | ${fmt(r?.minorPageFaultsPerMiB, 2)} | ${fmt(find(`peer/identity-stream/${f}`, `web-streams-${wasm}-round`)?.mbPerSec)} |`,
      );
    }
    out.push('');
  }
  for (const [op, peer, title] of [
    ['cli', 'cli-pipe', 'The CLI relay (`relay FILE /dev/null`) against a bare Node pipe of the file, whole processes'],
    ['tcp-single', 'tcp-proxy', 'One client through the TCP relay against a bare Node TCP proxy, same loopback harness (reported, not judged)'],
  ]) {
    const fixtures = ['blob', 'listing', 'small'].filter((f) => find(`relay/${op}/${f}`, 'mcp-frames'));
    if (!fixtures.length) continue;
    out.push(`### ${title}`);
    out.push('');
    // The CLI relay reads a file 256 KiB at a time: the same pipe reading as much is shown beside Node's default.
    const large = op === 'cli';
    out.push(
      `| fixture | relay MB/s | peer MB/s | wall ratio | relay CPU s | peer CPU s | CPU ratio (peer/relay) | relay CPU ns/byte |${large ? ' peer CPU s, 256 KiB reads | CPU ratio, 256 KiB reads |' : ''}`,
    );
    out.push(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |${large ? ' ---: | ---: |' : ''}`);
    for (const f of fixtures) {
      const r = find(`relay/${op}/${f}`, 'mcp-frames');
      const p = find(`peer/${peer}/${f}`, 'node');
      const q = large ? find(`peer/${peer}-256k/${f}`, 'node') : null;
      out.push(
        `| ${f} | ${fmt(r?.mbPerSec)} ±${fmt(r?.rme, 1)}% | ${fmt(p?.mbPerSec)} ±${fmt(p?.rme, 1)}% | ${r && p ? fmt(r.opsPerSec / p.opsPerSec, 2) : '—'}× | ${fmt(r?.cpuSeconds, 3)} | ${fmt(p?.cpuSeconds, 3)} | ${r && p ? fmt(p.cpuSeconds / r.cpuSeconds, 2) : '—'}× | ${fmt(r?.cpuNanosecondsPerByte, 2)} |` +
          (large ? ` ${fmt(q?.cpuSeconds, 3)} | ${r && q ? fmt(q.cpuSeconds / r.cpuSeconds, 2) : '—'}× |` : ''),
      );
    }
    out.push('');
  }
  return out.length ? out.join('\n') : null;
}
