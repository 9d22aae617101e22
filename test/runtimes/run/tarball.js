// The package as a user installs it: `npm pack`, a fresh consumer project that installs the tarball, and the README's quick start run there.
//
// # What it shows
//
// The other lines run the package from the project (or a link to it), so a
// file the tarball leaves out, a dependency the package forgot to declare,
// or an install step that needs the project's own tools would pass them
// all. Here the consumer folder has nothing but its package.json and what
// `npm install <tarball>` put in node_modules: the package's dependencies
// come from the npm registry (npm's cache first), as a user's do, and no
// script of the package runs (a tarball install runs none).
//
// # The quick start
//
// The README's first ```js block is run by Node in the consumer folder, and
// every `console.log(...); // TEXT` line's TEXT must be the next line it
// printed, as test/readme.test.ts holds the project's own copy to.
//
// # The proxy example
//
// Then the README's proxy example runs as written from the consumer's own
// node_modules/.bin: `mcp-frames proxy` over server-everything (the
// project's copy: the consumer has none), its `mcp-frames request` line,
// and its client block, with the proxy's port in place of 7000.

import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How long npm may take to pack or install. */
const NPM_TIMEOUT_MS = 180_000;

/** Packs the project, installs the tarball into a new consumer, runs the quick start. Resolves with the report and the entry Node resolved. */
export async function runTarball(root) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-tarball-'));
  try {
    // --ignore-scripts: `npm test` has just built dist/; packing must not build again.
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: root,
      timeout: NPM_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = path.join(dir, JSON.parse(stdout)[0].filename);
    const consumer = path.join(dir, 'consumer');
    await run('mkdir', [consumer]);
    await writeFile(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: consumer,
      timeout: NPM_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });

    const readme = await readFile(path.join(consumer, 'node_modules', 'mcp-frames', 'README.md'), 'utf8');
    const quickStart = readme.match(/```js\n([\s\S]*?)```/)?.[1];
    if (!quickStart) throw new Error('the installed README has no ```js block');
    await writeFile(path.join(consumer, 'quick-start.mjs'), quickStart);
    const said = [...quickStart.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    const ran = await run(process.execPath, ['quick-start.mjs'], { cwd: consumer, timeout: 30_000 });
    const printed = ran.stdout.trimEnd().split('\n');
    const failures = said.flatMap((want, k) =>
      printed[k] === want ? [] : [`the quick start printed '${printed[k]}' where the README says '${want}'`],
    );
    if (ran.stderr) failures.push(`the quick start wrote to stderr: ${ran.stderr.split('\n')[0]}`);

    failures.push(...(await proxyExample(root, consumer, readme)));

    const probe = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('mcp-frames'); console.log(JSON.stringify({ entry: import.meta.resolve('mcp-frames'), backend: m.backend }))",
      ],
      { cwd: consumer, timeout: 30_000 },
    );
    const { entry, backend } = JSON.parse(probe.stdout);
    return {
      report: { backend, checks: said.length + 4, failed: failures.length, failures },
      entry: path.relative(path.join(consumer, 'node_modules', 'mcp-frames'), new URL(entry).pathname),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The README's proxy example, run from the consumer: the failures, none when it ran as written. */
async function proxyExample(root, consumer, readme) {
  const bin = path.join(consumer, 'node_modules', '.bin', 'mcp-frames');
  const require = createRequire(path.join(root, 'package.json'));
  const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
  const proxy = spawn(bin, ['proxy', '--listen', '127.0.0.1:0', '--', process.execPath, everything, 'stdio'], {
    cwd: consumer,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const port = await new Promise((resolve, reject) => {
      let err = '';
      proxy.stderr.on('data', (d) => {
        err += d;
        const m = /"listening":"127\.0\.0\.1:(\d+)"/.exec(err);
        if (m) resolve(m[1]);
      });
      proxy.once('exit', () => reject(new Error(`the proxy exited: ${err.slice(0, 300)}`)));
    });
    const failures = [];
    const line = /^mcp-frames request 127\.0\.0\.1:7000 (\S+)/m.exec(readme);
    if (!line) failures.push('the README shows no `mcp-frames request 127.0.0.1:7000 …` line');
    else {
      const asked = await run(bin, ['request', `127.0.0.1:${port}`, line[1]], { cwd: consumer, timeout: 30_000 }).catch((e) => e);
      if (asked.code || !asked.stdout?.startsWith('{"outcome":"result"')) failures.push(`mcp-frames request: ${asked.stdout ?? asked.message}`);
    }
    const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("'127.0.0.1:7000'"));
    if (!block) failures.push('the README shows no client block for the proxy on 127.0.0.1:7000');
    else {
      await writeFile(path.join(consumer, 'client.mjs'), block.replaceAll('127.0.0.1:7000', `127.0.0.1:${port}`));
      const said = [...block.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      const ran = await run(process.execPath, ['client.mjs'], { cwd: consumer, timeout: 30_000 }).catch((e) => e);
      const printed = (ran.stdout ?? '').trimEnd().split('\n');
      if (said.some((want, k) => printed[k] !== want))
        failures.push(`the client block printed '${printed.join(' / ')}' where the README says '${said.join(' / ')}'`);
    }
    return failures;
  } finally {
    proxy.kill('SIGKILL');
  }
}
