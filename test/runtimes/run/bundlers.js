// The bundler checks: esbuild and vite each build a page that imports 'mcp-frames' by name, as a consumer would, minified; the built page runs in Chromium. esbuild also bundles a Node program, minified, run by Node.
//
// # A consumer folder, not the project
//
// The page is built in a temporary folder whose node_modules/mcp-frames is a
// link to the project root, so each bundler resolves the package the way it
// resolves any dependency: by name, through "exports", with its browser
// conditions. The page is the same host the chromium runtime runs
// (hosts/browser.js with the smoke suite), copied in beside it. The vectors
// are not copied: the page fetches them from the harness's server.

import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundle } from './bundle.js';

const PACKAGE_JSON = JSON.stringify({ name: 'mcp-frames-consumer', private: true, type: 'module' }, null, 2);

const page = (script) => `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>mcp-frames bundled</title>
<script type="module" src="${script}"></script>
`;

/** Makes the consumer folder. Resolves with its path and a cleanup. */
export async function makeConsumer(root) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-consumer-'));
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(root, path.join(dir, 'node_modules', 'mcp-frames'), 'dir');
  await writeFile(path.join(dir, 'package.json'), PACKAGE_JSON);
  await cp(path.join(root, 'test/runtimes/smoke.js'), path.join(dir, 'src/smoke.js'));
  await cp(path.join(root, 'test/runtimes/hosts/browser.js'), path.join(dir, 'src/hosts/browser.js'));
  await cp(path.join(root, 'test/runtimes/hosts/process.js'), path.join(dir, 'src/hosts/process.js'));
  await writeFile(path.join(dir, 'index.html'), page('/src/hosts/browser.js'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** esbuild: the page's module bundled for the browser platform, minified. Resolves with the output folder and the files it took in. */
export async function buildWithEsbuild(consumer) {
  const out = path.join(consumer, 'out-esbuild');
  const inputs = await bundle('browser', './src/hosts/browser.js', out, consumer, { minify: true });
  await writeFile(path.join(out, 'index.html'), page('./browser.js'));
  return { out, inputs };
}

/** esbuild: the Node host bundled for the node platform, minified, into one file. Resolves with that file and the files it took in. */
export async function buildNodeWithEsbuild(consumer) {
  const out = path.join(consumer, 'out-esbuild-node');
  const inputs = await bundle('node', './src/hosts/process.js', out, consumer, { minify: true });
  return { file: path.join(out, 'process.js'), inputs };
}

/** vite: a production build of the consumer's index.html, minified as vite minifies by default, no config file. Resolves with the output folder and the modules it took in. */
export async function buildWithVite(consumer) {
  const { build } = await import('vite');
  const out = path.join(consumer, 'out-vite');
  const result = await build({
    root: consumer,
    configFile: false,
    logLevel: 'silent',
    build: { outDir: out, emptyOutDir: true, target: 'es2022' },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const inputs = outputs.flatMap((chunk) => (chunk.type === 'chunk' ? (chunk.moduleIds ?? Object.keys(chunk.modules)) : []));
  return { out, inputs };
}
