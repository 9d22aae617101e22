// An error frame as the SDK's own McpError, for code that speaks the SDK.
//
// The code stays the server's code and `data` stays the server's data,
// `null` and every member included. The SDK's McpError puts "MCP error
// <code>: " before the message, as the SDK's client does for every error it
// receives; the server's message is what follows that prefix.
//
// # The constructor, not McpError.fromError
//
// fromError turns -32042 into UrlElicitationRequiredError, whose `data` keeps
// only `elicitations`: the other members the server sent would be lost.

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorObject } from './frame.js';

export function toMcpError(error: ErrorObject): McpError {
  return new McpError(error.code, error.message, error.data);
}
