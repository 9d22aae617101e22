// `mcp-frames request HOST:PORT METHOD [PARAMS_JSON]`: one exchange with a proxy (or a relay in front of one), its outcome as one JSON line.
//
//   {"outcome":"result","result":…}                      exit 0
//   {"outcome":"error","error":{"code":…,"message":…}}   exit 1: the MCP server's error, as it sent it
//   {"outcome":"not-carried"}                             exit 1: its finish came alone
//   {"outcome":"frame-error","fault":…}                   exit 1: the frame broke the wire rules
//   {"outcome":"cut","end":…}                             exit 1: the connection ended or failed first
//   {"outcome":"unreachable","message":…}                 exit 1: no connection could be made
//   {"outcome":"timeout","afterMs":…}                     exit 1: --timeout passed first
//
// A bad command line is status 2, as for every command. The request is
// sent, then the end of the requests (a FIN): the proxy answers, then
// closes the connection.

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { encodeRequestLine, ExchangeCutError, type McpFramesClient, NotCarriedError, SequenceViolationError } from '../client/client.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../connection/defaults.js';
import { validateJsonText } from '../contract/json-text.js';
import { EncodeError } from '../contract/encode-rules.js';
import { type McpMethod, METHODS } from '../frame/endpoints.js';
import { FrameError } from '../frame/frame-error.js';
import { backendFlag, COMMON_FLAGS, parseFlags, UsageError } from './args.js';
import type { Io } from './io.js';
import { statusName } from '../wire/status.js';
import { secondsFlag } from './relay.js';
import { type Endpoint, parseEndpoint } from '../relay/endpoint.js';

const REQUEST_FLAGS = { ...COMMON_FLAGS, timeout: { type: 'string' } } as const;

/** How long the connection may take to close once the outcome is printed. */
const CLOSE_GRACE_MS = 2000;

const encoder = new TextEncoder();

/**
 * The params of the command line: strict JSON text (WIRE.md rule 4.1, as
 * the request line it becomes is held to), an object, or none.
 */
function paramsOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const bytes = encoder.encode(text);
  const fault = validateJsonText(bytes, 0, bytes.length);
  if (fault)
    throw new UsageError(`request: PARAMS_JSON is not strict JSON text: ${statusName(fault.status) ?? 'json-syntax'} at byte ${fault.offset}`);
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('request: PARAMS_JSON must be a JSON object');
  return value as Record<string, unknown>;
}

/** A call's rejection as the line it prints. */
function outcomeOf(error: unknown): Record<string, unknown> {
  if (error instanceof McpError) {
    // The server's own message: McpError's puts "MCP error CODE: " before it, as the SDK's client does.
    const prefix = `MCP error ${error.code}: `;
    const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return { outcome: 'error', error: { code: error.code, message, ...(error.data !== undefined ? { data: error.data } : {}) } };
  }
  if (error instanceof NotCarriedError) return { outcome: 'not-carried' };
  if (error instanceof FrameError) return { outcome: 'frame-error', fault: error.toJSON() };
  if (error instanceof SequenceViolationError) return { outcome: 'sequence-violation' };
  if (error instanceof ExchangeCutError) {
    const end =
      error.end.end === 'input-error' ? { end: 'input-error', message: String((error.end.error as Error)?.message ?? error.end.error) } : error.end;
    return { outcome: 'cut', end };
  }
  throw error;
}

export async function requestCommand(args: readonly string[], io: Io): Promise<number | 'help'> {
  const flags = parseFlags('request', args, REQUEST_FLAGS, 3);
  if (flags.values.help) return 'help';
  const [at, method, params] = flags.positionals;
  if (at === undefined || method === undefined) throw new UsageError('request: give HOST:PORT and METHOD (and PARAMS_JSON)');
  let target: Endpoint;
  try {
    target = parseEndpoint(at);
  } catch (err) {
    throw new UsageError(`request: ${(err as Error).message}`);
  }
  if (!(METHODS as readonly string[]).includes(method)) throw new UsageError(`request: METHOD must be one of ${METHODS.join(', ')}, not '${method}'`);
  const body = paramsOf(params);
  try {
    encodeRequestLine(0, method, body);
  } catch (err) {
    if (err instanceof EncodeError) throw new UsageError(`request: PARAMS_JSON cannot be sent: ${err.message}`);
    throw err;
  }
  const timeoutMs = secondsFlag(flags, 'timeout', 'request') ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const backend = backendFlag('request', flags);
  const { connect } = await import('../runtime/client-node.js');
  const started = performance.now();
  const deadline = new AbortController();
  const timer = timeoutMs > 0 ? setTimeout(() => deadline.abort(new RequestTimeout()), timeoutMs) : undefined;
  try {
    const print = async (line: Record<string, unknown>) => {
      if (line.outcome === 'timeout') line.afterMs = Math.round(performance.now() - started);
      await io.out.line(JSON.stringify(line));
    };
    const line = await exchange(() => connect(target, { backend, signal: deadline.signal }), method as McpMethod, body, deadline.signal, print);
    return line.outcome === 'result' ? 0 : 1;
  } finally {
    clearTimeout(timer);
  }
}

/** The deadline of --timeout. */
class RequestTimeout extends Error {}

/** Connects, asks, and prints the outcome's line as soon as it is known; then gives the connection at most CLOSE_GRACE_MS to close. */
async function exchange(
  open: () => Promise<McpFramesClient>,
  method: McpMethod,
  params: Record<string, unknown> | undefined,
  deadline: AbortSignal,
  print: (line: Record<string, unknown>) => Promise<void>,
): Promise<Record<string, unknown>> {
  let client: McpFramesClient;
  try {
    client = await open();
  } catch (err) {
    const line = err instanceof RequestTimeout ? { outcome: 'timeout' } : { outcome: 'unreachable', message: (err as Error).message };
    await print(line);
    return line;
  }
  // Checked against METHODS above; params are the command line's JSON object, whatever the method takes.
  const answer = client.request(method, params as never, { signal: deadline });
  // The end of the requests: the proxy answers this one, then closes the connection.
  const closed = client.close().catch(() => {});
  let line: Record<string, unknown>;
  try {
    line = { outcome: 'result', result: await answer };
  } catch (err) {
    line = err instanceof RequestTimeout ? { outcome: 'timeout' } : outcomeOf(err);
  }
  await print(line);
  if (line.outcome !== 'timeout') {
    let grace: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([closed, new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(grace);
  }
  client.abort();
  return line;
}
