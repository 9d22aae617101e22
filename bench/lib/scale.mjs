// The TCP relay on every core: 16 concurrent clients through `--workers 2` and `--workers 1`, aggregate throughput.
//
//   relay/tcp-scale/F   `mcp-frames relay --listen --upstream --validate full --endpoint E --workers N`,
//                       16 clients at once, each reading its own copy of the stream F through the relay;
//                       backend 'workers-1' and 'workers-2' name N
//
// F is blob (1 MiB base64 reads, endpoint read-resource) or listing (16 KiB
// listings of 100 resources, endpoint list-resources). The figure is the
// aggregate: the bytes all 16 clients received, over the wall time from the
// first connect to the last byte. The target is throughput(2) ≥ 1.3 ×
// throughput(1).
//
// The load generator (the upstream and the 16 clients) runs in this process,
// on the machine's cores beside the relay's workers, as the target says; it
// is kept light: the upstream writes views of one prebuilt stream, and the
// clients count bytes, hashing nothing while timed. Both relays run for the
// whole case, and each round times the one, then the other. Each relay's
// CPU seconds (its processes' utime + stime from /proc, primary and workers
// summed) are reported beside the wall time, with the load generator's, the
// cores the whole machine kept busy, and what the rest of the machine took
// meanwhile: a second worker can only be faster if a second core is free.
// Every relay's output is checked (SHA-256 of each client's bytes, and no
// fault on stderr) before it is timed.

import { blobRead, listingMedium } from './fixtures.mjs';
import { createRng } from './rng.mjs';
import { CLI, clients as connect, machineBusy, mean, MiB, roundResult, serveStream, startNode } from './rounds.mjs';
import { recordStream } from './wire.mjs';

const CLIENTS = 16;

const SCALE_FIXTURES = [
  {
    name: 'blob',
    endpoint: 'read-resource',
    description: '16 clients x 16 MiB: 1 MiB readResource base64 blobs, each response followed by its finish',
    bytes: 16 * MiB,
    distinct: 4,
    make: (rng) => blobRead(rng, MiB),
  },
  {
    name: 'listing',
    endpoint: 'list-resources',
    description: '16 clients x 4 MiB: 16 KiB listResources pages of 100 resources, each followed by its finish',
    bytes: 4 * MiB,
    distinct: 32,
    make: listingMedium,
  },
];

/** 16 clients at once; resolves with the bytes each got (and its SHA-256 when `hash`). */
const clients = (port, hash) => connect(port, hash, CLIENTS);

