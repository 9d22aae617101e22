// Differential: the same generated and mutated bytes through every backend,
// with no disagreement allowed on answers, reasons or offsets.
//
// The seed comes from MCP_FRAMES_SEED when set, else from the clock, and is
// printed in every failure message; rerun with MCP_FRAMES_SEED=<seed> to get
// the same inputs again.

import { describe, expect, it } from 'vitest';
import { jsBackend } from '../src/backend/js.js';
import { loadBackend } from '../src/backend/builds.js';
import type { Backend } from '../src/backend/backend.js';
import { listResources, readResource } from '../src/frame/endpoints.js';
import { StreamDecoder } from '../src/exchange/decoder.js';
import type { StreamEvent } from '../src/exchange/outcome.js';
import { Gen, rng, framePayload, stream } from './support/generate.js';
import { Status } from '../src/wire/status.js';

const encoder = new TextEncoder();

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 2 ** 31);
const BACKENDS: Backend[] = [jsBackend, loadBackend('wasm-simd'), loadBackend('wasm-scalar')];

function verdict(b: Backend, payload: Uint8Array): string {
  const fault = b.verifyFrame(payload);
  return fault ? `${fault.status}@${fault.offset}` : 'ok';
}

function describeEvents(events: StreamEvent[]): string {
  return JSON.stringify(
    events.map((e) =>
      'end' in e
        ? e
        : e.outcome === 'frame-error'
          ? { ...e, fault: { reason: e.fault.reason, rule: e.fault.rule, offset: e.fault.offset, tag: e.fault.tag } }
          : e,
    ),
  );
}

function run(b: Backend, bytes: Uint8Array, cuts: number[], maxOpenChannels: number): string {
  const decoder = new StreamDecoder({ endpoint: readResource, backend: b, maxOpenChannels, maxFrameBytes: 4096 });
  const events: StreamEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...decoder.push(bytes.subarray(from, cut)));
    from = cut;
  }
  events.push(...decoder.end());
  return describeEvents(events);
}

describe(`differential (seed ${SEED})`, () => {
  it('gives the same frame verdict, status and offset on 100,000 payloads', () => {
    const g = new Gen(rng(SEED));
    let accepted = 0;
    for (let n = 0; n < 100_000; n++) {
      const payload = framePayload(g);
      const want = verdict(BACKENDS[0], payload);
      for (const b of BACKENDS.slice(1)) {
        const got = verdict(b, payload);
        if (got !== want) {
          expect.fail(`seed ${SEED}, input ${n}: ${b.name} says ${got}, js says ${want}, payload ${Buffer.from(payload).toString('hex')}`);
        }
      }
      // Whatever the contract accepts, JSON.parse takes without changing a number into Infinity.
      if (want === 'ok') {
        accepted++;
        const text = new TextDecoder('utf-8', { fatal: true }).decode(payload.subarray(1));
        expect(() => JSON.parse(text), `seed ${SEED}, input ${n}`).not.toThrow();
      }
    }
    expect(accepted).toBeGreaterThan(1000);
  });

  it('decodes 10,000 streams to the same events under random chunking and limits', () => {
    const g = new Gen(rng(SEED ^ 0x5bd1e995));
    for (let n = 0; n < 10_000; n++) {
      const bytes = stream(g);
      const cuts = Array.from({ length: g.int(4) }, () => g.int(bytes.length + 1)).sort((a, b) => a - b);
      const maxOpen = 1 + g.int(4);
      const want = run(BACKENDS[0], bytes, [], maxOpen);
      for (const b of BACKENDS) {
        const got = run(b, bytes, cuts, maxOpen);
        if (got !== want) {
          expect.fail(
            `seed ${SEED}, stream ${n}, cuts ${cuts}: ${b.name} gives ${got}, unsplit js gives ${want}; bytes ${Buffer.from(bytes).toString('hex')}`,
          );
        }
      }
    }
  });

  it('agrees on the largest finite double and the first number past it', () => {
    for (const [literal, finite] of [
      ['1.7976931348623157e308', true],
      ['1.8e308', false],
    ] as const) {
      const payload = encoder.encode(`\u0000{"resources":[],"_meta":{"x":${literal}}}`);
      for (const b of BACKENDS) {
        const fault = b.verifyFrame(payload);
        expect(fault === null, `${b.name} ${literal}`).toBe(finite);
        if (!finite) expect(fault?.status).toBe(Status.NumberRange);
      }
      expect(listResources.withBackend(BACKENDS[1]).tryDecode(payload) instanceof Error).toBe(!finite);
    }
  });
});
