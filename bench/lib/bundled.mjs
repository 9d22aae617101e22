// Typed decode from a bundled, minified copy of the package, beside the package as installed: what a bundler costs a user.
//
// The copy is what a user's build makes: esbuild bundles an entry that
// imports 'mcp-frames' by name (the package's own exports, node condition)
// into one minified file, which this process then imports. It has its own
// core instance and its own compiled judges; the case's description says
// which backend and judges the copy reports, so a copy that lost either
// shows in the report, not only in its speed. Its target: at least 0.8× the
// same decode unbundled, on the listings and on the real servers' answers.

import { deepStrictEqual } from 'node:assert/strict';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { ROOT } from './env.mjs';
import { cycle } from './fixtures.mjs';

/** The fixtures the bundled decode is judged on: the generated listings and the captures of the real servers. */
export const BUNDLED_FIXTURES = ['listing-small', 'listing-medium', 'servers-everything', 'servers-filesystem', 'servers-memory'];

/** The bundled copy's decode beside the unbundled one, one target per fixture. */
export function bundledTargets(wasm) {
  return BUNDLED_FIXTURES.map((f) => ({
    group: 'typed decode bundled and minified ≥ 0.8× unbundled',
    fixture: f,
    num: [`frame/decode-bundled/${f}`, wasm],
    den: [`frame/decode/${f}`, wasm],
    target: 0.8,
    comparison: '>=',
  }));
}

/** Bundles the package as a user's build would, minified, and imports the copy. */
async function importBundled() {
  const outfile = join(os.tmpdir(), `mcp-frames-bench-bundle-${process.pid}.mjs`);
  await esbuild.build({
    stdin: { contents: "export * from 'mcp-frames';", resolveDir: ROOT, sourcefile: 'entry.mjs' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}

/** The frame/decode-bundled/* cases: each decodes what its unbundled twin decodes (`fixtures`, with their items: cases.mjs), with the bundled copy's codecs. */
export async function bundledCases(fixtures, backends) {
  const lib = await importBundled();
  const how = `a bundled, minified copy of the package (esbuild, node platform), which runs ${lib.backend} with ${lib.schemaJudges} judges`;
  return fixtures
    .filter((f) => BUNDLED_FIXTURES.includes(f.name))
    .map((f) => {
      const items = f.items.map((x) => ({ bytes: x.bytes, frame: x.frame, codec: lib.ENDPOINTS[x.codec.endpoint] }));
      const next = cycle(items);
      return {
        name: `frame/decode-bundled/${f.name}`,
        layer: 'frame',
        op: 'decode-bundled',
        fixture: f.name,
        // The unbundled twin's name: the copy chose the same build (checked below), so the pair compares like with like.
        backend: backends.wasm.name,
        bytes: f.bytesPerOp,
        impl: `codec.decode from ${how}`,
        check() {
          deepStrictEqual(lib.backend, backends.wasm.name, `the bundled copy runs ${lib.backend}, not ${backends.wasm.name}`);
          for (const x of items) deepStrictEqual(x.codec.decode(x.bytes), x.frame, 'decode: the value differs from the fixture source');
        },
        fn: () => {
          const x = next();
          return x.codec.decode(x.bytes);
        },
      };
    });
}
