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
  const channel = value.channel;
  if (typeof channel !== 'number' || !Number.isInteger(channel) || channel < 0 || channel > U32_MAX) {
    return { refused: 'bad-channel', message: `channel must be an integer from 0 to ${U32_MAX}` };
  }
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

export function isRefusal(r: ExchangeRequest | LineRefusal): r is LineRefusal {
  return 'refused' in r;
}
