// mcp-frames: MCP channel responses as frames, sequences and records.
//
// The layers, from the bytes up:
//   frame/     one payload: a tag, then JSON (WIRE.md sections 1, 4, 5)
//   records/   channel events on a byte stream, and what each exchange came to (2, 3, 6)
//   backend/   who checks the bytes: the pure-JS path or the WebAssembly core

export { TAG_RESULT, TAG_ERROR } from './frame/tags.js';
export type { Frame, ErrorObject } from './frame/frame.js';
export { FrameError, type FrameErrorReason } from './frame/frame-error.js';
export { defineCodec, type FrameCodec, type EndpointSpec } from './frame/codec.js';
export {
  listResources,
  readResource,
  listResourceTemplates,
  listTools,
  callTool,
  listPrompts,
  getPrompt,
  complete,
  ENDPOINTS,
  UNSUPPORTED_RESULTS,
  endpointCodec,
} from './frame/endpoints.js';
export { toMcpError } from './frame/mcp-error.js';
export { EncodeError } from './contract/encode-rules.js';
export { MAX_DEPTH } from './contract/json-text.js';

export {
  KIND_RESPONSE,
  KIND_FINISH,
  HEADER_SIZE,
  encodeResponse,
  encodeResponseHeader,
  encodeFinish,
} from './records/record.js';
export { RecordError, type RecordErrorReason, type RecordFault } from './records/record-error.js';
export { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_OPEN_CHANNELS, type StreamLimits } from './records/limits.js';
export { StreamDecoder, decodeStream, type StreamDecoderOptions } from './records/decoder.js';
export type { Outcome, StreamEnd, StreamEvent } from './records/outcome.js';
export { isEnd } from './records/outcome.js';

export type { Backend, BackendName } from './backend/backend.js';
export { jsBackend } from './backend/js.js';
export { defaultBackend, setDefaultBackend } from './backend/default.js';
export type { BodyRule } from './backend/status.js';

export { createDecoderStream } from './streams/decoder-stream.js';
export { createEncoderStream, type ChannelMessage, type EncoderStreamOptions } from './streams/encoder-stream.js';
export { readOutcomes, pipeIterable } from './streams/iterate.js';
export { createRelay, VALIDATION_LEVELS, type Relay, type RelayOptions, type RelayStats, type ValidationLevel } from './relay/relay.js';
export { pipeRelay, type PipedRelay, type PipeEnd } from './relay/pipe.js';
export type { RelayFault } from './relay/fault.js';
