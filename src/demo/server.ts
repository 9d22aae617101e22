// The demo's MCP server: a real McpServer from the SDK, offering resources.
//
// What it offers, and why each is there:
//   demo://hello            a small text resource
//   resources/list          200 resources in pages of 50 with cursors; some
//                           items carry _meta and vendor members, which a
//                           relay must not strip
//   demo://blob             a 4 MiB binary blob, base64 in the result
//   demo://<anything else>  -32002 (resource not found), data naming the URI
//   a URI that is not one   -32602 (invalid params)
//   demo://hang-up          the server closes its connection mid-exchange
//   prompts/list            not offered: -32601 (method not found)
//
// The handlers are set on the McpServer's underlying server, because the
// high-level registerResource API answers resources/list in one page and
// cannot page with cursors.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type ListResourcesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';

/** MCP's code for a resource that does not exist (specification, "Resources: Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

const PAGE_SIZE = 50;
const LISTING_SIZE = 200;
const BLOB_BYTES = 4 * 1024 * 1024;

/** The 4 MiB blob's bytes: a fixed pseudo-random sequence, so every run sends the same. */
export function blobBytes(): Uint8Array {
  const bytes = new Uint8Array(BLOB_BYTES);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/** Page `page` of the listing, exactly as the server returns it. */
export function listingPage(page: number): ListResourcesResult {
  const start = page * PAGE_SIZE;
  const resources = Array.from({ length: Math.min(PAGE_SIZE, LISTING_SIZE - start) }, (_, k) => {
    const n = start + k;
    const item: Record<string, unknown> = { uri: `demo://item/${n}`, name: `item ${n}`, mimeType: 'text/plain' };
    if (n % 7 === 0) item._meta = { 'vendor.example/rank': n, 'vendor.example/tags': ['é', '日本'] };
    if (n % 11 === 0) item['x-vendor'] = { shard: n % 3, note: null };
    return item;
  });
  const result: ListResourcesResult = { resources: resources as ListResourcesResult['resources'] };
  if (start + PAGE_SIZE < LISTING_SIZE) result.nextCursor = `page-${page + 1}`;
  if (page === 0) result._meta = { 'vendor.example/total': LISTING_SIZE };
  return result;
}

export const HELLO: ReadResourceResult = {
  contents: [{ uri: 'demo://hello', mimeType: 'text/plain', text: 'Hello from the MCP server.\n"Quotes", tabs\tand ünïcödé 😀 arrive as sent.' }],
};

/**
 * An error the SDK server sends as {code, message, data}. Thrown as a plain
 * Error with code and data rather than an McpError, because McpError's
 * message carries an "MCP error <code>: " prefix that would go on the wire.
 */
function mcpError(code: number, message: string, data: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** Builds the server; `blob` is the blob resource's bytes. */
export function createDemoServer(blob: Uint8Array = blobBytes()): McpServer {
  const mcp = new McpServer({ name: 'mcp-frames-demo', version: '1.0.0' }, { capabilities: { resources: {} } });
  const blobText = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('base64');

  mcp.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    const page = cursor === undefined ? 0 : Number(/^page-(\d+)$/.exec(cursor)?.[1] ?? NaN);
    if (!Number.isInteger(page) || page * PAGE_SIZE >= LISTING_SIZE) {
      throw mcpError(-32602, 'Invalid cursor', { cursor });
    }
    return listingPage(page);
  });

  mcp.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) throw mcpError(-32602, 'Invalid params: uri is not a URI', { uri });
    if (uri === 'demo://hello') return HELLO;
    if (uri === 'demo://blob') return { contents: [{ uri, mimeType: 'application/octet-stream', blob: blobText }] };
    if (uri === 'demo://hang-up') {
      await mcp.close();
      return new Promise<never>(() => {});
    }
    throw mcpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
  });

  return mcp;
}
