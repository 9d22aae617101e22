// The bytes of a record cut across chunks, held until the rest arrives, in one buffer a reader reuses.
//
// # Memory follows the bytes that came, not the length declared
//
// A header that passes the frame limit may still declare 16 MiB (or, with
// the limit raised, 4 GiB) and then send nothing more. So nothing is
// reserved from the declared length: the buffer grows, at least doubling,
// only as bytes arrive, and holds at most twice what has arrived (or a
// header's worth, for the first few bytes).
//
// # One buffer for the whole stream
//
// A fresh buffer of 128 KiB or more costs a page fault for each of its
// pages, which for a 1 MiB record costs more than checking it. So the reader
// keeps its buffer from one record to the next, and a long stream of cut
// records allocates nothing once the buffer has grown to their size. After
// an outsized record the buffer shrinks back: when a record completes and
// the buffer is more than twice the largest of the recent records (and
// more than KEEP_BELOW), it is let go.

/** The smallest buffer made: a header's worth. */
const MIN_SIZE = 16;
/** A buffer this small is always kept. */
const KEEP_BELOW = 64 * 1024;
/** How many records "recent" spans. */
const RECENT = 16;

export class HeldRecord {
  /** The held bytes are buffer[0, length). */
  buffer: Uint8Array = EMPTY;
  private fill = 0;
  /** The largest record of the current span of RECENT records, and of the span before it. */
  private peak = 0;
  private lastPeak = 0;
  private records = 0;

  /** Bytes held. */
  get length(): number {
    return this.fill;
  }

  /** Bytes of memory the buffer holds now. */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Starts a new record. Reserves nothing. */
  begin(): void {
    this.fill = 0;
  }

  /** Appends bytes[start, end). */
  append(bytes: Uint8Array, start: number, end: number): void {
    const need = this.fill + (end - start);
    if (need > this.buffer.length) {
      const grown = new Uint8Array(Math.max(need, this.buffer.length * 2, MIN_SIZE));
      grown.set(this.buffer.subarray(0, this.fill));
      this.buffer = grown;
    }
    this.buffer.set(end - start === bytes.length ? bytes : bytes.subarray(start, end), this.fill);
    this.fill = need;
  }

  /** The record is done with: keep the buffer for the next one, unless an outsized record left it too large. */
  reset(): void {
    const size = this.fill;
    this.fill = 0;
    this.peak = Math.max(this.peak, size);
    if (++this.records === RECENT) {
      this.lastPeak = this.peak;
      this.peak = 0;
      this.records = 0;
    }
    const recent = Math.max(this.peak, this.lastPeak);
    if (this.buffer.length > KEEP_BELOW && this.buffer.length > 2 * recent) this.buffer = EMPTY;
  }

  /** Forgets the record and the buffer (the stream stopped). */
  clear(): void {
    this.fill = 0;
    this.buffer = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);
