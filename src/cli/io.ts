// Where the CLI's bytes go: stdout a line at a time, at the pace the reader takes them.
//
// # Await the drain, never buffer ahead
//
// A record stream or a hex file can be far larger than memory. The commands
// read a chunk, write what it made known, and read the next chunk only once
// stdout has taken the writes; while `write` answers false they wait for
// 'drain'. So the process holds at most one chunk and the stream's own high
// water mark of output, whatever the input size.
//
// # A closed stdout ends the run quietly
//
// `mcp-frames inspect big.bin | head` closes the pipe early. Node reports
// EPIPE as an 'error' event, which kills the process when nobody listens; the
// writer listens, and the next write throws OutputClosed, which main turns
// into a quiet exit.

/** A byte sink with Node's write/'drain' contract (process.stdout, a file, a pipe). */
export interface ByteSink {
  write(text: string): boolean;
  on(event: 'drain' | 'error' | 'close', listener: (err?: Error) => void): unknown;
  off(event: 'drain' | 'error' | 'close', listener: (err?: Error) => void): unknown;
}

/** stdout went away (EPIPE, closed): nothing more can be said. */
export class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
}

/** Writes lines to a sink, waiting for 'drain' whenever the sink is full. */
export class LineWriter {
  private failure: Error | null = null;
  private closed = false;

  constructor(private readonly sink: ByteSink) {
    sink.on('error', (err) => {
      this.failure ??= err ?? new Error('output error');
    });
    sink.on('close', () => {
      this.closed = true;
    });
  }

  /** Writes `text` and a newline; resolves once the sink can take more. */
  async line(text: string): Promise<void> {
    this.check();
    if (this.sink.write(`${text}\n`)) return;
    await this.drained();
  }

  private check(): void {
    if (this.failure) throw new OutputClosed(this.failure.message);
    if (this.closed) throw new OutputClosed('output closed');
  }

  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = (err?: Error): void => {
        this.sink.off('drain', onDrain);
        this.sink.off('error', onError);
        this.sink.off('close', onClose);
        if (err) reject(new OutputClosed(err.message));
        else resolve();
      };
      const onDrain = (): void => settle();
      const onError = (err?: Error): void => settle(err ?? new Error('output error'));
      const onClose = (): void => settle(new Error('output closed'));
      this.sink.on('drain', onDrain);
      this.sink.on('error', onError);
      this.sink.on('close', onClose);
    });
  }
}

/** What a command reads and writes; main builds it from the process. */
export interface Io {
  /** stdin, as chunks. */
  readonly input: AsyncIterable<Uint8Array | string>;
  /** stdout, a line at a time. */
  readonly out: LineWriter;
  /** stdout for bytes (the relay's output). */
  readonly bytes: import('node:stream').Writable;
  /** One line to stderr: diagnostics only, never data. */
  readonly err: (line: string) => void;
  /** The directory relative paths are read from. */
  readonly cwd: string;
}

const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
};

/** What went wrong with a file, in a few words. */
export function fsReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && FS_REASONS[code]) return FS_REASONS[code];
  return err instanceof Error ? err.message : String(err);
}
