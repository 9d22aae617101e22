// The proxy's memory for large answers: a stdio server's lines lent from one buffer, records written into reused
// buffers, the envelope walk's string ends, and the server's stdout read either way (a socket, or the pipe spawn
// makes). Each asserted by bytes and counts.

import type net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineReader } from '../src/exchange/lines.js';
import { answerBufferCounts, giveAnswerBuffer, LARGE, takeAnswerBuffer } from '../src/proxy/answer-buffers.js';
import { isEnvelopeFault, readEnvelope } from '../src/proxy/message.js';
import { createProxy, type ProxyOptions } from '../src/proxy/proxy.js';
import { ProxyClient } from './support/proxy-client.js';

const SCRIPTED = join(import.meta.dirname, 'support', 'scripted-server.mjs');
const MiB = 1024 * 1024;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(options: Partial<ProxyOptions> = {}) {
  const proxy = createProxy({ server: { command: process.execPath, args: [SCRIPTED] }, ...options });
  cleanups.push(() => proxy.close());
  const port = await new Promise<number>((resolve) =>
    proxy.server.listen(0, '127.0.0.1', () => resolve((proxy.server.address() as net.AddressInfo).port)),
  );
  await proxy.ready;
  const client = await ProxyClient.connect(port);
  cleanups.push(() => client.close());
  return { proxy, client };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const fillUri = (n: number, letter: string) => `scripted://fill/${n}/${letter}`;
/** The frame the scripted server's fill answer becomes: the result tag, then the result member as written. */
const fillFrame = (n: number, letter: string) => Buffer.from(`\u0000{"contents":[{"uri":"scripted://fill","text":"${letter.repeat(n)}"}]}`);
/** Byte equality, without a deep comparison of a few hundred thousand elements. */
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);

/** Reads `count` fill answers, `inFlight` at once, sizes and letters varying: each frame as it came. */
async function readFills(client: ProxyClient, count: number, inFlight: number) {
  const got: Array<{ k: number; payload: Uint8Array | null }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let k = next++; k < count; k = next++) {
        const answer = await client.exchange(k, 'resources/read', { uri: fillUri(sizeOf(k), LETTERS[k % 26]) });
        got.push({ k, payload: answer.payload });
      }
    }),
  );
  return got;
}
const sizeOf = (k: number) => 200_000 + (k % 5) * 30_000;

