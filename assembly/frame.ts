// What a payload is: a tag, then that variant's JSON (WIRE.md section 1).

import { OK, EMPTY, UNKNOWN_TAG } from './status';
import { faultAt } from './fault';
import { validateText } from './json';

/** Tag for a result: the method's result JSON follows. */
export const TAG_RESULT: u8 = 0x00;
/** Tag for an error: the MCP server's JSON-RPC error object follows. */
export const TAG_ERROR: u8 = 0x01;

/** Where the last frame fault is, as an offset into the payload (tag = 0; -1 for empty). */
export let frameFaultOffset: i32 = 0;

/** Tag dispatch, then rule 4.1 over the body. */
export function verifyFrame(ptr: usize, length: usize): i32 {
  if (length == 0) {
    frameFaultOffset = -1;
    return EMPTY;
  }
  const tag = load<u8>(ptr);
  if (tag != TAG_RESULT && tag != TAG_ERROR) {
    frameFaultOffset = 0;
    return UNKNOWN_TAG;
  }
  const status = validateText(ptr + 1, ptr + length);
  frameFaultOffset = status == OK ? 0 : <i32>(faultAt - ptr);
  return status;
}
