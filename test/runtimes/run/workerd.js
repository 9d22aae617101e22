// workerd through miniflare: the bundled Worker with its .wasm as CompiledWasm modules, asked over HTTP on 127.0.0.1.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { bundle } from './bundle.js';

/** A date this workerd (2026-04-26) supports; the Worker needs no newer behaviour. */
const COMPATIBILITY_DATE = '2026-04-01';

/** Bundles hosts/workerd.js, starts it in workerd, POSTs the vectors. Resolves with the Worker's report and the files bundled. */
export async function runWorkerd(root, vectorsText) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-workerd-'));
  let mf;
  try {
    // Minified, as `wrangler deploy --minify` bundles it.
    const inputs = await bundle('workerd', 'test/runtimes/hosts/workerd.js', dir, root, { minify: true });
    mf = new Miniflare({
      modules: true,
      scriptPath: path.join(dir, 'workerd.js'),
      modulesRoot: dir,
      modulesRules: [
        { type: 'ESModule', include: ['**/*.js'] },
        { type: 'CompiledWasm', include: ['**/*.wasm'] },
      ],
      compatibilityDate: COMPATIBILITY_DATE,
      host: '127.0.0.1',
      port: 0,
    });
    const url = await mf.ready;
    if (url.hostname !== '127.0.0.1') throw new Error(`the Worker listens on ${url.host}, not 127.0.0.1`);
    // Node's own fetch: a real HTTP request to workerd's socket, not miniflare's dispatchFetch.
    const response = await fetch(url, { method: 'POST', body: vectorsText, headers: { 'content-type': 'application/json' } });
    const text = await response.text();
    if (!response.ok) throw new Error(`the Worker answered ${response.status}: ${text.split('\n')[0]}`);
    return { report: JSON.parse(text), files: inputs };
  } finally {
    await mf?.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}