describe("proxy: a stdio server's large answers", () => {
  it('are carried byte for byte, their records written into buffers used again once written', async () => {
    const { client } = await start();
    const before = answerBufferCounts().made;
    const got = await readFills(client, 48, 8);
    for (const { k, payload } of got) expect(same(payload, fillFrame(sizeOf(k), LETTERS[k % 26]))).toBe(true);
    // A buffer is in use from its answer until the socket has written it: 8 in flight, not one a answer.
    expect(answerBufferCounts().made - before).toBeLessThanOrEqual(16);
    expect(answerBufferCounts().bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  it('given to onExchange, the payload and the message stay the watcher’s own: later answers do not write over them', async () => {
    const seen: Array<{ channel: number; payload: Uint8Array; message: Uint8Array }> = [];
    const { client } = await start({ onExchange: ({ channel, payload, message }) => seen.push({ channel, payload, message }) });
    await readFills(client, 24, 4);
    expect(seen).toHaveLength(24);
    for (const { channel, payload, message } of seen) {
      const frame = fillFrame(sizeOf(channel), LETTERS[channel % 26]);
      expect(same(payload, frame)).toBe(true);
      const text = Buffer.from(message).toString();
      expect(text.startsWith('{"result":')).toBe(true);
      expect(text).toContain(Buffer.from(frame.subarray(1)).toString());
    }
  });

  it('are read from the pipe spawn makes where no socket can be made for the stdout, the same bytes', async () => {
    const saved = process.env.TMPDIR;
    // os.tmpdir() reads TMPDIR: a directory that cannot be made in leaves the server the pipe.
    process.env.TMPDIR = join(import.meta.dirname, 'no-such-directory', 'deeper');
    try {
      const { client } = await start();
      const got = await readFills(client, 12, 4);
      for (const { k, payload } of got) expect(same(payload, fillFrame(sizeOf(k), LETTERS[k % 26]))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});

describe('answer buffers', () => {
  it('a small answer gets a buffer of its own; a large one a free buffer that fits, else a new one', () => {
    const small = takeAnswerBuffer(100);
    expect(small.buffer.byteLength).toBe(100);
    // Larger than any answer of the other cases: no free buffer of theirs fits.
    const large = takeAnswerBuffer(4 * MiB + 10);
    const made = answerBufferCounts().made;
    giveAnswerBuffer(large);
    const again = takeAnswerBuffer(4 * MiB + 20);
    expect(again.buffer).toBe(large.buffer);
    expect(again.length).toBe(4 * MiB + 20);
    // More than twice the size asked for: not taken, so a smaller answer does not hold an outsized buffer.
    giveAnswerBuffer(again);
    const smaller = takeAnswerBuffer(1.5 * MiB);
    expect(smaller.buffer).not.toBe(large.buffer);
    expect(answerBufferCounts().made).toBe(made + 1);
    // Given back twice, kept once.
    const free = answerBufferCounts().free;
    giveAnswerBuffer(smaller);
    giveAnswerBuffer(smaller);
    expect(answerBufferCounts().free).toBe(free + 1);
    expect(LARGE).toBeLessThan(MiB);
  });

  it('keeps at most 16 MiB free, letting the smallest go first', () => {
    const taken = Array.from({ length: 40 }, () => takeAnswerBuffer(1024 * 1024));
    for (const b of taken) giveAnswerBuffer(b);
    expect(answerBufferCounts().bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});

describe('LineReader, lending', () => {
  const chunksOf = (text: string, size: number) => {
    const bytes = Buffer.from(text);
    const out: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
    return out;
  };

  it('lends each line cut across chunks from one buffer, kept for the next', () => {
    const lines: string[] = [];
    const reader = new LineReader(1 << 20, { line: (b) => lines.push(Buffer.from(b).toString()), long: () => {} }, { lend: true });
    const line = (k: number) => `${String(k).repeat(3)}-${'x'.repeat(200_000)}`;
    for (const chunk of chunksOf(`${line(1)}\n${line(2)}\r\n`, 65536)) reader.push(chunk);
    const capacity = reader.capacity;
    expect(capacity).toBeGreaterThanOrEqual(200_000);
    for (const chunk of chunksOf(`${line(3)}\n${line(4)}\n`, 65536)) reader.push(chunk);
    expect(lines).toEqual([line(1), line(2), line(3), line(4)]);
    expect(reader.capacity).toBe(capacity);
    expect(reader.pending).toBe(0);
  });

  it('lets the buffer go once it is more than twice the longest of the recent lines', () => {
    const reader = new LineReader(1 << 20, { line: () => {}, long: () => {} }, { lend: true });
    for (const chunk of chunksOf(`${'y'.repeat(500_000)}\n`, 65536)) reader.push(chunk);
    expect(reader.capacity).toBeGreaterThanOrEqual(500_000);
    // Short lines, each cut in two: after two spans of them the long line is no longer recent.
    for (let k = 0; k < 40; k++) {
      reader.push(Buffer.from('short line '));
      reader.push(Buffer.from(`${k}\n`));
    }
    expect(reader.capacity).toBeLessThanOrEqual(64 * 1024);
  });

  it('without lend, gives the line away: nothing is held after it', () => {
    const kept: Uint8Array[] = [];
    const reader = new LineReader(1 << 20, { line: (b) => kept.push(b), long: () => {} });
    for (const chunk of chunksOf(`${'a'.repeat(100_000)}\n${'b'.repeat(100_000)}\n`, 65536)) reader.push(chunk);
    expect(reader.capacity).toBe(0);
    expect(Buffer.from(kept[0]).toString()).toBe('a'.repeat(100_000));
    expect(Buffer.from(kept[1]).toString()).toBe('b'.repeat(100_000));
  });
});

describe("readEnvelope: a string's end", () => {
  it('is the first quote after an even run of backslashes, wherever the strings lie', () => {
    const strings = ['', '\\', '\\\\', '"', '\\"', '"\\', 'a"b\\"c\\\\"d', '\\'.repeat(7), `${'\\'.repeat(8)}"`, 'x'.repeat(70_000)];
    for (const s of strings) {
      const result = { contents: [{ uri: s, text: s, [s]: s }] };
      const text = `{"result":${JSON.stringify(result)},"note":${JSON.stringify(s)},"id":${JSON.stringify(s)},"jsonrpc":"2.0"}`;
      const bytes = new Uint8Array(Buffer.from(text));
      const envelope = readEnvelope(bytes);
      if (isEnvelopeFault(envelope)) throw new Error(`${JSON.stringify(s)}: ${envelope.fault}`);
      const slice = (span: { start: number; end: number }) => JSON.parse(Buffer.from(bytes.subarray(span.start, span.end)).toString());
      expect(slice(envelope.result!)).toEqual(result);
      expect(slice(envelope.id!)).toBe(s);
    }
  });

  it('is not found past an escaped quote at the end of the message: the value is unterminated', () => {
    const envelope = readEnvelope(new Uint8Array(Buffer.from('{"id":1,"result":"abc\\"}')));
    expect(envelope).toEqual({ fault: 'unterminated value', offset: 17 });
  });
});
