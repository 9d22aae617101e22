// Whether this process is a worker that node:cluster forked, asked without
// loading node:cluster into every command: in a process that is not a
// worker, it loads node:child_process, node:net and node:dgram, about 8 ms
// of a CLI start. A worker always has an IPC channel to its primary, so
// node:cluster is loaded only in a process that has one (in a worker, Node
// has loaded it already, before this module runs).

import type { Worker } from 'node:cluster';

/** This process's cluster worker, or undefined in a process that node:cluster did not fork. */
export async function clusterWorker(): Promise<Worker | undefined> {
  if (process.channel === undefined) return undefined;
  const cluster = (await import('node:cluster')).default;
  return cluster.isWorker ? cluster.worker : undefined;
}
