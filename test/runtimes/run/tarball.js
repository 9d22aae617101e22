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

import { execFile } from 'node:child_process';
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
      report: { backend, checks: said.length + 1, failed: failures.length, failures },
      entry: path.relative(path.join(consumer, 'node_modules', 'mcp-frames'), new URL(entry).pathname),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
