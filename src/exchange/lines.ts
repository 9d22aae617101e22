// Lines out of a byte stream: the one line splitter, for clients' request lines (at the proxy, and at a relay that reads them), a stdio server's messages and server-sent events.
//
// # A line's bytes are the receiver's
//
// A line is handed over once, as a view the receiver may keep: a view of
// the chunk it lay in whole (a chunk the socket or pipe made for this read,
// which nobody writes again), or the splitter's own buffer, which it then
// lets go of. Nothing is decoded to a string here.
//
// # A partly received line costs its own bytes
//
// The bytes of a line not yet ended are copied into one buffer that grows
// by doubling, up to the limit, so holding n bytes costs at most 2n: kept
// as the chunks they came in, a line sent a byte at a time cost some 119
// bytes of memory for each byte (a Buffer and its backing store for every
// chunk), and the 1 MiB line limit about 120 MiB a connection.
//
// # Or lent, in a buffer kept from line to line
//
// A reader made with `lend` lends a line cut across chunks instead: the
// view is the receiver's only until its handler returns, and the buffer
// takes the next line. A stdio server's answers of a MiB or more each
// arrive cut across many reads, and a fresh buffer for each costs a page
// fault for every 4 KiB of it. The buffer is let go when it is more than
// twice the longest of the recent lines it held (and over KEEP_BELOW), so
// one outsized line does not stay held.
//
// PERF NOTE: a 1 MiB line in 64 KiB chunks cost 0.64 to 0.69 ms of CPU
// given away (a buffer grown afresh for each), 0.07 to 0.10 ms lent.
//
// # A line past the limit
//
// Its bytes are never held whole. The receiver's `long` handler is given
// the part held so far, then every further piece as it streams in, the
// last with `end` set; it reads what it needs on the way (a stdio server's
// JSON-RPC id) and nothing more is kept. Or it stops the splitter.

const LF = 0x0a;
const CR = 0x0d;
/** The first buffer for a line cut across chunks; it doubles from there. */
const FIRST_BUFFER = 256;
/** A lent buffer this small is always kept. */
const KEEP_BELOW = 64 * 1024;
/** How many lines held in the buffer "recent" spans, for a lent buffer. */
const RECENT = 16;

export interface LineHandler {
  /** A whole line, without its LF (nor a CR before it): the receiver's to keep. */
  line(bytes: Uint8Array): void;
  /**
   * A line grew past the limit: the bytes held so far, then each further
   * piece of it, `end` set on the last (its LF not included).
   */
  long(piece: Uint8Array, end: boolean): void;
}

export interface LineReaderOptions {
  /** Lines cut across chunks are lent, valid until line() returns, in a buffer kept for the next line. */
  lend?: boolean;
}

export class LineReader {
  /** The bytes of the line not yet ended, in buffer[0, held). */
  private buffer: Uint8Array | null = null;
  private held = 0;
  private readonly lend: boolean;
  /** The longest line held in a lent buffer in the current span of RECENT such lines, and in the span before it. */
  private peak = 0;
  private lastPeak = 0;
  private recent = 0;
  /** Inside a line past the limit: its pieces go to long() until its LF. */
  private skipping = false;
  private stopped = false;

  /** The most bytes held for a line: the limit, and a CR before its LF, which is not part of the line. */
  private readonly cap: number;

  constructor(
    private readonly limit: number,
    private readonly handler: LineHandler,
    options: LineReaderOptions = {},
  ) {
    this.cap = limit + 1;
    this.lend = options.lend === true;
  }

  /** Bytes of a line not yet ended that are held now. */
  get pending(): number {
    return this.held;
  }

  /** Memory held for a line not yet ended. */
  get capacity(): number {
    return this.buffer?.length ?? 0;
  }

  /** Takes nothing more, from now on (a handler may call it). */
  stop(): void {
    this.stopped = true;
    this.buffer = null;
    this.held = 0;
  }

  /** Takes a chunk: each line it ends goes to the handler, in order. */
  push(chunk: Uint8Array): void {
    this.pushSome(chunk, Number.POSITIVE_INFINITY);
  }

  /**
   * Takes `chunk` up to the end of its `maxLines`-th line: returns how many
   * of its bytes were taken (all of them when it ends fewer lines). The
   * rest is the caller's to push later, in order.
   */
  pushSome(chunk: Uint8Array, maxLines: number): number {
    let from = 0;
    let lines = 0;
    while (from < chunk.length && !this.stopped) {
      if (lines === maxLines) return from;
      const lf = chunk.indexOf(LF, from);
      if (this.skipping) {
        this.skipping = lf < 0;
        this.handler.long(chunk.subarray(from, lf < 0 ? chunk.length : lf), lf >= 0);
        if (lf < 0) return chunk.length;
        from = lf + 1;
        lines++;
        continue;
      }
      const stop = lf < 0 ? chunk.length : lf;
      if (this.held + (stop - from) > this.cap) {
        this.overflow(chunk.subarray(from, stop), lf >= 0);
        if (lf < 0) return chunk.length;
        from = lf + 1;
        lines++;
        continue;
      }
      if (lf < 0) {
        this.keep(chunk.subarray(from));
        return chunk.length;
      }
      this.end(chunk, from, lf);
      from = lf + 1;
      lines++;
    }
    return chunk.length;
  }

  /** The line that ends at chunk[lf]: a view of the chunk when it lay there whole, else the buffer, given away or lent. */
  private end(chunk: Uint8Array, from: number, lf: number): void {
    let line: Uint8Array;
    const lent = this.lend && this.held > 0;
    if (this.held === 0) line = chunk.subarray(from, lf);
    else {
      this.keep(chunk.subarray(from, lf));
      line = (this.buffer as Uint8Array).subarray(0, this.held);
      if (!lent) this.buffer = null;
      this.held = 0;
    }
    if (line.length && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    // One byte past the limit was room for a CR; with none there, the line is too long.
    if (line.length > this.limit) this.handler.long(line, true);
    else this.handler.line(line);
    if (lent) this.lent(line.length);
  }

  /** A lent line of `length` bytes is back: the buffer is kept for the next, unless it is outsized for the recent lines. */
  private lent(length: number): void {
    this.peak = Math.max(this.peak, length);
    if (++this.recent === RECENT) {
      this.lastPeak = this.peak;
      this.peak = 0;
      this.recent = 0;
    }
    const size = this.buffer?.length ?? 0;
    if (size > KEEP_BELOW && size > 2 * Math.max(this.peak, this.lastPeak)) this.buffer = null;
  }

  /** Copies part of a line not yet ended into the buffer, which doubles as it must (never past the limit). */
  private keep(part: Uint8Array): void {
    const need = this.held + part.length;
    if (this.buffer === null || need > this.buffer.length) {
      const size = Math.min(this.cap, Math.max(need, FIRST_BUFFER, 2 * (this.buffer?.length ?? 0)));
      const grown = new Uint8Array(size);
      if (this.buffer) grown.set(this.buffer.subarray(0, this.held));
      this.buffer = grown;
    }
    this.buffer.set(part, this.held);
    this.held = need;
  }

  /** The line passes the limit with `part`: what was held and `part` go to long(), and the rest of the line after them. */
  private overflow(part: Uint8Array, end: boolean): void {
    const held = this.buffer?.subarray(0, this.held);
    this.buffer = null;
    this.held = 0;
    this.skipping = !end;
    if (held?.length) this.handler.long(held, false);
    if (!this.stopped) this.handler.long(part, end);
  }
}
