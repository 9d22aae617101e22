// The validating relay as a Cloudflare Worker: every request relayed from its own connection to UPSTREAM (wrangler.toml).
//
// This is the whole Worker. mcp-frames/worker does the work (connect() to
// upstream, every chunk through createRelay, WebSocket or streamed HTTP
// down); wrangler bundles it with the WebAssembly core as compiled modules.
// To relay your own way, import { relayRequest } from 'mcp-frames/worker'.

export { default } from 'mcp-frames/worker';
