// The SDK is the user's (a peer dependency): the codecs judge by whichever SDK in the peer range resolved, and toMcpError makes that SDK's McpError.
//
// `npm test` runs this file twice: under the SDK the package is built with, and under the lowest one
// the range admits (vitest.sdk-lowest.config.ts).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { COMPILED_DRIFT, compiledJudge } from '../src/contract/schema.js';
import { ENDPOINTS, listResources } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import { toMcpError } from '../src/frame/mcp-error.js';
import { utf8 } from './support/bytes.js';

const pkg = createRequire(import.meta.url)('../package.json') as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The SDK under test: vitest.sdk-lowest.config.ts names the lowest one's package.json; else the one installed. */
const sdkPackage = process.env.MCP_FRAMES_SDK_PACKAGE ?? 'node_modules/@modelcontextprotocol/sdk/package.json';
const { version } = JSON.parse(readFileSync(sdkPackage, 'utf8')) as { version: string };
/** The SDK the compiled judges were generated from: the one the package is built and tested with. */
const BUILT_WITH = pkg.devDependencies['@modelcontextprotocol/sdk'];

describe(`under @modelcontextprotocol/sdk ${version}`, () => {
  test('the SDK resolved is one end of the peer range', () => {
    const lowest = /^\^(\d+\.\d+\.\d+)$/.exec(pkg.peerDependencies['@modelcontextprotocol/sdk'])?.[1];
    expect(lowest).toBeDefined();
    expect(pkg.devDependencies['mcp-sdk-lowest']).toBe(`npm:@modelcontextprotocol/sdk@${lowest}`);
    expect([lowest, BUILT_WITH]).toContain(version);
    // And it is the one the imports reached: the error response's newer name came in 1.25.0.
    expect('JSONRPCErrorResponseSchema' in sdk).toBe(version === BUILT_WITH);
  });

  test('the compiled judges serve the SDK they were generated from, and fall back to its safeParse under another', () => {
    const compiled = Object.values(ENDPOINTS).filter((c) => compiledJudge(c.schema) !== undefined).length;
    if (version === BUILT_WITH) {
      expect(COMPILED_DRIFT).toBeUndefined();
      expect(compiled).toBe(Object.keys(ENDPOINTS).length);
    } else {
      expect(COMPILED_DRIFT).toBeInstanceOf(Error);
      expect(compiled).toBe(0);
    }
    // Either way the schema judges: a resource without a uri is refused at its path, a listing accepted.
    const bad = listResources.tryDecode(utf8('\u0000{"resources":[{"name":"a"}]}'));
    expect(bad).toBeInstanceOf(FrameError);
    expect((bad as FrameError).rule).toBe('schema');
    expect(listResources.decode(utf8('\u0000{"resources":[{"uri":"file:///a","name":"a"}]}'))).toEqual({
      kind: 'result',
      result: { resources: [{ uri: 'file:///a', name: 'a' }] },
    });
  });

  test("toMcpError makes the resolved SDK's own McpError, code and data as sent", () => {
    const e = toMcpError({ code: -32602, message: 'bad', data: { at: 1 } });
    expect(e).toBeInstanceOf(McpError);
    expect(e.code).toBe(-32602);
    expect(e.data).toEqual({ at: 1 });
  });
});
