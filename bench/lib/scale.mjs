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
import { CLI, mean, MiB, roundResult, serverRounds } from './rounds.mjs';
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

async function scaleCase(f, rounds, progress) {
  const total = CLIENTS * f.stream.length;
  const relay = (workers) => (up) => [
    CLI,
    'relay',
    '--listen',
    '127.0.0.1:0',
    '--upstream',
    up,
    '--validate',
    'full',
    '--endpoint',
    f.endpoint,
    '--workers',
    workers,
  ];
  const { runs } = await serverRounds(f, {
    name: `relay/tcp-scale/${f.name}`,
    servers: [
      ['workers-1', relay('1')],
      ['workers-2', relay('2')],
    ],
    count: CLIENTS,
    rounds,
    progress,
  });
  return Object.entries(runs).map(([key, list]) => {
    const cpus = list.map((x) => x.cpu);
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
      list.map((x) => x.wall),
      total,
      {
        clients: CLIENTS,
        loadGeneratorCpuSeconds: Math.round(mean(list.map((x) => x.load)) * 1000) / 1000,
        ...(list.every((x) => x.busy !== null)
          ? {
              machineBusyCores: Math.round(mean(list.map((x) => x.busy)) * 100) / 100,
              otherCpuSeconds: Math.round(mean(list.map((x) => x.others)) * 1000) / 1000,
            }
          : {}),
        ...(cpu === null ? {} : { cpuSeconds: Math.round(cpu * 1000) / 1000, bytesPerCpuSecond: total / cpu }),
      },
    );
  });
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
