// `mcp-frames proxy`: a real MCP server, over stdio or Streamable HTTP, served to TCP clients as records (WIRE.md section 8).
//
//   proxy --listen HOST:PORT -- COMMAND [ARGS…]     runs COMMAND as a stdio server
//   proxy --listen HOST:PORT --server-url URL       reaches a Streamable HTTP server
//
// Log lines are the relay's (src/cli/log.ts): JSON with time, level and
// event on stderr. An exchange not carried or a line refused is warn; the
// server ending or failing to start is error; the server becoming ready,
// draining and drained are info. It runs until SIGTERM or SIGINT, drains
// (src/cli/serve.ts says how signals are taken), and exits 0.

import type { Backend } from '../backend/backend.js';
import { createProxy, DEFAULT_EXCHANGE_TIMEOUT_MS, type ProxyFault } from '../proxy/proxy.js';
import type { ServerSpec } from '../proxy/upstream.js';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../relay/tcp.js';
import { backendFlag, COMMON_FLAGS, parseFlags, UsageError } from './args.js';
import { fsReason, type Io } from './io.js';
import { Log, type LogLevel } from './log.js';
import { endpointOf, logLevelFlag, secondsFlag } from './relay.js';
import { hostPort, onSignals } from './serve.js';

const PROXY_FLAGS = {
  ...COMMON_FLAGS,
  listen: { type: 'string' },
  'server-url': { type: 'string' },
  'exchange-timeout': { type: 'string' },
  'drain-timeout': { type: 'string' },
  metrics: { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** The level of a proxy fault: warn when it touches one exchange or line, error when the server failed. */
function proxyFaultLevel(fault: ProxyFault): LogLevel {
  return fault.reason === 'server-ended' || fault.reason === 'server-init-failed' || fault.reason === 'server-message' ? 'error' : 'warn';
}

export async function proxyCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  // Everything after `--` is the server's command line, never read as flags.
  const dashes = args.indexOf('--');
  const own = dashes < 0 ? args : args.slice(0, dashes);
  const command = dashes < 0 ? [] : args.slice(dashes + 1);
  const flags = parseFlags('proxy', own, PROXY_FLAGS, 0);
  if (flags.values.help) return 'help';
  const listen = flags.values.listen;
  if (typeof listen !== 'string') throw new UsageError('proxy: --listen HOST:PORT is required');
  const url = flags.values['server-url'];
  let server: ServerSpec;
  if (typeof url === 'string') {
    if (command.length) throw new UsageError('proxy: --server-url and a command after -- do not go together');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`proxy: --server-url '${url}' is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UsageError(`proxy: --server-url must be http: or https:, not '${parsed.protocol}'`);
    server = { url: parsed };
  } else {
    if (!command.length) throw new UsageError('proxy: give the server: -- COMMAND [ARGS…] (stdio) or --server-url URL (Streamable HTTP)');
    server = { command: command[0], args: command.slice(1) };
  }
  const listenAt = endpointOf(listen, 'listen', 'proxy');
  const metricsRaw = flags.values.metrics;
  const metricsAt = typeof metricsRaw === 'string' ? endpointOf(metricsRaw, 'metrics', 'proxy') : undefined;
  const exchangeTimeoutMs = secondsFlag(flags, 'exchange-timeout', 'proxy') ?? DEFAULT_EXCHANGE_TIMEOUT_MS;
  const drainTimeoutMs = secondsFlag(flags, 'drain-timeout', 'proxy') ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const backend: Backend = backendFlag('proxy', flags);
  const log = new Log(io.log, logLevelFlag(flags, 'proxy'));

  const proxy = createProxy({
    server,
    exchangeTimeoutMs,
    backend,
    onFault: (fault, connection) => log.line(proxyFaultLevel(fault), 'fault', connection === null ? { ...fault } : { connection, ...fault }),
    onServerReady: log.keeps('info') ? () => log.line('info', 'server-ready', { starts: proxy.stats.serverStarts }) : undefined,
  });
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(listenAt.port, listenAt.host, () => {
        proxy.server.off('error', reject);
        const address = proxy.server.address();
        resolve(typeof address === 'object' && address ? address.port : listenAt.port);
      });
    });
  } catch (err) {
    await proxy.close();
    throw new UsageError(`proxy: cannot listen on ${hostPort(listenAt)}: ${fsReason(err)}`, false);
  }
  let metrics: Awaited<ReturnType<typeof import('./metrics.js').serveMetrics>> | undefined;
  if (metricsAt) {
    // prom-client is loaded only when metrics are asked for.
    const { proxyRegistry, serveMetrics } = await import('./metrics.js');
    const registry = proxyRegistry(() => proxy.stats);
    try {
      metrics = await serveMetrics(metricsAt, () => registry.metrics());
    } catch (err) {
      await proxy.close();
      throw new UsageError(`proxy: cannot serve metrics on ${hostPort(metricsAt)}: ${fsReason(err)}`, false);
    }
  }
  log.always('info', 'listening', {
    listening: hostPort({ ...listenAt, port }),
    server: 'url' in server ? String(server.url) : command.join(' '),
    ...(metrics && metricsAt ? { metrics: hostPort({ ...metricsAt, port: metrics.port }) } : {}),
    backend: backend.name,
  });

  const signal = await new Promise<NodeJS.Signals>((resolve) => onSignals(resolve));
  log.line('info', 'drain', { signal, timeoutMs: drainTimeoutMs, inFlight: proxy.stats.inFlight });
  const drained = await proxy.drain(drainTimeoutMs);
  log.line('info', 'drained', { ...drained });
  metrics?.server.close();
  metrics?.server.closeAllConnections();
  if (!(await io.settle(2000))) process.exit(0);
  return 0;
}
