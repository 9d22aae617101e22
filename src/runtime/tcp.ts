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
  DEFAULT_MAX_LINE_BYTES,
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
// Every type of the main entry, since its options and stats are made of them (its values stay the main entry's).
export type * from '../index.js';
