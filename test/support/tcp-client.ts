// A TCP client of the relay for tests: what came back, and how the connection ended.

import net from 'node:net';
import { encodeFinish, encodeResponse } from '../../src/records/record.js';

export interface ClientResult {
  bytes: Buffer;
  /** How the connection ended: 'end' (FIN, clean) or the error code ('ECONNRESET'). */
  ended: string;
}

/** Connects to the relay on `port`, sends `send` if given, and reads until the connection closes; the socket is there to act on meanwhile. */
export function connectClient(port: number, send?: Uint8Array): { done: Promise<ClientResult>; socket: net.Socket } {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let ended = '';
  socket.on('data', (c) => chunks.push(c));
  socket.on('end', () => {
    ended ||= 'end';
  });
  const done = new Promise<ClientResult>((resolve) => {
    socket.on('error', (e: NodeJS.ErrnoException) => {
      ended ||= e.code ?? e.message;
    });
    socket.on('close', () => resolve({ bytes: Buffer.concat(chunks), ended }));
  });
  if (send) socket.write(send);
  return { done, socket };
}

/** connectClient's result alone. */
export const client = (port: number, send?: Uint8Array): Promise<ClientResult> => connectClient(port, send).done;

/**
 * A stream with one of each kind of exchange fault, and what a relay at
 * 'json' forwards of it: a valid exchange, a broken frame (its finish goes
 * alone), a second response on an open channel (dropped), and a channel
 * left open at a clean end (finished by the relay).
 */
export function knownFaults(frame: Uint8Array, broken: Uint8Array): { stream: Buffer; forwarded: Buffer } {
  const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);
  return {
    stream: cat(
      encodeResponse(1, frame),
      encodeFinish(1),
      encodeResponse(2, broken),
      encodeFinish(2),
      encodeResponse(3, frame),
      encodeResponse(3, frame),
      encodeFinish(3),
      encodeResponse(4, frame),
    ),
    forwarded: cat(
      encodeResponse(1, frame),
      encodeFinish(1),
      encodeFinish(2),
      encodeResponse(3, frame),
      encodeFinish(3),
      encodeResponse(4, frame),
      encodeFinish(4),
    ),
  };
}

/** The servers listen() started, for closeListening() to close after each test. */
const listening: net.Server[] = [];

/** Starts `server` on a free loopback port and resolves with the port; closeListening() closes it. */
export async function listen(server: net.Server): Promise<number> {
  listening.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** Closes every server listen() started (for afterEach). */
export async function closeListening(): Promise<void> {
  for (const s of listening.splice(0)) {
    if (s.listening) await new Promise((resolve) => s.close(resolve));
  }
}

/** A loopback port nothing listens on: bound, then closed again. */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
