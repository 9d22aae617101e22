// Loaded with `node --import` into a process the benchmark runs to its end: with MCP_FRAMES_RUSAGE_FILE set,
// writes process.resourceUsage() there as JSON when the process exits (its own CPU and page faults).

import { writeFileSync } from 'node:fs';

const file = process.env.MCP_FRAMES_RUSAGE_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.resourceUsage())));
