// Every conformance vector (spec/vectors), answered exactly by every backend.
//
// The vectors are judged by the rules of spec/vectors/README.md. Frames go
// through codec.tryDecode; streams go through a StreamDecoder, once as one
// chunk and once a byte at a time.

import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { fromHex, chunksOf } from './support/bytes.js';
import { decodeChunks } from './support/events.js';
import { ENDPOINTS } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import type { StreamEvent } from '../src/exchange/outcome.js';
import { FRAME_VECTORS, STREAM_VECTORS, type StreamOutcome, type StreamVector } from './support/vectors.js';

const frames = FRAME_VECTORS;
const streams = STREAM_VECTORS;

/** A decoder's events in the vectors' form: outcomes, then the end. */
function vectorForm(events: StreamEvent[]): StreamVector['expect'] {
  const last = events[events.length - 1];
  if (!last || !('end' in last)) throw new Error('the events do not end with a StreamEnd');
  const outcomes = events.slice(0, -1).map((e) => {
    if ('end' in e) throw new Error('a StreamEnd before the last event');
    if (e.outcome === 'frame-error') {
      const o: StreamOutcome = { channel: e.channel, outcome: e.outcome, reason: e.fault.reason };
      if (e.fault.tag !== undefined) o.tag = e.fault.tag;
      return o;
    }
    return { ...e } as StreamOutcome;
  });
  if (last.end === 'input-error') throw new Error('a vector held in memory has no source to fail');
  const end = last.end === 'ok' ? { kind: 'ok' as const } : { kind: 'record-error' as const, reason: last.reason, offset: last.offset };
  return { outcomes, end };
}

test('the vectors are there', () => {
  expect(frames.length).toBeGreaterThan(0);
  expect(streams.length).toBeGreaterThan(0);
  for (const v of [...frames, ...streams]) expect(Object.keys(ENDPOINTS)).toContain(v.endpoint);
});

describe.each(BACKEND_ROWS)('conformance on %s', (_name, backend) => {
  describe('frames.json', () => {
    test.each(frames.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      const codec = ENDPOINTS[v.endpoint].withBackend(backend);
      const got = codec.tryDecode(fromHex(v.hex));
      const want = v.expect;
      if (want.kind === 'frame-error') {
        expect(got).toBeInstanceOf(FrameError);
        const fault = got as FrameError;
        expect(fault.reason).toBe(want.reason);
        expect(fault.tag).toBe(want.tag);
        if (fault.reason === 'body') {
          expect(fault.offset).toBeGreaterThanOrEqual(1);
          expect(fault.offset).toBeLessThanOrEqual(v.hex.length / 2);
        }
      } else {
        expect(got).not.toBeInstanceOf(FrameError);
        expect(got).toEqual(want);
      }
    });
  });

  describe('streams.json', () => {
    describe.each(streams.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      const bytes = fromHex(v.hex);
      const options = { endpoint: ENDPOINTS[v.endpoint], backend, ...v.limits };
      test('whole', () => {
        expect(vectorForm(decodeChunks([bytes], options))).toEqual(v.expect);
      });
      test('a byte at a time', () => {
        expect(vectorForm(decodeChunks(chunksOf(bytes, 1), options))).toEqual(v.expect);
      });
    });
  });
});
