// The channels of a stream that are open: a response came and its finish has not (WIRE.md sections 2, 3 and 6).
//
// # One table for the decoder and the relay
//
// Both the stream decoder and the relay keep the same table, in the order
// the channels opened (the order in which they are reported incomplete, or
// finished by a relay, when the stream ends), and both judge the same two
// limits against it when a response's header arrives. So a relay never
// forwards a stream that a decoder with the same limits would stop.
//
// # The held limit is judged from headers, not from chunks
//
// The bytes a stream holds are the payload lengths of the responses that
// opened the channels still open (a decoder keeps each frame until its
// finish), plus the length of the response being read (a record cut across
// chunks is buffered until it is whole). Both are known from headers alone,
// so the verdict is the same however the stream is chunked, and it is given
// before a byte of the new payload is buffered.

import { Status } from '../backend/status.js';

interface Entry<T> {
  /** The payload length of the response that opened the channel. */
  readonly length: number;
  value: T;
}

export class OpenChannels<T> {
  private readonly entries = new Map<number, Entry<T>>();
  /** Payload bytes of the responses that opened the channels still open. */
  private heldBytes = 0;

  constructor(
    private readonly maxOpenChannels: number,
    private readonly maxHeldBytes: number,
  ) {}

  /** How many channels are open. */
  get size(): number {
    return this.entries.size;
  }

  /** Payload bytes the open channels hold. */
  get held(): number {
    return this.heldBytes;
  }

  /**
   * What a response header on `channel` declaring `length` payload bytes
   * meets: Status.Ok, Status.TooManyChannels (it would open one channel too
   * many) or Status.HeldLimit (the stream would hold too much). Changes nothing.
   */
  admit(channel: number, length: number): number {
    if (this.entries.size >= this.maxOpenChannels && !this.entries.has(channel)) return Status.TooManyChannels;
    if (this.heldBytes + length > this.maxHeldBytes) return Status.HeldLimit;
    return Status.Ok;
  }

  has(channel: number): boolean {
    return this.entries.has(channel);
  }

  get(channel: number): T | undefined {
    return this.entries.get(channel)?.value;
  }

  /** Opens `channel` for a response of `length` payload bytes. The channel must not be open. */
  open(channel: number, length: number, value: T): void {
    this.entries.set(channel, { length, value });
    this.heldBytes += length;
  }

  /** Replaces an open channel's value (a second response turns it into a sequence violation). */
  set(channel: number, value: T): void {
    const entry = this.entries.get(channel);
    if (entry) entry.value = value;
  }

  /** Closes `channel` at its finish; returns its value, or undefined when it was not open. */
  close(channel: number): T | undefined {
    const entry = this.entries.get(channel);
    if (!entry) return undefined;
    this.entries.delete(channel);
    this.heldBytes -= entry.length;
    return entry.value;
  }

  /** Closes every channel; returns them in the order they opened. */
  closeAll(): [channel: number, value: T][] {
    const all = Array.from(this.entries, ([channel, entry]): [number, T] => [channel, entry.value]);
    this.entries.clear();
    this.heldBytes = 0;
    return all;
  }
}
