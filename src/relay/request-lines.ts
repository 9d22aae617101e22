// The method of each channel, read off the request lines a client sends through the relay (WIRE.md section 8): what `endpoint: 'auto'` judges by.
//
// # Read as the proxy reads them
//
// A client's bytes go upstream untouched. The watcher reads the same bytes
// beside them with the proxy's own line reader and request-line rules
// (exchange/lines, exchange/request-line), so that it takes a line exactly
// when the proxy does:
//
// - a line the proxy refuses (not strict JSON, no such method, params not
//   an object) names nothing: the proxy answers it with a finish alone,
//   which needs no codec;
// - a line on a channel still in flight changes nothing: the proxy gives it
//   nothing, and answers the exchange already there;
// - a line past `maxInFlight` exchanges in flight names nothing: the proxy
//   refuses it too;
// - a line past `maxLineBytes` ends the reading: the proxy resets such a
//   client, and every channel not named by then stays unjudged.
//
// # Bounded
//
// It holds at most one line of `maxLineBytes` (twice that in memory, as the
// proxy), and the codecs of the channels in flight; a channel's codec is
// let go when its finish has passed. A response on a channel whose line it
// never read has no codec: the relay refuses it (WIRE.md section 8), it
// never judges it less strictly without a word.

import { isRefusal, readRequestBytes } from '../exchange/request-line.js';
import { LineReader } from '../exchange/lines.js';
import { codecForMethod } from '../frame/endpoints.js';
import type { FrameCodec } from '../frame/frame.js';
import type { ChannelCodecs } from './relay.js';

export interface RequestLineLimits {
  /** The most exchanges in flight (the proxy's limit on a connection, or the relay's open channels). */
  maxInFlight: number;
  /** The longest request line, as the proxy's --max-line-bytes. */
  maxLineBytes: number;
}

export class RequestLineWatcher implements ChannelCodecs {
  /** The codec of each channel in flight. */
  private readonly codecs = new Map<number, FrameCodec<unknown>>();
  private readonly lines: LineReader;

  constructor(
    private readonly limits: RequestLineLimits,
    /** The codec of a method, on the relay's backend. */
    private readonly codecOfMethod: (method: string) => FrameCodec<unknown> | undefined = codecForMethod,
  ) {
    this.lines = new LineReader(limits.maxLineBytes, {
      line: (bytes) => this.line(bytes),
      long: () => this.lines.stop(),
    });
  }

  /** Reads a chunk of the client's bytes (they are forwarded apart from this). */
  push(chunk: Uint8Array): void {
    this.lines.push(chunk);
  }

  /** Memory held for a line not yet ended. */
  get held(): number {
    return this.lines.capacity;
  }

  /** A whole line: the channel it names takes its method's codec, when the proxy would take the line. */
  private line(bytes: Uint8Array): void {
    const request = readRequestBytes(bytes);
    if (isRefusal(request)) return;
    if (this.codecs.has(request.channel) || this.codecs.size >= this.limits.maxInFlight) return;
    const codec = this.codecOfMethod(request.method);
    if (codec) this.codecs.set(request.channel, codec);
  }

  /** The codec of `channel`'s method, as its line named it; undefined when no line named one. */
  codecOf(channel: number): FrameCodec<unknown> | undefined {
    return this.codecs.get(channel);
  }

  /** `channel`'s exchange has ended: its finish was forwarded, and a line may name it again. */
  finished(channel: number): void {
    this.codecs.delete(channel);
  }
}
