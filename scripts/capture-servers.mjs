#!/usr/bin/env node
// Writes test/fixtures/servers/*.jsonl: what the reference MCP servers on npm
// answer, as the raw JSON-RPC lines they wrote on stdout.
//
//   npm run fixtures:servers
//
// Each server (pinned as an exact devDependency) runs over stdio, driven by
// the SDK's Client. The SDK's own stdio transport parses each line and hands
// on the parsed message, and its client then strips and reorders members
// through the result schemas; a frame carries the server's bytes, so this
// transport keeps each line as it came and the fixtures store those lines.
//
// Every fixture line is one exchange:
//
//   { "server": ..., "method": ..., "params": ..., "response": "<the raw line>" }
//
// `response` is the server's line verbatim (a string); the tests cut its
// `result` or `error` member out of it byte for byte. The servers' files
// and clocks make some answers differ from one run to the next (paths,
// times); the answers' shapes do not.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as z from 'zod/v4';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'test', 'fixtures', 'servers');
const require = createRequire(import.meta.url);

/** A package's bin script, found from its package.json. */
function binOf(pkg) {
  const manifest = require(`${pkg}/package.json`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
}

/**
 * A stdio client transport that keeps every line the server writes. Lines
 * that answer a request are kept by request id; the rest (notifications,
 * the server's own requests) are passed on and not stored.
 */
class RecordingTransport {
  constructor(command, args, env) {
    this.command = command;
    this.args = args;
    this.env = env;
    /** @type {Map<unknown, string>} request id -> the raw line that answered it */
    this.lines = new Map();
    this.buffered = '';
    /** @type {((message: any) => void) | undefined} */
    this.onmessage = undefined;
    /** @type {((error: Error) => void) | undefined} */
    this.onerror = undefined;
    /** @type {(() => void) | undefined} */
    this.onclose = undefined;
    /** @type {import('node:child_process').ChildProcessWithoutNullStreams | undefined} */
    this.child = undefined;
  }

  async start() {
    const child = spawn(this.command, this.args, { env: { ...process.env, ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr.on('data', () => {});
    child.on('error', (e) => this.onerror?.(e));
    child.on('close', () => this.onclose?.());
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      this.buffered += text;
      for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, nl).replace(/\r$/, '');
        this.buffered = this.buffered.slice(nl + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        if ('id' in message && ('result' in message || 'error' in message)) this.lines.set(message.id, line);
        this.onmessage?.(message);
      }
    });
  }

  async send(message) {
    this.child?.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async close() {
    this.child?.stdin.end();
    this.child?.kill();
  }
}

/** Runs one server, makes `calls` in order, and returns the exchanges. */
async function capture(server, command, args, env, calls) {
  const transport = new RecordingTransport(command, args, env);
  const client = new Client({ name: 'mcp-frames-fixtures', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const exchanges = [];
  // The client's request ids count up from 0, one per request, the handshake first.
  let id = 1;
  for (const [method, params] of calls) {
    const requestId = id++;
    try {
      // A schema that takes anything: the client's own reading of the result is not what is recorded.
      await client.request({ method, params }, z.any());
    } catch {
      // An MCP error: recorded like any answer.
    }
    const response = transport.lines.get(requestId);
    if (response === undefined) throw new Error(`${server}: no answer to ${method} (request ${requestId})`);
    exchanges.push({ server, method, params, response });
  }
  await client.close();
  return exchanges;
}

/** resources/list, page after page, then a read of every resource listed. */
async function pagesAndReads(server, command, args, env) {
  const transport = new RecordingTransport(command, args, env);
  const client = new Client({ name: 'mcp-frames-fixtures', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const any = z.any();
  const exchanges = [];
  let id = 1;
  let cursor;
  const uris = [];
  do {
    const params = cursor ? { cursor } : {};
    const requestId = id++;
    const result = await client.request({ method: 'resources/list', params }, any);
    exchanges.push({ server, method: 'resources/list', params, response: transport.lines.get(requestId) });
    for (const r of result.resources) uris.push(r.uri);
    cursor = result.nextCursor;
  } while (cursor);
  for (const uri of uris) {
    const requestId = id++;
    await client.request({ method: 'resources/read', params: { uri } }, any);
    exchanges.push({ server, method: 'resources/read', params: { uri }, response: transport.lines.get(requestId) });
  }
  await client.close();
  return exchanges;
}

const node = process.execPath;
const fixtures = {};

// server-everything: 100 resources in pages of 10, text and blob; tools, prompts, completion, errors.
{
  const bin = binOf('@modelcontextprotocol/server-everything');
  const args = [bin, 'stdio'];
  fixtures.everything = [
    ...(await pagesAndReads('everything', node, args, {})),
    ...(await capture('everything', node, args, {}, [
      ['resources/templates/list', {}],
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: { message: 'hello, "world" \u2028 😀' } }],
      ['tools/call', { name: 'add', arguments: { a: 2, b: 40 } }],
      ['tools/call', { name: 'getTinyImage', arguments: {} }],
      ['tools/call', { name: 'annotatedMessage', arguments: { messageType: 'error', includeImage: true } }],
      ['tools/call', { name: 'annotatedMessage', arguments: { messageType: 'success', includeImage: false } }],
      ['tools/call', { name: 'annotatedMessage', arguments: { messageType: 'debug', includeImage: true } }],
      ['tools/call', { name: 'getResourceReference', arguments: { resourceId: 1 } }],
      ['tools/call', { name: 'getResourceReference', arguments: { resourceId: 2 } }],
      ['tools/call', { name: 'getResourceLinks', arguments: { count: 4 } }],
      ['tools/call', { name: 'structuredContent', arguments: { location: 'Paris' } }],
      ['tools/call', { name: 'longRunningOperation', arguments: { duration: 0.2, steps: 2 } }],
      ['tools/call', { name: 'add', arguments: { a: 'two', b: 40 } }],
      ['tools/call', { name: 'getResourceReference', arguments: { resourceId: 1000 } }],
      ['tools/call', { name: 'noSuchTool', arguments: {} }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'simple_prompt' }],
      ['prompts/get', { name: 'complex_prompt', arguments: { temperature: '0.7', style: 'terse' } }],
      ['prompts/get', { name: 'resource_prompt', arguments: { resourceId: '2' } }],
      ['prompts/get', { name: 'resource_prompt', arguments: { resourceId: '0' } }],
      ['prompts/get', { name: 'no_such_prompt' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'complex_prompt' }, argument: { name: 'style', value: '' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'complex_prompt' }, argument: { name: 'temperature', value: '0' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '1' } }],
      ['resources/read', { uri: 'test://static/resource/1000' }],
      ['resources/read', { uri: 'nowhere://at/all' }],
      ['resources/list', { cursor: 'not a cursor' }],
      ['no/such/method', {}],
    ])),
  ];
}

// server-filesystem: a folder of a few files, made fresh, at a fixed path so that paths repeat from run to run.
{
  const dir = join(tmpdir(), 'mcp-frames-fixtures-fs');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'notes'), { recursive: true });
  writeFileSync(join(dir, 'readme.md'), '# Fixtures\n\nA folder the filesystem server reads: "quotes", tabs\t, and ünïcödé 😀.\n');
  writeFileSync(join(dir, 'notes', 'a.txt'), 'first line\nsecond line\n');
  writeFileSync(join(dir, 'notes', 'b.json'), '{"k":[1,2,3]}\n');
  // A 1×1 PNG, so read_media_file answers with a blob.
  writeFileSync(
    join(dir, 'pixel.png'),
    Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==', 'base64'),
  );
  const bin = binOf('@modelcontextprotocol/server-filesystem');
  fixtures.filesystem = await capture('filesystem', node, [bin, dir], {}, [
    ['tools/list', {}],
    ['tools/call', { name: 'list_allowed_directories', arguments: {} }],
    ['tools/call', { name: 'list_directory', arguments: { path: dir } }],
    ['tools/call', { name: 'list_directory_with_sizes', arguments: { path: dir, sortBy: 'name' } }],
    ['tools/call', { name: 'directory_tree', arguments: { path: dir } }],
    ['tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'readme.md') } }],
    ['tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'notes', 'a.txt'), head: 1 } }],
    [
      'tools/call',
      { name: 'read_multiple_files', arguments: { paths: [join(dir, 'notes', 'a.txt'), join(dir, 'notes', 'b.json'), join(dir, 'missing.txt')] } },
    ],
    ['tools/call', { name: 'read_media_file', arguments: { path: join(dir, 'pixel.png') } }],
    ['tools/call', { name: 'search_files', arguments: { path: dir, pattern: '*.txt' } }],
    ['tools/call', { name: 'get_file_info', arguments: { path: join(dir, 'readme.md') } }],
    ['tools/call', { name: 'read_text_file', arguments: { path: '/etc/hostname' } }],
    ['tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'missing.txt') } }],
    ['tools/call', { name: 'list_directory', arguments: {} }],
    ['tools/call', { name: 'no_such_tool', arguments: {} }],
    ['resources/list', {}],
    ['prompts/list', {}],
  ]);
  rmSync(dir, { recursive: true, force: true });
}

// server-memory: a knowledge graph in a file of its own.
{
  const dir = mkdtempSync(join(tmpdir(), 'mcp-frames-fixtures-memory-'));
  const bin = binOf('@modelcontextprotocol/server-memory');
  const entities = [
    { name: 'Ada', entityType: 'person', observations: ['wrote the first program', 'née Byron'] },
    { name: 'Analytical Engine', entityType: 'machine', observations: ['designed by Babbage'] },
  ];
  fixtures.memory = await capture('memory', node, [bin], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, [
    ['tools/list', {}],
    ['tools/call', { name: 'create_entities', arguments: { entities } }],
    ['tools/call', { name: 'create_relations', arguments: { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] } }],
    ['tools/call', { name: 'add_observations', arguments: { observations: [{ entityName: 'Ada', contents: ['🧮 notes on the engine'] }] } }],
    ['tools/call', { name: 'read_graph', arguments: {} }],
    ['tools/call', { name: 'search_nodes', arguments: { query: 'engine' } }],
    ['tools/call', { name: 'open_nodes', arguments: { names: ['Ada', 'Nobody'] } }],
    ['tools/call', { name: 'add_observations', arguments: { observations: [{ entityName: 'Nobody', contents: ['x'] }] } }],
    ['tools/call', { name: 'create_relations', arguments: { relations: 'not a list' } }],
    ['tools/call', { name: 'delete_entities', arguments: { entityNames: ['Analytical Engine'] } }],
    ['resources/list', {}],
  ]);
  rmSync(dir, { recursive: true, force: true });
}

mkdirSync(OUT, { recursive: true });
for (const [server, exchanges] of Object.entries(fixtures)) {
  writeFileSync(join(OUT, `${server}.jsonl`), `${exchanges.map((e) => JSON.stringify(e)).join('\n')}\n`);
  process.stdout.write(`capture-servers: ${exchanges.length} exchanges with ${server} -> test/fixtures/servers/${server}.jsonl\n`);
}
