// `mcp-frames conformance`: does this library answer the contract's vectors exactly?
//
// # The vectors the package ships
//
// The contract (spec/WIRE.md) and its vectors (spec/vectors/) are part of
// the package, so with no DIR the command answers the vectors of the very
// version it runs: spec/vectors/ at the package root, found from this
// module's own location, not from the current directory. A DIR names
// another folder holding a frames.json and a streams.json.
//
// # What "exactly" means (spec/vectors/README.md)
//
// A result or an MCP error deep-equals the expected value, member order
// aside. A frame error matches on its reason and tag: the message and the
// offset are this project's words, and the vectors do not fix them. A stream
// matches when its outcomes, in order, match one for one and its end
// (ok, or record error with reason and offset) is the same.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Backend } from '../backend/backend.js';
import { endpointCodec } from '../frame/endpoints.js';
import { FrameError } from '../frame/frame-error.js';
import { StreamDecoder } from '../exchange/decoder.js';
import type { StreamLimits } from '../records/limits.js';
import { isEnd } from '../exchange/outcome.js';
import { COMMON_FLAGS, UsageError, backendFlag, parseFlags } from './args.js';
import { HexFault, parseHex } from './hex.js';
import { fsReason, type Io, type LineWriter } from './io.js';
import { judgesInUse } from './judges.js';
import { DEFAULT_VECTORS_DIR } from './vectors-dir.js';

const CONFORMANCE_FLAGS = { ...COMMON_FLAGS } as const;

/** An answer in the vectors' own form (frames.json `expect`). */
type FrameAnswer = { kind: 'result'; result: unknown } | { kind: 'error'; error: unknown } | { kind: 'frame-error'; reason: string; tag?: number };

/** An outcome in the vectors' own form (streams.json `expect.outcomes[i]`). */
type OutcomeAnswer = { channel: number; outcome: string; result?: unknown; error?: unknown; reason?: string; tag?: number };

type EndAnswer = { kind: 'ok' } | { kind: 'record-error'; reason: string; offset: number };

interface StreamAnswer {
  outcomes: OutcomeAnswer[];
  end: EndAnswer;
}

interface Vector<E> {
  name: string;
  endpoint: string;
  /** Limits other than the defaults, for one stream case (spec/vectors/README.md). */
  limits?: StreamLimits;
  hex: string;
  expect: E;
}

/** The library's answer to one frame vector. */
export function answerFrame(v: Vector<unknown>, backend: Backend): FrameAnswer {
  const frame = codecFor(v).withBackend(backend).tryDecode(bytesOf(v));
  if (frame instanceof FrameError) return { kind: 'frame-error', ...faultMembers(frame) };
  return frame.kind === 'result' ? { kind: 'result', result: frame.result } : { kind: 'error', error: frame.error };
}

/** The library's answer to one stream vector, fed as one chunk. */
export function answerStream(v: Vector<unknown>, backend: Backend): StreamAnswer {
  const decoder = new StreamDecoder({ endpoint: codecFor(v), backend, ...v.limits });
  const outcomes: OutcomeAnswer[] = [];
  let end: EndAnswer | undefined;
  for (const e of [...decoder.push(bytesOf(v)), ...decoder.end()]) {
    // A vector's bytes are in memory: no source fails, so the end is ok or a record error.
    if (isEnd(e)) end = e.end === 'record-error' ? { kind: 'record-error', reason: e.reason, offset: e.offset } : { kind: 'ok' };
    else if (e.outcome === 'result') outcomes.push({ channel: e.channel, outcome: e.outcome, result: e.result });
    else if (e.outcome === 'error') outcomes.push({ channel: e.channel, outcome: e.outcome, error: e.error });
    else if (e.outcome === 'frame-error') outcomes.push({ channel: e.channel, outcome: e.outcome, ...faultMembers(e.fault) });
    else outcomes.push({ channel: e.channel, outcome: e.outcome });
  }
  if (!end) throw new Error('the decoder reported no end');
  return { outcomes, end };
}

/** What the vectors say of a frame error: its reason, and its tag when it has one. */
function faultMembers(fault: FrameError): { reason: string; tag?: number } {
  return fault.tag === undefined ? { reason: fault.reason } : { reason: fault.reason, tag: fault.tag };
}

/** Same answer, by the README's rules. */
export function sameFrame(got: FrameAnswer, want: FrameAnswer): boolean {
  if (got.kind !== want.kind) return false;
  if (want.kind === 'result') return isDeepStrictEqual((got as typeof want).result, want.result);
  if (want.kind === 'error') return isDeepStrictEqual((got as typeof want).error, want.error);
  const g = got as typeof want;
  return g.reason === want.reason && g.tag === want.tag;
}

