// What the CLI prints for a frame, an outcome and a stream's end: JSON lines, or a table.
//
// # One JSON object per line, members in a fixed order
//
// Scripts read these lines, so each shape is built member by member rather
// than spread from a library object: a field added to Outcome or FrameError
// later does not leak into the output unasked. Decoded values are printed as
// JSON.parse built them, members in the order the server wrote them.
//
//   decode   {"kind":"result","result":…}   {"kind":"error","error":…}
//            {"kind":"frame-error","reason":…,"tag"?,"rule"?,"message":…,"offset"?}
//            {"kind":"input-error","line":N,"message":…}
//   inspect  {"channel":n,"outcome":…, then as decode for result, error, frame-error}
//            {"end":"ok"}   {"end":"record-error","reason":…,"offset":n}
//
// # The table is printed row by row
//
// Outcomes are printed as soon as they are known, so the columns cannot be
// sized from the rows; they are sized from what can appear: a channel id
// has at most 10 digits, and 'sequence-violation' is the longest outcome.

import { Buffer } from 'node:buffer';
import type { Frame } from '../frame/frame.js';
import { FrameError } from '../frame/frame-error.js';
import type { Outcome, StreamEnd } from '../exchange/outcome.js';
import { describeRecordFault } from '../records/record-error.js';

// ---- decode: one line per payload

export function frameLine(frame: Frame<unknown> | FrameError): string {
  if (frame instanceof FrameError) return JSON.stringify({ kind: 'frame-error', ...frame.toJSON() });
  if (frame.kind === 'result') return JSON.stringify({ kind: 'result', result: frame.result });
  return JSON.stringify({ kind: 'error', error: frame.error });
}

export function inputErrorLine(line: number, message: string): string {
  return JSON.stringify({ kind: 'input-error', line, message });
}

// ---- inspect --json: one line per outcome, then the end

export function outcomeLine(o: Outcome): string {
  switch (o.outcome) {
    case 'result':
      return JSON.stringify({ channel: o.channel, outcome: o.outcome, result: o.result });
    case 'error':
      return JSON.stringify({ channel: o.channel, outcome: o.outcome, error: o.error });
    case 'frame-error':
      return JSON.stringify({ channel: o.channel, outcome: o.outcome, ...o.fault.toJSON() });
    default:
      return JSON.stringify({ channel: o.channel, outcome: o.outcome });
  }
}

export function endLine(end: StreamEnd): string {
  if (end.end === 'ok') return JSON.stringify({ end: 'ok' });
  if (end.end === 'input-error') return JSON.stringify({ end: 'input-error', message: String((end.error as Error)?.message ?? end.error) });
  return JSON.stringify({ end: 'record-error', reason: end.reason, offset: end.offset });
}

// ---- inspect: the table

const CHANNEL_WIDTH = 10; // 4294967295
const OUTCOME_WIDTH = 18; // sequence-violation

function row(channel: string, outcome: string, summary: string): string {
  return `${channel.padStart(CHANNEL_WIDTH)}  ${outcome.padEnd(OUTCOME_WIDTH)}  ${summary}`.trimEnd();
}

export function tableHeader(): string {
  return row('channel', 'outcome', 'summary');
}

export function tableRow(o: Outcome): string {
  return row(String(o.channel), o.outcome, summarizeOutcome(o));
}

/** The closing line: how the stream ended, how much was read, what answered. */
export function tableEnd(end: StreamEnd, bytes: number, outcomes: number, backend: string): string {
  const read = `${count(bytes, 'byte', 'bytes')}${bytes >= 1024 ? ` (${size(bytes)})` : ''}`;
  const tally = `${count(outcomes, 'outcome', 'outcomes')}, backend ${backend}`;
  if (end.end === 'ok') return `stream ended ok: ${read}, ${tally}`;
  if (end.end === 'input-error') return `stream cut: ${String((end.error as Error)?.message ?? end.error)}; ${read} read, ${tally}`;
  return `stream stopped: record error ${end.reason} at offset ${end.offset} (${describeRecordFault(end)}); ${read} read, ${tally}`;
}

function summarizeOutcome(o: Outcome): string {
  switch (o.outcome) {
    case 'result':
      return summarizeResult(o.result);
    case 'error':
      return summarizeError(o.error);
    case 'frame-error':
      return summarizeFrameError(o.fault);
    case 'not-carried':
      return 'a finish with no response before it';
    case 'sequence-violation':
      return 'a second response before the finish';
    case 'incomplete':
      return 'the stream ended with the channel open';
  }
}

