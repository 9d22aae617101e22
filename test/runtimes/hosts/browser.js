// A page: the package by name (the "browser" condition, through a bundler), the vectors fetched from the serving harness, the report left on window.

import * as lib from 'mcp-frames';
import * as client from 'mcp-frames/client';
import { runSmoke } from '../smoke.js';

// What the page saw before `ready`, read as soon as the package has loaded:
// the core is compiled synchronously as the package loads, so this names it.
const before = lib.backend;

async function main() {
  const response = await fetch('/vectors.json');
  if (!response.ok) throw new Error(`GET /vectors.json: ${response.status}`);
  const vectors = await response.json();
  const report = await runSmoke(lib, vectors, client);
  report.before = before;
  return report;
}

main().then(
  (report) => {
    window.smokeResult = { report };
  },
  (error) => {
    window.smokeResult = { error: error?.stack ?? String(error) };
  },
);
