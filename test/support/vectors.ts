// The conformance vectors the project follows: spec/vectors/frames.json and
// spec/vectors/streams.json (spec/vectors/README.md gives their format).
//
// Every test that answers the vectors reads them through here, from the
// repository's own spec folder, so a clone needs nothing beside it.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** spec/vectors, as an absolute path. */
export const VECTORS_DIR = fileURLToPath(new URL('../../spec/vectors/', import.meta.url));

export type FrameExpect =
  | { kind: 'result'; result: unknown }
  | { kind: 'error'; error: unknown }
  | { kind: 'frame-error'; reason: string; tag?: number };

export interface FrameVector {
  name: string;
  endpoint: string;
  hex: string;
  expect: FrameExpect;
}

export interface StreamOutcome {
  channel: number;
  outcome: string;
  result?: unknown;
  error?: unknown;
  reason?: string;
  tag?: number;
}

export type StreamEndExpect = { kind: 'ok' } | { kind: 'record-error'; reason: string; offset: number };

export interface StreamVector {
  name: string;
  endpoint: string;
  /** Limits other than the defaults, for this case only (spec/vectors/README.md). */
  limits?: { maxFrameBytes?: number; maxOpenChannels?: number; maxHeldBytes?: number };
  hex: string;
  expect: { outcomes: StreamOutcome[]; end: StreamEndExpect };
}

function read<T>(file: string): T[] {
  return JSON.parse(readFileSync(new URL(file, new URL('../../spec/vectors/', import.meta.url)), 'utf8')) as T[];
}

export const FRAME_VECTORS: readonly FrameVector[] = read<FrameVector>('frames.json');
export const STREAM_VECTORS: readonly StreamVector[] = read<StreamVector>('streams.json');

/** The vector's limits as CLI flags (--max-frame-bytes and the rest); none for the defaults. */
export function limitFlags(v: StreamVector): string[] {
  const { maxFrameBytes, maxOpenChannels, maxHeldBytes } = v.limits ?? {};
  return [
    ...(maxFrameBytes === undefined ? [] : ['--max-frame-bytes', String(maxFrameBytes)]),
    ...(maxOpenChannels === undefined ? [] : ['--max-open-channels', String(maxOpenChannels)]),
    ...(maxHeldBytes === undefined ? [] : ['--max-held-bytes', String(maxHeldBytes)]),
  ];
}

/** The vector's limits with the defaults filled in: what the relay model takes. */
export function modelLimits(v: StreamVector): [maxFrameBytes: number, maxOpenChannels: number, maxHeldBytes: number] {
  return [v.limits?.maxFrameBytes ?? 16 * 1024 * 1024, v.limits?.maxOpenChannels ?? 4096, v.limits?.maxHeldBytes ?? 64 * 1024 * 1024];
}
