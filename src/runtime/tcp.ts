// `mcp-frames/tcp` (Node): the TCP relay for embedders, with the core chosen as the Node entry chooses it.
//
// The TCP relay needs node:net, so it is an entry of its own rather than a
// part of the API every host shares. Importing it loads the Node entry
// first, so the relay checks bytes with the WebAssembly core by default.

import './node.js';

export {
  createTcpRelay,
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  type ClientIdleFault,
  type ConnectionEnd,
  type ConnectionFault,
  type ConnectionSummary,
  type DrainFault,
  type DrainResult,
  type Endpoint,
  type TcpRelay,
  type TcpRelayOptions,
  type TcpRelayStats,
  type UpstreamCause,
  type UpstreamFailure,
  type UpstreamFault,
} from '../relay/tcp.js';
export {
  createProxy,
  DEFAULT_EXCHANGE_TIMEOUT_MS,
  LATENCY_BUCKETS,
  NOT_CARRIED_CAUSES,
  type DrainResult as ProxyDrainResult,
  type McpProxy,
  type NotCarriedCause,
  type ProxyFault,
  type ProxyOptions,
  type ProxyStats,
} from '../proxy/proxy.js';
export type { HttpServer, ServerEnd, ServerSpec, StdioServer } from '../proxy/upstream.js';
export { PROXY_METHODS, readRequestLine, type ExchangeRequest, type LineRefusal } from '../proxy/request-line.js';
// Every type of the main entry, since its options and stats are made of them (its values stay the main entry's).
export type * from '../index.js';
