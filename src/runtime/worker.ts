// `mcp-frames/worker`: the validating relay as a Cloudflare Worker, each request relayed from its own upstream TCP connection.
//
// # The path of a request
//
//   client ──request──▶ Worker ──connect() (cloudflare:sockets)──▶ upstream record stream
//   client ◀──relayed records── createRelay ◀── upstream's bytes, chunk by chunk
//
// What the client sends (a request body, or WebSocket messages) goes
// upstream as it is: it is not a record stream, and the relay has nothing to
// check in it. Every chunk upstream sends goes through createRelay, so the
// client gets exactly what the TCP relay would give it (WIRE.md section 7):
// valid records byte for byte, a failed frame's finish alone, and a finish
// for every channel still open when upstream ends or fails.
//
// # Two ways down, because workerd gives neither both properties
//
//   WebSocket (a request with Upgrade: websocket)
//       Each relayed chunk is one binary message. The close code says how
//       upstream ended, as FIN and RST do over TCP: 1000 when it ended
//       cleanly at a record boundary, 1011 when it failed, with the fault
//       as JSON in the reason. But workerd's WebSocket has no bufferedAmount
//       and no backpressure (workerd#988): what a slow client has not
//       yet taken waits in the Worker's memory.
//   Streamed HTTP (any other request)
//       The relayed bytes are the response body, pulled at the client's
//       pace, so memory stays bounded by the relay's output queue. But
//       workerd ends a response whose body stream errors with a clean
//       chunked terminator (workerd#6818), so a failure mid-stream
//       reads as a clean end: the finishes arrive, the failure does not.
//
// A connect failure is told the same way to both, before anything is
// relayed: 502 (upstream-error) or 504 (upstream-timeout), the fault as the
// JSON body.
//
// # Timeouts and bounds, as the TCP relay's
//
// The idle timeout (default 300 s): while a channel is open or a record is
// partly received, some upstream byte must come within it, unless the relay
// is waiting on the client (its output full); else upstream has failed
// (upstream-timeout, phase idle).
// What the client sends over a WebSocket waits in the Worker until upstream
// takes it, and WebSocket has no backpressure: past CLIENT_QUEUE_BYTES
// waiting, the Worker gives up on the client (a client-overrun fault, close
// 1008) rather than grow. A binary message may arrive as a Blob or an
// ArrayBuffer; each goes upstream as its bytes, in order. A client that
// goes away (a WebSocket closed, a response body cancelled) closes the
// upstream connection at once, and is logged as client-gone, not as an
// upstream failure.
//
// workerd's connect() reads an upstream reset as the end of the stream (its
// readable is done and `closed` resolves; seen with workerd 1.20260426), so
// a reset at a record boundary is relayed as a clean end: the open
// channels get their finishes and are logged incomplete, and the close code
// is 1000. A reset inside a record is still a record error (truncated).
//
// # Logs
//
// Each fault, and each request's close with its counts, is one JSON line on
// console.log: Workers Logs and `wrangler tail` show them.

import { connect, type Socket } from 'cloudflare:sockets';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_LINE_BYTES } from '../connection/defaults.js';
import { type Endpoint, parseEndpoint } from '../relay/endpoint.js';
import type { RelayEndpoint } from '../relay/relay.js';
import { RequestLineWatcher } from '../relay/request-lines.js';
import { methodCodecs } from '../frame/endpoints.js';
import { DEFAULT_MAX_OPEN_CHANNELS } from '../records/limits.js';
import {
  backend,
  createRelay,
  endpointCodec,
  type RelayFault,
  type RelayOptions,
  schemaJudges,
  VALIDATION_LEVELS,
  type ValidationLevel,
} from './workerd.js';

/** What the Worker reports: the relay's faults, and its upstream connection's own failures. */
// Every type of the main entry, since its options and stats are made of them (its values stay the main entry's).
export type * from '../index.js';
export type { Endpoint };

export type WorkerFault =
  | RelayFault
  | { reason: 'upstream-error'; cause: 'error'; message: string }
  | { reason: 'upstream-timeout'; phase: 'connect' | 'idle'; afterMs: number }
  /** The WebSocket client sent more than upstream took, past CLIENT_QUEUE_BYTES waiting: the Worker closed it (1008). */
  | { reason: 'client-overrun'; bytes: number };

export interface WorkerRelayOptions extends Omit<RelayOptions, 'onFault' | 'endpoint'> {
  /** The upstream record stream: "HOST:PORT" or { host, port }. */
  upstream: Endpoint | string;
  /**
   * The endpoint codec for 'full': one for all channels, chosen per channel,
   * or 'auto': each channel judged by the method its client's request line
   * named (WIRE.md section 8), read from what the client sends upstream.
   */
  endpoint?: RelayEndpoint | 'auto';
  /** Milliseconds upstream may take to accept the connection; default 10 s, 0 for the runtime's own. */
  connectTimeout?: number;
  /** Milliseconds upstream may stay silent while a channel is open or a record is partly received; default 300 s, 0 never. */
  idleTimeout?: number;
  /** Called once per fault; by default each is a JSON line on console.log. */
  onFault?: (fault: WorkerFault) => void;
  /** The request context's waitUntil, so the relay outlives the handler's return. */
  waitUntil?: (work: Promise<unknown>) => void;
}

