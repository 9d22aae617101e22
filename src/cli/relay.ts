// `mcp-frames relay`: a record stream in, the validated stream out, faults on stderr.
//
// # Two ways to run
//
//   relay [IN [OUT]]                             stdin or IN to stdout or OUT
//   relay --listen HOST:PORT --upstream HOST:PORT
//                                                every client that connects gets
//                                                its own upstream connection and
//                                                its own relay state
//
// Faults go to stderr as JSON lines, one per fault, at the end of the
// event-loop turn that found them (src/cli/io.ts, BoundedLines: batched,
// and dropped and counted when stderr falls far behind); a TCP relay's
// lines name the connection, and its upstream failures
// (connect errors, resets, timeouts) are lines of their own. The exit status
// of a stream relay is 0 when the stream ended cleanly (faults on single
// channels included), 1 after a record error, 74 after a read or write
// error. A TCP relay (src/cli/serve.ts, and src/cli/cluster.ts with
// --workers) runs until it is sent SIGINT or SIGTERM, drains, then exits 0.

import os from 'node:os';
import { pipeWith } from '../relay/pipe.js';
import { type RelayOptions, VALIDATION_LEVELS, type ValidationLevel } from '../relay/relay.js';
import { type Endpoint, parseEndpoint } from '../relay/endpoint.js';
import { MAX_HELD_BYTES_LIMIT } from '../records/limits.js';
import type { FrameCodec } from '../frame/frame.js';
import { type Flags, COMMON_FLAGS, UsageError, backendFlag, endpointFlag, limitFlag, parseFlags } from './args.js';
import { type Input, IoError, type Io, openInput, openOutput, type Output, writeFailure } from './io.js';
import { faultLevel, LOG_LEVELS, type LogLevel } from './log.js';
import type { ServeConfig } from './serve.js';
import { clusterWorker } from './worker.js';

const RELAY_FLAGS = {
  ...COMMON_FLAGS,
  endpoint: { type: 'string' },
  validate: { type: 'string' },
  listen: { type: 'string' },
  upstream: { type: 'string' },
  'max-frame-bytes': { type: 'string' },
  'max-open-channels': { type: 'string' },
  'max-held-bytes': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'client-idle-timeout': { type: 'string' },
  'drain-timeout': { type: 'string' },
  'max-line-bytes': { type: 'string' },
  'max-connections': { type: 'string' },
  'proxy-protocol': { type: 'boolean' },
  health: { type: 'string' },
  workers: { type: 'string' },
  metrics: { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** The flags that only mean something with --listen. */
const TCP_FLAGS = [
  'connect-timeout',
  'idle-timeout',
  'client-idle-timeout',
  'drain-timeout',
  'max-connections',
  'max-line-bytes',
  'proxy-protocol',
  'workers',
  'metrics',
  'health',
] as const;

/** Most --max-connections takes: past it, two descriptors each outrun any system's limit. */
export const MAX_CONNECTIONS_LIMIT = 1_000_000;

/** Most workers --workers takes: far past any core count, short of a fork bomb. */
const MAX_WORKERS = 1024;

function workersFlag(flags: Flags): number {
  const raw = flags.values.workers;
  if (raw === undefined) return 1;
  if (raw === 'auto') return os.availableParallelism();
  const n = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_WORKERS)) throw new UsageError(`relay: --workers must be auto or a whole number from 1 to ${MAX_WORKERS}, not '${raw}'`);
  return n;
}

export function logLevelFlag(flags: Flags, command = 'relay'): LogLevel {
  const raw = flags.values['log-level'] ?? 'warn';
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) throw new UsageError(`${command}: --log-level must be one of ${LOG_LEVELS.join(', ')}, not '${raw}'`);
  return level;
}

/**
 * A timeout flag in seconds (decimals allowed, 0 for none), as milliseconds; undefined when absent.
 * A timeout that rounds to 0 ms is refused: 0 means none (or the system's own), the opposite of
 * the short timeout asked for.
 */
export function secondsFlag(flags: Flags, flag: string, command = 'relay'): number | undefined {
  const raw = flags.values[flag];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(seconds * 1000 <= 2 ** 31 - 1)) throw new UsageError(`${command}: --${flag} must be a number of seconds from 0 to 2147483, not '${raw}'`);
  const ms = Math.round(seconds * 1000);
  if (ms === 0 && seconds !== 0) throw new UsageError(`${command}: --${flag} must be 0 (none) or at least a millisecond (0.001), not '${raw}'`);
  return ms;
}

/** --health HOST:PORT: where /healthz and /readyz are served when --metrics is not given (with it, they are served there). */
export function healthFlag(flags: Flags, command: string): Endpoint | undefined {
  const health = flags.values.health;
  if (health === undefined) return undefined;
  if (flags.values.metrics !== undefined)
    throw new UsageError(`${command}: --health and --metrics do not go together: /healthz and /readyz are served on the --metrics port`);
  return endpointOf(health as string, 'health', command);
}

export function endpointOf(text: string, flag: string, command = 'relay'): Endpoint {
  try {
    return parseEndpoint(text);
  } catch (err) {
    throw new UsageError(`${command}: --${flag} ${(err as Error).message}`);
  }
}

/**
 * What 'full' judges frames by: the --endpoint codec, or 'auto' (each channel by the method its client's request line
 * named, WIRE.md section 8), which is the default of `relay --listen --validate full`.
 */
