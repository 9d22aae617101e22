// `mcp-frames/client` in Deno: the client over a byte stream (a Deno.connect() connection is one), frames checked by the core as the Deno entry loads it.

import './deno.js';

export * from './client-api.js';
export { connect } from './client-connect.js';
