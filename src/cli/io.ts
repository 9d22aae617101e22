// Where the CLI's bytes come from and go: files, stdin and stdout, opened once, and every failure named.
//
// # Await the drain, never buffer ahead
//
// A record stream or a hex file can be far larger than memory. The commands
// read a chunk, write what it made known, and read the next chunk only once
// the output has taken the writes (src/streams/node-sink.ts). So the process
// holds at most one chunk and the output's own high-water mark, whatever the
// input size.
//
// # Three ways for I/O to end badly, three answers
//
//   the reader of stdout went away (EPIPE: `| head`)   a quiet exit 0: no one is left to tell
//   any other write error (ENOSPC, EIO)                 one line naming the file and the cause, exit 74
//   a read error (EIO, EISDIR)                          one line naming the file and the cause, exit 74
//
// A file named on the command line that cannot be opened, or is a
// directory, is refused before anything is read or written: bad usage,
// exit 2. stdin that is a directory is refused the same way, rather than
// read as an empty stream.

import { close, closeSync, createReadStream, createWriteStream, fstatSync, openSync, read } from 'node:fs';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { drained, type SinkFailed, watchSink } from '../streams/node-sink.js';
import { giveSlab, LARGE_SLAB_SIZE, takeSlab } from '../streams/read-slabs.js';
import { UsageError } from './args.js';

/** The reader of the output went away (EPIPE, or it closed): nothing more can be said, and nothing is wrong with us. */
export class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
}

/** A read or write failed after the command started: main prints the message and exits 74 (EX_IOERR). */
export class IoError extends Error {
  override readonly name = 'IoError';
  constructor(op: 'read' | 'write', file: string, cause: unknown) {
    super(`cannot ${op} ${file}: ${fsReason(cause)}`, { cause });
  }
}

/** What a failed write means: the reader went away (EPIPE, closed), or a real write error on `file`. */
export function writeFailure(file: string, failure: SinkFailed): OutputClosed | IoError {
  if (failure.code === undefined || failure.code === 'EPIPE') return new OutputClosed(failure.message);
  return new IoError('write', file, failure.cause);
}

/** Writes lines to a sink, waiting for 'drain' whenever the sink is full. */
export class LineWriter {
  private readonly watch: ReturnType<typeof watchSink>;

  constructor(
    private readonly sink: Writable,
    private readonly name = 'stdout',
  ) {
    this.watch = watchSink(sink);
  }

  /** Writes `text` and a newline; resolves once the sink can take more. Throws OutputClosed or IoError. */
  async line(text: string): Promise<void> {
    this.check();
    if (this.sink.write(`${text}\n`)) return;
    await drained(this.sink);
    this.check();
  }

  private check(): void {
    const failure = this.watch.failure();
    if (failure) throw writeFailure(this.name, failure);
  }
}

/** What a command reads and writes; main builds it from the process. */
export interface Io {
  /** stdin. */
  readonly input: Readable;
  /** Whether stdin is a directory (which is refused rather than read as nothing). */
  readonly inputIsDirectory: () => boolean;
  /** stdout, a line at a time. */
  readonly out: LineWriter;
  /** stdout for bytes (the relay's output). */
  readonly bytes: Writable;
  /** One line to stderr: diagnostics only, never data. Never dropped. */
  readonly err: (line: string) => void;
  /** One event line to stderr (a fault, a connection): dropped and counted while stderr is far behind (BoundedLines). */
  readonly log: (line: string) => void;
  /**
   * Writes the event lines still pending and waits, at most `ms`, until
   * stderr has taken what it holds: before a relay's exit. False when it
   * has not: a stderr that nobody reads would then keep the process alive
   * until it is read, and the caller exits instead (which drops the rest).
   */
  readonly settle: (ms: number) => Promise<boolean>;
  /** The directory relative paths are read from. */
  readonly cwd: string;
}

/** Resolves once `stream` holds nothing unwritten, or after `ms`. */
export function drainedWithin(stream: Writable, ms: number): Promise<void> {
  if (stream.writableLength === 0 || !stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stream.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stream.once('drain', done);
  });
}