/** The Worker's configuration, from wrangler.toml's [vars]. */
export interface WorkerEnv {
  /** HOST:PORT of the upstream record stream. Required. */
  UPSTREAM?: string;
  /** json (default), full or none. */
  VALIDATE?: string;
  /** What 'full' judges by: auto (each channel by its request line's method; the default), or an endpoint (list-resources, read-resource, …). */
  ENDPOINT?: string;
  /** Seconds upstream may take to accept the connection; default 10. */
  CONNECT_TIMEOUT?: string;
  /** Seconds upstream may stay silent while a channel is open or a record is partly received; default 300, 0 never. */
  IDLE_TIMEOUT?: string;
}

/** The most a WebSocket client's messages may wait for upstream in the Worker (see the head of this file). */
const CLIENT_QUEUE_BYTES = 1 << 20;
/** A WebSocket close reason is at most 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));
const level = (fault: WorkerFault) =>
  fault.reason === 'frame-error' || fault.reason === 'sequence-violation' || fault.reason === 'incomplete' ? 'warn' : 'error';

/** The fault as a close reason: its JSON, its message shortened until it fits a close frame. */
function closeReason(fault: WorkerFault): string {
  const encoder = new TextEncoder();
  let shortened = fault;
  let text = JSON.stringify(shortened);
  while (encoder.encode(text).length > MAX_REASON_BYTES) {
    if (!('message' in shortened) || shortened.message.length === 0) return JSON.stringify({ reason: fault.reason });
    shortened = { ...shortened, message: shortened.message.slice(0, -8) };
    text = JSON.stringify(shortened);
  }
  return text;
}

