// The CLI's HTTP port: GET /metrics (when metrics are on), GET /healthz and GET /readyz, for scrapers and load balancers.
//
// /healthz answers 200 while the process serves at all. /readyz answers 200
// while it accepts connections and is not draining, and 503 from the moment
// a drain begins, before any connection is ended: a balancer that checks it
// (HAProxy's `option httpchk GET /readyz`) sends new clients elsewhere while
// the open ones finish. Neither needs prom-client: `--health HOST:PORT`
// serves them alone when `--metrics` is off.

import http from 'node:http';
import type { Endpoint } from '../relay/endpoint.js';

/**
 * The most connections the port holds at once; past it node:http closes a
 * new one as it comes. Each is a file descriptor of the relay's process, so
 * without a bound a client that opened connections and sent nothing took
 * the descriptors the relay needs for its own clients and upstreams.
 * Scrapers and health checkers are few, and each keeps one connection.
 */
export const METRICS_MAX_CONNECTIONS = 32;

export interface HttpEndpoints {
  /** The metrics text and its content type, when metrics are served. */
  scrape?: () => Promise<{ contentType: string; text: string }>;
  /** Whether the process accepts connections and is not draining. */
  ready: () => boolean;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** Answers one request: a path of the port's, or 404 naming them. */
function answer(endpoints: HttpEndpoints, request: http.IncomingMessage, response: http.ServerResponse): void {
  const path = request.url?.split('?')[0];
  const paths = endpoints.scrape ? 'GET /metrics, /healthz or /readyz' : 'GET /healthz or /readyz';
  if ((request.method !== 'GET' && request.method !== 'HEAD') || (path === '/metrics' && !endpoints.scrape)) {
    response.writeHead(404, TEXT).end(`not found: ask ${paths}\n`);
    return;
  }
  switch (path) {
    case '/healthz':
      response.writeHead(200, TEXT).end('ok\n');
      return;
    case '/readyz': {
      const ready = endpoints.ready();
      response.writeHead(ready ? 200 : 503, TEXT).end(ready ? 'ready\n' : 'draining\n');
      return;
    }
    case '/metrics':
      endpoints.scrape?.().then(
        ({ contentType, text }) => response.writeHead(200, { 'content-type': contentType }).end(text),
        (error: unknown) => response.writeHead(500, TEXT).end(`${String(error)}\n`),
      );
      return;
    default:
      response.writeHead(404, TEXT).end(`not found: ask ${paths}\n`);
  }
}

/**
 * Serves the port at `at`. Resolves with the server and the port it
 * listens on, or rejects with the listen error.
 *
 * # One request at a time on a connection
 *
 * node:http parses every request a chunk holds as it arrives, whether or
 * not the ones before it were answered: a client that sent requests back to
 * back (HTTP pipelining) and read nothing made a scrape, a request and a
 * response for each, and 8 such connections held 414 MB of the relay's
 * heap. A scraper sends its next request once it has its answer, so a
 * request that comes while the one before it on its connection is still
 * being answered closes the connection.
 */
export async function serveHttp(at: Endpoint, endpoints: HttpEndpoints): Promise<{ server: http.Server; port: number }> {
  const answering = new WeakSet<object>();
  const server = http.createServer((request, response) => {
    const socket = request.socket;
    if (answering.has(socket) || socket.destroyed) {
      socket.destroy();
      return;
    }
    answering.add(socket);
    response.once('close', () => answering.delete(socket));
    answer(endpoints, request, response);
  });
  server.maxConnections = METRICS_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  // A scraper's keep-alive connection must not hold a stopping relay open.
  server.keepAliveTimeout = 1000;
  return { server, port: (server.address() as { port: number }).port };
}
