// `mcp-frames inspect`: a record stream in, each channel's outcome out as soon as it is known.
//
// # Chunk by chunk, never the whole stream
//
// The stream is read in the chunks the file or pipe gives, each pushed into
// one StreamDecoder, and what a chunk made known is printed before the next
// chunk is read. Memory stays at one chunk plus what the stream holds: the
// frames of open channels and a record cut across chunks, at most the held
// limit, which the decoder checks from each header before it buffers
// anything (WIRE.md section 6).
//
// # The exit status is the stream's
//
// 0 when the stream ended ok, 1 when a record error stopped it. A frame
// error, a not-carried exchange or a sequence violation is an outcome on one
// channel, reported in its row, and leaves the status alone.

import type { Backend } from '../backend/backend.js';
import type { FrameCodec } from '../frame/codec.js';
import { StreamDecoder } from '../exchange/decoder.js';
import { MAX_HELD_BYTES_LIMIT } from '../records/limits.js';
import { isEnd, type StreamEvent } from '../exchange/outcome.js';
import { COMMON_FLAGS, backendFlag, endpointFlag, limitFlag, parseFlags } from './args.js';
import { type Io, type LineWriter, openInput } from './io.js';
import { endLine, outcomeLine, tableEnd, tableHeader, tableRow } from './output.js';

const INSPECT_FLAGS = {
  ...COMMON_FLAGS,
  endpoint: { type: 'string' },
  json: { type: 'boolean' },
  'max-frame-bytes': { type: 'string' },
  'max-open-channels': { type: 'string' },
  'max-held-bytes': { type: 'string' },
} as const;

export interface InspectOptions {
  readonly codec: FrameCodec<unknown>;
  readonly backend: Backend;
  readonly json: boolean;
  readonly maxFrameBytes?: number;
  readonly maxOpenChannels?: number;
  readonly maxHeldBytes?: number;
}

/** Decodes the record stream in `chunks`, printing as it goes; 0 when it ended ok, 1 on a record error. */
export async function inspectStream(chunks: AsyncIterable<Uint8Array | string>, options: InspectOptions, out: LineWriter): Promise<number> {
  const decoder = new StreamDecoder({
    endpoint: options.codec,
    backend: options.backend,
    maxFrameBytes: options.maxFrameBytes,
    maxOpenChannels: options.maxOpenChannels,
    maxHeldBytes: options.maxHeldBytes,
  });
  let bytes = 0;
  let outcomes = 0;
  let status = -1;

  const print = async (events: StreamEvent[]): Promise<void> => {
    for (const e of events) {
      if (isEnd(e)) {
        status = e.end === 'ok' ? 0 : 1;
        await out.line(options.json ? endLine(e) : tableEnd(e, bytes, outcomes, options.backend.name));
      } else {
        outcomes++;
        await out.line(options.json ? outcomeLine(e) : tableRow(e));
      }
    }
  };

  if (!options.json) await out.line(tableHeader());
  for await (const chunk of chunks) {
    // A record stream is bytes; a source that hands out strings was given
    // an encoding by mistake, and its bytes are not these.
    if (typeof chunk === 'string') throw new Error('mcp-frames: inspect needs a byte source, not text');
    bytes += chunk.length;
    await print(decoder.push(chunk));
    // After a record error the decoder takes nothing more: stop reading.
    if (status >= 0) return status;
  }
  await print(decoder.end());
  return status;
}

/** The command: flags, then the file or stdin. Returns the exit status; 'help' when --help was asked. */
export async function inspectCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('inspect', args, INSPECT_FLAGS, 1);
  if (flags.values.help) return 'help';
  const codec = await endpointFlag('inspect', flags);
  const maxFrameBytes = limitFlag('inspect', flags, 'max-frame-bytes', 0);
  const maxOpenChannels = limitFlag('inspect', flags, 'max-open-channels', 1);
  const maxHeldBytes = limitFlag('inspect', flags, 'max-held-bytes', 0, MAX_HELD_BYTES_LIMIT);
  const backend = backendFlag('inspect', flags);
  const input = await openInput('inspect', flags.positionals[0], io);
  return inspectStream(input.chunks, { codec, backend, json: flags.values.json === true, maxFrameBytes, maxOpenChannels, maxHeldBytes }, io.out);
}
