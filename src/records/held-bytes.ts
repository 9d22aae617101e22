// The bytes of a record cut across chunks, held until the rest arrives.
//
// # Memory follows the bytes that came, not the length declared
//
// A header that passes the frame limit may still declare 16 MiB (or, with
// the limit raised, 4 GiB) and then send nothing more. Allocating the
// declared length at once would let nine bytes per stream cost that much.
// So the buffer starts small and doubles as bytes arrive, never past the
// declared length: what is held is at most twice what was received.

const FIRST_SIZE = 64 * 1024;

export class HeldBytes {
  private buffer: Uint8Array;
  private fill = 0;

  /** Holds up to `total` bytes, the record's whole size. */
  constructor(readonly total: number) {
    this.buffer = new Uint8Array(Math.min(total, FIRST_SIZE));
  }

  /** Bytes held so far. */
  get length(): number {
    return this.fill;
  }

  /** Bytes still to come. */
  get missing(): number {
    return this.total - this.fill;
  }

  /** Appends bytes; at most `missing` of them. */
  append(bytes: Uint8Array): void {
    const need = this.fill + bytes.length;
    if (need > this.total) throw new RangeError('mcp-frames: more bytes than the record declared');
    if (need > this.buffer.length) {
      let size = this.buffer.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(Math.min(size, this.total));
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
