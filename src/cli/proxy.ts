// `mcp-frames proxy`: a real MCP server, over stdio or Streamable HTTP, served to TCP clients as records (WIRE.md section 8).
//
//   proxy --listen HOST:PORT -- COMMAND [ARGS…]     runs COMMAND as a stdio server
//   proxy --listen HOST:PORT --server-url URL       reaches a Streamable HTTP server
//
// It serves its port as `relay --listen` does (src/cli/serve.ts): the same
// log lines and levels, the same bounds on connections, /metrics, and the
// drain on SIGTERM or SIGINT. An exchange not carried or a line refused is
// warn; a client given up on, the server ending or failing to start is
// error; connections opening and closing, the server becoming ready,
// draining and drained are info.

import type { Backend } from '../backend/backend.js';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../connection/defaults.js';
import { ANSWER_LEVELS, type AnswerLevel } from '../proxy/answer.js';
import type { ProxyFault } from '../proxy/context.js';
import { createProxy, type McpProxy } from '../proxy/proxy.js';
import type { ServerSpec } from '../proxy/server-spec.js';
import { backendFlag, COMMON_FLAGS, type Flags, limitFlag, parseFlags, UsageError } from './args.js';
import type { Io } from './io.js';
import { judgesInUse } from './judges.js';
import { Log, type LogLevel } from './log.js';
import { endpointOf, healthFlag, logLevelFlag, MAX_CONNECTIONS_LIMIT, secondsFlag } from './relay.js';
import { connectionLines, listenAndServe } from './serve.js';

const PROXY_FLAGS = {
  ...COMMON_FLAGS,
  listen: { type: 'string' },
  'server-url': { type: 'string' },
  validate: { type: 'string' },
  'exchange-timeout': { type: 'string' },
  'initialize-timeout': { type: 'string' },
  'client-idle-timeout': { type: 'string' },
  'drain-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'proxy-protocol': { type: 'boolean' },
  health: { type: 'string' },
  'max-client-queue': { type: 'string' },
  'max-line-bytes': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  metrics: { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** The level of a proxy fault: warn when it touches one exchange or line, error when a client or the server failed. */
function proxyFaultLevel(fault: ProxyFault): LogLevel {
  switch (fault.reason) {
    case 'not-carried':
    case 'bad-line':
    case 'channel-in-flight':
      return 'warn';
    default:
      return 'error';
  }
}

/** The server: the command after `--`, or --server-url. */
function serverOf(flags: Flags, command: readonly string[]): ServerSpec {
  const url = flags.values['server-url'];
  if (typeof url !== 'string') {
    if (!command.length) throw new UsageError('proxy: give the server: -- COMMAND [ARGS…] (stdio) or --server-url URL (Streamable HTTP)');
    return { command: command[0], args: command.slice(1) };
  }
  if (command.length) throw new UsageError('proxy: --server-url and a command after -- do not go together');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`proxy: --server-url '${url}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`proxy: --server-url must be http: or https:, not '${parsed.protocol}'`);
  return { url: parsed };
}

function levelFlag(flags: Flags): AnswerLevel {
  const raw = flags.values.validate ?? 'full';
  if (!ANSWER_LEVELS.includes(raw as AnswerLevel)) throw new UsageError(`proxy: --validate must be one of ${ANSWER_LEVELS.join(', ')}, not '${raw}'`);
  return raw as AnswerLevel;
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
  const server = serverOf(flags, command);
  const listenAt = endpointOf(listen, 'listen', 'proxy');
  const metricsRaw = flags.values.metrics;
  const metricsAt = typeof metricsRaw === 'string' ? endpointOf(metricsRaw, 'metrics', 'proxy') : undefined;
  const healthAt = healthFlag(flags, 'proxy');
  const drainTimeoutMs = secondsFlag(flags, 'drain-timeout', 'proxy') ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const backend: Backend = backendFlag('proxy', flags);
  const validate = levelFlag(flags);
  const log = new Log(io.log, logLevelFlag(flags, 'proxy'));
  // The listening line is always the first: what the proxy says before it (a server that fails to start) waits for it.
  let held: Array<() => void> | null = [];
  const say = (line: () => void) => (held ? held.push(line) : line());
  // Which schema judges serve 'full' (the proxy loads the SDK's schemas for its request lines either way).
  const judges = validate === 'full' ? judgesInUse(io, true) : 'none';

  const proxy: McpProxy = createProxy({
    server,
    validate,
    backend,
    exchangeTimeoutMs: secondsFlag(flags, 'exchange-timeout', 'proxy'),
    initializeTimeoutMs: secondsFlag(flags, 'initialize-timeout', 'proxy'),
    clientIdleTimeout: secondsFlag(flags, 'client-idle-timeout', 'proxy'),
    maxConnections: limitFlag('proxy', flags, 'max-connections', 0, MAX_CONNECTIONS_LIMIT),
    proxyProtocol: flags.values['proxy-protocol'] === true,
    maxClientQueueBytes: limitFlag('proxy', flags, 'max-client-queue', 0, Number.MAX_SAFE_INTEGER),
    maxLineBytes: limitFlag('proxy', flags, 'max-line-bytes', 1),
    maxMessageBytes: limitFlag('proxy', flags, 'max-message-bytes', 1),
    onFault: (fault, connection) =>
      say(() => log.line(proxyFaultLevel(fault), 'fault', connection === null ? { ...fault } : { connection, ...fault })),
    onServerReady: log.keeps('info') ? () => say(() => log.line('info', 'server-ready', { starts: proxy.stats.serverStarts })) : undefined,
    ...connectionLines(log),
  });
  return listenAndServe(
    {
      server: proxy.server,
      drain: (ms) => proxy.drain(ms),
      reset: () => proxy.reset(),
      registry: (metrics) => metrics.proxyRegistry(() => proxy.stats),
      close: () => proxy.close(),
    },
    {
      command: 'proxy',
      listen: listenAt,
      metrics: metricsAt,
      health: healthAt,
      drainTimeoutMs,
      fields: { server: 'url' in server ? String(server.url) : command.join(' '), backend: backend.name, validate, judges },
      open: () => ({ connections: proxy.stats.connectionsOpen, inFlight: proxy.stats.inFlight }),
      notReady: () => (proxy.stats.serverReady ? null : 'the MCP server is not ready'),
      onListening: () => {
        const lines = held ?? [];
        held = null;
        for (const line of lines) line();
      },
      // No server could be started (maxStartFailures in a row): exit 1, after the line that says why.
      fatal: proxy.ready.then(
        () => new Promise<never>(() => {}),
        () => undefined,
      ),
    },
    log,
    io,
  );
}
