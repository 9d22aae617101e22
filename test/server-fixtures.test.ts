// What the reference MCP servers really send: every captured answer decodes on every backend, judged as safeParse judges it,
// and encodes back to the server's own bytes.

import { describe, expect, test } from 'vitest';
import { NODES, ROOTS } from '../src/contract/generated/judges.js';
import { judgeBytes } from '../src/contract/judge-bytes.js';
import { finalize } from '../src/contract/judge-kit.js';
import { ErrorObjectSchema, type Judge } from '../src/contract/schema.js';
import { ENDPOINTS } from '../src/frame/endpoints.js';
import { FrameError } from '../src/frame/frame-error.js';
import { TAG_RESULT } from '../src/wire/tags.js';
import { BACKEND_ROWS } from './backends.js';
import { SERVER_FRAMES } from './support/servers.js';

const decoder = new TextDecoder();

test('the captures hold what the brief asks of them', () => {
  const names = SERVER_FRAMES.map((f) => f.name);
  const count = (re: RegExp) => names.filter((n) => re.test(n)).length;
  expect(count(/^everything .* resources\/list/)).toBeGreaterThanOrEqual(10); // 100 resources, 10 a page
  expect(count(/^everything .* resources\/read test:\/\/static\/resource\/\d+$/)).toBe(100);
  for (const re of [/resources\/templates\/list/, /tools\/list/, /prompts\/list/, /prompts\/get/, /completion\/complete/, /\(error\)/]) {
    expect(count(re)).toBeGreaterThan(0);
  }
  for (const server of ['everything', 'filesystem', 'memory']) expect(count(new RegExp(`^${server} `))).toBeGreaterThan(5);
  const bodies = SERVER_FRAMES.map((f) => decoder.decode(f.frame.subarray(1)));
  expect(bodies.some((b) => b.includes('"blob":'))).toBe(true);
  expect(bodies.some((b) => b.includes('"isError":true'))).toBe(true);
  expect(bodies.some((b) => b.includes('"type":"image"'))).toBe(true);
  expect(bodies.some((b) => b.includes('"type":"resource_link"'))).toBe(true);
});

describe("the compiled judges give safeParse's answer on every capture", () => {
  test.each(SERVER_FRAMES.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const schema: Judge = f.frame[0] === TAG_RESULT ? ENDPOINTS[f.endpoint].schema : ErrorObjectSchema;
    const value = JSON.parse(decoder.decode(f.frame.subarray(1)));
    const r = (
      schema as unknown as { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }
    ).safeParse(value);
    const want = r.success ? null : { path: r.error!.issues[0].path, message: r.error!.issues[0].message };
    const node = NODES[ROOTS.find(([, s]) => s === schema)![2]];
    const byValue = node.ok(value) ? undefined : node.why(value);
    expect(byValue === undefined ? null : finalize(byValue)).toEqual(want);
    for (const small of [0, 16, 256]) {
      const byBytes = judgeBytes(node, f.frame, 1, f.frame.length, { small, keep: small });
      expect(byBytes === undefined ? null : finalize(byBytes)).toEqual(want);
    }
  });
});

describe.each(BACKEND_ROWS)('%s: every capture decodes, and encodes back to its bytes', (_backend, backend) => {
  test.each(SERVER_FRAMES.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const codec = ENDPOINTS[f.endpoint].withBackend(backend);
    const frame = codec.tryDecode(f.frame);
    if (frame instanceof FrameError) throw frame;
    expect(frame.kind).toBe(f.frame[0] === TAG_RESULT ? 'result' : 'error');
    expect(codec.encode(frame)).toEqual(f.frame);
  });
});
