// The fuzzer: seeded frames and record streams through every backend, against reference models written from WIRE.md.
//
// `npm test` runs a slice of MCP_FRAMES_FUZZ_COUNT cases (default 100,000);
// `npm run fuzz -- --count 1000000 --seed 7` runs as many as asked
// (scripts/fuzz.mjs). Four cases in five are frames, one in five a stream.
//
// - A frame must get the same verdict, status and offset from every backend,
//   and the verdict must be the one an independent oracle gives (strict UTF-8,
//   JSON.parse, and the extra rules of 4.1 checked on the text by regular
//   expressions and a bracket count); the typed decode must agree across
//   backends too.
// - A stream, cut at random places and read with random limits, must give the
//   events the reference model gives (test/support/model.ts) on every
//   backend, and the relay at a random validation level must send the bytes
//   and report the faults the relay model gives (test/support/relay-model.ts).
//
// A failure names the seed and the case; rerun with MCP_FRAMES_SEED and the
// same count to get the same inputs again.

import { describe, expect, it } from 'vitest';
import type { Backend } from '../src/backend/backend.js';
import { MAX_DEPTH } from '../src/contract/json-text.js';
import { readResource } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import type { RelayFault } from '../src/relay/fault.js';
import { RelayState, type ValidationLevel } from '../src/relay/relay.js';
import { BACKENDS } from './backends.js';
import { decodeChunks, plainEvents } from './support/events.js';
import { framePayload, Gen, rng, stream } from './support/generate.js';
import { referenceEvents } from './support/model.js';
import { model } from './support/relay-model.js';

const SEED = Number(process.env.MCP_FRAMES_SEED ?? Date.now() % 2 ** 31);
const COUNT = Number(process.env.MCP_FRAMES_FUZZ_COUNT ?? 100_000);
if (!Number.isSafeInteger(COUNT) || COUNT < 0)
  throw new Error(`MCP_FRAMES_FUZZ_COUNT must be a whole number, not ${process.env.MCP_FRAMES_FUZZ_COUNT}`);
