// The demo's proxy: answers each exchange with this package's frames, in
// records, over a real TCP socket, calling the MCP server through the SDK's
// Client.
//
// # Requests in, records out
//
// A client sends one JSON line per exchange: {"channel":n,"method":...,
// "params":...}. The proxy calls the server and writes that channel's
// response record, then its finish; when it cannot carry the exchange (the
// server went away), the finish alone. This request format is the demo's
// own: the protocol defines only the responses.
//
// # The server's bytes, not the SDK client's reading of them
//
// The SDK client parses results with zod schemas that strip members they do
// not know, and turns a JSON-RPC error into an McpError whose message has a
// prefix. So the proxy still makes each call through the Client, but frames
// the raw result or error object that arrived on the transport, which it
// finds by a channel number it puts in the request's _meta.

import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ENDPOINTS } from '../frame/endpoints.js';
import type { FrameCodec } from '../frame/codec.js';
import type { Frame } from '../frame/frame.js';
import { encodeFinish, encodeResponseHeader } from '../records/record.js';

/** The _meta member that carries the channel number from proxy to transport. */
const CHANNEL_META = 'mcp-frames.demo/channel';

/** A request line, as the demo's client sends it. */
export interface ExchangeRequest {
  channel: number;
  method: string;
  params?: Record<string, unknown>;
}

/** The codec for an MCP method, by the method name. */
export function codecForMethod(method: string): FrameCodec<unknown> | undefined {
  return Object.values(ENDPOINTS).find((c) => c.method === method);
}

type Raw = { result: unknown } | { error: unknown };

/** A transport that keeps the raw response of each request that carries a channel number. */
class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: unknown) => void;
  private readonly channels = new Map<string | number, number>();
  readonly raw = new Map<number, Raw>();

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (message, extra) => {
      const m = message as { id?: string | number; result?: unknown; error?: unknown };
      if (m.id !== undefined && this.channels.has(m.id) && ('result' in m || 'error' in m)) {
        const channel = this.channels.get(m.id)!;
        this.channels.delete(m.id);
        this.raw.set(channel, 'result' in m ? { result: m.result } : { error: m.error });
      }
      this.onmessage?.(message, extra as never);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    const m = message as { id?: string | number; params?: { _meta?: Record<string, unknown> } };
    const channel = m.params?._meta?.[CHANNEL_META];
    if (m.id !== undefined && typeof channel === 'number') this.channels.set(m.id, channel);
    return this.inner.send(message, options);
  }
}

export interface ProxyOptions {
  /**
   * Changes a response payload before it is sent (keeping its length), or
   * answers 'cut' to drop the connection in mid-record. For tests.
   */
  tamper?: (channel: number, payload: Uint8Array) => Uint8Array | 'cut';
  /** Told of every exchange the proxy answered. */
  onExchange?: (channel: number, method: string, payload: Uint8Array | null) => void;
}

export interface Proxy {
  readonly server: net.Server;
  readonly client: Client;
  close(): Promise<void>;
}

/** Connects an SDK Client to `mcp` and serves TCP clients with frames. Call server.listen(). */
export async function createProxy(mcp: McpServer, options: ProxyOptions = {}): Promise<Proxy> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const transport = new RecordingTransport(clientSide);
  const client = new Client({ name: 'mcp-frames-demo-proxy', version: '1.0.0' });
  await mcp.connect(serverSide);
  await client.connect(transport);

  async function answer(request: ExchangeRequest): Promise<{ payload: Uint8Array | null }> {
    const codec = codecForMethod(request.method);
    const params = { ...request.params, _meta: { ...(request.params?._meta as object), [CHANNEL_META]: request.channel } };
    try {
      await client.request({ method: request.method, params } as never, (codec?.schema ?? { parse: (v: unknown) => v }) as never);
    } catch {
      // An MCP error arrives as a rejection; its raw object is in transport.raw.
    }
    const raw = transport.raw.get(request.channel);
    transport.raw.delete(request.channel);
    if (!raw || !codec) return { payload: null };
    const frame = ('result' in raw ? { kind: 'result', result: raw.result } : { kind: 'error', error: raw.error }) as Frame<unknown>;
    try {
      return { payload: codec.encode(frame) };
    } catch {
      return { payload: null }; // a result the contract refuses is not carried
    }
  }

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = '';
    let queue = Promise.resolve();
    const write = (bytes: Uint8Array) =>
      socket.write(bytes) ? Promise.resolve() : new Promise<void>((resolve) => socket.once('drain', () => resolve()));
    socket.on('data', (data: Buffer) => {
      pending += data.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.trim()) continue;
        const request = JSON.parse(line) as ExchangeRequest;
        const answered = answer(request);
        // Answers go out in request order, one record pair at a time.
        queue = queue.then(async () => {
          const { payload } = await answered;
          if (socket.destroyed) return;
          options.onExchange?.(request.channel, request.method, payload);
          if (payload) {
            const sent = options.tamper ? options.tamper(request.channel, payload) : payload;
            const header = encodeResponseHeader(request.channel, payload.length);
            if (sent === 'cut') {
              // Half a record, then the connection goes: the relay must still finish the channel.
              socket.end(Buffer.concat([header, payload.subarray(0, payload.length >> 1)]));
              socket.destroySoon();
              return;
            }
            await write(header);
            await write(sent);
          }
          await write(encodeFinish(request.channel));
        });
      }
    });
  });

  return {
    server,
    client,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.close().catch(() => {});
      await mcp.close().catch(() => {});
    },
  };
}
