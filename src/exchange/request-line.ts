// The request line: how a client of the proxy asks for one exchange on one channel (WIRE.md section 8).
//
//   {"channel":N,"method":"resources/read","params":{...}}\n
//
// The channel is a record's channel id (an unsigned 32-bit integer); the
// method is one of the package's endpoints; params, when present, is an
// object, sent to the server as the request's params.

import { validateJsonText } from '../contract/json-text.js';
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
  return readMembers(decoder.decode(bytes));
}

/** Reads one line (its text, without the line end). */
export function readRequestLine(text: string): ExchangeRequest | LineRefusal {
  try {
    JSON.parse(text);
  } catch (err) {
    return { refused: 'bad-json', message: (err as Error).message };
  }
  const line = readMembers(text);
  if (isRefusal(line)) return line;
  const { channel, method, paramsText } = line;
  return paramsText === undefined ? { channel, method } : { channel, method, params: JSON.parse(paramsText) };
}

/** The line's members, from `text`, which is JSON text: the last of duplicate names, as in JSON.parse. */
function readMembers(text: string): RequestLine | LineRefusal {
  const spans = topLevelMembers(text);
  if (spans === null) return { refused: 'bad-json', message: 'a request line is a JSON object' };
  const channelText = spans.channel;
  const named = channelText === undefined ? undefined : (JSON.parse(channelText) as unknown);
  if (typeof named !== 'number' || !Number.isInteger(named) || named < 0 || named > U32_MAX || !denotes(channelText!, named)) {
    return { refused: 'bad-channel', message: `channel must be an integer from 0 to ${U32_MAX}` };
  }
  const channel = named + 0; // -0 is 0
  const method = spans.method === undefined ? undefined : (JSON.parse(spans.method) as unknown);
  if (typeof method !== 'string' || codecForMethod(method) === undefined) {
    return {
      refused: 'unknown-method',
      message: `method must be one of ${PROXY_METHODS.join(', ')}`,
      channel,
      ...(typeof method === 'string' ? { method } : {}),
    };
  }
  const paramsText = spans.params;
  if (paramsText !== undefined && paramsText.charCodeAt(0) !== OPEN_OBJECT)
    return { refused: 'bad-params', message: 'params must be an object', channel, method };
  return paramsText === undefined ? { channel, method } : { channel, method, paramsText };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The members a line names. */
interface MemberTexts {
  channel?: string;
  method?: string;
  params?: string;
}

/**
 * The text of each top-level member a line names (the last of duplicates),
 * or null when `text` is not an object. `text` is JSON text: only the
 * structure is followed, strings skipped by searching for their closing
 * quote. A name is compared unescaped, so that `"\u0063hannel"` names the
 * channel, as it does for JSON.parse.
 */
function topLevelMembers(text: string): MemberTexts | null {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return null;
  const found: MemberTexts = {};
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const nameEnd = stringEnd(text, i);
    const raw = text.slice(i, nameEnd);
    const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    const start = skipSpace(text, skipSpace(text, nameEnd) + 1);
    const end = valueEnd(text, start);
    if (name === 'channel' || name === 'method' || name === 'params') found[name] = text.slice(start, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The end of the string that opens at `i` (after its closing quote). */
function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const quote = text.indexOf('"', from);
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The end of the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) {
    let j = i;
    while (j < text.length && !isSpace(text.charCodeAt(j)) && text.charCodeAt(j) !== COMMA && text.charCodeAt(j) !== CLOSE_OBJECT) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; ; j++) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) j = stringEnd(text, j) - 1;
    else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
    else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
  }
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
