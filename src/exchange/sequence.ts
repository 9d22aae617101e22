// One exchange per channel: a response, then the finish (WIRE.md section 2).
//
// # A channel is open from its response to its finish
//
// Only a response opens a channel, so only a response can break the open
// channel limit or the held limit, and a finish alone (not carried) never
// counts. Open channels are kept in the order they opened (open-channels.ts):
// that is the order in which they are reported incomplete when the stream
// ends or stops.
//
// # Decoded on arrival, reported at the finish
//
// A response's frame is decoded when it arrives, while its bytes are still
// in hand (the reader may pass a view of a chunk the caller will reuse), and
// the outcome waits for the finish. A second response turns the channel into
// a sequence violation and is dropped, as are any after it.

import type { Backend } from '../backend/backend.js';
import { frameFault } from '../wire/fault.js';
import { buildFrame, type CodecChoice, codecFor } from '../frame/build.js';
import type { Frame } from '../frame/frame.js';
import { FrameError } from '../frame/frame-error.js';
import { OpenChannels } from './open-channels.js';
import { NOT_VERIFIED, type RecordSink } from '../records/reader.js';
import type { Outcome } from './outcome.js';

export type { CodecChoice };

/** A record as it was read: which kind, on which channel, where, and how long its payload. */
export interface RecordInfo {
  kind: 'response' | 'finish';
  channel: number;
  offset: number;
  length: number;
}

/** An open channel's frame, decoded; null once a second response arrived. */
type Held<R> = Frame<R> | FrameError | null;

export class ChannelSequence<R> implements RecordSink {
  private readonly open: OpenChannels<Held<R>>;

  constructor(
    private readonly codecs: CodecChoice<R>,
    private readonly backend: Backend,
    limits: { maxOpenChannels: number; maxHeldBytes: number },
    private readonly emit: (outcome: Outcome<R>) => void,
    private readonly onRecord?: (record: RecordInfo) => void,
  ) {
    this.open = new OpenChannels(limits.maxOpenChannels, limits.maxHeldBytes);
  }

  admit(channel: number, length: number): number {
    return this.open.admit(channel, length);
  }

  response(channel: number, offset: number, bytes: Uint8Array, start: number, length: number, status: number, faultOffset: number): void {
    this.onRecord?.({ kind: 'response', channel, offset, length });
    if (this.open.has(channel)) {
      this.open.set(channel, null);
      return;
    }
    const payload = bytes.subarray(start, start + length);
    const fault = status === NOT_VERIFIED ? this.backend.verifyFrame(payload) : frameFault(status, faultOffset);
    const frame = buildFrame(codecFor(this.codecs, channel), payload, fault);
    this.open.open(channel, length, frame);
  }

  finish(channel: number, offset: number): void {
    this.onRecord?.({ kind: 'finish', channel, offset, length: 0 });
    if (!this.open.has(channel)) {
      this.emit({ channel, outcome: 'not-carried' });
      return;
    }
    const frame = this.open.close(channel) as Held<R>;
    if (frame === null) this.emit({ channel, outcome: 'sequence-violation' });
    else if (frame instanceof FrameError) this.emit({ channel, outcome: 'frame-error', fault: frame });
    else if (frame.kind === 'result') this.emit({ channel, outcome: 'result', result: frame.result });
    else this.emit({ channel, outcome: 'error', error: frame.error });
  }

  /** The stream ended or stopped: every open channel is incomplete, in opening order. */
  close(): void {
    for (const [channel] of this.open.closeAll()) this.emit({ channel, outcome: 'incomplete' });
  }
}
