// The channels of a stream that are open: a response came and its finish has not (WIRE.md sections 2, 3 and 6).
//
// # One table for the decoder and the relay
//
// Both the stream decoder and the relay keep the same table, and report
// (or finish) the channels still open in the order they opened when the
// stream ends. Both judge the same two limits against it when a response's
// header arrives, so a relay never forwards a stream that a decoder with
// the same limits would stop.
//
// # The held limit is judged from headers, not from chunks
//
// The bytes a stream holds are the payload lengths of the responses that
// opened the channels still open (a decoder keeps each frame until its
// finish), plus the length of the response being read (a record cut across
// chunks is buffered until it is whole). Both are known from headers alone,
// so the verdict is the same however the stream is chunked, and it is given
// before a byte of the new payload is buffered.
//
// The multiplier is odd and drawn at random for each table (multiply-shift
// hashing, Dietzfelbinger et al., "A reliable randomized algorithm for the
// closest-pair problem", J. Algorithms 25, 1997): a peer cannot choose
// channel ids that share a slot. With Knuth's fixed multiplier it could: ids
// k × 0x9e3779b1^-1 all hashed to slot 0, and 200,000 finishes against 4000
// such open channels took the decoder 1.19 s against 0.15 s for random ids.
//
// PERF NOTES: a relay of small records opens and closes a channel for every
// exchange, so this is a hash table of its own rather than a Map: channel
// ids in a Uint32Array, open addressing with linear probing from a
// multiplicative hash (Knuth, TAOCP vol. 3, 6.4), deletion by shifting the
// following entries back (no tombstones, so probes stay short). Nothing is
// allocated per exchange. Opening order is a sequence number per entry,
// sorted only when the stream ends.

import { Status } from '../wire/status.js';

/** take()'s answer for a response on a channel already open: a sequence violation. */
export const ALREADY_OPEN = -1;

/** list() walks a table of at most this many slots. */
const LIST_SLOTS = 64;

/** Slots never fall below this; the table doubles past half full. */
const MIN_SLOTS = 16;

export class OpenChannels<T> {
  // No slots until the first channel opens: a stream that never opens one costs nothing here.
  private slots = 1;
  private shift = 32;
  private channels = new Uint32Array(0);
  private used = new Uint8Array(1);
  private lengths = new Float64Array(0);
  private order = new Float64Array(0);
  private values: (T | undefined)[] = [];
  private count = 0;
  private opened = 0;
  /** Payload bytes of the responses that opened the channels still open. */
  private heldBytes = 0;
  /** This table's hash multiplier: odd, at random (see above). */
  private readonly multiplier = ((Math.random() * 0x1_0000_0000) | 1) >>> 0;

  constructor(
    private readonly maxOpenChannels: number,
    private readonly maxHeldBytes: number,
  ) {}

  /** How many channels are open. */
  get size(): number {
    return this.count;
  }

  /** Payload bytes the open channels hold. */
  get held(): number {
    return this.heldBytes;
  }

  /** The slot of `channel`, or -1. */
  private find(channel: number): number {
    if (this.count === 0) return -1;
    const mask = this.slots - 1;
    for (let i = Math.imul(channel, this.multiplier) >>> this.shift; ; i = (i + 1) & mask) {
      if (this.used[i] === 0) return -1;
      if (this.channels[i] === channel) return i;
    }
  }

  /**
   * What a response header on `channel` declaring `length` payload bytes
   * meets: Status.Ok, Status.TooManyChannels (it would open one channel too
   * many) or Status.HeldLimit (the stream would hold too much). Changes nothing.
   */
  admit(channel: number, length: number): number {
    if (this.count >= this.maxOpenChannels && this.find(channel) < 0) return Status.TooManyChannels;
    if (this.heldBytes + length > this.maxHeldBytes) return Status.HeldLimit;
    return Status.Ok;
  }

  /**
   * admit() and open() in one lookup, for a reader that takes a scan's
   * records at once: the header's record error (Status.TooManyChannels or
   * Status.HeldLimit, judged in admit's order, nothing changed), ALREADY_OPEN
   * (a second response: nothing changed), or Status.Ok, the channel now open.
   */
  take(channel: number, length: number, value: T): number {
    const found = this.find(channel) >= 0;
    if (this.count >= this.maxOpenChannels && !found) return Status.TooManyChannels;
    if (this.heldBytes + length > this.maxHeldBytes) return Status.HeldLimit;
    if (found) return ALREADY_OPEN;
    this.open(channel, length, value);
    return Status.Ok;
  }

  has(channel: number): boolean {
    return this.find(channel) >= 0;
  }

