// A stdio MCP server behind the proxy: a child process, one JSON-RPC message a line each way.
//
// # Every message is bounded as it arrives
//
// No message longer than the limit is ever held whole. A line past it is
// read on as it streams, for its JSON-RPC id alone (MemberScanner), and
// dropped: that one request fails (`oversize`) and the server goes on; only
// a line with no id to be found ends the server.
//
// # Writes to the server wait for it
//
// What the server has not read from its stdin waits in the proxy. Past
// maxQueueBytes waiting, send() takes nothing more (the session does not
// carry the exchange: `server-not-reading`), so a server that stops reading
// holds a bounded queue, not every byte clients send. Messages sent before
// the server is started (while its stdout is connected) wait in the same
// bound.
//
// # Its stdout, read into one buffer
//
// The server's stdout is a socket the proxy connected (stdout-socket.ts),
// read into one buffer for every read; its lines are lent to the session,
// which is done with each before the next read (lines.ts).

import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { LineReader } from '../exchange/lines.js';
import { MemberScanner } from '../contract/members.js';
import { LARGE_SLAB_SIZE } from '../streams/read-slabs.js';
import type { ServerEnd, StdioServer, Upstream, UpstreamHandlers, UpstreamLimits } from './server-spec.js';
import { connectStdout, type StdoutPair } from './stdout-socket.js';

const utf8 = new TextEncoder();

/** A stdio server: a child process, one message a line each way. */
export class StdioUpstream implements Upstream {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private ended = false;
  private closing = false;
  /** Reading a line past the limit, for its id. */
  private scanner: MemberScanner | null = null;
  private readonly lines: LineReader;
  /** The socket the server's stdout is read from, when it is one (stdout-socket.ts). */
  private stdout: Readable | null = null;
  /** Messages sent before the server was started (while its stdout was connected), and their bytes. */
  private early: Uint8Array[] | null = [];
  private earlyBytes = 0;

  constructor(
    private readonly spec: StdioServer,
    private readonly handlers: UpstreamHandlers,
    private readonly limits: UpstreamLimits,
  ) {
    // Lent: a message cut across reads is the session's only while it reads it (a large answer's buffer is kept for the next).
    this.lines = new LineReader(
      limits.maxMessageBytes,
      {
        line: (bytes) => {
          if (!this.ended && bytes.length) handlers.message(bytes);
        },
        long: (piece, end) => this.long(piece, end),
      },
      { lend: true },
    );
    // One buffer for every read of this server's stdout: each read's lines are taken before the next read.
    // A Buffer, so that the line splitter's search for a line feed is Buffer's indexOf (memchr), not TypedArray's.
    const onread = {
      buffer: Buffer.alloc(LARGE_SLAB_SIZE),
      callback: (bytes: number, buffer: Uint8Array) => {
        if (!this.ended) this.lines.push(buffer.subarray(0, bytes));
        return true;
      },
    };
    connectStdout(onread)
      .catch(() => null)
      .then((pair) => this.start(pair));
  }

  /** Starts the server, its stdout `pair.theirs` (or a pipe where there is no pair), unless it was closed meanwhile. */
  private start(pair: StdoutPair | null): void {
    if (this.closing || this.ended) {
      pair?.ours.destroy();
      pair?.theirs.destroy();
      return;
    }
    const { spec } = this;
    try {
      this.child = spawn(spec.command, [...(spec.args ?? [])], {
        env: { ...process.env, ...spec.env },
        cwd: spec.cwd,
        stdio: ['pipe', pair?.theirs ?? 'pipe', spec.stderr ?? 'ignore'],
      });
    } catch (err) {
      pair?.ours.destroy();
      this.end({ cause: 'spawn', message: (err as Error).message });
      return;
    } finally {
      // The server has its own copy of its stdout now, or none: ours would keep the stream open after it exits.
      pair?.theirs.destroy();
    }
    const child = this.child;
    // 'exit', not 'close': a server's own child that kept its stdio pipes held 'close', and a drain, for as long as it lived.
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (pair) this.stdout = pair.ours;
    else {
      this.stdout = child.stdout;
      child.stdout!.on('data', (chunk: Buffer) => {
        if (!this.ended) this.lines.push(chunk);
      });
    }
    child.stdin!.on('error', () => {});
    child.on('error', (err) => this.end({ cause: 'spawn', message: err.message }));
    child.on('exit', (code, signal) => this.end({ cause: 'exit', code, signal }));
    const early = this.early ?? [];
    this.early = null;
    this.earlyBytes = 0;
    for (const bytes of early) child.stdin!.write(bytes);
  }

  private end(e: ServerEnd): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closing) this.handlers.end(e);
  }

  /** A piece of a line past the limit: read for its id; at its end, that request fails, or the server ends when no id was found. */
  private long(piece: Uint8Array, end: boolean): void {
    this.scanner ??= new MemberScanner(['id']);
    this.scanner.push(piece);
    if (!end) return;
    const id = this.scanner.value('id');
    this.scanner = null;
    if (this.ended) return;
    const limit = this.limits.maxMessageBytes;
    if (id === undefined) {
      // No id to fail alone: whatever it answered is lost, and the server with it.
      this.end({ cause: 'oversize', limit });
      this.child?.kill('SIGKILL');
    } else this.handlers.failed(id, { cause: 'oversize', limit });
  }

  get queued(): number {
    return this.early ? this.earlyBytes : (this.child?.stdin?.writableLength ?? 0);
  }

  send(text: string): boolean {
    if (this.ended || (!this.child && !this.early)) return true;
    const bytes = utf8.encode(`${text}\n`);
    // One message always goes when nothing waits: a request as long as the limit itself is still sent.
    if (this.queued > 0 && this.queued + bytes.length > this.limits.maxQueueBytes) return false;
    if (this.early) {
      this.early.push(bytes);
      this.earlyBytes += bytes.length;
    } else this.child!.stdin!.write(bytes);
    return true;
  }

  forget(): boolean {
    // Written to its stdin, it is the server's: it reads it whether or not it is still wanted.
    return true;
  }

  negotiated(): void {}

  kill(): void {
    this.closing = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.stdout?.destroy();
      return;
    }
    child.stdin!.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(timer);
    // The pipes' far ends may live on in the server's own children: ours are let go of.
    this.stdout?.destroy();
    child.stdin?.destroy();
  }
}