/** Lines are gathered into writes of up to this many bytes: PIPE_BUF on Linux, the most a pipe takes whole when it has room. */
const BATCH_BYTES = 4096;
/** While lines are being dropped, a count goes out at least this often, even if stderr never drains. */
const DROPPED_EVERY_MS = 1000;

/**
 * Event lines to a stream that may take them more slowly than they come.
 *
 * # Bounded
 *
 * A write to a pipe or a socket that the reader has not taken waits in the
 * process. A stream of hostile frames makes one fault line per 18 bytes of
 * input (an empty response and its finish), about six times its size, so a
 * log reader slower than the relay would let those lines grow without bound
 * (a relay of 18 MB of such pairs, its stderr read late, reached 782 MiB).
 * Past `limit` bytes waiting, a line is dropped and counted. A
 * `log-dropped` line gives the count once the stream has drained, and at
 * most every DROPPED_EVERY_MS while dropping goes on (a stream under
 * steady load may never drain), and at exit. The relay's stats and metrics
 * still count every fault.
 *
 * # Batched
 *
 * Lines made in one turn of the event loop go out at its end, in writes of
 * whole lines of up to BATCH_BYTES: a write per line cost about 3 µs (a
 * system call each, when stderr is a file). A pipe on Linux takes a write
 * of at most PIPE_BUF whole when it has room, so lines of workers sharing
 * stderr do not interleave mid-line while stderr keeps up. Once stderr is
 * backed up, Node gathers what is queued into larger writes, and a partial
 * write can then cut a line, as it could before lines were batched.
 *
 * `flush` writes what is pending at once: before a diagnostic line, and at
 * exit. Lines of the current turn are lost if a signal kills the process
 * (a stream relay has no signal handler).
 */
export class BoundedLines {
  private dropped = 0;
  private droppedSaidAt = 0;
  private awaitingDrain = false;
  /** Lines dropped since the start (for tests). */
  droppedTotal = 0;
  private pending = '';
  private pendingBytes = 0;
  private scheduled = false;

  constructor(
    private readonly stream: Writable,
    private readonly limit = 1 << 20,
    private readonly now: () => number = Date.now,
    /** Fields every `log-dropped` line carries, as the lines it counts do (a worker's number). */
    private readonly fields: Record<string, unknown> = {},
  ) {}

