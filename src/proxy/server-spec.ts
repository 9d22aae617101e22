// The MCP server behind the proxy, as the proxy names it and reaches it: over stdio or Streamable HTTP, what an upstream can do, and how it ends.

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
  /** A stdio message past the limit with no id to be found in it: the stream cannot be read on. */
  | { cause: 'oversize'; limit: number }
  /** The server said its session has gone (404). */
  | { cause: 'http'; status: number }
  | { cause: 'unreachable'; message: string }
  | { cause: 'closed' };

/** Why one request failed while the server went on. */
export type RequestFailure =
  /** Its answer was past the message limit: read for its id, never held. */
  | { cause: 'oversize'; limit: number }
  /** The server's HTTP response to its POST ended with no answer to it: an error status, a body that held none, or a body cut short. */
  | { cause: 'server-error'; status: number; message?: string };

export interface Upstream {
  /**
   * Sends one JSON-RPC message's text; `id` is the request's, when it is
   * one, and `from` who asked for it (HTTP takes turns among them for its
   * open requests). False when the server is not taking more (past
   * maxQueueBytes waiting): nothing was sent.
   */
  send(text: string, id?: number, from?: object): boolean;
  /**
   * The request `id` is over: its POST is aborted and its connection given
   * back (HTTP). Whether it had reached the server (a request still waiting
   * for a free POST had not, and is dropped).
   */
  forget(id: number): boolean;
  /** Request bytes sent and not yet taken by the server. */
  readonly queued: number;
  /** After the initialize result: the protocol version the server chose (HTTP sends it on every request). */
  negotiated(protocolVersion: string): void;
  /** Stops the server (stdio) or ends the session (HTTP); the end handler is not called. */
  close(): Promise<void>;
  /** Stops at once, for a process about to exit: a stdio server is killed (SIGKILL), HTTP requests are aborted. */
  kill(): void;
}

export interface UpstreamHandlers {
  /** A message from the server: its bytes are lent, valid until this returns (a stdio line's buffer takes the next line). */
  message(bytes: Uint8Array): void;
  /** One request failed and the server goes on. `id` is as the message had it (a number for the proxy's own). */
  failed(id: unknown, failure: RequestFailure): void;
  end(end: ServerEnd): void;
}

export interface UpstreamLimits {
  /** The longest message read from the server, in bytes. */
  maxMessageBytes: number;
  /** The most request bytes that may wait for the server to read them. */
  maxQueueBytes: number;
}

export function isHttpServer(spec: ServerSpec): spec is HttpServer {
  return 'url' in spec;
}
