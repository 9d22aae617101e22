// `mcp-frames/client` in Cloudflare workerd: the client over a Workers socket (cloudflare:sockets), frames checked by the core as the workerd entry loads it.

import './workerd.js';

export * from './client-api.js';
export { connect } from './client-connect.js';
