// What every `mcp-frames/client` entry gives, whatever the host: the client over a byte stream, its errors, and the request-line encoder.

import type { ClientOptions } from '../client/client.js';

export {
  type ByteStream,
  type ClientOptions,
  encodeRequestLine,
  ExchangeCutError,
  McpError,
  McpFramesClient,
  NotCarriedError,
  type RequestOptions,
  SequenceViolationError,
} from '../client/client.js';
export { codecForMethod, METHODS, type McpMethod, type MethodParams, type MethodResults } from '../frame/endpoints.js';
export type { StreamEnd } from '../exchange/outcome.js';
export type { Endpoint } from '../relay/endpoint.js';

/** How connect() opens the client. */
export interface ConnectOptions extends ClientOptions {
  /**
   * Abandons the connecting ("HOST:PORT" on Node): connect() rejects with
   * the signal's reason and the socket is destroyed. Once connected, the
   * signal has no more say: abort() the client, or give each call its own.
   */
  signal?: AbortSignal;
}

/** Where a client connects: "HOST:PORT" or { host, port } (Node), or a byte stream both ways (any host). */
export type ClientTarget = string | { host: string; port: number } | import('../client/client.js').ByteStream;