const FRAMES = Math.round(COUNT * 0.8);
const STREAMS = COUNT - FRAMES;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Progress on stderr for long runs (scripts/fuzz.mjs asks for it): every tenth of the way. */
function progress(what: string, total: number): (n: number) => void {
  if (!process.env.MCP_FRAMES_FUZZ_PROGRESS || total < 10) return () => {};
  const step = Math.ceil(total / 10);
  const started = performance.now();
  return (n) => {
    if ((n + 1) % step !== 0 && n + 1 !== total) return;
    process.stderr.write(
      `fuzz: ${(n + 1).toLocaleString('en')} of ${total.toLocaleString('en')} ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  };
}
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Rule 4.1 decided without the project's scanners: is the text after the
 * tag strict JSON text? Only the verdict, not the offset.
 */
function oracleAccepts(body: Uint8Array): boolean {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return false; // not UTF-8
  }
  if (text.charCodeAt(0) === 0xfeff) return false; // a byte-order mark
  try {
    JSON.parse(text);
  } catch {
    return false;
  }
  // JSON.parse took it: the grammar holds. What it does not check: lone surrogate escapes, numbers that
  // overflow, and the depth. Strings are taken out first, so the rest sees only structure and numbers.
  const strings = text.match(/"(?:[^"\\]|\\.)*"/g) ?? [];
  for (const s of strings) {
    const units = s.match(/\\u[0-9a-fA-F]{4}|\\.|[^\\]/g) ?? [];
    for (let k = 0; k < units.length; k++) {
      const u = units[k];
      if (!u.startsWith('\\u')) continue;
      const code = Number.parseInt(u.slice(2), 16);
      if (code >= 0xdc00 && code <= 0xdfff) return false;
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = units[k + 1];
        const low = next?.startsWith('\\u') ? Number.parseInt(next.slice(2), 16) : -1;
        if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
        k++;
      }
    }
  }
  const rest = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const n of rest.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []) if (!Number.isFinite(Number(n))) return false;
  let depth = 0;
  for (const c of rest) {
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    if (depth > MAX_DEPTH) return false;
  }
  return true;
}

function verdict(b: Backend, payload: Uint8Array): string {
  const fault = b.verifyFrame(payload);
  return fault ? `${fault.status}@${fault.offset}` : 'ok';
}

function typed(b: Backend, payload: Uint8Array): string {
  const frame = readResource.withBackend(b).tryDecode(payload);
  return frame instanceof FrameError ? `${frame.reason}/${frame.rule}@${frame.offset}` : JSON.stringify(frame);
}

/** The relay over `chunks`, synchronously: what it sent, what it reported, whether a record error stopped it. */
function relay(b: Backend, chunks: Uint8Array[], level: ValidationLevel, limits: Limits): { bytes: string; faults: RelayFault[]; errored: boolean } {
  const out: Uint8Array[] = [];
  const faults: RelayFault[] = [];
  const core = new RelayState({ validate: level, endpoint: readResource, backend: b, ...limits, onFault: (f) => faults.push(f) }, b, (x) =>
    out.push(x.slice()),
  );
  let errored = false;
  for (const chunk of chunks) if (core.push(chunk)) errored = true;
  if (!errored && core.end()) errored = true;
  return { bytes: hex(Buffer.concat(out)), faults, errored };
}

interface Limits {
  maxFrameBytes: number;
  maxOpenChannels: number;
  maxHeldBytes: number;
}

describe(`fuzz: ${FRAMES} frames and ${STREAMS} streams (seed ${SEED})`, () => {
  it('every backend gives every frame the same verdict, status and offset, and the oracle agrees', () => {
    const g = new Gen(rng(SEED));
    const tick = progress('frames', FRAMES);
    let accepted = 0;
    for (let n = 0; n < FRAMES; n++, tick(n - 1)) {
      const payload = framePayload(g);
      const where = () => `seed ${SEED}, frame ${n}: ${hex(payload)}`;
      const want = verdict(BACKENDS[0], payload);
      for (const b of BACKENDS.slice(1)) {
        const got = verdict(b, payload);
        if (got !== want) expect.fail(`${where()}: ${b.name} says ${got}, ${BACKENDS[0].name} says ${want}`);
      }
      if (payload.length > 0 && (payload[0] === 0 || payload[0] === 1)) {
        const oracle = oracleAccepts(payload.subarray(1));
        if (oracle !== (want === 'ok')) expect.fail(`${where()}: the backends say ${want}, the oracle ${oracle ? 'accepts' : 'refuses'}`);
      }
      if (want === 'ok') {
        accepted++;
        const decoded = typed(BACKENDS[0], payload);
        for (const b of BACKENDS.slice(1)) {
          const got = typed(b, payload);
          if (got !== decoded) expect.fail(`${where()}: ${b.name} decodes ${got}, ${BACKENDS[0].name} ${decoded}`);
        }
      }
    }
    if (FRAMES >= 1000) expect(accepted).toBeGreaterThan(FRAMES / 100);
  });

  it('every backend decodes and relays every stream as the reference models say, however it is cut', () => {
    const g = new Gen(rng(SEED ^ 0x2545f491));
    const tick = progress('streams', STREAMS);
    for (let n = 0; n < STREAMS; n++, tick(n - 1)) {
      const bytes = stream(g);
      const cuts = Array.from({ length: g.int(6) }, () => g.int(bytes.length + 1)).sort((a, b) => a - b);
      const chunks: Uint8Array[] = [];
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        chunks.push(bytes.subarray(from, cut));
        from = cut;
      }
      const limits: Limits = {
        maxFrameBytes: g.pick([4096, 16 << 20, 40 + g.int(200)]),
        maxOpenChannels: 1 + g.int(5),
        maxHeldBytes: g.pick([64 << 20, 30 + g.int(600)]),
      };
      const level = g.pick(['json', 'full', 'none'] as const);
      const where = `seed ${SEED}, stream ${n}, cuts ${cuts}, limits ${JSON.stringify(limits)}, level ${level}: ${hex(bytes)}`;
      const events = JSON.stringify(referenceEvents(bytes, readResource, limits));
      const relayed = model(bytes, level, readResource, limits.maxFrameBytes, limits.maxOpenChannels, limits.maxHeldBytes);
      const wantRelay = { bytes: hex(relayed.bytes), faults: relayed.faults, errored: relayed.errored };
      for (const b of BACKENDS) {
        const got = JSON.stringify(plainEvents(decodeChunks(chunks, { endpoint: readResource, backend: b, ...limits })));
        if (got !== events) expect.fail(`${where}: ${b.name} decodes ${got}, the model ${events}`);
        const r = relay(b, chunks, level, limits);
        if (JSON.stringify(r) !== JSON.stringify(wantRelay))
          expect.fail(`${where}: ${b.name} relays ${JSON.stringify(r)}, the model ${JSON.stringify(wantRelay)}`);
      }
    }
  });
});
