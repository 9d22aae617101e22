// The bytes of a record cut across chunks, held until the rest arrives.
//
// # Memory follows the bytes that came, not the length declared
//
// A header that passes the frame limit may still declare 16 MiB (or, with
// the limit raised, 4 GiB) and then send nothing more. Allocating the
// declared length at once would let nine bytes per stream cost that much,
// and even a fixed first block would let thousands of idle streams hold
// that block each. So nothing is reserved before bytes arrive: the buffer
// is made the size of the first piece, then at least doubles as more
// arrive, never past the declared length. What is held is at most twice
// what was received (plus a few bytes for the smallest pieces).

/** The smallest buffer made: a header's worth, so that byte-sized pieces do not reallocate every time. */
const MIN_SIZE = 16;

export class HeldBytes {
  private buffer: Uint8Array = EMPTY;
  private fill = 0;

  /** Holds up to `total` bytes, the record's whole size. Reserves nothing yet. */
  constructor(readonly total: number) {}

  /** Bytes held so far. */
  get length(): number {
    return this.fill;
  }

  /** Bytes still to come. */
  get missing(): number {
    return this.total - this.fill;
  }

  /** Bytes of memory reserved now (for the bound tests). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Appends bytes; at most `missing` of them. */
  append(bytes: Uint8Array): void {
    const need = this.fill + bytes.length;
    if (need > this.total) throw new RangeError('mcp-frames: more bytes than the record declared');
    if (need > this.buffer.length) {
      const size = Math.min(Math.max(need, this.buffer.length * 2, MIN_SIZE), this.total);
      const grown = new Uint8Array(size);
      grown.set(this.buffer.subarray(0, this.fill));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.fill);
    this.fill = need;
  }

  /** The bytes held, as a view. */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.fill);
  }
}

const EMPTY = new Uint8Array(0);
