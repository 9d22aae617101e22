// What every `mcp-frames/client` entry gives, whatever the host: the client over a byte stream, its errors, and the request-line encoder.

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
export { codecForMethod, METHODS, type McpMethod, type MethodResults } from '../frame/endpoints.js';
export type { StreamEnd } from '../exchange/outcome.js';
export type { Endpoint } from '../relay/endpoint.js';

/** Where a client connects: "HOST:PORT" or { host, port } (Node), or a byte stream both ways (any host). */
export type ClientTarget = string | { host: string; port: number } | import('../client/client.js').ByteStream;
