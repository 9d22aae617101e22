// esbuild, configured per host the way that host's own tooling bundles: which condition picks which entry.
//
// Every bundle resolves 'mcp-frames' by its package name: from inside the
// project that is Node's self-reference (a package may import itself through
// its own "exports"), from a consumer folder the node_modules link. The
// metafile says which entry file got in, so the harness can check that the
// host's condition won.

import * as esbuild from 'esbuild';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';

/** How each host bundles. */
export const HOSTS = {
  /** A browser page: esbuild's browser platform, ES modules. */
  browser: { platform: 'browser', format: 'esm', target: 'es2022' },
  /** A Node program bundled into one file: esbuild's node platform, ES modules. */
  node: { platform: 'node', format: 'esm', target: 'node20' },
  /** A Worker, as wrangler bundles one: conditions workerd, worker, browser; .wasm left as a module of the Worker; the runtime's own cloudflare: modules left to it. */
  workerd: {
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
  },
  /** An edge function: one classic script (edge-runtime evaluates scripts, not modules). */
  edge: { platform: 'browser', format: 'iife', target: 'es2022', conditions: ['edge-light', 'worker'] },
};

/**
 * Leaves each imported .wasm as its own module file beside the bundle, as
 * wrangler does: the import stays, renamed to './<file>.wasm', and the
 * runtime's CompiledWasm rule compiles it when the Worker loads.
 */
const wasmModules = {
  name: 'wasm-modules',
  setup(build) {
    const outdir = build.initialOptions.outdir;
    build.onResolve({ filter: /\.wasm$/ }, async (args) => {
      const source = path.resolve(args.resolveDir, args.path);
      await copyFile(source, path.join(outdir, path.basename(source)));
      return { path: `./${path.basename(source)}`, external: true };
    });
  },
};

/**
 * Bundles `entry` (resolved from `cwd`) for `host` into `outdir`, minified when asked: a minifier prints
 * every function again, which is what the package's compiled judges must survive. Resolves with the
 * absolute paths of every file it took in.
 */
export async function bundle(host, entry, outdir, cwd, { minify = false } = {}) {
  const result = await esbuild.build({
    ...HOSTS[host],
    minify,
    entryPoints: [entry],
    outdir,
    bundle: true,
    metafile: true,
    write: true,
    logLevel: 'silent',
    absWorkingDir: cwd,
    plugins: host === 'workerd' ? [wasmModules] : [],
  });
  return Object.keys(result.metafile?.inputs ?? {}).map((input) => path.resolve(cwd, input));
}
