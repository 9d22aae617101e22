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
// Faults go to stderr as JSON lines, one per fault, the moment they are
// known; a TCP relay's lines name the connection, and its upstream failures
// (connect errors, resets, timeouts) are lines of their own. The exit status
// of a stream relay is 0 when the stream ended cleanly (faults on single
// channels included), 1 after a record error, 74 after a read or write
// error. A TCP relay runs until it is sent SIGINT or SIGTERM, then exits 0.

import { pipeRelay } from '../relay/pipe.js';
import { type RelayOptions, VALIDATION_LEVELS, type ValidationLevel } from '../relay/relay.js';
import { type ConnectionFault, createTcpRelay, type Endpoint, parseEndpoint, type TcpRelayOptions } from '../relay/tcp.js';
import { MAX_HELD_BYTES_LIMIT } from '../records/limits.js';
import { type Flags, COMMON_FLAGS, UsageError, backendFlag, endpointFlag, limitFlag, parseFlags } from './args.js';
import { fsReason, type Input, IoError, type Io, openInput, openOutput, type Output, writeFailure } from './io.js';

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
} as const;

/** A timeout flag in seconds (decimals allowed, 0 for none), as milliseconds; undefined when absent. */
function secondsFlag(flags: Flags, flag: string): number | undefined {
  const raw = flags.values[flag];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(seconds * 1000 <= 2 ** 31 - 1)) throw new UsageError(`relay: --${flag} must be a number of seconds from 0 to 2147483, not '${raw}'`);
  return Math.round(seconds * 1000);
}

function endpointOf(text: string, flag: string): Endpoint {
  try {
    return parseEndpoint(text);
  } catch (err) {
    throw new UsageError(`relay: --${flag} ${(err as Error).message}`);
  }
}

export async function relayCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('relay', args, RELAY_FLAGS, 2);
  if (flags.values.help) return 'help';
  const level = (flags.values.validate ?? 'json') as string;
  if (!VALIDATION_LEVELS.includes(level as ValidationLevel)) {
    throw new UsageError(`relay: --validate must be one of ${VALIDATION_LEVELS.join(', ')}, not '${level}'`);
  }
  const validate = level as ValidationLevel;
  const endpoint = validate === 'full' || flags.values.endpoint !== undefined ? await endpointFlag('relay', flags) : undefined;
  const options = {
    validate,
    endpoint,
    backend: backendFlag('relay', flags),
    maxFrameBytes: limitFlag('relay', flags, 'max-frame-bytes', 0),
    maxOpenChannels: limitFlag('relay', flags, 'max-open-channels', 1),
    maxHeldBytes: limitFlag('relay', flags, 'max-held-bytes', 0, MAX_HELD_BYTES_LIMIT),
  };
  const report = (fault: ConnectionFault, connection?: number) => io.err(JSON.stringify(connection === undefined ? fault : { connection, ...fault }));

  const listen = flags.values.listen;
  const upstream = flags.values.upstream;
  if (listen !== undefined || upstream !== undefined) {
    if (typeof listen !== 'string' || typeof upstream !== 'string') throw new UsageError('relay: --listen and --upstream go together');
    if (flags.positionals.length) throw new UsageError('relay: files and --listen do not go together');
    const timeouts = { connectTimeout: secondsFlag(flags, 'connect-timeout'), idleTimeout: secondsFlag(flags, 'idle-timeout') };
    return serve(endpointOf(listen, 'listen'), endpointOf(upstream, 'upstream'), { ...options, ...timeouts }, report, io);
  }
  for (const flag of ['connect-timeout', 'idle-timeout']) {
    if (flags.values[flag] !== undefined) throw new UsageError(`relay: --${flag} goes with --listen and --upstream`);
  }

  const [inFile, outFile] = flags.positionals;
  const input = await openInput('relay', inFile, io);
  const output = await openOutput('relay', outFile, io);
  return relayStream(input, output, { ...options, onFault: (f) => report(f) });
}

/**
 * Relays `input` to `output` (src/relay/pipe.ts: no Web Streams between two
 * Node streams). 0 when the stream ended cleanly, 1 after a record error;
 * throws IoError for a read or write error, OutputClosed when the reader of
 * the output went away.
 */
async function relayStream(input: Input, output: Output, options: RelayOptions): Promise<number> {
  const end = await pipeRelay(input.stream, output.sink, options).done;
  if (end.end !== 'ended') input.stream.destroy();
  if (end.end === 'output-error') throw writeFailure(output.name, end.failure);
  if (end.end === 'input-error') throw new IoError('read', input.name, end.error);
  await output.finish();
  return end.end === 'record-error' ? 1 : 0;
}

async function serve(
  listen: Endpoint,
  upstream: Endpoint,
  options: Omit<TcpRelayOptions, 'upstream' | 'onFault'>,
  report: (fault: ConnectionFault, connection?: number) => void,
  io: Io,
): Promise<number> {
  const server = createTcpRelay({ ...options, upstream, onFault: report });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new UsageError(`relay: cannot listen on ${listen.host}:${listen.port}: ${fsReason(err)}`, false)));
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  io.err(JSON.stringify({ listening: `${listen.host}:${port}`, upstream: `${upstream.host}:${upstream.port}` }));
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.close();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
