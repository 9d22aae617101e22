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
import type { Writable } from 'node:stream';
import { pipeIterable } from '../streams/iterate.js';
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

/**
 * Writes a Web ReadableStream into a Node writable (a socket, stdout, a
 * file), waiting for 'drain' when it is full. When the writable goes away
 * (closed, EPIPE), the readable is cancelled, so the relay's input stops
 * too, instead of both waiting for a 'drain' that never comes.
 */
export async function drainInto(readable: ReadableStream<Uint8Array>, sink: Writable): Promise<void> {
  const reader = readable.getReader();
  for (;;) {
    if (sink.destroyed) {
      await reader.cancel(new Error('mcp-frames: the output was closed'));
      return;
    }
    const { done, value } = await reader.read();
    if (done) return;
    if (!sink.write(value)) {
      await new Promise<void>((resolve) => {
        const settle = () => {
          sink.off('drain', settle);
          sink.off('close', settle);
          sink.off('error', settle);
          resolve();
        };
        sink.on('drain', settle);
        sink.on('close', settle);
        sink.on('error', settle);
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

    const feeding = pipeIterable(upstream as AsyncIterable<Uint8Array>, relay.writable).catch(() => {});
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
