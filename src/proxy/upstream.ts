// The proxy's side of the MCP server: JSON-RPC messages out, the server's message bytes in, over stdio or Streamable HTTP.
//
// # Bytes in, as the server wrote them
//
// Both ways hand the core each message the server sent as its own bytes: a
// stdio line without its line end, a JSON body, or the data of one
// server-sent event. Nothing is decoded to a string on the way, so the
// frame the core slices out of a message is the server's text.
//
// # One way to fail
//
// Whatever goes wrong with the server (a process that exits or cannot be
// started, a message over the size limit, an HTTP request that fails or is
// refused, a session the server forgot) ends this upstream once, with a
// cause; the core then gives up every exchange in flight on it and starts
// a new one after a backoff.

import { type ChildProcess, spawn } from 'node:child_process';

/** A stdio MCP server: the command the proxy runs. */
export interface StdioServer {
  command: string;
  args?: readonly string[];
  /** Added to the proxy's own environment. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** What becomes of the server's stderr: dropped (default), or the proxy's own. */
  stderr?: 'ignore' | 'inherit';
}

/** A Streamable HTTP MCP server: its endpoint. */
export interface HttpServer {
  url: string | URL;
  /** Sent with every request (an authorization header). */
  headers?: Readonly<Record<string, string>>;
}

export type ServerSpec = StdioServer | HttpServer;

/** How an upstream ended. */
export type ServerEnd =
  | { cause: 'exit'; code: number | null; signal: string | null }
  | { cause: 'spawn'; message: string }
  | { cause: 'oversize'; limit: number }
  | { cause: 'http'; status: number }
  | { cause: 'unreachable'; message: string }
  | { cause: 'closed' };

export interface Upstream {
  /** Sends one JSON-RPC message's text. */
  send(text: string): void;
  /** After the initialize result: the protocol version the server chose (HTTP sends it on every request). */
  negotiated(protocolVersion: string): void;
  /** Stops the server (stdio) or ends the session (HTTP); the end handler is not called. */
  close(): Promise<void>;
}

export interface UpstreamHandlers {
  message(bytes: Uint8Array): void;
  end(end: ServerEnd): void;
}

function isHttpServer(spec: ServerSpec): spec is HttpServer {
  return 'url' in spec;
}

/** Starts an upstream for `spec`. */
export function openUpstream(spec: ServerSpec, handlers: UpstreamHandlers, maxMessageBytes: number): Upstream {
  return isHttpServer(spec) ? httpUpstream(spec, handlers, maxMessageBytes) : stdioUpstream(spec, handlers, maxMessageBytes);
}

/** Splits bytes into lines (LF, with a CR before it dropped), holding at most `limit` bytes of a line. */
class Lines {
  private chunks: Buffer[] = [];
  private held = 0;

  constructor(
    private readonly limit: number,
    private readonly line: (bytes: Uint8Array) => void,
  ) {}

  /** Takes a chunk; false when a line grew past the limit (nothing more is taken). */
  push(chunk: Buffer): boolean {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a, from); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      if (this.held + (nl - from) > this.limit) return false;
      const part = chunk.subarray(from, nl);
      let whole: Uint8Array = this.held ? Buffer.concat([...this.chunks, part]) : part;
      this.chunks = [];
      this.held = 0;
      from = nl + 1;
      if (whole.length && whole[whole.length - 1] === 0x0d) whole = whole.subarray(0, whole.length - 1);
      this.line(whole);
    }
    const rest = chunk.length - from;
    if (rest) {
      if (this.held + rest > this.limit) return false;
      this.chunks.push(chunk.subarray(from));
      this.held += rest;
    }
    return true;
  }
}

