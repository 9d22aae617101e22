// Building (or only judging) a frame from bytes a backend already checked: how the stream decoder and the relay reach a codec's insides.
//
// A codec's build step is the library's own, off the public API: codecs
// made by defineCodec register it here, and buildFrame finds it. This
// module imports no schema, so the relay (and the CLI's relay) can take it
// without loading the SDK.

import type { Fault } from '../wire/fault.js';
import type { FrameError } from './frame-error.js';
import type { Frame, FrameCodec } from './frame.js';

/** The codec of every channel, or a function choosing one per channel. */
export type CodecChoice<R> = FrameCodec<R> | ((channel: number) => FrameCodec<R>);

/** The codec `choice` gives `channel`. */
export function codecFor<R>(choice: CodecChoice<R>, channel: number): FrameCodec<R> {
  return typeof choice === 'function' ? choice(channel) : choice;
}

type Build = (payload: Uint8Array, fault: Fault | null) => Frame<unknown> | FrameError;
type Judge = (bytes: Uint8Array, start: number, end: number) => FrameError | null;
const BUILDERS = new WeakMap<object, Build>();
const JUDGES = new WeakMap<object, Judge>();

/** Records a codec's build step and its judge (defineCodec calls it). */
export function registerBuild(codec: object, build: Build, judge: Judge): void {
  BUILDERS.set(codec, build);
  JUDGES.set(codec, judge);
}

/** Whether `x` is a codec made by defineCodec. */
export function isCodec(x: unknown): x is FrameCodec<unknown> {
  return typeof x === 'object' && x !== null && BUILDERS.has(x);
}

/**
 * The frame in `payload`, whose bytes a backend already checked (`fault`
 * is its verdict): for the stream decoder and the relay, which check
 * bytes in bulk and build values only where they must.
 */
export function buildFrame<R>(codec: FrameCodec<R>, payload: Uint8Array, fault: Fault | null): Frame<R> | FrameError {
  const build = BUILDERS.get(codec);
  if (!build) throw new TypeError('mcp-frames: not a codec made by defineCodec');
  return build(payload, fault) as Frame<R> | FrameError;
}

/**
 * The frame error buildFrame(codec, payload, null) would give, or null when
 * it would give a frame, without building the frame where that can be
 * avoided: for the relay's 'full' level, which forwards bytes and throws
 * values away. The frame is bytes[start, end), which a backend already
 * accepted (rule 4.1); read where it lies, so a valid frame costs no view.
 */
export function judgeFrame(codec: FrameCodec<unknown>, bytes: Uint8Array, start = 0, end = bytes.length): FrameError | null {
  const judge = JUDGES.get(codec);
  if (!judge) throw new TypeError('mcp-frames: not a codec made by defineCodec');
  return judge(bytes, start, end);
}
