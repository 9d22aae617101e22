// Which variant a frame carries: its first byte (WIRE.md section 1).

/** Tag for a result: the method's own result JSON follows. */
export const TAG_RESULT = 0x00;

/** Tag for an error: the MCP server's JSON-RPC error object follows. */
export const TAG_ERROR = 0x01;