  write(line: string): void {
    const stream = this.stream;
    // Over the limit and past the high-water mark: a drain will come.
    if (stream.writableLength >= this.limit && stream.writableNeedDrain) {
      if (!this.awaitingDrain) {
        this.awaitingDrain = true;
        stream.once('drain', () => {
          this.awaitingDrain = false;
          this.sayDropped();
        });
      }
      if (this.dropped++ === 0) this.droppedSaidAt = this.now();
      else if (this.now() - this.droppedSaidAt >= DROPPED_EVERY_MS) this.sayDropped();
      this.droppedTotal++;
      return;
    }
    const bytes = Buffer.byteLength(line) + 1;
    if (this.pendingBytes + bytes > BATCH_BYTES) this.flush();
    this.pending += `${line}\n`;
    this.pendingBytes += bytes;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /** Writes the pending lines now, and the count of lines dropped, if any (at exit). */
  flush(sayDropped = false): void {
    if (this.pending.length !== 0) {
      const text = this.pending;
      this.pending = '';
      this.pendingBytes = 0;
      this.stream.write(text);
    }
    if (sayDropped && this.dropped !== 0) this.sayDropped();
  }

  private sayDropped(): void {
    const lines = this.dropped;
    if (lines === 0) return;
    this.dropped = 0;
    this.droppedSaidAt = this.now();
    this.flush();
    this.stream.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', event: 'log-dropped', ...this.fields, lines })}\n`);
  }
}

/** Whether file descriptor `fd` is a directory; false when it cannot be told. */
export function isDirectoryFd(fd: number): boolean {
  try {
    return fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

/** An input: its stream, its chunks read from that stream (read errors as IoError), and the name it is reported by. */
export interface Input {
  readonly name: string;
  readonly stream: Readable;
  readonly chunks: AsyncIterable<Uint8Array | string>;
  /** Whether each chunk is a view of a slab from streams/read-slabs.ts, for its reader to give back (a file opened with `slabs`). */
  readonly slabs: boolean;
}

/**
 * The input FILE names, or stdin for none or '-'. Opening it (and refusing
 * a directory) happens here, before anything is printed: a file that
 * cannot be opened is bad usage. A read that fails later is an IoError.
 */
export async function openInput(command: string, file: string | undefined, io: Io, options: { slabs?: boolean } = {}): Promise<Input> {
  if (file === undefined || file === '-') {
    if (io.inputIsDirectory()) throw new UsageError(`${command}: cannot read stdin: is a directory`, false);
    return { name: 'stdin', stream: io.input, chunks: reading(io.input, 'stdin'), slabs: false };
  }
  const resolved = path.resolve(io.cwd, file);
  let fd: number | undefined;
  try {
    fd = openSync(resolved, 'r');
    if (fstatSync(fd).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    throw new UsageError(`${command}: cannot read ${file}: ${fsReason(err)}`, false);
  }
  // A stream over the descriptor, read with fs.read and callbacks: a FileHandle's stream pays a promise per read.
  const stream = options.slabs ? new SlabReader(fd) : createReadStream('', { fd, highWaterMark: 64 * 1024 });
  return { name: file, stream, chunks: reading(stream, file), slabs: options.slabs === true };
}

/**
 * A file read into slabs of streams/read-slabs.ts, each chunk a view of
 * one, for a reader that gives them back: fs.createReadStream reads into a
 * fresh buffer each time, which cost about 100 page faults a MiB read. The
 * descriptor is closed at the end or when the stream is destroyed, after any
 * read in flight.
 */
class SlabReader extends Readable {
  private reading = false;
  private closing: (() => void) | null = null;

  constructor(private readonly fd: number) {
    super({ highWaterMark: LARGE_SLAB_SIZE });
  }

  override _read(): void {
    // A file read fills its buffer until the end: large slabs, a quarter of the reads (read-slabs.ts).
    const slab = takeSlab(true);
    this.reading = true;
    read(this.fd, slab, 0, slab.length, null, (error, bytes) => {
      this.reading = false;
      if (this.closing) {
        giveSlab(slab.buffer);
        return this.closing();
      }
      if (error) return this.destroy(error);
      if (bytes === 0) {
        giveSlab(slab.buffer);
        this.push(null);
      } else this.push(slab.subarray(0, bytes));
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closing = () => close(this.fd, (closeError) => callback(error ?? closeError));
    if (!this.reading) this.closing();
  }
}

async function* reading<T>(source: AsyncIterable<T>, name: string): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (err) {
    throw new IoError('read', name, err);
  }
}

/** An output: the writable, the name it is reported by, and how to finish it. */
export interface Output {
  readonly name: string;
  readonly sink: Writable;
  /** Ends a file and waits until everything reached it; stdout is left open. Throws IoError. */
  finish(): Promise<void>;
}

/** The output FILE names, or stdout for none or '-'. A file that cannot be created is bad usage. */
export async function openOutput(command: string, file: string | undefined, io: Io): Promise<Output> {
  if (file === undefined || file === '-') return { name: 'stdout', sink: io.bytes, finish: async () => {} };
  const stream = createWriteStream(path.resolve(io.cwd, file));
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err) => reject(new UsageError(`${command}: cannot write ${file}: ${fsReason(err)}`, false)));
  });
  return {
    name: file,
    sink: stream,
    async finish() {
      stream.end();
      try {
        await finished(stream);
      } catch (err) {
        throw new IoError('write', file, err);
      }
    },
  };
}

const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOSPC: 'no space left on the device',
  EIO: 'input/output error',
};

/** What went wrong with a file, in a few words. */
export function fsReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && FS_REASONS[code]) return FS_REASONS[code];
  return err instanceof Error ? err.message : String(err);
}
