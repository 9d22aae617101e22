// @ts-nocheck
import { blobRead, listingMedium } from './lib/fixtures.mjs';
import { createRng } from './lib/rng.mjs';
import { recordStream } from './lib/wire.mjs';
import { listingSmall } from './lib/concurrent.mjs';
import { CLI, serverRounds } from './lib/rounds.mjs';
const make = { small: [256, listingSmall], listing: [64, listingMedium], blob: [4, (r) => blobRead(r, 768 * 1024)] }[process.argv[4] ?? 'small'];
const f = recordStream(createRng(1), 8 * 1024 * 1024, make[0], make[1]);
const extra = (process.env.RELAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const runs = await serverRounds(f, {
  name: 'x',
  count: 16,
  rounds: Number(process.argv[2] ?? 4),
  warmUp: true,
  progress: () => {},
  servers: [
    ['relay', (up) => [...extra, CLI, 'relay', '--listen', '127.0.0.1:0', '--upstream', up, '--validate', process.argv[3] ?? 'json']],
    ['peer', (up) => ['bench/peers/tcp-proxy.mjs', '--listen', '127.0.0.1:0', '--upstream', up]],
  ],
});
const MiB = 16 * 8;
for (const k of ['relay', 'peer'])
  console.log(k, runs[k].map((r) => `${((r.cpu / (MiB * 1048576)) * 1e9).toFixed(2)}ns/B ${(r.faults / MiB).toFixed(1)}f/MiB`).join('  '));
