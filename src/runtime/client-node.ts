// `mcp-frames/client` on Node: connect('HOST:PORT') opens the socket; frames checked by the core as the Node entry loads it.

import net from 'node:net';
import { type ByteStream, McpFramesClient } from '../client/client.js';
import { resetSocket } from '../connection/server.js';
import { parseEndpoint } from '../relay/endpoint.js';
import type { ClientTarget, ConnectOptions } from './client-api.js';
import './node.js';

export * from './client-api.js';

/**
 * A client of the proxy (or a relay) at `target`: "HOST:PORT" or
 * { host, port }, connected before it resolves (rejects with the connect
 * error, or the reason of `options.signal` when it aborts first), or a
 * byte stream both ways.
 */
export async function connect(target: ClientTarget, options: ConnectOptions = {}): Promise<McpFramesClient> {
  if (typeof target === 'object' && target !== null && 'readable' in target && 'writable' in target) {
    options.signal?.throwIfAborted();
    const { signal: _, ...clientOptions } = options;
    return new McpFramesClient(target as ByteStream, clientOptions);
  }
  const at = typeof target === 'string' ? parseEndpoint(target) : target;
  if (typeof at?.host !== 'string' || !Number.isInteger(at.port))
    throw new TypeError(`connect() takes "HOST:PORT", { host, port } or { readable, writable }`);
  const { signal, ...clientOptions } = options;
  signal?.throwIfAborted();
  const socket = net.connect({ host: at.host, port: at.port, allowHalfOpen: true });
  socket.setNoDelay(true);
  const abandon = () => socket.destroy();
  signal?.addEventListener('abort', abandon, { once: true });
  let settle = { resolve: () => {}, reject: (_: unknown) => {} };
  const failed = (error: Error) => settle.reject(error);
  // Destroyed by the signal: 'close' comes with no error.
  const closed = () => settle.reject(signal?.reason ?? new Error('the socket closed before it connected'));
  try {
    await new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
      socket.once('connect', resolve);
      socket.once('error', failed);
      socket.once('close', closed);
    });
  } finally {
    signal?.removeEventListener('abort', abandon);
    socket.off('error', failed);
    socket.off('close', closed);
  }
  return new McpFramesClient(socketStreams(socket), clientOptions);
}

/**
 * A socket as a byte stream both ways. Not Readable.toWeb: on a socket
 * whose own side is still open (allowHalfOpen, so that the client's FIN
 * leaves the answers coming) it waits for both sides to finish, and never
 * gave the end of what the peer sent.
 */
function socketStreams(socket: net.Socket): ByteStream {
  socket.pause();
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        socket.on('data', (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
          if ((controller.desiredSize ?? 0) <= 0) socket.pause();
        });
        socket.once('end', () => controller.close());
        socket.once('error', (error) => controller.error(error));
        // Destroyed with no end and no error (the client's own abort): the stream ends there.
        socket.once('close', () => {
          try {
            controller.close();
          } catch {
            // already closed or errored
          }
        });
      },
      pull() {
        socket.resume();
      },
      // The client gave up on what it was reading (abort()): a reset, so that the proxy cancels what is in flight.
      cancel() {
        resetSocket(socket);
      },
    },
    { highWaterMark: 1 },
  );
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      if (socket.write(chunk)) return;
      return new Promise<void>((resolve, reject) => {
        const closed = () => reject(new Error('the socket closed'));
        socket.once('close', closed);
        socket.once('drain', () => {
          socket.off('close', closed);
          resolve();
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => socket.end(resolve));
    },
    // A reset, never a FIN: a FIN says the client has sent its last request, and the proxy would answer the rest.
    abort() {
      resetSocket(socket);
    },
  });
  return { readable, writable };
}
