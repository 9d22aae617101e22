// The relay between real sockets: each accepted connection gets its own
// upstream connection and its own relay state (Node only).
//
// Records flow from upstream (the proxy's side) to the client, validated.
// Whatever the client sends goes to upstream untouched: it is not a record
// stream this protocol defines, so the relay has nothing to check in it.
// When upstream ends or stops on a record error, the client gets a finish
// for every open channel before its socket is ended; when the client goes,
// the upstream connection is closed.

import net from 'node:net';
import { createRelay, type RelayOptions } from './relay.js';
import type { RelayFault } from './fault.js';

export interface Endpoint {
  host: string;
  port: number;
}

export interface TcpRelayOptions extends Omit<RelayOptions, 'onFault'> {
  /** Where to connect for each accepted client. */
  upstream: Endpoint;
  /** Called once per fault, with the connection's number (from 1, in accept order). */
  onFault?: (fault: RelayFault, connection: number) => void;
  /** Called when a connection's relay ends: cleanly (null) or with the error that stopped it. */
  onClose?: (connection: number, error: unknown) => void;
}

/** Parses "HOST:PORT" (IPv6 as "[::1]:PORT"). Throws a RangeError naming the bad part. */
export function parseEndpoint(text: string): Endpoint {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new RangeError(`'${text}' is not HOST:PORT`);
  return { host: match[1] ?? match[2], port };
}

/** Writes a Web ReadableStream into a socket, waiting for 'drain' when the socket is full. */
async function drainInto(readable: ReadableStream<Uint8Array>, socket: net.Socket): Promise<void> {
  const reader = readable.getReader();
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) return;
    if (socket.destroyed) {
      await reader.cancel();
      return;
    }
    if (!socket.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
}

/** A TCP server relaying each client to its own upstream connection. Call listen() on it. */
export function createTcpRelay(options: TcpRelayOptions): net.Server {
  let connections = 0;
  return net.createServer((client) => {
    const id = ++connections;
    const upstream = net.connect(options.upstream);
    // Records go out as soon as they are validated, often as several small
    // writes: Nagle's algorithm would hold them back for an ACK.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const relay = createRelay({ ...options, onFault: (fault) => options.onFault?.(fault, id) });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => {});
    client.pipe(upstream);

    const writer = relay.writable.getWriter();
    const feeding = (async () => {
      try {
        for await (const chunk of upstream) {
          await writer.ready;
          await writer.write(chunk as Uint8Array);
        }
        await writer.close();
      } catch (error) {
        await writer.abort(error).catch(() => {});
      }
    })();
    drainInto(relay.readable, client)
      .then(
        () => null,
        (error: unknown) => error,
      )
      .then(async (error) => {
        await feeding;
        client.end();
        upstream.destroy();
        options.onClose?.(id, error);
      });
  });
}
