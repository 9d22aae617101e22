// The proxy's side of the MCP server: JSON-RPC messages out, the server's message bytes in, over stdio or Streamable HTTP.
//
// # Bytes in, as the server wrote them
//
// Both ways hand the session each message the server sent as its own
// bytes: a stdio line without its line end, a JSON body, or the data of one
// server-sent event. Nothing is decoded to a string on the way, so the
// frame the proxy slices out of a message is the server's text.
//
// # Bounded, both ways
//
// No message longer than the limit is ever held whole, and what waits for
// the server to take it is bounded: stdio-upstream.ts and http-upstream.ts
// say how each does it. Whatever goes wrong with one request fails that
// request alone where the server can go on; what leaves no way to go on (a
// process that exits, a server that cannot be reached, a session the
// server forgot) ends the upstream once, with a cause.

import { HttpUpstream } from './http-upstream.js';
import { isHttpServer, type ServerSpec, type Upstream, type UpstreamHandlers, type UpstreamLimits } from './server-spec.js';
import { StdioUpstream } from './stdio-upstream.js';

/** Starts an upstream for `spec`: a stdio server's process (stdio-upstream.ts), or a Streamable HTTP session (http-upstream.ts). */
export function openUpstream(spec: ServerSpec, handlers: UpstreamHandlers, limits: UpstreamLimits): Upstream {
  return isHttpServer(spec) ? new HttpUpstream(spec, handlers, limits) : new StdioUpstream(spec, handlers, limits);
}
