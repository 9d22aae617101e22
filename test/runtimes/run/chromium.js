// Debian's Chromium, driven by playwright-core: one browser for the whole matrix, one page per check.
//
// playwright-core downloads no browser; it drives /usr/bin/chromium
// (apt-get install chromium) through launchPersistentContext with a fresh
// user-data dir. The flags keep Chromium off the network, which this
// machine closes: without the background-networking ones it keeps trying,
// and failing, to reach Google's hosts.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from './serve.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

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

/** How long a page may take to report. */
const PAGE_TIMEOUT_MS = 30_000;

/** Starts Chromium. Resolves with { run(dir, documents), close() }; rejects with the reason it cannot start. */
export async function launchChromium(executablePath = CHROMIUM_PATH) {
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
    throw new Error(`Chromium did not start: ${firstLine(error)}`);
  }
  return {
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
