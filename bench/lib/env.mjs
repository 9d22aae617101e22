// What the report says about where it ran: runtime, versions, CPU, builds,
// and whether simdjson's native addon really loaded.

import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const require = createRequire(import.meta.url);

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * simdjson's npm package loads build/Release/simdjson.node if it resolves,
 * and otherwise exports the global JSON with a JS isValid that calls
 * JSON.parse. Load the addon by its own path first, so that a failure is
 * seen with its error, then make sure the package exports that addon.
 */
export function loadSimdjson() {
  /** @type {{ package: string, version: string, native: boolean, path: string | null, error: string | null, isValid: ((text: string) => boolean) | null }} */
  const info = { package: 'simdjson', version: packageVersion('simdjson'), native: false, path: null, error: null, isValid: null };
  let addon;
  try {
    const pkgDir = dirname(require.resolve('simdjson/package.json'));
    info.path = relative(ROOT, join(pkgDir, 'build', 'Release', 'simdjson.node'));
    addon = require(join(pkgDir, 'build', 'Release', 'simdjson.node'));
  } catch (error) {
    info.error = `the native addon did not load: ${error.message.split('\n')[0]}`;
    return info;
  }
  let pkg;
  try {
    pkg = require('simdjson');
  } catch (error) {
    info.error = `require('simdjson') threw: ${error.message.split('\n')[0]}`;
    return info;
  }
  const nativeFn = typeof pkg.isValid === 'function' && /\[native code\]/.test(Function.prototype.toString.call(pkg.isValid));
  if (pkg === JSON || !nativeFn || pkg.isValid !== addon.isValid) {
    info.error = "require('simdjson') fell back to its JSON.parse shim instead of the native addon";
    return info;
  }
  info.native = true;
  info.isValid = pkg.isValid;
  return info;
}

function fileInfo(path) {
  const bytes = readFileSync(path);
  return {
    path: relative(ROOT, path),
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
    modified: statSync(path).mtime.toISOString(),
  };
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Warnings when dist/ or build/ look older than the sources they come from. */
export function staleness() {
  const warnings = [];
  try {
    const src = newestMtime(join(ROOT, 'src'));
    const dist = newestMtime(join(ROOT, 'dist'));
    if (src > dist) warnings.push('src/ has files newer than dist/: run `npm run build` first');
    const assembly = newestMtime(join(ROOT, 'assembly'));
    const build = Math.min(statSync(join(ROOT, 'build', 'core-simd.wasm')).mtimeMs, statSync(join(ROOT, 'build', 'core-scalar.wasm')).mtimeMs);
    if (assembly > build) warnings.push('assembly/ has files newer than build/*.wasm: run `npm run build` first');
  } catch (error) {
    warnings.push(`could not compare build times: ${error.message}`);
  }
  return warnings;
}

export function environment(Benchmark) {
  const cpus = os.cpus();
  const self = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return {
    runtime: {
      name: 'node',
      version: process.version,
      v8: process.versions.v8,
      uv: process.versions.uv,
      platform: process.platform,
      arch: process.arch,
      execArgv: process.execArgv,
      description: Benchmark.platform.description,
    },
    versions: {
      'mcp-frames': self.version,
      node: process.versions.node,
      v8: process.versions.v8,
      benchmark: packageVersion('benchmark'),
      simdjson: packageVersion('simdjson'),
      '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
      zod: packageVersion('zod'),
      assemblyscript: packageVersion('assemblyscript'),
      typescript: packageVersion('typescript'),
    },
    machine: {
      cpu: cpus[0]?.model?.trim() ?? 'unknown',
      cores: cpus.length,
      speedMHz: cpus[0]?.speed ?? null,
      os: `${os.type()} ${os.release()}`,
      totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    builds: [fileInfo(join(ROOT, 'build', 'core-simd.wasm')), fileInfo(join(ROOT, 'build', 'core-scalar.wasm'))],
  };
}