async function relayEndpoint(flags: Flags, validate: ValidationLevel): Promise<FrameCodec<unknown> | 'auto' | undefined> {
  const named = flags.values.endpoint;
  const listening = flags.values.listen !== undefined || flags.values.upstream !== undefined;
  if (named === 'auto' && validate !== 'full') throw new UsageError('relay: --endpoint auto judges schemas, which only --validate full does');
  if (named === 'auto' || (named === undefined && validate === 'full' && listening)) return 'auto';
  return validate === 'full' || named !== undefined ? endpointFlag('relay', flags) : undefined;
}

export async function relayCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('relay', args, RELAY_FLAGS, 2);
  if (flags.values.help) return 'help';
  const level = (flags.values.validate ?? 'json') as string;
  if (!VALIDATION_LEVELS.includes(level as ValidationLevel)) {
    throw new UsageError(`relay: --validate must be one of ${VALIDATION_LEVELS.join(', ')}, not '${level}'`);
  }
  const validate = level as ValidationLevel;
  const endpoint = await relayEndpoint(flags, validate);
  const options = {
    validate,
    endpoint,
    backend: backendFlag('relay', flags),
    maxFrameBytes: limitFlag('relay', flags, 'max-frame-bytes', 0),
    maxOpenChannels: limitFlag('relay', flags, 'max-open-channels', 1),
    maxHeldBytes: limitFlag('relay', flags, 'max-held-bytes', 0, MAX_HELD_BYTES_LIMIT),
  };
  const logLevel = logLevelFlag(flags);
  // Only 'full' judges a schema, and only then are the SDK's schemas loaded; a cluster's workers leave the warning to the primary.
  const worker = await clusterWorker();
  const judges = validate === 'full' ? (await import('./judges.js')).judgesInUse(io, worker === undefined) : 'none';

  const listen = flags.values.listen;
  const upstream = flags.values.upstream;
  if (listen !== undefined || upstream !== undefined) {
    if (typeof listen !== 'string' || typeof upstream !== 'string') throw new UsageError('relay: --listen and --upstream go together');
    if (flags.positionals.length) throw new UsageError('relay: files and --listen do not go together');
    const metrics = flags.values.metrics;
    const upstreamAt = endpointOf(upstream, 'upstream');
    // The TCP relay's modules (and node:net) load only for a TCP relay: a stream relay starts without them.
    const [{ DEFAULT_DRAIN_TIMEOUT_MS }, { serveTcp, serveWorker }] = await Promise.all([import('../connection/defaults.js'), import('./serve.js')]);
    // Port 0 means "any" to listen on, and nothing to connect to: every client would be refused.
    if (upstreamAt.port === 0) throw new UsageError(`relay: --upstream '${upstream}' has port 0, which nothing can be connected to`);
    const config: ServeConfig = {
      listen: endpointOf(listen, 'listen'),
      upstream: upstreamAt,
      relay: {
        ...options,
        connectTimeout: secondsFlag(flags, 'connect-timeout'),
        idleTimeout: secondsFlag(flags, 'idle-timeout'),
        clientIdleTimeout: secondsFlag(flags, 'client-idle-timeout'),
        maxConnections: limitFlag('relay', flags, 'max-connections', 0, MAX_CONNECTIONS_LIMIT),
        maxLineBytes: limitFlag('relay', flags, 'max-line-bytes', 1),
        proxyProtocol: flags.values['proxy-protocol'] === true,
      },
      drainTimeoutMs: secondsFlag(flags, 'drain-timeout') ?? DEFAULT_DRAIN_TIMEOUT_MS,
      metrics: typeof metrics === 'string' ? endpointOf(metrics, 'metrics') : undefined,
      health: healthFlag(flags, 'relay'),
      logLevel,
      workers: workersFlag(flags),
      judges,
    };
    // A worker runs this same command line (node:cluster forks it): it serves its share of the port.
    if (worker) return serveWorker(config, io);
    if (config.workers > 1) return (await import('./cluster.js')).runPrimary(config, io);
    return serveTcp(config, io);
  }
  for (const flag of TCP_FLAGS) {
    if (flags.values[flag] !== undefined) throw new UsageError(`relay: --${flag} goes with --listen and --upstream`);
  }

  const [inFile, outFile] = flags.positionals;
  if (options.endpoint === 'auto')
    throw new UsageError(
      'relay: --endpoint auto reads the request lines a client sends, which only relay --listen sees: give a stream --endpoint NAME',
    );
  const input = await openInput('relay', inFile, io, { slabs: true });
  const output = await openOutput('relay', outFile, io);
  // A stream relay's fault lines are as they always were, only filtered by level.
  return relayStream(input, output, {
    ...(options as typeof options & { endpoint: Exclude<typeof options.endpoint, 'auto'> }),
    onFault: (f) => (faultLevel(f) === 'warn' && logLevel === 'error' ? undefined : io.log(JSON.stringify(f))),
  });
}

/**
 * Relays `input` to `output` (src/relay/pipe.ts: no Web Streams between two
 * Node streams). 0 when the stream ended cleanly, 1 after a record error;
 * throws IoError for a read or write error, OutputClosed when the reader of
 * the output went away, and what stopped the relay itself (a RangeError for
 * memory a record needed) once the finishes it wrote are out.
 */
async function relayStream(input: Input, output: Output, options: RelayOptions): Promise<number> {
  const end = await pipeWith(input.stream, output.sink, options, { slabs: input.slabs }).done;
  if (end.end !== 'ended') input.stream.destroy();
  if (end.end === 'output-error') throw writeFailure(output.name, end.failure);
  if (end.end === 'input-error') throw new IoError('read', input.name, end.error);
  await output.finish();
  if (end.end === 'relay-error') throw end.error;
  return end.end === 'record-error' ? 1 : 0;
}
