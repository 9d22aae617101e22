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
// known. The exit status of a stream relay is 0 when the stream ended
// cleanly (faults on single channels included) and 1 after a record error.
// A TCP relay runs until it is sent SIGINT or SIGTERM, then exits 0.

import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { createRelay, VALIDATION_LEVELS, type ValidationLevel } from '../relay/relay.js';
import { createTcpRelay, drainInto, parseEndpoint, type Endpoint } from '../relay/tcp.js';
import type { RelayFault } from '../relay/fault.js';
import { pipeIterable } from '../streams/iterate.js';
import { MAX_HELD_BYTES_LIMIT } from '../records/limits.js';
import { COMMON_FLAGS, UsageError, backendFlag, endpointFlag, limitFlag, parseFlags } from './args.js';
import { fsReason, type Io } from './io.js';

const RELAY_FLAGS = {
  ...COMMON_FLAGS,
  endpoint: { type: 'string' },
  validate: { type: 'string' },
  listen: { type: 'string' },
  upstream: { type: 'string' },
  'max-frame-bytes': { type: 'string' },
  'max-open-channels': { type: 'string' },
  'max-held-bytes': { type: 'string' },
} as const;

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
  const endpoint = validate === 'full' || flags.values.endpoint !== undefined ? endpointFlag('relay', flags) : undefined;
  const options = {
    validate,
    endpoint,
    backend: backendFlag('relay', flags),
    maxFrameBytes: limitFlag('relay', flags, 'max-frame-bytes', 0),
    maxOpenChannels: limitFlag('relay', flags, 'max-open-channels', 1),
    maxHeldBytes: limitFlag('relay', flags, 'max-held-bytes', 0, MAX_HELD_BYTES_LIMIT),
  };
  const report = (fault: RelayFault, connection?: number) => io.err(JSON.stringify(connection === undefined ? fault : { connection, ...fault }));

  const listen = flags.values.listen;
  const upstream = flags.values.upstream;
  if (listen !== undefined || upstream !== undefined) {
    if (typeof listen !== 'string' || typeof upstream !== 'string') throw new UsageError('relay: --listen and --upstream go together');
    if (flags.positionals.length) throw new UsageError('relay: files and --listen do not go together');
    return serve(endpointOf(listen, 'listen'), endpointOf(upstream, 'upstream'), options, report, io);
  }

  const [inFile, outFile] = flags.positionals;
  const input = inFile === undefined || inFile === '-' ? io.input : await openInput(path.resolve(io.cwd, inFile), inFile);
  const output: Writable = outFile === undefined || outFile === '-' ? io.bytes : await openOutput(path.resolve(io.cwd, outFile), outFile);
  const relay = createRelay({ ...options, onFault: (f) => report(f) });
  let failed = false;
  const writing = drainInto(relay.readable, output).catch(() => {
    failed = true;
  });
  await pipeIterable(input as AsyncIterable<Uint8Array>, relay.writable).catch(() => {
    failed = true;
  });
  await writing;
  // The reader of the output went away (`| head`): no one is left to tell, as in main.
  if (output.destroyed) return 0;
  if (output !== io.bytes) await new Promise<void>((resolve) => (output as WriteStream).end(resolve));
  return failed ? 1 : 0;
}

async function openInput(resolved: string, shown: string): Promise<AsyncIterable<Uint8Array>> {
  try {
    await (await open(resolved, 'r')).close();
  } catch (err) {
    throw new UsageError(`relay: cannot read ${shown}: ${fsReason(err)}`, false);
  }
  return createReadStream(resolved, { highWaterMark: 64 * 1024 });
}

async function openOutput(resolved: string, shown: string): Promise<Writable> {
  const stream = createWriteStream(resolved);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err) => reject(new UsageError(`relay: cannot write ${shown}: ${fsReason(err)}`, false)));
  });
  return stream;
}

async function serve(
  listen: Endpoint,
  upstream: Endpoint,
  options: Parameters<typeof createRelay>[0],
  report: (fault: RelayFault, connection?: number) => void,
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