function stdioUpstream(spec: StdioServer, handlers: UpstreamHandlers, maxMessageBytes: number): Upstream {
  let ended = false;
  let closing = false;
  const end = (e: ServerEnd) => {
    if (ended) return;
    ended = true;
    if (!closing) handlers.end(e);
  };
  let child: ChildProcess;
  try {
    child = spawn(spec.command, [...(spec.args ?? [])], {
      env: { ...process.env, ...spec.env },
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', spec.stderr ?? 'ignore'],
    });
  } catch (err) {
    queueMicrotask(() => end({ cause: 'spawn', message: (err as Error).message }));
    return { send() {}, negotiated() {}, close: async () => {} };
  }
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lines = new Lines(maxMessageBytes, (bytes) => {
    if (!ended && bytes.length) handlers.message(bytes);
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    if (ended) return;
    if (!lines.push(chunk)) {
      // A message past the limit: the stream can no longer be read, so the server is stopped.
      end({ cause: 'oversize', limit: maxMessageBytes });
      child.kill('SIGKILL');
    }
  });
  child.stdin!.on('error', () => {});
  child.on('error', (err) => {
    end({ cause: 'spawn', message: err.message });
  });
  child.on('exit', (code, signal) => end({ cause: 'exit', code, signal }));
  return {
    send(text) {
      if (!ended) child.stdin!.write(`${text}\n`);
    },
    negotiated() {},
    async close() {
      closing = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin!.end();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Reads server-sent events from a body, handing on the data of each event as bytes; false when one is past the limit. */
async function readEvents(body: ReadableStream<Uint8Array>, maxMessageBytes: number, message: (bytes: Uint8Array) => void): Promise<boolean> {
  let data: Buffer[] = [];
  let dataBytes = 0;
  const lines = new Lines(maxMessageBytes + 8, (line) => {
    // An empty line ends an event; its data lines, joined by LF, are the message.
    if (line.length === 0) {
      if (data.length) message(data.length === 1 ? data[0] : Buffer.concat(data));
      data = [];
      dataBytes = 0;
      return;
    }
    const b = Buffer.from(line.buffer, line.byteOffset, line.length);
    if (b.subarray(0, 5).toString('latin1') !== 'data:') return;
    const value = b.subarray(b[5] === 0x20 ? 6 : 5);
    if (data.length) data.push(Buffer.from('\n'));
    data.push(value);
    dataBytes += value.length;
  });
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    if (!lines.push(Buffer.from(value.buffer, value.byteOffset, value.length)) || dataBytes > maxMessageBytes) {
      await reader.cancel().catch(() => {});
      return false;
    }
  }
}

function httpUpstream(spec: HttpServer, handlers: UpstreamHandlers, maxMessageBytes: number): Upstream {
  const url = new URL(spec.url);
  const abort = new AbortController();
  let session: string | undefined;
  let version: string | undefined;
  let ended = false;
  const end = (e: ServerEnd) => {
    if (ended) return;
    ended = true;
    abort.abort();
    handlers.end(e);
  };
  const message = (bytes: Uint8Array) => {
    if (!ended) handlers.message(bytes);
  };

  async function post(text: string): Promise<void> {
    const headers: Record<string, string> = {
      ...spec.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (session) headers['mcp-session-id'] = session;
    if (version) headers['mcp-protocol-version'] = version;
    const response = await fetch(url, { method: 'POST', headers, body: text, signal: abort.signal });
    const id = response.headers.get('mcp-session-id');
    if (id && !session) session = id;
    const type = response.headers.get('content-type') ?? '';
    if (response.status === 202 || !response.body) {
      await response.body?.cancel();
      return;
    }
    if (type.includes('text/event-stream')) {
      if (!(await readEvents(response.body, maxMessageBytes, message))) end({ cause: 'oversize', limit: maxMessageBytes });
      return;
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > maxMessageBytes) return end({ cause: 'oversize', limit: maxMessageBytes });
    // A JSON-RPC error can come with a 4xx status; a 404 is a session the server no longer has.
    if (response.ok || (type.includes('application/json') && response.status !== 404)) message(bytes);
    else end({ cause: 'http', status: response.status });
  }

  return {
    send(text) {
      if (ended) return;
      post(text).catch((err: unknown) => {
        if (!ended) end({ cause: 'unreachable', message: (err as { cause?: Error }).cause?.message ?? (err as Error).message });
      });
    },
    negotiated(protocolVersion) {
      version = protocolVersion;
    },
    async close() {
      ended = true;
      abort.abort();
      if (!session) return;
      // Ends the session at the server, at most a second's wait.
      const headers: Record<string, string> = { ...spec.headers, 'mcp-session-id': session };
      if (version) headers['mcp-protocol-version'] = version;
      await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(1000) }).then(
        (r) => r.body?.cancel(),
        () => {},
      );
    },
  };
}
