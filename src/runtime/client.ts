// `mcp-frames/client` in browsers and any web-standard host: the client over a byte stream, frames checked by the core as the main entry loads it.

import './browser.js';

export * from './client-api.js';
export { connect } from './client-connect.js';
