// The native limit (bench/native/): build it with node-gyp when it is missing or stale, load it, say which simdjson kernel runs.
//
// simdjson's C++ comes from the npm simdjson package (its amalgamated
// simdjson.cpp and simdjson.h), compiled here with our binding
// (bench/native/limit.cc). npm carries node-gyp: `npm run bench` puts its
// path in npm_config_node_gyp; otherwise it is looked for beside npm.
// Node's headers come from npm_config_nodedir when npm sets it, or from
// the Node install's own include/node, so no download is needed.

import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './env.mjs';

const require = createRequire(import.meta.url);

const DIR = join(ROOT, 'bench', 'native');
const ADDON = join(DIR, 'build', 'Release', 'simdjson_limit.node');
const SOURCES = [join(DIR, 'limit.cc'), join(DIR, 'binding.gyp'), join(ROOT, 'node_modules', 'simdjson', 'simdjson', 'src', 'simdjson.cpp')];

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  return candidates.find((p) => p && existsSync(p)) ?? null;
}

function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = join(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : null;
}

function stale() {
  if (!existsSync(ADDON)) return true;
  const built = statSync(ADDON).mtimeMs;
  return SOURCES.some((s) => existsSync(s) && statSync(s).mtimeMs > built);
}

/** Builds the addon if need be. Returns null, or why it could not. */
export function buildNative(log = (line) => process.stderr.write(`${line}\n`)) {
  if (!stale()) return null;
  if (!existsSync(SOURCES[2])) return `the simdjson sources are not in node_modules/simdjson (${relative(ROOT, SOURCES[2])})`;
  const gyp = nodeGyp();
  if (!gyp) return 'node-gyp was not found (run through `npm run bench`, which provides it)';
  const dir = nodeDir();
  log(`building the native simdjson limit with node-gyp (${relative(ROOT, DIR)}), about a minute…`);
  try {
    execFileSync(process.execPath, [gyp, 'rebuild', ...(dir ? [`--nodedir=${dir}`] : [])], { cwd: DIR, stdio: ['ignore', 'ignore', 'pipe'] });
    return null;
  } catch (error) {
    const detail = String(error.stderr ?? error.message)
      .split('\n')
      .filter((l) => /error/i.test(l))
      .slice(0, 3)
      .join(' / ');
    return `node-gyp failed: ${detail || error.message}`;
  }
}

/**
 * The native limit, built if need be: { native, kernel, version, padding,
 * isValid, path, error }. `native` is false, with the reason in `error`,
 * when it could not be built or loaded.
 */
export function loadNative() {
  /** @type {{ native: boolean, kernel: string | null, version: string | null, padding: number, isValid: ((bytes: Uint8Array, length: number) => boolean) | null, path: string, error: string | null }} */
  const info = { native: false, kernel: null, version: null, padding: 0, isValid: null, path: relative(ROOT, ADDON), error: null };
  const failed = buildNative();
  if (failed) {
    info.error = failed;
    return info;
  }
  try {
    const addon = require(ADDON);
    info.kernel = addon.kernel();
    info.version = addon.version();
    info.padding = addon.padding();
    info.isValid = addon.isValid;
    info.native = true;
  } catch (error) {
    info.error = `the addon did not load: ${error.message.split('\n')[0]}`;
  }
  return info;
}
