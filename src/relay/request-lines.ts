// The method of each channel, read off the request lines a client sends through the relay (WIRE.md section 8): what `endpoint: 'auto'` judges by.
//
// # Forwarded as they are; read on the way
//
// A client's bytes go upstream untouched. The watcher reads the same bytes
// beside them: it splits them at each line feed and reads each line's
// top-level `channel` and `method` as they pass (MemberScanner), holding no
// line, so a line of any length costs it nothing. A line that names a
// channel and a method with a codec sets that channel's codec; a later line
// on the same channel (the channel used again after its finish) replaces
// it. Nothing else is judged here: the proxy refuses a bad line itself, and
// answers it with a finish alone, which needs no codec.
//
// # Bounded
//
// It keeps at most `maxChannels` channels' codecs, the oldest forgotten
// first. A response on a channel whose line it never read, or forgot, has
// no codec: the relay refuses it (WIRE.md section 8), it never judges it
// less strictly without a word.

import { MemberScanner } from '../contract/members.js';
import { codecForMethod } from '../frame/endpoints.js';
import type { FrameCodec } from '../frame/frame.js';
import { U32_MAX } from '../records/record.js';

const LF = 0x0a;

export class RequestLineWatcher {
  private readonly scanner = new MemberScanner(['channel', 'method']);
  private readonly codecs = new Map<number, FrameCodec<unknown>>();

  constructor(
    private readonly maxChannels: number,
    /** The codec of a method, on the relay's backend. */
    private readonly codecOf: (method: string) => FrameCodec<unknown> | undefined = codecForMethod,
  ) {}

  /** Reads a chunk of the client's bytes (they are forwarded apart from this). */
  push(chunk: Uint8Array): void {
    let from = 0;
    for (let lf = chunk.indexOf(LF); lf >= 0; lf = chunk.indexOf(LF, from)) {
      this.scanner.push(chunk, from, lf);
      this.line();
      from = lf + 1;
    }
    this.scanner.push(chunk, from, chunk.length);
  }

  /** A line has ended: the channel it names takes its method's codec. */
  private line(): void {
    const channel = this.scanner.value('channel');
    const method = this.scanner.value('method');
    this.scanner.reset();
    if (typeof channel !== 'number' || !Number.isInteger(channel) || channel < 0 || channel > U32_MAX || typeof method !== 'string') return;
    const codec = this.codecOf(method);
    if (!codec) return;
    this.codecs.delete(channel);
    if (this.codecs.size >= this.maxChannels) this.codecs.delete(this.codecs.keys().next().value!);
    this.codecs.set(channel, codec);
  }

  /** The codec of `channel`'s method, as its last line named it; undefined when no line named one. */
  codecFor(channel: number): FrameCodec<unknown> | undefined {
    return this.codecs.get(channel);
  }
}
