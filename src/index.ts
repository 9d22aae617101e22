// mcp-frames: MCP channel responses as frames, sequences and records. This is the library's whole API.
//
// The layers, from the bytes up; each folder imports only from the ones
// above it in this list (.dependency-cruiser.cjs holds them to it):
//   wire/      the status enum, the fault shape, the tags, the record layout
//   contract/  the rules of WIRE.md section 4: strict JSON text, numbers, schema, encode
//   records/   WIRE.md section 3: writing records, and the one record reader
//   backend/   who checks the bytes: scan kernels and frame checks, JS or WebAssembly
//   frame/     one payload: a tag, then JSON (sections 1, 4, 5): codecs and their errors
//   exchange/  section 2: one exchange per channel, the open channels, the stream decoder
//   streams/   Web Streams and Node stream adapters
//   connection/ the TCP server core the relay and the proxy share (Node)
//   relay/     the validating relay: in process, between Node streams, over TCP
//   proxy/     a real MCP server (stdio or Streamable HTTP) answered as records of its own bytes
//   client/    the other end: request lines out, each method's result back (mcp-frames/client)
// and above them all, runtime/ (one entry per host), cli/ and demo/.

export { TAG_RESULT, TAG_ERROR } from './wire/tags.js';
export type { Frame, ErrorObject } from './frame/frame.js';
export { FrameError, type FrameErrorJSON, type FrameErrorReason } from './frame/frame-error.js';
export { defineCodec, type CodecChoice, type FrameCodec, type EndpointSpec } from './frame/codec.js';
export type { Judge } from './contract/schema.js';
export type { RecordInfo } from './exchange/sequence.js';
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
  endpointCodec,
  codecForMethod,
  METHODS,
  type McpMethod,
  type MethodParams,
  type MethodResults,
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type ReadResourceResult,
} from './frame/endpoints.js';
export { toMcpError } from './frame/mcp-error.js';
export { EncodeError } from './contract/encode-rules.js';
export type { EncodeIntoResult } from './contract/body-writer.js';
export { schemaJudges, type SchemaJudges } from './contract/schema.js';
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
export { StreamDecoder, decodeStream, type StreamDecoderOptions } from './exchange/decoder.js';
export type { Outcome, StreamEnd, StreamEvent } from './exchange/outcome.js';
export { isEnd } from './exchange/outcome.js';

export type { PublicBackend as Backend, BackendName } from './backend/backend.js';
export { setDefaultBackend } from './backend/default.js';
export type { BodyRule } from './contract/rules.js';

export { createDecoderStream } from './streams/decoder-stream.js';
export { createEncoderStream, type ChannelMessage, type EncoderStreamOptions } from './streams/encoder-stream.js';
export { readOutcomes, pipeIterable } from './streams/iterate.js';
export {
  createRelay,
  VALIDATION_BUCKETS,
  VALIDATION_LEVELS,
  type Relay,
  type RelayOptions,
  type RelayStats,
  type ValidationLevel,
} from './relay/relay.js';
export { pipeRelay, type PipedRelay, type PipeEnd, type SinkFailed } from './relay/pipe.js';
export type { RelayFault } from './relay/fault.js';
