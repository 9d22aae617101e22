// A client for the end-to-end test: asks for exchanges on request lines (WIRE.md section 8), keeps every byte it
// receives, and decodes the outcomes that come back through the relay into SDK types and McpError.

import net from 'node:net';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { FrameCodec } from '../../src/frame/codec.js';
import { toMcpError } from '../../src/frame/mcp-error.js';
import { StreamDecoder } from '../../src/exchange/decoder.js';
import type { Outcome, StreamEnd } from '../../src/exchange/outcome.js';
import type { Backend } from '../../src/backend/backend.js';
import { codecForMethod } from '../../src/frame/endpoints.js';
import type { ExchangeRequest } from '../../src/exchange/request-line.js';

/** What one exchange came to, as the client sees it. */
export interface Exchange {
  channel: number;
  method: string;
  params?: Record<string, unknown>;
  outcome: Outcome;
  /** The MCP error as the SDK's McpError, for an 'error' outcome. */
  mcpError?: McpError;
  /** Payload bytes of the frame that arrived (0 when none did). */
  bytes: number;
  /** Milliseconds from the request to the outcome. */
  ms: number;
}

export interface DemoClientOptions {
  backend?: Backend;
  /** Told the total bytes received, after every chunk. */
  onBytes?: (total: number) => void;
  /** Keeps a copy of every byte received (tests compare it with what the proxy sent). */
  keepBytes?: boolean;
}

export class DemoClient {
  private readonly socket: net.Socket;
  private readonly decoder: StreamDecoder<unknown>;
  private readonly codecs = new Map<number, FrameCodec<unknown>>();
  private readonly waiting = new Map<number, { resolve: (e: Exchange) => void; request: ExchangeRequest; started: number }>();
  private readonly sizes = new Map<number, number>();
  private nextChannel = 1;
  /** Bytes received so far. */
  received = 0;
  readonly chunks: Uint8Array[] = [];
  /** How the stream ended, once it has. */
  end: StreamEnd | null = null;

  private constructor(socket: net.Socket, options: DemoClientOptions) {
    this.socket = socket;
    this.decoder = new StreamDecoder<unknown>({
      endpoint: (channel) => this.codecs.get(channel)!,
      backend: options.backend,
      onRecord: (record) => {
        if (record.kind === 'response') this.sizes.set(record.channel, record.length);
      },
    });
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      if (options.keepBytes) this.chunks.push(Uint8Array.from(chunk));
      this.deliver(this.decoder.push(chunk));
      options.onBytes?.(this.received);
    });
    socket.on('close', () => this.deliver(this.decoder.end()));
    socket.on('error', () => {});
  }

  static connect(port: number, host = '127.0.0.1', options: DemoClientOptions = {}): Promise<DemoClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => resolve(new DemoClient(socket, options)));
      socket.setNoDelay(true);
      socket.once('error', reject);
    });
  }

  private deliver(events: Array<Outcome | StreamEnd>): void {
    for (const e of events) {
      if ('end' in e) {
        this.end = e;
        continue;
      }
      const w = this.waiting.get(e.channel);
      if (!w) continue;
      this.waiting.delete(e.channel);
      const size = this.sizes.get(e.channel) ?? 0;
      this.sizes.delete(e.channel);
      const exchange: Exchange = {
        channel: e.channel,
        method: w.request.method,
        params: w.request.params,
        outcome: e,
        bytes: e.outcome === 'not-carried' || e.outcome === 'incomplete' ? 0 : size,
        ms: performance.now() - w.started,
      };
      if (e.outcome === 'error') exchange.mcpError = toMcpError(e.error);
      w.resolve(exchange);
    }
    // The stream is over: anything still waiting will never be answered.
    if (this.end) {
      for (const [channel, w] of this.waiting) {
        w.resolve({
          channel,
          method: w.request.method,
          params: w.request.params,
          outcome: { channel, outcome: 'incomplete' },
          bytes: 0,
          ms: performance.now() - w.started,
        });
      }
      this.waiting.clear();
    }
  }

  /** Asks for one exchange; resolves with its outcome. */
  exchange(method: string, params?: Record<string, unknown>): Promise<Exchange> {
    const codec = codecForMethod(method);
    if (!codec) return Promise.reject(new RangeError(`no codec for ${method}`));
    const channel = this.nextChannel++;
    this.codecs.set(channel, codec);
    const request: ExchangeRequest = { channel, method, params };
    return new Promise((resolve) => {
      if (this.end || this.socket.destroyed) {
        resolve({ channel, method, params, outcome: { channel, outcome: 'incomplete' }, bytes: 0, ms: 0 });
        return;
      }
      this.waiting.set(channel, { resolve, request, started: performance.now() });
      this.socket.write(`${JSON.stringify(request)}\n`);
    });
  }

  close(): void {
    this.socket.end();
  }
}
