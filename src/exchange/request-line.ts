// The request line: how a client of the proxy asks for one exchange on one channel (WIRE.md section 8).
//
//   {"channel":N,"method":"resources/read","params":{...}}\n
//
// The channel is a record's channel id (an unsigned 32-bit integer); the
// method is one of the package's endpoints; params, when present, is an
// object, sent to the server as the request's params.

import { validateJsonText } from '../contract/json-text.js';
import { MemberScanner } from '../contract/members.js';
import { codecForMethod, METHODS } from '../frame/endpoints.js';
import { U32_MAX } from '../records/record.js';
import { Status, statusName } from '../wire/status.js';

/** The MCP methods a request line may name: one per endpoint. */
export const PROXY_METHODS: readonly string[] = METHODS;

/** A request line, read. */
export interface ExchangeRequest {
  channel: number;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * Why a line is refused: `channel` is known when the line named a valid
 * one (its exchange then gets a finish). A line that is not UTF-8, or not
 * strict JSON text (WIRE.md rule 4.1), names the `rule` it broke and the
 * `offset` into the line where it did.
 */
export interface LineRefusal {
  refused: 'bad-utf8' | 'bad-json' | 'bad-channel' | 'unknown-method' | 'bad-params' | 'too-many-in-flight' | 'unterminated';
  message: string;
  channel?: number;
  method?: string;
  rule?: string;
  offset?: number;
  limit?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const decoder = new TextDecoder();

/**
 * Reads one line's bytes (without the line end): held to rule 4.1 first,
 * so that a line is sent on as the client wrote it or refused, never
 * rewritten (invalid UTF-8 would have become U+FFFD; a lone surrogate or
 * 1e400 would have been printed again as something else).
 */
export function readRequestBytes(bytes: Uint8Array): ExchangeRequest | LineRefusal {
  const fault = validateJsonText(bytes, 0, bytes.length);
  if (fault) {
    const rule = statusName(fault.status) ?? 'json-syntax';
    const utf8 = fault.status === Status.Utf8 || fault.status === Status.Bom;
    return {
      refused: utf8 ? 'bad-utf8' : 'bad-json',
      message: utf8 ? `a request line is UTF-8 (byte ${fault.offset})` : `a request line is strict JSON text (${rule} at byte ${fault.offset})`,
      rule,
      offset: fault.offset,
    };
  }
  return readRequestLine(decoder.decode(bytes));
}

/** Reads one line (its text, without the line end). */
export function readRequestLine(text: string): ExchangeRequest | LineRefusal {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { refused: 'bad-json', message: (err as Error).message };
  }
  if (!isObject(value)) return { refused: 'bad-json', message: 'a request line is a JSON object' };
  const named = value.channel;
  if (typeof named !== 'number' || !Number.isInteger(named) || named < 0 || named > U32_MAX || !spelledExactly(text, named)) {
    return { refused: 'bad-channel', message: `channel must be an integer from 0 to ${U32_MAX}` };
  }
  const channel = named + 0; // -0 is 0
  const method = value.method;
  if (typeof method !== 'string' || codecForMethod(method) === undefined) {
    return {
      refused: 'unknown-method',
      message: `method must be one of ${PROXY_METHODS.join(', ')}`,
      channel,
      ...(typeof method === 'string' ? { method } : {}),
    };
  }
  if (value.params !== undefined && !isObject(value.params)) return { refused: 'bad-params', message: 'params must be an object', channel, method };
  return value.params === undefined ? { channel, method } : { channel, method, params: value.params };
}

/**
 * Whether the channel's spelling in the line denotes `channel` exactly, not
 * a number that only rounds to it (4294967295.0000001 parses as 4294967295).
 * With no backslash in the line, every `"channel":` in it is a member name
 * spelled as such, so when each number such a name holds is plain digits,
 * the top-level one is too; otherwise the top-level member's text is read.
 */
function spelledExactly(text: string, channel: number): boolean {
  if (!text.includes('\\') && everyChannelPlain(text)) return true;
  const scanner = new MemberScanner(['channel']);
  scanner.push(utf8.encode(text));
  const spelling = scanner.text('channel');
  return spelling !== undefined && denotes(spelling, channel);
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Whether each number held by a member named `channel` (at any depth) is spelled in digits alone. */
function everyChannelPlain(text: string): boolean {
  for (let at = text.indexOf('"channel"'); at >= 0; at = text.indexOf('"channel"', at + 1)) {
    let i = at + 9;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x3a) continue;
    i++;
    while (isSpace(text.charCodeAt(i))) i++;
    if (!isDigit(text.charCodeAt(i)) && text.charCodeAt(i) !== 0x2d) continue;
    if (text.charCodeAt(i) === 0x2d) return false;
    while (isDigit(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
  }
  return true;
}

const utf8 = new TextEncoder();

/** Whether a JSON number's text denotes the integer `n` exactly (7, 7.0, 0.7e1 and 70e-1 all denote 7). */
function denotes(spelling: string, n: number): boolean {
  const m = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(spelling);
  if (!m) return false;
  const fraction = m[2] ?? '';
  let digits = (m[1] + fraction).replace(/^0+/, '');
  let exponent = Number(m[3] ?? 0) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return n === 0;
  const whole = String(n).replace(/0+$/, '');
  return exponent >= 0 && digits === whole && exponent === String(n).length - whole.length;
}

export function isRefusal(r: ExchangeRequest | LineRefusal): r is LineRefusal {
  return 'refused' in r;
}