/** "code -32601 Method not found": the server's code and message, as sent. */
function summarizeError(error: { code: unknown; message: unknown; data?: unknown }): string {
  return `code ${String(error.code)} ${clip(String(error.message))}${'data' in error ? ', with data' : ''}`;
}

function summarizeFrameError(fault: FrameError): string {
  if (fault.reason === 'empty') return 'empty payload';
  if (fault.reason === 'unknown-tag') return `unknown-tag 0x${(fault.tag ?? 0).toString(16).padStart(2, '0')}`;
  return `body: ${fault.rule ?? 'rule'}${fault.offset !== undefined ? ` at offset ${fault.offset}` : ''}`;
}

/** The arrays the MCP results list things in, and what each thing is called. */
const LISTS: readonly (readonly [member: string, one: string, many: string])[] = [
  ['resources', 'resource', 'resources'],
  ['resourceTemplates', 'resource template', 'resource templates'],
  ['tools', 'tool', 'tools'],
  ['prompts', 'prompt', 'prompts'],
  ['messages', 'message', 'messages'],
];

/** "3 resources, nextCursor c1", "2 contents (1 text, 1 blob, 4.2 KiB)", or a member count. */
function summarizeResult(result: unknown): string {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return typeof result;
  const r = result as Record<string, unknown>;
  let text: string | undefined;
  for (const [member, one, many] of LISTS) {
    const list = r[member];
    if (Array.isArray(list)) {
      text = count(list.length, one, many);
      break;
    }
  }
  if (text === undefined && Array.isArray(r.contents)) text = summarizeContents(r.contents);
  if (text === undefined && Array.isArray(r.content)) text = summarizeContent(r.content) + (r.isError === true ? ', isError' : '');
  if (text === undefined && isObject(r.completion) && Array.isArray(r.completion.values)) {
    text = count(r.completion.values.length, 'completion value', 'completion values');
  }
  text ??= count(Object.keys(r).length, 'member', 'members');
  if (typeof r.nextCursor === 'string') text += `, nextCursor ${clip(r.nextCursor)}`;
  return text;
}

/** resources/read: how many items, which kinds, and the bytes they hold. */
function summarizeContents(items: unknown[]): string {
  let texts = 0;
  let blobs = 0;
  let bytes = 0;
  for (const item of items) {
    if (!isObject(item)) continue;
    if (typeof item.text === 'string') {
      texts++;
      bytes += Buffer.byteLength(item.text, 'utf8');
    } else if (typeof item.blob === 'string') {
      blobs++;
      bytes += Buffer.byteLength(item.blob, 'base64');
    }
  }
  return `${count(items.length, 'content', 'contents')} (${texts} text, ${count(blobs, 'blob', 'blobs')}, ${size(bytes)})`;
}

/** tools/call: how many items of each type, in order of first appearance. */
function summarizeContent(items: unknown[]): string {
  const types = new Map<string, number>();
  for (const item of items) {
    const type = isObject(item) && typeof item.type === 'string' ? item.type : '?';
    types.set(type, (types.get(type) ?? 0) + 1);
  }
  const kinds = [...types].map(([type, n]) => `${n} ${clip(type)}`).join(', ');
  return count(items.length, 'content item', 'content items') + (kinds ? ` (${kinds})` : '');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Bytes for a person: "512 B", "4.2 KiB", "16 MiB". */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [unit, scale] = bytes < 1024 ** 2 ? ['KiB', 1024] : bytes < 1024 ** 3 ? ['MiB', 1024 ** 2] : ['GiB', 1024 ** 3];
  return `${(bytes / scale).toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/**
 * A server's string, made safe for one table cell: control characters
 * escaped (a newline in a message must not break the row) and long text cut.
 */
function clip(s: string, max = 60): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job.
  let out = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, escapeControl);
  if (out.length > max) {
    out = out.slice(0, max);
    // Do not leave half of a surrogate pair at the cut.
    if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1);
    out += '…';
  }
  return out;
}

/** "\n" as JSON writes it where JSON has a short form, else "\u0085". */
function escapeControl(c: string): string {
  const json = JSON.stringify(c).slice(1, -1);
  return json.length > 1 ? json : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
