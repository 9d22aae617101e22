// What the entries give a user: the documented API and none of the internals; codecs typed with the SDK's named result types.

import { readFileSync } from 'node:fs';
import type { ListResourcesResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, expectTypeOf, test } from 'vitest';
import * as core from '../src/runtime/core.js';
import * as main from '../src/runtime/node.js';
import * as proxy from '../src/runtime/proxy.js';
import * as tcp from '../src/runtime/tcp.js';
import type { Frame, FrameCodec } from '../src/index.js';

const INTERNALS = [
  'jsBackend',
  'defaultBackend',
  'UNSUPPORTED_RESULTS',
  'parseEndpoint',
  'upstreamError',
  'optionsFromEnv',
  'CLIENT_QUEUE_BYTES',
  'StringKit',
  'buildFrame',
  'codecFor',
  'isCodec',
  'toFrameError',
];

describe('the entries export no internals', () => {
  test.each([
    ['mcp-frames', main],
    ['mcp-frames/core', core],
    ['mcp-frames/tcp', tcp],
    ['mcp-frames/proxy', proxy],
  ] as const)('%s', (_name, entry) => {
    for (const name of INTERNALS) expect(Object.keys(entry), name).not.toContain(name);
  });

  test('VALIDATION_BUCKETS comes from the main entry only', () => {
    expect(Object.keys(main)).toContain('VALIDATION_BUCKETS');
    expect(Object.keys(tcp)).not.toContain('VALIDATION_BUCKETS');
  });

  test('the TCP relay and the proxy are each an entry of their own', () => {
    expect(Object.keys(tcp)).toContain('createTcpRelay');
    expect(Object.keys(tcp)).not.toContain('createProxy');
    expect(Object.keys(proxy)).toContain('createProxy');
    expect(Object.keys(proxy)).not.toContain('createTcpRelay');
  });

  test('a backend, as the entry gives it, shows its name and none of its calls', () => {
    const backend = main.loadBackend('js');
    expectTypeOf(backend).toEqualTypeOf<main.Backend>();
    expectTypeOf<keyof main.Backend>().toEqualTypeOf<'name'>();
  });
});

describe("decoded frames carry the SDK's named types", () => {
  test('listResources is a FrameCodec<ListResourcesResult>, and decode gives a Frame<ListResourcesResult>', () => {
    expectTypeOf(main.listResources).toEqualTypeOf<FrameCodec<ListResourcesResult>>();
    expectTypeOf(main.listResources.decode).returns.toEqualTypeOf<Frame<ListResourcesResult>>();
    expectTypeOf<main.ListResourcesResult>().toEqualTypeOf<ListResourcesResult>();
  });

  test('the built declarations name the type rather than spelling out its shape', () => {
    const dts = readFileSync('dist/frame/endpoints.d.ts', 'utf8');
    for (const name of ['ListResourcesResult', 'ReadResourceResult', 'ListToolsResult', 'CallToolResult', 'GetPromptResult', 'CompleteResult']) {
      expect(dts).toContain(`FrameCodec<${name}>`);
    }
    expect(dts).not.toContain('resources: {');
  });
});
