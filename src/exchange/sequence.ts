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
// # Held as bytes, decoded at the finish
//
// A response's payload is kept as bytes until its finish, and decoded then:
// what a stream holds is then what the held limit counts (WIRE.md section 3,
// the payload lengths of the open channels), where a decoded value can take
// twenty times its bytes of heap (an array of `{}`: 21 times; four open
// channels of 16 MiB frames, under the default limits, held 1.37 GB and
// took a process with a 1 GB heap down). The reader hands over a view of
// bytes that may go back to the caller or be reused once its scan is done:
// a finish in the same scan decodes from the view, and at the end of the
// scan (settle) the payloads of the channels still open are copied. A
// second response turns the channel into a sequence violation and is
// dropped, as are any after it, and its first payload with them.

import type { Backend } from '../backend/backend.js';
import { frameFault } from '../wire/fault.js';
import { buildFrame, type CodecChoice, codecFor } from '../frame/build.js';
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

/** An open channel's response: its payload (a view until settled, then a copy) and the reader's verdict on its frame. */
interface Pending {
  bytes: Uint8Array;
  start: number;
  readonly length: number;
  readonly status: number;
  readonly faultOffset: number;
  /** Its place in `unsettled` while its payload is a view, else -1. */
  slot: number;
}

/** An open channel's response; null once a second response arrived. */
type Held = Pending | null;

const NO_BYTES = new Uint8Array(0);

export class ChannelSequence<R> implements RecordSink {
  private readonly open: OpenChannels<Held>;
  /**
   * Responses of the current scan whose payloads are still views of the
   * reader's bytes. A finish in the same scan empties its slot, so that a
   * scan of many exchanges keeps none of them alive to its end (in a
   * scavenge, every object still reachable is copied).
   */
  private unsettled: (Pending | null)[] = [];

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
    const first = this.open.get(channel);
    if (first !== undefined) {
      if (first) this.drop(first);
      this.open.set(channel, null);
      return;
    }
    const pending: Pending = { bytes, start, length, status, faultOffset, slot: this.unsettled.length };
    this.unsettled.push(pending);
    this.open.open(channel, length, pending);
  }

  finish(channel: number, offset: number): void {
    this.onRecord?.({ kind: 'finish', channel, offset, length: 0 });
    const pending = this.open.close(channel);
    if (pending === undefined) {
      this.emit({ channel, outcome: 'not-carried' });
      return;
    }
    if (pending === null) {
      this.emit({ channel, outcome: 'sequence-violation' });
      return;
    }
    const payload = pending.bytes.subarray(pending.start, pending.start + pending.length);
    this.drop(pending);
    const fault = pending.status === NOT_VERIFIED ? this.backend.verifyFrame(payload) : frameFault(pending.status, pending.faultOffset);
    const frame = buildFrame(codecFor(this.codecs, channel), payload, fault);
    if (frame instanceof FrameError) this.emit({ channel, outcome: 'frame-error', fault: frame });
    else if (frame.kind === 'result') this.emit({ channel, outcome: 'result', result: frame.result });
    else this.emit({ channel, outcome: 'error', error: frame.error });
  }

  /** A response's payload is no longer wanted: nothing keeps it, nor the response, alive. */
  private drop(pending: Pending): void {
    pending.bytes = NO_BYTES;
    if (pending.slot >= 0) this.unsettled[pending.slot] = null;
    pending.slot = -1;
  }

  /** The scan's bytes go back: the payloads of the channels still open are copied. */
  settle(): void {
    const unsettled = this.unsettled;
    if (unsettled.length === 0) return;
    for (const p of unsettled) {
      if (p === null) continue;
      p.slot = -1;
      if (p.bytes === NO_BYTES) continue;
      p.bytes = p.bytes.slice(p.start, p.start + p.length);
      p.start = 0;
    }
    this.unsettled = [];
  }

  /** The stream ended or stopped: every open channel is incomplete, in opening order. */
  close(): void {
    for (const [channel] of this.open.closeAll()) this.emit({ channel, outcome: 'incomplete' });
  }
}
