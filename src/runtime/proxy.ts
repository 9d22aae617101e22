// `mcp-frames/proxy` (Node): a real MCP server, over stdio or Streamable HTTP, served to TCP clients as records (WIRE.md section 8).
//
// The proxy runs a server process or reaches a URL and serves sockets, so
// it is an entry of its own, for Node. Importing it loads the Node entry
// first, so answers are judged by the WebAssembly core by default.

import './node.js';

export {
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_EXCHANGE_TIMEOUT_MS,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_MAX_CLIENT_QUEUE_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_SERVER_QUEUE_BYTES,
} from '../connection/defaults.js';
export type { DrainResult } from '../connection/server.js';
export { createProxy, type McpProxy, type ProxyOptions } from '../proxy/proxy.js';
export {
  LATENCY_BUCKETS,
  NOT_CARRIED_CAUSES,
  type NotCarriedCause,
  type ProxyConnectionEnd,
  type ProxyConnectionSummary,
  type ProxyFault,
  type ProxyStats,
} from '../proxy/context.js';
export type { AnswerLevel } from '../proxy/answer.js';
export type { ServerFault } from '../proxy/session.js';
export type { HttpServer, RequestFailure, ServerEnd, ServerSpec, StdioServer } from '../proxy/server-spec.js';
export { PROXY_METHODS, readRequestLine, type ExchangeRequest, type LineRefusal } from '../exchange/request-line.js';
// Every type of the main entry, since its options and stats are made of them (its values stay the main entry's).
export type * from '../index.js';
