// The real-server captures (test/fixtures/servers/, written by scripts/capture-servers.mjs) as frames: each answer's
// `result` or `error` member, cut out of the line the server wrote byte for byte, behind its tag.

import { readdirSync, readFileSync } from 'node:fs';
import { TAG_ERROR, TAG_RESULT } from '../../src/wire/tags.js';
import { locate } from '../../src/contract/locate.js';

const DIR = new URL('../fixtures/servers/', import.meta.url);

/** Which codec judges each method's results. */
const ENDPOINT_OF: Record<string, string> = {
  'resources/list': 'list-resources',
  'resources/read': 'read-resource',
  'resources/templates/list': 'list-resource-templates',
  'tools/list': 'list-tools',
  'tools/call': 'call-tool',
  'prompts/list': 'list-prompts',
  'prompts/get': 'get-prompt',
  'completion/complete': 'complete',
};

export interface ServerFrame {
  /** server, method, and what was asked, in a few words. */
  name: string;
  /** The codec for the method; an unknown method's error is judged by list-resources' codec (errors are judged alike). */
  endpoint: string;
  /** The tag, then the member's bytes exactly as the server wrote them. */
  frame: Uint8Array;
}

const encoder = new TextEncoder();

/** The offset just past the JSON value that starts at i. */
function valueEnd(b: Uint8Array, i: number): number {
  let depth = 0;
  for (; i < b.length; i++) {
    const c = b[i];
    if (c === 0x22) {
      for (i++; b[i] !== 0x22; i++) if (b[i] === 0x5c) i++;
      if (depth === 0) return i + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || c === 0x7d)) return i;
  }
  return i;
}

function load(): ServerFrame[] {
  const frames: ServerFrame[] = [];
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const lines = readFileSync(new URL(file, DIR), 'utf8').split('\n').filter(Boolean);
    lines.forEach((line, k) => {
      const exchange = JSON.parse(line) as { server: string; method: string; params: Record<string, unknown>; response: string };
      const raw = encoder.encode(exchange.response);
      const message = JSON.parse(exchange.response) as Record<string, unknown>;
      const member = 'result' in message ? 'result' : 'error';
      const start = locate(raw, 0, raw.length, [member]);
      const body = raw.subarray(start, valueEnd(raw, start));
      const frame = new Uint8Array(1 + body.length);
      frame[0] = member === 'result' ? TAG_RESULT : TAG_ERROR;
      frame.set(body, 1);
      const what = String(exchange.params.name ?? exchange.params.uri ?? exchange.params.cursor ?? '');
      frames.push({
        name: `${exchange.server} #${k} ${exchange.method}${what ? ` ${what}` : ''}${member === 'error' ? ' (error)' : ''}`,
        endpoint: ENDPOINT_OF[exchange.method] ?? 'list-resources',
        frame,
      });
    });
  }
  return frames;
}

export const SERVER_FRAMES: readonly ServerFrame[] = load();
