// Chromium, driven by playwright-core: one browser for the whole matrix, one page per check.
//
// # Which Chromium
//
// playwright-core downloads no browser. The matrix takes the first of:
//
//   1. CHROMIUM_PATH, when it is set: a browser the person running the
//      tests chose;
//   2. a system Chromium: /usr/bin/chromium, else `chromium` on PATH;
//   3. the pinned devDependency @sparticuz/chromium, a headless Chromium
//      packed with brotli inside its npm tarball (linux x64). Its
//      executablePath() unpacks it to the temporary folder, about 3 s the
//      first time, so `npm ci` alone gives the matrix a browser.
//
// The line of every check that ran in it names the browser and its version.
//
// # The flags
//
// The flags keep Chromium off the network, which this machine closes:
// without the background-networking ones it keeps trying, and failing, to
// reach Google's hosts.

import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.js';

/** Where Debian's Chromium lives. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function isExecutable(file) {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` on PATH, or null. */
async function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && (await isExecutable(path.join(dir, name)))) return path.join(dir, name);
  }
  return null;
}

/**
 * The Chromium to run: { executablePath, source }, where source says where
 * it came from. Rejects with the reason when there is none.
 */
export async function findChromium() {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!(await isExecutable(chosen))) throw new Error(`CHROMIUM_PATH is ${chosen}, which is not an executable file`);
    return { executablePath: chosen, source: 'CHROMIUM_PATH' };
  }
  if (await isExecutable(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: SYSTEM_CHROMIUM };
  const found = await onPath('chromium');
  if (found) return { executablePath: found, source: found };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no Chromium: CHROMIUM_PATH is unset, there is none on PATH, and @sparticuz/chromium ships only for linux x64 (this is ${process.platform} ${process.arch})`,
    );
  }
  const { default: packed } = await import('@sparticuz/chromium');
  // Its exports map hides package.json; the file sits one folder above the entry (build/index.js).
  const entry = fileURLToPath(import.meta.resolve('@sparticuz/chromium'));
  const { version } = JSON.parse(await readFile(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'));
  return { executablePath: await packed.executablePath(), source: `@sparticuz/chromium ${version}` };
}

/** How long a page may take to report. */
const PAGE_TIMEOUT_MS = 30_000;

/**
 * Starts Chromium. Resolves with { name, run(dir, documents), close() },
 * where name says which browser runs; rejects with the reason it cannot start.
 */
export async function launchChromium() {
  const { executablePath, source } = await findChromium();
  const profile = await mkdtemp(path.join(os.tmpdir(), 'mcp-frames-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: FLAGS,
      timeout: 30_000,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw new Error(`Chromium (${source}, ${executablePath}) did not start: ${firstLine(error)}`);
  }
  const version = context.browser()?.version() ?? 'version unknown';
  return {
    /** The browser, as the matrix lines name it. */
    name: `Chromium ${version} from ${source}`,
    /** Serves `dir` (and `documents`), opens its index.html, and resolves with what the page left in window.smokeResult. */
    async run(dir, documents) {
      const server = await serve(dir, documents);
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      try {
        await page.goto(server.url, { waitUntil: 'load' });
        const handle = await page.waitForFunction(() => window.smokeResult, null, { timeout: PAGE_TIMEOUT_MS }).catch(() => null);
        const result = handle ? await handle.jsonValue() : null;
        if (!result) throw new Error(`the page reported nothing in ${PAGE_TIMEOUT_MS / 1000} s${problems.length ? `; ${problems[0]}` : ''}`);
        if (result.error) throw new Error(`the page failed: ${firstLine(result.error)}`);
        return { ...result.report, problems };
      } finally {
        await page.close();
        await server.close();
      }
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

function firstLine(error) {
  return String(error instanceof Error ? error.message : error).split('\n')[0];
}
