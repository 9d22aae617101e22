// `mcp-frames decode`: one payload per line in, one answer per line out.
//
// # A line that is not hex is the caller's mistake, not the frame's
//
// An input error is printed in that line's place, so output line N still
// answers input line N, and decoding goes on: one typo in a long file does
// not hide the answers to the rest. The exit status says it happened
// (1 at the end), while a frame error, which is an answer about the bytes,
// leaves the status at 0.

import type { FrameCodec } from '../frame/codec.js';
import { COMMON_FLAGS, UsageError, backendFlag, endpointFlag, parseFlags } from './args.js';
import { HexFault, LongLine, parseHex, readLines } from './hex.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../records/limits.js';
import { type Io, type LineWriter, openInput } from './io.js';
import { judgesInUse } from './judges.js';
import { frameLine, inputErrorLine } from './output.js';

const DECODE_FLAGS = {
  ...COMMON_FLAGS,
  endpoint: { type: 'string' },
  hex: { type: 'boolean' },
} as const;

/** The longest line decode reads: two hex digits a byte of a frame at the default frame limit (WIRE.md section 6). */
export const MAX_HEX_LINE = 2 * DEFAULT_MAX_FRAME_BYTES;

/** Decodes each hex line of `lines` with `codec`; 1 if some line was not hex, else 0. */
export async function decodeLines(lines: AsyncIterable<string | LongLine>, codec: FrameCodec<unknown>, out: LineWriter): Promise<number> {
  let status = 0;
  let n = 0;
  for await (const text of lines) {
    n++;
    const payload =
      text instanceof LongLine
        ? new HexFault(
            `a line of ${text.length} characters, longer than ${MAX_HEX_LINE} hex digits: a frame of more than ${DEFAULT_MAX_FRAME_BYTES} bytes, the frame limit`,
          )
        : parseHex(text);
    if (payload instanceof HexFault) {
      status = 1;
      await out.line(inputErrorLine(n, payload.message));
    } else {
      await out.line(frameLine(codec.tryDecode(payload)));
    }
  }
  return status;
}

/** The command: flags, then stdin. Returns the exit status; 'help' when --help was asked. */
export async function decodeCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('decode', args, DECODE_FLAGS, 0);
  if (flags.values.help) return 'help';
  const codec = await endpointFlag('decode', flags);
  judgesInUse(io, true);
  // --hex names the input format. It is the only one so far, and required
  // so that a binary format can be added later without changing what a bare
  // `decode` means.
  if (flags.values.hex !== true) throw new UsageError('decode: --hex is required (the input format: one hex payload per line)');
  const backend = backendFlag('decode', flags);
  const input = await openInput('decode', undefined, io);
  return decodeLines(readLines(input.chunks, MAX_HEX_LINE), codec.withBackend(backend), io.out);
}
