// Loaded with `node --import` into a process the benchmark measures: reports the process's own CPU and page faults.
//
// - With MCP_FRAMES_RUSAGE_FILE set, writes process.resourceUsage() there as JSON when the process exits.
// - With an IPC channel (spawned with 'ipc'), answers each message with process.resourceUsage(), for a
//   server that runs between measurements. The channel does not keep the process alive.

import { writeFileSync } from 'node:fs';

const file = process.env.MCP_FRAMES_RUSAGE_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.resourceUsage())));
if (process.send) {
  process.on('message', () => process.send?.(process.resourceUsage()));
  process.channel?.unref();
}
