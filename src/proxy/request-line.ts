// The request line: how a client of the proxy asks for one exchange on one channel (WIRE.md section 8).
//
//   {"channel":N,"method":"resources/read","params":{...}}\n
//
// The channel is a record's channel id (an unsigned 32-bit integer); the
// method is one of the package's endpoints; params, when present, is an
// object, sent to the server as the request's params.

import { ENDPOINTS } from '../frame/endpoints.js';
import type { FrameCodec } from '../frame/frame.js';
import { U32_MAX } from '../records/record.js';

/** The MCP methods a request line may name: one per endpoint. */
export const PROXY_METHODS: readonly string[] = Object.values(ENDPOINTS).map((c) => c.method);

/** A request line, read. */
export interface ExchangeRequest {
  channel: number;
  method: string;
  params?: Record<string, unknown>;
}

/** Why a line is refused: `channel` is known when the line named a valid one (its exchange then gets a finish). */
export interface LineRefusal {
  refused: 'bad-json' | 'bad-channel' | 'unknown-method' | 'bad-params';
  message: string;
  channel?: number;
  method?: string;
}

const CODECS = new Map<string, FrameCodec<unknown>>(Object.values(ENDPOINTS).map((c) => [c.method, c]));

/** The codec that judges a method's frames. */
export function codecOfMethod(method: string): FrameCodec<unknown> | undefined {
  return CODECS.get(method);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
  if (typeof method !== 'string' || !CODECS.has(method)) {
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