async function scaleCase(f, rounds, progress) {
  // The upstream: the stream to every connection.
  const upstream = await serveStream(f.stream);
  const flags = [CLI, 'relay', '--listen', '127.0.0.1:0', '--upstream', upstream.address, '--validate', 'full', '--endpoint', f.endpoint];
  const relays = [
    { key: 'workers-1', relay: await startNode([...flags, '--workers', '1']) },
    { key: 'workers-2', relay: await startNode([...flags, '--workers', '2']) },
  ];
  const total = CLIENTS * f.stream.length;
  try {
    for (const { key, relay } of relays) {
      progress(`relay/tcp-scale/${f.name}@${key}: checking`);
      const got = await clients(relay.port, true);
      const wrong = got.filter((g) => g.sha256 !== f.sha256);
      if (wrong.length) throw new Error(`relay/tcp-scale/${f.name}@${key}: ${wrong.length} of ${CLIENTS} clients did not receive the stream`);
      if (relay.faults().length) throw new Error(`relay/tcp-scale/${f.name}@${key}: faults on a valid stream: ${relay.faults()[0]}`);
    }
    const runs = { 'workers-1': [], 'workers-2': [] };
    for (let r = 0; r < rounds; r++) {
      progress(`relay/tcp-scale/${f.name}: round ${r + 1} of ${rounds}`);
      for (const { key, relay } of relays) {
        const cpu0 = relay.cpu();
        const busy0 = machineBusy();
        const own0 = process.cpuUsage();
        const t0 = performance.now();
        const got = await clients(relay.port, false);
        const wall = (performance.now() - t0) / 1000;
        const cpu1 = relay.cpu();
        const busy1 = machineBusy();
        const own = process.cpuUsage(own0);
        const bytes = got.reduce((a, g) => a + g.bytes, 0);
        if (bytes !== total) throw new Error(`relay/tcp-scale/${f.name}@${key}: ${bytes} of ${total} bytes`);
        const cpu = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
        const load = (own.user + own.system) / 1e6;
        // What the rest of the machine took meanwhile: other processes, the kernel's own threads.
        const others = busy0 === null || busy1 === null || cpu === null ? null : busy1 - busy0 - cpu - load;
        runs[key].push({ wall, cpu, load, busy: busy0 === null || busy1 === null ? null : (busy1 - busy0) / wall, others });
      }
    }
    return relays.map(({ key }) => {
      const cpus = runs[key].map((x) => x.cpu);
      const cpu = cpus.every((c) => c !== null) ? mean(cpus) : null;
      return roundResult(
        {
          layer: 'relay',
          op: 'tcp-scale',
          fixture: f.name,
          backend: key,
          name: `relay/tcp-scale/${f.name}`,
          impl: `\`mcp-frames relay --listen --upstream --validate full --endpoint ${f.endpoint} --${key.replace('-', ' ')}\`, ${CLIENTS} clients at once, aggregate`,
        },
        runs[key].map((x) => x.wall),
        total,
        {
          clients: CLIENTS,
          loadGeneratorCpuSeconds: Math.round(mean(runs[key].map((x) => x.load)) * 1000) / 1000,
          ...(runs[key].every((x) => x.busy !== null)
            ? {
                machineBusyCores: Math.round(mean(runs[key].map((x) => x.busy)) * 100) / 100,
                otherCpuSeconds: Math.round(mean(runs[key].map((x) => x.others)) * 1000) / 1000,
              }
            : {}),
          ...(cpu === null ? {} : { cpuSeconds: Math.round(cpu * 1000) / 1000, bytesPerCpuSecond: total / cpu }),
        },
      );
    });
  } finally {
    for (const { relay } of relays) await relay.stop();
    await upstream.close();
  }
}

/** The scale cases by name (layer/op/fixture). */
export const SCALE_NAMES = SCALE_FIXTURES.map((f) => `relay/tcp-scale/${f.name}`);

/**
 * Runs the scale cases whose names pass `wanted` (a predicate on
 * 'relay/tcp-scale/F'); `quick` runs fewer rounds. Returns report results
 * and the fixtures' descriptions, in the shape bench/lib/wire.mjs returns.
 */
export async function runScaleCases({ quick, wanted, progress, seed = 0x7363616c }) {
  const selected = SCALE_FIXTURES.filter((f) => wanted(`relay/tcp-scale/${f.name}`));
  if (selected.length === 0) return { results: [], fixtures: [] };
  progress('scale: building the streams');
  const fixtures = selected.map((f, k) => ({ ...f, ...recordStream(createRng(seed + k), f.bytes, f.distinct, f.make) }));
  const rounds = quick ? 2 : 5;
  const results = [];
  for (const f of fixtures) results.push(...(await scaleCase(f, rounds, progress)));
  return {
    results,
    fixtures: fixtures.map((f) => ({
      name: `scale-${f.name}`,
      kind: 'wire',
      description: f.description,
      bytes: f.stream.length,
      records: f.records,
    })),
  };
}

/** The target for these cases, as target specs (bench/lib/report.mjs judges them): workers 2 over workers 1. */
export function scaleTargets() {
  return SCALE_FIXTURES.map((f) => ({
    group: 'relay on every core: --workers 2 ≥ 1.3× --workers 1, 16 clients, --validate full',
    fixture: f.name,
    num: [`relay/tcp-scale/${f.name}`, 'workers-2'],
    den: [`relay/tcp-scale/${f.name}`, 'workers-1'],
    target: 1.3,
    comparison: '>=',
    // With fewer cores the load generator takes the one the second worker would have.
    minCores: 4,
    note: 'aggregate throughput of 16 concurrent clients',
  }));
}
