// A loopback HTTP server for pages: one folder's files, plus documents held in memory (the vectors).
//
// Content types matter: browsers compile .wasm with compileStreaming only
// when it comes as application/wasm, and module scripts need a JavaScript
// type. Nothing outside the folder is served.

import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};

/** Serves `dir` and `documents` ({ '/vectors.json': text }) on 127.0.0.1. Resolves with { url, close }. */
export async function serve(dir, documents = {}) {
  const root = path.resolve(dir);
  const server = http.createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
    if (Object.hasOwn(documents, pathname)) {
      response.writeHead(200, { 'content-type': TYPES[path.extname(pathname)] ?? 'application/octet-stream' });
      response.end(documents[pathname]);
      return;
    }
    const file = path.join(root, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
    if (file !== root && !file.startsWith(root + path.sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await /** @type {Promise<void>} */ (
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    })
  );
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/`,
    // Chromium keeps sockets open (keep-alive, speculative preconnects) that
    // would hold close() for minutes; the page is gone, so drop them.
    close: () =>
      /** @type {Promise<void>} */ (
        new Promise((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        })
      ),
  };
}
