// The flags every command shares: which endpoint, which backend, which limits.
//
// # Bad usage is exit status 2, found before any input is read
//
// Every flag is checked, the endpoint named, the limits ranged and the
// backend loaded before a byte of input is taken, so a mistyped command
// never prints half an answer. Each problem is one UsageError, printed by
// main as one line on stderr.

import { parseArgs } from 'node:util';
import type { Backend } from '../backend/backend.js';
import { BACKEND_CHOICES, BackendUnavailableError, loadBackend, type BackendChoice } from '../backend/builds.js';
import type { FrameCodec } from '../frame/codec.js';
import { U32_MAX } from '../records/record.js';

/** A command line the CLI cannot run; main prints it and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /**
   * Whether to point at --help: yes for a command line written wrong, no
   * when it was right and the world said no (a backend, a file).
   */
  constructor(
    message: string,
    readonly hint = true,
  ) {
    super(message);
  }
}

export interface FlagSpec {
  readonly [flag: string]: { readonly type: 'string' | 'boolean'; readonly short?: string };
}

export interface Flags {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** --backend and --help, which every command takes. */
export const COMMON_FLAGS = {
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies FlagSpec;

/** Parses `args` for `command`: only the flags in `spec`, at most `maxPositionals` operands. */
export function parseFlags(command: string, args: readonly string[], spec: FlagSpec, maxPositionals: number): Flags {
  let parsed: Flags & { tokens: ReturnType<typeof parseArgs>['tokens'] };
  try {
    parsed = parseArgs({ args: [...args], options: spec, strict: true, allowPositionals: true, tokens: true }) as typeof parsed;
  } catch (err) {
    // node:util's messages go on to explain `--`; the first sentence is the news. For a value
    // that starts with a dash (`--workers -1`) it is only "argument is ambiguous", and the way out
    // is in its last sentence.
    const message = err instanceof Error ? err.message : String(err);
    const first = message.split(/\.(?:\s|$)/)[0];
    const dash = /use '(--[a-z-]+)=-XYZ'/.exec(message);
    const text = first.charAt(0).toLowerCase() + first.slice(1) + (dash ? ` (a value that starts with '-' is written ${dash[1]}=-…)` : '');
    throw new UsageError(`${command}: ${text}`);
  }
  // node:util keeps the last of a flag given twice. Two values for one setting (two endpoints, two
  // limits) are a mistake somewhere in a script, and taking one in silence hides it.
  const given = new Map<string, string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const before = given.get(token.name);
    if (before !== undefined) throw new UsageError(`${command}: --${token.name} is given twice ('${before}' and '${token.value}')`);
    given.set(token.name, token.value);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${command}: unexpected argument '${parsed.positionals[maxPositionals]}'`);
  }
  return parsed;
}

/**
 * The codec named by --endpoint, which is required. The endpoints (and the
 * SDK's schemas, a tenth of a second to load) are loaded only by a command
 * that names one: `relay` with the default validation never pays for them.
 */
export async function endpointFlag(command: string, flags: Flags): Promise<FrameCodec<unknown>> {
  const { ENDPOINTS, endpointCodec } = await import('../frame/endpoints.js');
  const name = flags.values.endpoint;
  if (typeof name !== 'string') throw new UsageError(`${command}: --endpoint NAME is required (one of ${Object.keys(ENDPOINTS).join(', ')})`);
  try {
    return endpointCodec(name);
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message}`);
  }
}

/** The backend --backend names, loaded; 'auto' when the flag is absent. */
export function backendFlag(command: string, flags: Flags): Backend {
  const raw = flags.values.backend ?? 'auto';
  const choice = BACKEND_CHOICES.find((c) => c === raw);
  if (choice === undefined) throw new UsageError(`${command}: --backend must be one of ${BACKEND_CHOICES.join(', ')}, not '${raw}'`);
  return load(choice);
}

function load(choice: BackendChoice): Backend {
  try {
    return loadBackend(choice);
  } catch (err) {
    if (err instanceof BackendUnavailableError) throw new UsageError(`backend ${choice} is not available: ${err.message}`, false);
    throw err;
  }
}

/**
 * A limit given as decimal digits, from `min` to `max` (2^32 - 1 unless
 * said); undefined when the flag is absent, leaving the library's default.
 */
export function limitFlag(command: string, flags: Flags, flag: string, min: number, max = U32_MAX): number | undefined {
  const raw = flags.values[flag];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${command}: --${flag} must be a whole number from ${min} to ${max}, not '${raw}'`);
  return n;
}
