// The request line: how a client of the proxy asks for one exchange on one channel (WIRE.md section 8).
//
//   {"channel":N,"method":"resources/read","params":{...}}\n
//
// The channel is a record's channel id (an unsigned 32-bit integer); the
// method is one of the package's endpoints; params, when present, is an
// object, sent to the server as the request's params.

import { validateJsonText } from '../contract/json-text.js';
import { isMembersFault, memberSpans, type Span } from '../contract/member-spans.js';
import { codecForMethod, METHODS } from '../frame/endpoints.js';
import { U32_MAX } from '../records/record.js';
import { Status, statusName } from '../wire/status.js';

/** The MCP methods a request line may name: one per endpoint. */
export const PROXY_METHODS: readonly string[] = METHODS;

/** A request line, read: its params parsed. */
export interface ExchangeRequest {
  channel: number;
  method: string;
  params?: Record<string, unknown>;
}

/** A request line as the proxy sends it on: its params' text as the client wrote it, never parsed and printed again. */
export interface RequestLine {
  channel: number;
  method: string;
  /** The text of the `params` member (an object), when the line has one. */
  paramsText?: string;
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

const decoder = new TextDecoder();

/**
 * Reads one line's bytes (without the line end): held to rule 4.1 first,
 * so that a line is sent on as the client wrote it or refused, never
 * rewritten (invalid UTF-8 would have become U+FFFD; a lone surrogate or
 * 1e400 would have been printed again as something else). Its params are
 * kept as their text: parsed and printed again, 12345678901234567890 would
 * have reached the server as 12345678901234567000, and an exchange in
 * flight would have held its params as objects, some 25 times the line.
 */
export function readRequestBytes(bytes: Uint8Array): RequestLine | LineRefusal {
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
  return readMembers(bytes);
}

/** Reads one line (its text, without the line end). */
export function readRequestLine(text: string): ExchangeRequest | LineRefusal {
  try {
    JSON.parse(text);
  } catch (err) {
    return { refused: 'bad-json', message: (err as Error).message };
  }
  const line = readMembers(utf8.encode(text));
  if (isRefusal(line)) return line;
  const { channel, method, paramsText } = line;
  return paramsText === undefined ? { channel, method } : { channel, method, params: JSON.parse(paramsText) };
}

const LINE_MEMBERS: ReadonlySet<string> = new Set(['channel', 'method', 'params']);
const utf8 = new TextEncoder();

/** The text of a member's value, or undefined when the line has none. */
const textOf = (b: Uint8Array, span: Span | undefined) => (span === undefined ? undefined : decoder.decode(b.subarray(span.start, span.end)));

/** The line's members, from `b`, which is JSON text: the last of duplicate names, as in JSON.parse. */
function readMembers(b: Uint8Array): RequestLine | LineRefusal {
  const spans = memberSpans(b, LINE_MEMBERS);
  if (isMembersFault(spans)) return { refused: 'bad-json', message: 'a request line is a JSON object' };
  const channelText = textOf(b, spans.channel);
  const named = channelText === undefined ? undefined : (JSON.parse(channelText) as unknown);
  if (typeof named !== 'number' || !Number.isInteger(named) || named < 0 || named > U32_MAX || !denotes(channelText!, named)) {
    return { refused: 'bad-channel', message: `channel must be an integer from 0 to ${U32_MAX}` };
  }
  const channel = named + 0; // -0 is 0
  const methodText = textOf(b, spans.method);
  const method = methodText === undefined ? undefined : (JSON.parse(methodText) as unknown);
  if (typeof method !== 'string' || codecForMethod(method) === undefined) {
    return {
      refused: 'unknown-method',
      message: `method must be one of ${PROXY_METHODS.join(', ')}`,
      channel,
      ...(typeof method === 'string' ? { method } : {}),
    };
  }
  const paramsText = textOf(b, spans.params);
  if (paramsText !== undefined && paramsText.charCodeAt(0) !== 0x7b)
    return { refused: 'bad-params', message: 'params must be an object', channel, method };
  return paramsText === undefined ? { channel, method } : { channel, method, paramsText };
}

/** Whether a JSON number's text denotes the integer `n` exactly (7, 7.0, 0.7e1 and 70e-1 all denote 7). */
function denotes(spelling: string, n: number): boolean {
  if (/^[0-9]+$/.test(spelling)) return true;
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

export function isRefusal<T extends object>(r: T | LineRefusal): r is LineRefusal {
  return 'refused' in r;
}
