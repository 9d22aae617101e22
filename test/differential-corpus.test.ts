// The JSON corpus and fast-check inputs through every backend and the JS path: equal answers, reasons and offsets (STYLE.md rule 14).
//
// The JS backend is the baseline. Against itself this suite is trivially
// true; it earns its keep when a WebAssembly backend is listed.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { JSON_CASES } from './corpus/json.js';
import { cuts, listPayload, mutate, mutations, readResourceResult, streamOps, streamTail, writeStream } from './support/arbitraries.js';
import { concat, splitAt } from './support/bytes.js';
import { decodeChunks, plainEvents, plainFault } from './support/events.js';
import { jsBackend } from '../src/backend/js.js';
import type { Backend } from '../src/backend/backend.js';
import { listResources, readResource } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';

const encoder = new TextEncoder();

/** A frame answer as plain data. */
const plainFrame = (x: unknown) => (x instanceof FrameError ? plainFault(x) : x);

/** One payload through both backends: verifyFrame to the byte, and the codec's answer. */
function sameFrame(backend: Backend, payload: Uint8Array): void {
  expect(backend.verifyFrame(payload)).toEqual(jsBackend.verifyFrame(payload));
  for (const codec of [listResources, readResource]) {
    expect(plainFrame(codec.withBackend(backend).tryDecode(payload))).toEqual(plainFrame(codec.withBackend(jsBackend).tryDecode(payload)));
  }
}

describe.each(BACKEND_ROWS)('%s answers as the JS path does', (_name, backend) => {
  test('on every corpus text, with each tag, and mutated', () => {
    fc.assert(
      fc.property(fc.constantFrom(...JSON_CASES), fc.constantFrom(0, 1), fc.option(mutations, { nil: undefined }), (c, tag, ms) => {
        const text = typeof c.text === 'string' ? encoder.encode(c.text) : Uint8Array.from(c.text);
        const payload = concat(Uint8Array.of(tag), text);
        sameFrame(backend, ms ? mutate(payload, ms) : payload);
      }),
      { numRuns: 600 },
    );
  });

  test('on mutated frames', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          listPayload,
          readResourceResult.map((v) => readResource.encode({ kind: 'result', result: v })),
        ),
        mutations,
        (p, ms) => sameFrame(backend, mutate(p, ms)),
      ),
      { numRuns: 400 },
    );
  });

  test('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 48 }), (bytes) => sameFrame(backend, bytes)),
      { numRuns: 200 },
    );
  });

  test('on mutated streams, in random chunks', () => {
    fc.assert(
      fc.property(streamOps, streamTail, mutations, cuts, fc.integer({ min: 1, max: 5 }), (ops, tail, ms, points, maxOpenChannels) => {
        const bytes = mutate(concat(writeStream(ops), tail), ms);
        const chunks = splitAt(
          bytes,
          points.map((p) => p % (bytes.length + 1)),
        );
        const ours = plainEvents(decodeChunks(chunks, { endpoint: listResources, backend, maxOpenChannels }));
        const theirs = plainEvents(decodeChunks(chunks, { endpoint: listResources, backend: jsBackend, maxOpenChannels }));
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 250 },
    );
  });
});
