// connect() on a host with no sockets of its own to open (browsers, workerd, Deno's web-standard path): a byte stream only.

import { type ByteStream, McpFramesClient } from '../client/client.js';
import type { ClientTarget, ConnectOptions } from './client-api.js';

/**
 * A client over `target`, a byte stream both ways: a Workers socket from
 * `connect()` of cloudflare:sockets, a `Deno.connect()` connection, or a
 * WebSocket's streams. "HOST:PORT" needs Node's entry, which opens the
 * socket itself.
 */
export async function connect(target: ClientTarget, options: ConnectOptions = {}): Promise<McpFramesClient> {
  if (typeof target === 'object' && target !== null && 'readable' in target && 'writable' in target) {
    const { signal, ...clientOptions } = options;
    signal?.throwIfAborted();
    return new McpFramesClient(target as ByteStream, clientOptions);
  }
  throw new TypeError(
    "mcp-frames/client: on this host, connect() takes { readable, writable } (a Workers socket from cloudflare:sockets' connect(), or a Deno.connect() connection); 'HOST:PORT' needs Node",
  );
}
