// `mcp-frames request HOST:PORT METHOD [PARAMS_JSON]`: one exchange with a proxy (or a relay in front of one), its outcome as one JSON line.
//
//   {"outcome":"result","result":…}                      exit 0
//   {"outcome":"error","error":{"code":…,"message":…}}   exit 1: the MCP server's error, as it sent it
//   {"outcome":"not-carried"}                             exit 1: its finish came alone
//   {"outcome":"frame-error","fault":…}                   exit 1: the frame broke the wire rules
//   {"outcome":"cut","end":…}                             exit 1: the connection ended or failed first
//   {"outcome":"unreachable","message":…}                 exit 1: no connection could be made
//
// A bad command line is status 2, as for every command. The request is
// sent, then the end of the requests (a FIN): the proxy answers, then
// closes the connection.

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ExchangeCutError, NotCarriedError, SequenceViolationError } from '../client/client.js';
import { METHODS } from '../frame/endpoints.js';
import { FrameError } from '../frame/frame-error.js';
import { backendFlag, COMMON_FLAGS, parseFlags, UsageError } from './args.js';
import type { Io } from './io.js';
import { parseEndpoint } from '../relay/endpoint.js';

const REQUEST_FLAGS = { ...COMMON_FLAGS } as const;

/** The params of the command line: a JSON object, or none. */
function paramsOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`request: PARAMS_JSON is not JSON: ${(err as Error).message}`);
  }
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
  let target: { host: string; port: number };
  try {
    target = parseEndpoint(at);
  } catch (err) {
    throw new UsageError(`request: ${(err as Error).message}`);
  }
  if (!(METHODS as readonly string[]).includes(method)) throw new UsageError(`request: METHOD must be one of ${METHODS.join(', ')}, not '${method}'`);
  const body = paramsOf(params);
  const backend = backendFlag('request', flags);
  const { connect } = await import('../runtime/client-node.js');
  let client: Awaited<ReturnType<typeof connect>>;
  try {
    client = await connect(target, { backend });
  } catch (err) {
    await io.out.line(JSON.stringify({ outcome: 'unreachable', message: (err as Error).message }));
    return 1;
  }
  const answer = client.request(method, body);
  // The end of the requests: the proxy answers this one, then closes the connection.
  const closed = client.close();
  let line: Record<string, unknown>;
  try {
    line = { outcome: 'result', result: await answer };
  } catch (err) {
    line = outcomeOf(err);
  }
  await closed;
  await io.out.line(JSON.stringify(line));
  return line.outcome === 'result' ? 0 : 1;
}
