// The CLI's HTTP port: GET /metrics (when metrics are on), GET /healthz and GET /readyz, for scrapers and load balancers.
//
// /healthz answers 200 while the process serves at all. /readyz answers 200
// while it accepts connections and is not draining, and 503 from the moment
// a drain begins, before any connection is ended: a balancer that checks it
// (HAProxy's `option httpchk GET /readyz`) sends new clients elsewhere while
// the open ones finish. The proxy answers 503 too while its MCP server is
// not ready (starting, or started again after it ended), when every
// exchange would wait or not be carried. The 503's body says why. Neither
// needs prom-client: `--health HOST:PORT` serves them alone when
// `--metrics` is off.

import http from 'node:http';
import type net from 'node:net';
import type { Endpoint } from '../relay/endpoint.js';

/**
 * The most connections the port holds at once; past it node:http closes a
 * new one as it comes. Each is a file descriptor of the relay's process, so
 * without a bound a client that opened connections and sent nothing took
 * the descriptors the relay needs for its own clients and upstreams.
 * Scrapers and health checkers are few, and each keeps one connection.
 */
export const METRICS_MAX_CONNECTIONS = 32;

/** How long a connection may take to send a whole request, or stay idle: a health check asks at once. */
const REQUEST_TIMEOUT_MS = 5_000;

export interface HttpEndpoints {
  /** The metrics text and its content type, when metrics are served. */
  scrape?: () => Promise<{ contentType: string; text: string }>;
  /** Why the process should get no new clients now ('draining', ...), or null while it takes them. */
  notReady: () => string | null;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** A request target's path: origin-form (`/readyz?x`) or absolute-form (`http://host:port/readyz`, RFC 9112 section 3.2.2). */
function pathOf(target: string): string {
  const path = target.split('?')[0];
  if (path.startsWith('/')) return path;
  const absolute = /^https?:\/\/[^/]*(\/.*)?$/i.exec(path);
  return absolute ? (absolute[1] ?? '/') : path;
}

/** Answers one request: a path of the port's, or 404 naming them. */
function answer(endpoints: HttpEndpoints, request: http.IncomingMessage, response: http.ServerResponse): void {
  const path = pathOf(request.url ?? '');
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
      const why = endpoints.notReady();
      response.writeHead(why === null ? 200 : 503, TEXT).end(`${why ?? 'ready'}\n`);
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
 * listens on, or rejects with the listen error. It holds at most
 * METRICS_MAX_CONNECTIONS; past it, the one idle longest (it has asked
 * nothing, or was answered and kept alive) is closed, and a connection
 * gets REQUEST_TIMEOUT_MS to ask.
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
  // Connections not being answered (none asked yet, or answered and kept alive), longest idle first.
  const idle = new Set<net.Socket>();
  let open = 0;
  const server = http.createServer(
    // The request timeout is checked every second, not node:http's 30: a body that trickles in is cut at 5 s.
    { headersTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    (request, response) => {
      const socket = request.socket;
      idle.delete(socket);
      if (answering.has(socket) || socket.destroyed) {
        socket.destroy();
        return;
      }
      answering.add(socket);
      response.once('close', () => {
        answering.delete(socket);
        if (!socket.destroyed) idle.add(socket);
      });
      answer(endpoints, request, response);
    },
  );
  server.on('connection', (socket: net.Socket) => {
    // At the bound, the connection idle longest makes room: one that has asked nothing, or kept alive after its
    // answer (a scraper's, or a checker's asking every half second). Connections that wait cannot hold the port, and
    // a health check that comes still gets its answer. With none to let go (all being answered), the new one goes.
    if (open >= METRICS_MAX_CONNECTIONS) {
      const oldest = idle.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      idle.delete(oldest);
      oldest.destroy();
    }
    open++;
    idle.add(socket);
    socket.once('close', () => {
      open--;
      idle.delete(socket);
    });
  });
  // An idle connection (no request yet, or none since its last answer) is closed after a while.
  server.setTimeout(REQUEST_TIMEOUT_MS);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  // A scraper's keep-alive connection must not hold a stopping relay open.
  server.keepAliveTimeout = 1000;
  return { server, port: (server.address() as { port: number }).port };
}
