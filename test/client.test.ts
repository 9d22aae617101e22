// mcp-frames/client on Node, at the end of the pipeline a user runs: server-everything -> proxy -> relay --validate
// full -> client. Each method's result typed with the SDK's type; an MCP error as the SDK's McpError; a finish alone
// as NotCarriedError; a stream cut short as ExchangeCutError naming the channels; a signal; close().

import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import net from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CallToolResult, ListToolsResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { ExchangeCutError, McpFramesClient, NotCarriedError } from '../src/client/client.js';
import { listTools } from '../src/frame/endpoints.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { connect } from '../src/runtime/client-node.js';
import { startCli } from './support/relay-process.js';

const require = createRequire(import.meta.url);
const manifest = require('@modelcontextprotocol/server-everything/package.json');
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  manifest.bin['mcp-server-everything'] ?? Object.values(manifest.bin)[0],
);
const SCRIPTED = join(import.meta.dirname, 'support', 'scripted-server.mjs');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pipeline(server: string[], proxyFlags: string[] = []) {
  const proxy = await startCli(['proxy', '--listen', '127.0.0.1:0', ...proxyFlags, '--', ...server]);
  cleanups.push(() => proxy.kill());
  const relay = await startCli(['relay', '--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${proxy.port}`, '--validate', 'full']);
  cleanups.push(() => relay.kill());
  const client = await connect(`127.0.0.1:${relay.port}`);
  cleanups.push(() => client.abort());
  return { proxy, relay, client };
}

describe('mcp-frames/client through the proxy and the relay', () => {
  it("gives each method's result, typed with the SDK's type, and the server's error as McpError", async () => {
    const { client } = await pipeline([process.execPath, EVERYTHING, 'stdio']);
    const [read, tools, echo, listing, templates, prompts, prompt, completion] = await Promise.all([
      client.readResource({ uri: 'test://static/resource/1' }),
      client.listTools(),
      client.callTool({ name: 'echo', arguments: { message: 'hello' } }),
      client.listResources(),
      client.listResourceTemplates(),
      client.listPrompts(),
      client.getPrompt({ name: 'simple_prompt' }),
      client.complete({ ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '1' } }),
    ]);
    expectTypeOf(read).toEqualTypeOf<ReadResourceResult>();
    expectTypeOf(tools).toEqualTypeOf<ListToolsResult>();
    expectTypeOf(echo).toEqualTypeOf<CallToolResult>();
    expectTypeOf(client.request<'tools/call'>).returns.resolves.toEqualTypeOf<CallToolResult>();
    // Params are typed by method too: never called, these only have to fail to compile.
    const typos = () => {
      // @ts-expect-error a method with no codec
      client.request('tools/lsit');
      // @ts-expect-error readResource's params have a uri, not a url
      client.readResource({ url: 'test://static/resource/1' });
    };
    expect(typeof typos).toBe('function');
    expect(read.contents[0].uri).toBe('test://static/resource/1');
    expect(tools.tools.some((t) => t.name === 'echo')).toBe(true);
    expect(echo.content[0]).toMatchObject({ type: 'text', text: 'Echo: hello' });
    expect(listing.resources.length).toBeGreaterThan(0);
    expect(templates.resourceTemplates.length).toBeGreaterThan(0);
    expect(prompts.prompts.length).toBeGreaterThan(0);
    expect(prompt.messages.length).toBeGreaterThan(0);
    expect(completion.completion.values).toBeInstanceOf(Array);
    const missing = client.readResource({ uri: 'test://static/resource/1000' });
    await expect(missing).rejects.toBeInstanceOf(McpError);
    await expect(missing).rejects.toMatchObject({ code: -32603 });
    expect(await client.close()).toEqual({ end: 'ok' });
  });

  it('a finish alone is NotCarriedError; a stream cut short is ExchangeCutError naming every channel in flight', async () => {
    const { relay, client } = await pipeline([process.execPath, SCRIPTED], ['--exchange-timeout', '1']);
    const timedOut = client.readResource({ uri: 'scripted://hang' });
    await expect(timedOut).rejects.toBeInstanceOf(NotCarriedError);
    await expect(timedOut).rejects.toMatchObject({ method: 'resources/read' });
    const hung = [client.readResource({ uri: 'scripted://hang' }), client.readResource({ uri: 'scripted://hang' })];
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The relay dies outright: its client's stream ends with two exchanges open.
    relay.kill();
    const cut = await Promise.allSettled(hung);
    for (const r of cut) {
      expect(r.status).toBe('rejected');
      const error = (r as PromiseRejectedResult).reason as ExchangeCutError;
      expect(error).toBeInstanceOf(ExchangeCutError);
      expect(error.channels).toHaveLength(2);
    }
  });

  it("a call's signal abandons it; its channel stays taken until its finish comes", async () => {
    const { client } = await pipeline([process.execPath, SCRIPTED]);
    const controller = new AbortController();
    const abandoned = client.readResource({ uri: 'scripted://hang' }, { signal: controller.signal });
    controller.abort(new Error('no longer wanted'));
    await expect(abandoned).rejects.toThrow('no longer wanted');
    expect(client.inFlight).toBe(1);
    const next = await client.readResource({ uri: 'scripted://spelled' });
    expect(next.contents[0].uri).toBe('scripted://spelled');
    // abort() ends the client at once: the abandoned call's channel with it.
    const end = await client.abort(new Error('done'));
    expect(end).toMatchObject({ end: 'input-error' });
    expect(client.inFlight).toBe(0);
  });

  it('abort() resets the connection, through the relay: the proxy cancels what was in flight at the server', async () => {
    const { proxy, client } = await pipeline([process.execPath, SCRIPTED], ['--log-level', 'info']);
    const hung = client.readResource({ uri: 'scripted://hang' }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.abort();
    expect(await hung).toBeInstanceOf(ExchangeCutError);
    // A FIN would have read as the client's last request, and the proxy would have waited on the exchange.
    const close = await proxy.line((l) => l.event === 'close');
    expect(close).toMatchObject({ end: 'client-gone', cancelled: 1 });
  });
});

describe('McpFramesClient over any byte stream', () => {
  /** A client whose requests are read off `sent`, and whose answers are written into `answer`. */
  function inMemory() {
    const down = new TransformStream<Uint8Array, Uint8Array>();
    const sent: Uint8Array[] = [];
    const client = new McpFramesClient({
      readable: down.readable,
      writable: new WritableStream<Uint8Array>({ write: (chunk) => void sent.push(chunk) }),
    });
    const answer = down.writable.getWriter();
    cleanups.push(() => client.abort());
    return { client, sent, answer };
  }

  it.each([
    ['NaN', { x: Number.NaN }, /NaN/],
    ['a BigInt', { x: 1n }, /bigint/],
    ['a lone surrogate', { x: '\ud800' }, /lone surrogate/],
    [
      'a cycle',
      (() => {
        const o: Record<string, unknown> = {};
        o.o = o;
        return o;
      })(),
      /cycle/,
    ],
    ['params that are not an object', [1], /params must be an object/],
  ])('a request whose params JSON cannot carry exactly (%s) rejects, naming it, and sends nothing', async (_, params, why) => {
    const { client, sent } = inMemory();
    const call = client.request('tools/list', params as never);
    await expect(call).rejects.toThrow(why);
    expect(sent).toEqual([]);
    expect(client.inFlight).toBe(0);
  });

  it('a signal shared by many calls keeps no listener for a call that has settled', async () => {
    const { client, sent, answer } = inMemory();
    const shared = new AbortController();
    const frame = listTools.encode({ kind: 'result', result: { tools: [] } });
    for (let k = 0; k < 100; k++) {
      const call = client.listTools(undefined, { signal: shared.signal });
      call.catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
      const { channel } = JSON.parse(new TextDecoder().decode(sent.at(-1))) as { channel: number };
      await answer.write(Buffer.concat([encodeResponse(channel, frame), encodeFinish(channel)]));
      await expect(call).resolves.toEqual({ tools: [] });
    }
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });
});

/** Runs `mcp-frames ARGS`; resolves with its status and stdout. */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'dist', 'cli', 'main.js'), ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('mcp-frames request', () => {
  it('prints the outcome as one JSON line: 0 for a result, 1 for an MCP error or an exchange not carried, 2 for bad usage', async () => {
    const { relay } = await pipeline([process.execPath, SCRIPTED], ['--exchange-timeout', '0.5']);
    const at = `127.0.0.1:${relay.port}`;
    const result = await cli(['request', at, 'resources/read', '{"uri":"scripted://spelled"}']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'result', result: { contents: [{ uri: 'scripted://spelled' }] } });
    const error = await cli(['request', at, 'resources/read', '{"uri":"scripted://missing"}']);
    expect([error.status, JSON.parse(error.stdout)]).toEqual([
      1,
      { outcome: 'error', error: { code: -32002, message: 'Resource not found', data: { uri: 'scripted://missing' } } },
    ]);
    const dropped = await cli(['request', at, 'resources/read', '{"uri":"scripted://hang"}']);
    expect([dropped.status, JSON.parse(dropped.stdout)]).toEqual([1, { outcome: 'not-carried' }]);
    const nobody = await cli(['request', '127.0.0.1:1', 'tools/list']);
    expect([nobody.status, JSON.parse(nobody.stdout).outcome]).toEqual([1, 'unreachable']);
    for (const bad of [
      ['request', at],
      ['request', at, 'ping'],
      ['request', at, 'tools/list', '[1]'],
      ['request', 'nowhere', 'tools/list'],
      ['request', at, 'tools/list', '--timeout', 'soon'],
    ]) {
      const r = await cli(bad);
      expect(r.status, bad.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mcp-frames: request: /);
    }
  });

  it.each([
    ['a lone surrogate', '{"x":"\\ud800"}', /lone-surrogate at byte 6/],
    ['a number past a double', '{"x":1e400}', /at byte 5/],
    ['a trailing comma', '{"x":1,}', /at byte 7/],
    ['nesting the request line cannot carry', `{"x":${'['.repeat(126)}${']'.repeat(126)}}`, /cannot be sent: .*(depth|nest)/i],
  ])('PARAMS_JSON with %s is bad usage (status 2), named with its rule and byte, before any connection', async (_, params, why) => {
    // 127.0.0.1:1 refuses connections: a request that got that far would say unreachable, status 1.
    const r = await cli(['request', '127.0.0.1:1', 'tools/call', params]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcp-frames: request: PARAMS_JSON /);
    expect(r.stderr).toMatch(why);
  });

  it('--timeout bounds a server that never answers: {"outcome":"timeout"}, status 1', async () => {
    // Accepts, reads (the FIN too: its own side stays open), and never writes a byte.
    const held = new Set<net.Socket>();
    const silent = net.createServer({ allowHalfOpen: true }, (socket) => {
      held.add(socket.on('error', () => {}).resume());
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of held) socket.destroy();
      return new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as net.AddressInfo;
    const started = Date.now();
    const r = await cli(['request', `127.0.0.1:${port}`, 'tools/list', '--timeout', '0.5']);
    expect(r.status).toBe(1);
    const line = JSON.parse(r.stdout);
    expect(line).toMatchObject({ outcome: 'timeout' });
    expect(line.afterMs).toBeGreaterThanOrEqual(450);
    // Anti-hang bound only: the CLI does not wait out the close grace on a timeout.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('connect()', () => {
  it("a signal abandons the connecting: it rejects with the signal's reason", async () => {
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => listener.close(resolve)));
    const { port } = listener.address() as net.AddressInfo;
    const controller = new AbortController();
    const reason = new Error('given up');
    // Aborted in the same turn: before the connect can have completed.
    const connecting = connect(`127.0.0.1:${port}`, { signal: controller.signal });
    controller.abort(reason);
    await expect(connecting).rejects.toBe(reason);
    await expect(connect('127.0.0.1:1', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