/** Waits for the connection, up to `ms`; resolves with the fault when it fails. */
async function opened(socket: Socket, ms: number): Promise<WorkerFault | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<WorkerFault>((resolve) => {
    if (ms > 0) timer = setTimeout(() => resolve({ reason: 'upstream-timeout', phase: 'connect', afterMs: ms }), ms);
  });
  try {
    return await Promise.race([
      socket.opened.then(
        () => null,
        (error: unknown): WorkerFault => ({
          reason: 'upstream-error',
          cause: 'error',
          message: error instanceof Error ? error.message : String(error),
        }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tells a fault: to options.onFault, or as a JSON line. */
function emit(options: WorkerRelayOptions, fault: WorkerFault): void {
  if (options.onFault) options.onFault(fault);
  else log({ level: level(fault), event: 'fault', ...fault });
}

/**
 * Relays `request` from a new connection to `options.upstream`: over a
 * WebSocket when the request asks to upgrade, else as a streamed response.
 */
export async function relayRequest(request: Request, options: WorkerRelayOptions): Promise<Response> {
  const upstream = typeof options.upstream === 'string' ? parseEndpoint(options.upstream) : options.upstream;
  // Which core and which schema judges serve: a bundle that lost either would otherwise go unseen.
  const headers = { 'x-mcp-frames-backend': backend, 'x-mcp-frames-judges': schemaJudges };
  const socket = connect({ hostname: upstream.host, port: upstream.port });
  const refused = await opened(socket, options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS);
  if (refused) {
    emit(options, refused);
    socket.close().catch(() => {});
    return Response.json(refused, { status: refused.reason === 'upstream-timeout' ? 504 : 502, headers });
  }
  const session = new Session(socket, options);
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket' ? session.overWebSocket(headers) : session.overHttp(request, headers);
}

const encoder = new TextEncoder();

/** One request's relay: its upstream connection, the relay over what upstream sends, and how each side has ended. */
class Session {
  /** How the relay failed, when it did: the upstream error or the record error, the first one. */
  private failure: WorkerFault | null = null;
  private faults = 0;
  /** The client went away: nothing more is owed it, and upstream's end after it is no failure of upstream's. */
  private clientGone = false;
  /** The Worker gave up on upstream itself (the idle timeout): the read that fails after it is not reported again. */
  private gaveUp = false;
  /** Set while a chunk waits for room in the relay's output: the client is slow, upstream is not silent. */
  private waitingOnClient = false;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private readonly idleTimeout: number;
  private readonly started = Date.now();
  private readonly relay: ReturnType<typeof createRelay>;
  /** Endpoint 'auto': each channel judged by the method its client's line named, read before the line goes upstream. */
  private readonly watcher: RequestLineWatcher | null;
  private readonly upstreamWriter: WritableStreamDefaultWriter<Uint8Array>;
  /** WebSocket: the client's messages in order, as each goes upstream, and the bytes still waiting for upstream. */
  private forwarded: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly socket: Socket,
    private readonly options: WorkerRelayOptions,
  ) {
    this.idleTimeout = options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.watcher =
      options.endpoint === 'auto'
        ? new RequestLineWatcher(
            { maxInFlight: options.maxOpenChannels ?? DEFAULT_MAX_OPEN_CHANNELS, maxLineBytes: DEFAULT_MAX_LINE_BYTES },
            methodCodecs(options.backend),
          )
        : null;
    const endpoint = this.watcher ?? (options.endpoint as RelayEndpoint | undefined);
    this.relay = createRelay({ ...options, endpoint, onFault: (fault) => this.report(fault) });
    this.upstreamWriter = socket.writable.getWriter();
  }

  private report(fault: WorkerFault): void {
    this.faults++;
    if (level(fault) === 'error') this.failure ??= fault;
    emit(this.options, fault);
  }

  private closeUpstream(): void {
    this.socket.close().catch(() => {});
  }

  /** What the client sent, upstream as it is. */
  private toUpstream(chunk: Uint8Array): Promise<void> {
    this.watcher?.push(chunk);
    return this.upstreamWriter.write(chunk);
  }

  /**
   * Arms the idle timer, at each upstream chunk: when it fires with a channel open and the relay not waiting on
   * the client, upstream has failed (the first failure wins), and the socket's close ends the read of relayUpstream.
   */
  private touch(): void {
    if (this.idleTimeout === 0) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      // Idle is no upstream byte while a channel is open or a record is partly received (WIRE.md section 7).
      if ((this.relay.stats.openChannels === 0 && !this.relay.inRecord) || this.waitingOnClient || this.clientGone) return this.touch();
      this.gaveUp = true;
      this.report({ reason: 'upstream-timeout', phase: 'idle', afterMs: this.idleTimeout });
      this.closeUpstream();
    }, this.idleTimeout);
  }

  /**
   * Reads upstream into the relay; resolves with how it ended.
   *
   * PERF NOTES: one read and one write per upstream chunk, each awaited, so
   * the relay's output queue (createRelay's highWaterMark) is what bounds
   * the bytes in flight; the chunks are the socket's own, never copied here.
   */
  private async relayUpstream(): Promise<'ended' | 'failed'> {
    const reader = this.socket.readable.getReader();
    const writer = this.relay.writable.getWriter();
    try {
      for (;;) {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (error) {
          // Reported before the channels the failure leaves open, as the TCP relay reports it; not when the
          // Worker closed the socket itself (a client gone, the idle timeout).
          if (!this.clientGone && !this.gaveUp)
            this.report({ reason: 'upstream-error', cause: 'error', message: error instanceof Error ? error.message : String(error) });
          await writer.abort(error).catch(() => {});
          return 'failed';
        }
        this.touch();
        try {
          if (step.done) {
            if (this.gaveUp) {
              await writer.abort(new Error('upstream timed out')).catch(() => {});
              return 'failed';
            }
            await writer.close();
            return this.failure ? 'failed' : 'ended';
          }
          this.waitingOnClient = true;
          await writer.write(step.value);
          this.waitingOnClient = false;
        } catch {
          // A record error (already reported) or the client gone: nothing more is read.
          reader.cancel().catch(() => {});
          return 'failed';
        }
      }
    } finally {
      clearTimeout(this.idle);
    }
  }

  /** The request's close line, with its counts. */
  private closeLine(end: string): void {
    const stats = this.relay.stats;
    log({
      level: 'info',
      event: 'close',
      end: this.clientGone ? 'client-gone' : end,
      durationMs: Date.now() - this.started,
      bytesIn: stats.bytesIn,
      bytesOut: stats.bytesOut,
      recordsIn: stats.responsesIn + stats.finishesIn,
      recordsOut: stats.responsesOut + stats.finishesOut,
      faults: this.faults,
    });
  }

  /** Streamed HTTP: the request body goes upstream, the relayed records are the response body, pulled at the client's pace. */
  overHttp(request: Request, headers: Record<string, string>): Response {
    // Upstream decides when the exchange is over.
    const forwarding = request.body
      ? request.body.pipeTo(new WritableStream({ write: (chunk) => this.toUpstream(chunk) })).catch(() => {})
      : Promise.resolve();
    const work = this.relayUpstream().then((end) => {
      this.closeLine(end);
      return this.socket.close().catch(() => {});
    });
    this.options.waitUntil?.(Promise.all([work, forwarding]));
    // The relay's output ends with an error after a failure; workerd would end the body cleanly all the same
    // (workerd#6818), so the body is closed here and the failure is told in the log alone.
    const reader = this.relay.readable.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          controller.close();
        }
      },
      cancel: (reason) => {
        // The client went away: upstream is closed at once, not left until it next sends.
        this.clientGone = true;
        this.closeUpstream();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { headers: { ...headers, 'content-type': 'application/octet-stream', 'cache-control': 'no-store' } });
  }

  /** A WebSocket: each relayed chunk one binary message, and the close code says how upstream ended. */
  overWebSocket(headers: Record<string, string>): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    server.accept();
    server.addEventListener('message', (event: MessageEvent) => this.fromClient(server, event));
    server.addEventListener('close', () => {
      this.clientGone = true;
      this.closeUpstream();
    });
    const work = Promise.all([this.relayUpstream(), this.toClient(server)]).then(([end]) => {
      this.closeLine(end);
      if (!this.clientGone) {
        if (end === 'ended') server.close(1000, 'upstream ended');
        else server.close(1011, closeReason(this.failure ?? { reason: 'upstream-error', cause: 'error', message: 'the relay stopped' }));
      }
      return this.socket.close().catch(() => {});
    });
    this.options.waitUntil?.(work);
    return new Response(null, { status: 101, webSocket: client, headers } as ResponseInit);
  }

  /** A client's message: upstream after the ones before it; what waits for upstream is bounded. */
  private fromClient(server: WebSocket, event: MessageEvent): void {
    if (this.clientGone) return;
    const data = event.data as string | ArrayBuffer | Blob;
    const bytes: Uint8Array | Promise<Uint8Array> =
      typeof data === 'string'
        ? encoder.encode(data)
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : data.arrayBuffer().then((b) => new Uint8Array(b));
    const size = bytes instanceof Uint8Array ? bytes.length : (data as Blob).size;
    this.waiting += size;
    if (this.waiting > CLIENT_QUEUE_BYTES) {
      const fault: WorkerFault = { reason: 'client-overrun', bytes: this.waiting };
      this.report(fault);
      this.clientGone = true;
      server.close(1008, closeReason(fault));
      this.closeUpstream();
      return;
    }
    this.forwarded = this.forwarded
      .then(async () => {
        await this.toUpstream(await bytes);
        this.waiting -= size;
      })
      .catch(() => {});
  }

  /** Sends the relayed records to the client, a message a chunk, until they end or the client goes. */
  private async toClient(server: WebSocket): Promise<void> {
    const reader = this.relay.readable.getReader();
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        return;
      }
      if (step.done || this.clientGone) return;
      try {
        server.send(step.value);
      } catch {
        // The client closed between two chunks: the relay stops as for a client gone.
        this.clientGone = true;
        reader.cancel().catch(() => {});
        return;
      }
    }
  }
}

