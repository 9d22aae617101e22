// The endpoints: which MCP result each channel carries, and its codec.
//
// `listResources` and `readResource` are the two the protocol's pages
// define (WIRE.md section 1). The same factory gives a codec for every other
// MCP result a server sends back, so a relay of tools or prompts uses the
// same contract; test/codecs.test.ts holds them all to one table and fails
// when the SDK grows a result type with no codec here and no place on
// UNSUPPORTED_RESULTS.

import type {
  CallToolRequest,
  CompleteRequest,
  GetPromptRequest,
  ListPromptsRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ListToolsRequest,
  ReadResourceRequest,
} from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { PublicBackend } from '../backend/backend.js';
import { defineCodec, type FrameCodec } from './codec.js';

// Named in each codec's declared type, so that an editor and an error message print
// `FrameCodec<ListResourcesResult>` rather than the SDK type's whole shape.
export type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
};

/** resources/list: what resources a server offers. */
export const listResources: FrameCodec<ListResourcesResult> = defineCodec<ListResourcesResult>({
  endpoint: 'list-resources',
  method: 'resources/list',
  schema: ListResourcesResultSchema,
});

/** resources/read: what reading a resource produced. */
export const readResource: FrameCodec<ReadResourceResult> = defineCodec<ReadResourceResult>({
  endpoint: 'read-resource',
  method: 'resources/read',
  schema: ReadResourceResultSchema,
});

/** resources/templates/list */
export const listResourceTemplates: FrameCodec<ListResourceTemplatesResult> = defineCodec<ListResourceTemplatesResult>({
  endpoint: 'list-resource-templates',
  method: 'resources/templates/list',
  schema: ListResourceTemplatesResultSchema,
});

/** tools/list */
export const listTools: FrameCodec<ListToolsResult> = defineCodec<ListToolsResult>({
  endpoint: 'list-tools',
  method: 'tools/list',
  schema: ListToolsResultSchema,
});

/** tools/call */
export const callTool: FrameCodec<CallToolResult> = defineCodec<CallToolResult>({
  endpoint: 'call-tool',
  method: 'tools/call',
  schema: CallToolResultSchema,
});

/** prompts/list */
export const listPrompts: FrameCodec<ListPromptsResult> = defineCodec<ListPromptsResult>({
  endpoint: 'list-prompts',
  method: 'prompts/list',
  schema: ListPromptsResultSchema,
});

/** prompts/get */
export const getPrompt: FrameCodec<GetPromptResult> = defineCodec<GetPromptResult>({
  endpoint: 'get-prompt',
  method: 'prompts/get',
  schema: GetPromptResultSchema,
});

/** completion/complete */
export const complete: FrameCodec<CompleteResult> = defineCodec<CompleteResult>({
  endpoint: 'complete',
  method: 'completion/complete',
  schema: CompleteResultSchema,
});

/** Every codec, by its endpoint name. */
export const ENDPOINTS: Readonly<Record<string, FrameCodec<unknown>>> = Object.freeze(
  Object.fromEntries(
    [listResources, readResource, listResourceTemplates, listTools, callTool, listPrompts, getPrompt, complete].map((c) => [
      c.endpoint,
      c as FrameCodec<unknown>,
    ]),
  ),
);

/**
 * SDK result schemas with no codec, and why. A server answers none of these
 * on a resource or tool channel: they are the client's answers, the
 * handshake, or task bookkeeping.
 */
export const UNSUPPORTED_RESULTS: Readonly<Record<string, string>> = Object.freeze({
  ResultSchema: 'the base every result extends, not a method of its own',
  EmptyResultSchema: 'ping and the like carry nothing to frame',
  PaginatedResultSchema: 'a base, not a method',
  InitializeResultSchema: 'the handshake, answered before any channel exists',
  CreateTaskResultSchema: 'task bookkeeping, outside this protocol',
  GetTaskResultSchema: 'task bookkeeping, outside this protocol',
  GetTaskPayloadResultSchema: 'task bookkeeping, outside this protocol',
  ListTasksResultSchema: 'task bookkeeping, outside this protocol',
  CancelTaskResultSchema: 'task bookkeeping, outside this protocol',
  CompatibilityCallToolResultSchema: 'a legacy union; call-tool covers tools/call',
  CreateMessageResultSchema: "a client's answer (sampling), not a server's",
  ElicitResultSchema: "a client's answer (elicitation), not a server's",
  ListRootsResultSchema: "a client's answer (roots), not a server's",
  ClientResultSchema: 'a union of client answers',
  ServerResultSchema: 'a union of server answers; each has its own codec',
});

/** The MCP methods with a codec, and the result each is answered with. */
export interface MethodResults {
  'resources/list': ListResourcesResult;
  'resources/read': ReadResourceResult;
  'resources/templates/list': ListResourceTemplatesResult;
  'tools/list': ListToolsResult;
  'tools/call': CallToolResult;
  'prompts/list': ListPromptsResult;
  'prompts/get': GetPromptResult;
  'completion/complete': CompleteResult;
}

/** An MCP method with a codec: 'resources/read', 'tools/call', … */
export type McpMethod = keyof MethodResults;

/** The params of each method's request, as the SDK types them. */
export interface MethodParams {
  'resources/list': ListResourcesRequest['params'];
  'resources/read': ReadResourceRequest['params'];
  'resources/templates/list': ListResourceTemplatesRequest['params'];
  'tools/list': ListToolsRequest['params'];
  'tools/call': CallToolRequest['params'];
  'prompts/list': ListPromptsRequest['params'];
  'prompts/get': GetPromptRequest['params'];
  'completion/complete': CompleteRequest['params'];
}

const BY_METHOD = new Map<string, FrameCodec<unknown>>(Object.values(ENDPOINTS).map((c) => [c.method, c]));

/** Every method with a codec, in the endpoints' order. */
export const METHODS: readonly McpMethod[] = Object.freeze([...BY_METHOD.keys()] as McpMethod[]);

/** The codec of an MCP method ('resources/read' gives readResource), typed with its result; undefined for a method with none. */
export function codecForMethod<M extends McpMethod>(method: M): FrameCodec<MethodResults[M]>;
export function codecForMethod(method: string): FrameCodec<unknown> | undefined;
export function codecForMethod(method: string): FrameCodec<unknown> | undefined {
  return BY_METHOD.get(method);
}

/**
 * Each method's codec on `backend` (the default backend's codecs when it is
 * left out), made at its first use and kept: for the proxy and the relay,
 * which judge by method.
 */
export function methodCodecs(backend?: PublicBackend): (method: string) => FrameCodec<unknown> | undefined {
  if (backend === undefined) return (method) => BY_METHOD.get(method);
  const made = new Map<string, FrameCodec<unknown>>();
  return (method) => {
    let codec = made.get(method);
    if (codec === undefined) {
      const base = BY_METHOD.get(method);
      if (base === undefined) return undefined;
      codec = base.withBackend(backend);
      made.set(method, codec);
    }
    return codec;
  };
}

/** The codec for an endpoint name ('read-resource') or its method ('resources/read'); throws a RangeError naming the known ones. */
export function endpointCodec(name: string): FrameCodec<unknown> {
  const codec = Object.hasOwn(ENDPOINTS, name) ? ENDPOINTS[name] : BY_METHOD.get(name);
  if (!codec) throw new RangeError(`unknown endpoint '${name}': one of ${Object.keys(ENDPOINTS).join(', ')}, or its method (${METHODS.join(', ')})`);
  return codec;
}
