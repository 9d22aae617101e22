// The package as a user gets it: `npm pack`, then publint and Are the Types
// Wrong? on that one tarball. Part of `npm run check`.
//
// publint must find nothing at all, suggestions included. attw runs with
// its esm-only profile: the package is ESM only ("type": "module", no
// require condition), so the node10 and node16-from-CJS resolutions are out
// of scope, and node16-from-ESM and bundler must resolve types for every
// export. The export map's "types" condition comes first, so one check per
// subpath covers all six conditions of ".".

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-frames-pack-'));
let failed = false;
try {
  // --ignore-scripts: `npm test` has just built dist/; packing must not build again.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8' }));
  const tarball = path.join(dir, packed[0].filename);
  console.log(`packed ${packed[0].filename}: ${packed[0].entryCount} files, ${(packed[0].size / 1024).toFixed(1)} KiB`);

  const bytes = readFileSync(tarball);
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const { messages } = await publint({
    level: 'suggestion',
    strict: true,
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) },
  });
  // Installing from the registry runs no script of the package's own: npm runs these at install.
  const atInstall = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => pkg.scripts?.[name] !== undefined);
  if (atInstall.length) {
    failed = true;
    console.log(`install scripts: ${atInstall.join(', ')} would run at every install; build in prepack instead`);
  } else {
    console.log('install scripts: none');
  }
  for (const message of messages) console.log(`publint ${message.type}: ${formatMessage(message, pkg)}`);
  if (messages.length) failed = true;
  else console.log('publint: no problems');

  const attw = spawnSync(
    path.join(root, 'node_modules', '.bin', 'attw'),
    [tarball, '--profile', 'esm-only', '--format', 'table-flipped', '--no-color', '--no-emoji'],
    {
      encoding: 'utf8',
    },
  );
  if (attw.status !== 0) {
    failed = true;
    console.log(attw.stdout + attw.stderr);
    console.log(`attw: problems found (exit status ${attw.status})`);
  } else {
    console.log('attw (esm-only: node16 from ESM, bundler): no problems');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
