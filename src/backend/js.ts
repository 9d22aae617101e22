// The pure-JS backend: the fallback for hosts without WebAssembly, and the
// baseline the core is measured against and must agree with.

import { EMPTY_PAYLOAD, UNKNOWN_TAG, type Backend, type FrameFault } from './backend.js';
import { validateJsonText } from '../contract/json-text.js';
import { TAG_ERROR, TAG_RESULT } from '../frame/tags.js';
import { JsRecordReader } from '../records/reader.js';

/** Tag dispatch, then the JSON text after the tag. */
export function verifyFrame(payload: Uint8Array): FrameFault | null {
  if (payload.length === 0) return EMPTY_PAYLOAD;
  const tag = payload[0];
  if (tag !== TAG_RESULT && tag !== TAG_ERROR) return UNKNOWN_TAG;
  return validateJsonText(payload, 1, payload.length);
}

export const jsBackend: Backend = {
  name: 'js',
  verifyFrame,
  createReader: (limits, sink) => new JsRecordReader(limits, sink),
};