export function sameOutcome(got: OutcomeAnswer, want: OutcomeAnswer): boolean {
  if (got.channel !== want.channel || got.outcome !== want.outcome) return false;
  if (want.outcome === 'result') return isDeepStrictEqual(got.result, want.result);
  if (want.outcome === 'error') return isDeepStrictEqual(got.error, want.error);
  if (want.outcome === 'frame-error') return got.reason === want.reason && got.tag === want.tag;
  return true;
}

export function sameStream(got: StreamAnswer, want: StreamAnswer): boolean {
  return (
    got.outcomes.length === want.outcomes.length &&
    got.outcomes.every((o, i) => sameOutcome(o, want.outcomes[i])) &&
    isDeepStrictEqual(got.end, want.end)
  );
}

function codecFor(v: Vector<unknown>) {
  return endpointCodec(v.endpoint);
}

function bytesOf(v: Vector<unknown>): Uint8Array {
  const bytes = parseHex(v.hex);
  if (bytes instanceof HexFault) throw new Error(`hex: ${bytes.message}`);
  return bytes;
}

/** Answers every vector in `dir`, printing one line each and a summary; 0 when all match. */
export async function checkVectors(dir: string, backend: Backend, out: LineWriter): Promise<number> {
  const frames = await readVectors(dir, 'frames.json');
  const streams = await readVectors(dir, 'streams.json');
  let passed = 0;
  // A vector that makes the library throw is a miss, reported like any other.
  const check = async <A>(file: string, v: Vector<unknown>, answer: () => A, same: (got: A, want: A) => boolean): Promise<void> => {
    let got: unknown;
    let ok = false;
    try {
      const a = answer();
      got = a;
      ok = same(a, v.expect as A);
    } catch (err) {
      got = { thrown: err instanceof Error ? err.message : String(err) };
    }
    if (ok) passed++;
    await out.line(`${ok ? 'ok  ' : 'MISS'}  ${file.padEnd(12)}  ${v.name}`);
    if (!ok) {
      await out.line(`      want: ${shown(v.expect)}`);
      await out.line(`      got:  ${shown(got)}`);
    }
  };
  for (const v of frames) await check('frames.json', v, () => answerFrame(v, backend), sameFrame);
  for (const v of streams) await check('streams.json', v, () => answerStream(v, backend), sameStream);
  const total = frames.length + streams.length;
  await out.line(`conformance (${backend.name}): ${passed}/${total} vectors answered exactly`);
  return passed === total ? 0 : 1;
}

/** A value as JSON for a MISS line; one that JSON.stringify cannot write (nested past the stack) says so instead of ending the run. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    return `(not printable: ${err instanceof Error ? err.message : String(err)})`;
  }
}

/** A vector file: an array of { name, endpoint, hex, expect }. Unreadable or malformed is bad usage. */
async function readVectors(dir: string, file: string): Promise<Vector<unknown>[]> {
  const where = path.join(dir, file);
  let text: string;
  try {
    text = await readFile(where, 'utf8');
  } catch (err) {
    throw new UsageError(`conformance: cannot read ${where}: ${fsReason(err)}`, false);
  }
  let vectors: unknown;
  try {
    vectors = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`conformance: ${where} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const isVector = (v: unknown): v is Vector<unknown> =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Vector<unknown>).name === 'string' &&
    typeof (v as Vector<unknown>).endpoint === 'string' &&
    typeof (v as Vector<unknown>).hex === 'string' &&
    'expect' in v &&
    (!('limits' in v) || isLimits(v.limits));
  if (!Array.isArray(vectors) || !vectors.every(isVector))
    throw new UsageError(`conformance: ${where} is not an array of { name, endpoint, limits?, hex, expect }`);
  return vectors;
}

const LIMIT_NAMES: readonly string[] = ['maxFrameBytes', 'maxOpenChannels', 'maxHeldBytes'];

/** A vector's `limits`: an object of known limit names with numbers (their ranges are the decoder's to judge). */
function isLimits(limits: unknown): limits is StreamLimits {
  return (
    typeof limits === 'object' &&
    limits !== null &&
    !Array.isArray(limits) &&
    Object.entries(limits).every(([name, value]) => LIMIT_NAMES.includes(name) && typeof value === 'number')
  );
}

/** The command: flags, then DIR. Returns the exit status; 'help' when --help was asked. */
export async function conformanceCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('conformance', args, CONFORMANCE_FLAGS, 1);
  if (flags.values.help) return 'help';
  const backend = backendFlag('conformance', flags);
  judgesInUse(io, true);
  const given = flags.positionals[0];
  const dir = given === undefined ? DEFAULT_VECTORS_DIR : path.resolve(io.cwd, given);
  return checkVectors(dir, backend, io.out);
}
