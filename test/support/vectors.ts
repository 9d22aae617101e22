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
  hex: string;
  expect: { outcomes: StreamOutcome[]; end: StreamEndExpect };
}

function read<T>(file: string): T[] {
  return JSON.parse(readFileSync(new URL(file, new URL('../../spec/vectors/', import.meta.url)), 'utf8')) as T[];
}

export const FRAME_VECTORS: readonly FrameVector[] = read<FrameVector>('frames.json');
export const STREAM_VECTORS: readonly StreamVector[] = read<StreamVector>('streams.json');
