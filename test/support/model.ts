// A reference reading of WIRE.md sections 2 and 3, written plainly over a whole stream in memory.
//
// The test oracle for the stream decoder: no chunks, no buffering, no
// state carried between calls; it reads the records in order and says what
// the contract says. Frames are judged by the codec (frames have their own
// suites); everything about records and sequences is decided here.

import type { FrameCodec } from '../../src/frame/codec.js';
import { FrameError } from '../../src/frame/frame-error.js';
import { plainFault } from './events.js';

export interface ModelLimits {
  maxFrameBytes?: number;
  maxOpenChannels?: number;
  maxHeldBytes?: number;
}

const u32 = (b: Uint8Array, i: number) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;

/** One record as found in a stream. */
export interface RecordSpan {
  kind: number;
  channel: number;
  offset: number;
  /** Offset just past the record. */
  end: number;
}

/** The records of a well-formed stream (every record whole, every kind valid). */
export function recordSpans(bytes: Uint8Array): RecordSpan[] {
  const out: RecordSpan[] = [];
  let i = 0;
  while (i < bytes.length) {
    const kind = bytes[i];
    const channel = u32(bytes, i + 1);
    const length = u32(bytes, i + 5);
    const end = i + 9 + (kind === 1 ? length : 0);
    if ((kind !== 1 && kind !== 2) || end > bytes.length) throw new Error(`not a well-formed stream at ${i}`);
    out.push({ kind, channel, offset: i, end });
    i = end;
  }
  return out;
}

/** The events a decoder must report for `bytes`, as plain data (FrameErrors as plainFault). */
export function referenceEvents(bytes: Uint8Array, codec: FrameCodec<unknown>, limits: ModelLimits = {}): unknown[] {
  const maxFrameBytes = limits.maxFrameBytes ?? 16 * 1024 * 1024;
  const maxOpenChannels = limits.maxOpenChannels ?? 4096;
  const maxHeldBytes = limits.maxHeldBytes ?? 64 * 1024 * 1024;
  const out: unknown[] = [];
  // Open channels in opening order; null marks a sequence violation.
  const open = new Map<number, unknown | null>();
  // The payload length of the response that opened each open channel.
  const lengths = new Map<number, number>();
  const held = () => [...lengths.values()].reduce((a, b) => a + b, 0);

  const close = () => {
    for (const channel of open.keys()) out.push({ channel, outcome: 'incomplete' });
    open.clear();
  };
  const stop = (reason: string, offset: number) => {
    close();
    out.push({ end: 'record-error', reason, offset });
    return out;
  };

  let i = 0;
  while (i < bytes.length) {
    const kind = bytes[i];
    if (kind !== 1 && kind !== 2) return stop('bad-kind', i);
    if (bytes.length - i < 9) return stop('truncated', i);
    const channel = u32(bytes, i + 1);
    const length = u32(bytes, i + 5);
    if (kind === 2) {
      if (length !== 0) return stop('bad-finish', i);
      if (!open.has(channel)) out.push({ channel, outcome: 'not-carried' });
      else {
        const outcome = open.get(channel);
        open.delete(channel);
        lengths.delete(channel);
        out.push(outcome === null ? { channel, outcome: 'sequence-violation' } : { channel, ...(outcome as object) });
      }
      i += 9;
      continue;
    }
    if (length > maxFrameBytes) return stop('oversize', i);
    if (!open.has(channel) && open.size >= maxOpenChannels) return stop('too-many-channels', i);
    if (held() + length > maxHeldBytes) return stop('held-limit', i);
    if (bytes.length - i - 9 < length) return stop('truncated', i);
    const payload = bytes.subarray(i + 9, i + 9 + length);
    if (open.has(channel)) open.set(channel, null);
    else {
      lengths.set(channel, length);
      const frame = codec.tryDecode(payload);
      open.set(
        channel,
        frame instanceof FrameError
          ? { outcome: 'frame-error', fault: plainFault(frame) }
          : frame.kind === 'result'
            ? { outcome: 'result', result: frame.result }
            : { outcome: 'error', error: frame.error },
      );
    }
    i += 9 + length;
  }
  close();
  out.push({ end: 'ok' });
  return out;
}