/** The Worker's options from its environment; throws a RangeError naming a bad variable. */
function optionsFromEnv(env: WorkerEnv): WorkerRelayOptions {
  if (!env.UPSTREAM) throw new RangeError('UPSTREAM is not set: give HOST:PORT of the upstream record stream in [vars]');
  const validate = (env.VALIDATE ?? 'json') as ValidationLevel;
  if (!VALIDATION_LEVELS.includes(validate)) throw new RangeError(`VALIDATE must be one of ${VALIDATION_LEVELS.join(', ')}, not '${env.VALIDATE}'`);
  const milliseconds = (name: 'CONNECT_TIMEOUT' | 'IDLE_TIMEOUT'): number | undefined => {
    const text = env[name];
    if (text === undefined) return undefined;
    const seconds = Number(text);
    if (!(seconds >= 0 && seconds <= 2_147_483)) throw new RangeError(`${name} must be seconds, not '${text}'`);
    return Math.round(seconds * 1000);
  };
  return {
    upstream: parseEndpoint(env.UPSTREAM),
    validate,
    endpoint:
      env.ENDPOINT === 'auto' || (env.ENDPOINT === undefined && validate === 'full')
        ? 'auto'
        : env.ENDPOINT === undefined
          ? undefined
          : endpointCodec(env.ENDPOINT),
    connectTimeout: milliseconds('CONNECT_TIMEOUT'),
    idleTimeout: milliseconds('IDLE_TIMEOUT'),
  };
}

/** The Worker: `export { default } from 'mcp-frames/worker'`, configured by [vars] (WorkerEnv). */
const worker = {
  async fetch(request: Request, env: WorkerEnv, ctx?: { waitUntil(work: Promise<unknown>): void }): Promise<Response> {
    let options: WorkerRelayOptions;
    try {
      options = optionsFromEnv(env);
    } catch (error) {
      return new Response(`mcp-frames worker: ${(error as Error).message}\n`, { status: 500 });
    }
    return relayRequest(request, { ...options, waitUntil: ctx ? (work) => ctx.waitUntil(work) : undefined });
  },
};

export default worker;