  get(channel: number): T | undefined {
    const i = this.find(channel);
    return i < 0 ? undefined : this.values[i];
  }

  /** Opens `channel` for a response of `length` payload bytes. The channel must not be open. */
  open(channel: number, length: number, value: T): void {
    if (2 * (this.count + 1) > this.slots) this.grow();
    const mask = this.slots - 1;
    let i = Math.imul(channel, this.multiplier) >>> this.shift;
    while (this.used[i] !== 0) i = (i + 1) & mask;
    this.used[i] = 1;
    this.channels[i] = channel;
    this.lengths[i] = length;
    this.order[i] = this.opened++;
    this.values[i] = value;
    this.count++;
    this.heldBytes += length;
  }

  /** Replaces an open channel's value (a second response turns it into a sequence violation). */
  set(channel: number, value: T): void {
    const i = this.find(channel);
    if (i >= 0) this.values[i] = value;
  }

  /** Closes `channel` at its finish; returns its value, or undefined when it was not open. */
  close(channel: number): T | undefined {
    const i = this.find(channel);
    if (i < 0) return undefined;
    const value = this.values[i];
    this.heldBytes -= this.lengths[i];
    this.count--;
    this.removeAt(i);
    return value;
  }

  /** Empties slot i, then moves back each following entry whose home is at or before the hole. */
  private removeAt(hole: number): void {
    const mask = this.slots - 1;
    let i = hole;
    for (;;) {
      this.used[hole] = 0;
      this.values[hole] = undefined;
      for (;;) {
        i = (i + 1) & mask;
        if (this.used[i] === 0) return;
        const home = Math.imul(this.channels[i], this.multiplier) >>> this.shift;
        // The entry at i may fill the hole when its home is not in (hole, i], cyclically.
        if (hole <= i ? home <= hole || home > i : home <= hole && home > i) break;
      }
      this.used[hole] = 1;
      this.channels[hole] = this.channels[i];
      this.lengths[hole] = this.lengths[i];
      this.order[hole] = this.order[i];
      this.values[hole] = this.values[i];
      hole = i;
    }
  }

  private grow(): void {
    const { channels, used, lengths, order, values } = this;
    const old = this.channels.length;
    this.slots = Math.max(old * 2, MIN_SLOTS);
    this.shift = 32 - Math.log2(this.slots);
    this.channels = new Uint32Array(this.slots);
    this.used = new Uint8Array(this.slots);
    this.lengths = new Float64Array(this.slots);
    this.order = new Float64Array(this.slots);
    this.values = new Array(this.slots);
    const mask = this.slots - 1;
    for (let k = 0; k < old; k++) {
      if (used[k] === 0) continue;
      let i = Math.imul(channels[k], this.multiplier) >>> this.shift;
      while (this.used[i] !== 0) i = (i + 1) & mask;
      this.used[i] = 1;
      this.channels[i] = channels[k];
      this.lengths[i] = lengths[k];
      this.order[i] = order[k];
      this.values[i] = values[k];
    }
  }

  /** The longest run of probes a lookup of an open channel takes now (for the tests of the hash). */
  longestProbe(): number {
    const mask = this.slots - 1;
    let longest = 0;
    for (let i = 0; i < this.channels.length; i++) {
      if (this.used[i] === 0) continue;
      const home = Math.imul(this.channels[i], this.multiplier) >>> this.shift;
      longest = Math.max(longest, ((i - home) & mask) + 1);
    }
    return longest;
  }

  /**
   * Writes the open channels' ids and payload lengths into `ids` and
   * `lengths` (in no order) and returns how many, or -1 when more than
   * `max` are open or the table has grown past a cheap walk.
   */
  list(ids: Uint32Array, lengths: Float64Array, max: number): number {
    if (this.count === 0) return 0;
    if (this.count > max || this.slots > LIST_SLOTS) return -1;
    let n = 0;
    for (let i = 0; i < this.slots; i++) {
      if (this.used[i] === 0) continue;
      ids[n] = this.channels[i];
      lengths[n++] = this.lengths[i];
    }
    return n;
  }

  /** Closes every channel; returns them in the order they opened. */
  closeAll(): [channel: number, value: T][] {
    const open: number[] = [];
    for (let i = 0; i < this.slots; i++) if (this.used[i] !== 0) open.push(i);
    open.sort((a, b) => this.order[a] - this.order[b]);
    const all = open.map((i): [number, T] => [this.channels[i], this.values[i] as T]);
    this.used.fill(0);
    this.values.fill(undefined);
    this.count = 0;
    this.heldBytes = 0;
    return all;
  }
}
