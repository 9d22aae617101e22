// What a channel response carries: a result, or the MCP server's error.
//
// # The error is the MCP server's, not ours
//
// `ErrorObject` is the JSON-RPC error object exactly as the server sent it.
// Its code is content: -32601 (method not found) and -32602 (invalid params)
// tell an agent different things, so it stays a plain number, and `data`,
// including a `data` of `null`, passes through as it came. Members that no
// schema knows stay on the object too.

/** The MCP server's JSON-RPC error object, as sent. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
  [member: string]: unknown;
}

/** One frame: tag 0x00 and the result, or tag 0x01 and the error. */
export type Frame<R> = { kind: 'result'; result: R } | { kind: 'error'; error: ErrorObject };
