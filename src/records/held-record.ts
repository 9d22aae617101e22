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

// # Buffers outlive their stream
//
// A stream that ends (or stops) gives its buffer to a few spares that
// every reader shares, so that a relay whose connections each carry long
// records cut across chunks does not grow a buffer afresh for each
// connection: a spare big enough is taken before anything is allocated.
//
// PERF NOTE: 16 streams of 768 KiB frames fed 64 KiB chunks in turn, new
// streams each round (a TCP relay with 16 clients): 23 page faults a MiB,
// most of them in buffers grown for each new stream.

/** The smallest buffer made: a header's worth. */
const MIN_SIZE = 16;
/** A buffer this small is always kept. */
const KEEP_BELOW = 64 * 1024;
/** How many records "recent" spans. */
const RECENT = 16;
/** Spares kept for new streams: at most this many, and none larger than SPARE_LARGEST. */
const SPARES = 16;
const SPARE_LARGEST = 1024 * 1024 + MIN_SIZE;

const spares: Uint8Array[] = [];

/** A spare of at least `size` bytes, taken from the spares, or null. */
function takeSpare(size: number): Uint8Array | null {
  for (let k = spares.length - 1; k >= 0; k--) {
    const spare = spares[k];
    if (spare.length < size) continue;
    spares[k] = spares[spares.length - 1];
    spares.pop();
    return spare;
  }
  return null;
}

/** Keeps `buffer` for another stream, unless it is too large or there are enough. */
function giveSpare(buffer: Uint8Array): void {
  if (buffer.length > KEEP_BELOW && buffer.length <= SPARE_LARGEST && spares.length < SPARES) spares.push(buffer);
}

/** How many spares are kept now, and their bytes (for the bound tests). */
export function spareBuffers(): { count: number; bytes: number } {
  return { count: spares.length, bytes: spares.reduce((n, b) => n + b.length, 0) };
}

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
      const size = Math.max(need, this.buffer.length * 2, MIN_SIZE);
      const grown = (size > KEEP_BELOW ? takeSpare(size) : null) ?? new Uint8Array(size);
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

  /** Forgets the record and gives the buffer up, to the spares (the stream ended or stopped). */
  clear(): void {
    this.fill = 0;
    giveSpare(this.buffer);
    this.buffer = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);
