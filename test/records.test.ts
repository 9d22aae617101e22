// The record layer (WIRE.md sections 2, 3 and 6): byte layout, limits, record errors and what each channel came to.

import { describe, expect, test } from 'vitest';
import { BACKEND_ROWS } from './backends.js';
import { concat, chunksOf } from './support/bytes.js';
import { decodeChunks, plainEvents } from './support/events.js';
import { encodeFinish, encodeResponse, encodeResponseHeader, HEADER_SIZE, KIND_FINISH, KIND_RESPONSE } from '../src/records/record.js';
import {
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_HELD_BYTES,
  DEFAULT_MAX_OPEN_CHANNELS,
  resolveLimits,
  type StreamLimits,
} from '../src/records/limits.js';
import { StreamDecoder, decodeStream } from '../src/exchange/decoder.js';
import { RecordReader } from '../src/records/reader.js';
import type { Backend } from '../src/backend/backend.js';
import { listResources, readResource } from '../src/frame/endpoints.js';
import type { StreamEvent } from '../src/exchange/outcome.js';

const RESULT = { resources: [{ uri: 'u', name: 'n' }] };
const OK_FRAME = listResources.encode({ kind: 'result', result: RESULT });
const ERROR_FRAME = listResources.encode({ kind: 'error', error: { code: -32601, message: 'Method not found' } });

const resp = (channel: number, payload: Uint8Array = OK_FRAME) => encodeResponse(channel, payload);
const fin = (channel: number) => encodeFinish(channel);
const result = (channel: number) => ({ channel, outcome: 'result', result: RESULT });
const incomplete = (channel: number) => ({ channel, outcome: 'incomplete' });
const ok = { end: 'ok' };
const recordError = (reason: string, offset: number) => ({ end: 'record-error', reason, offset });

describe('record layout', () => {
  test('kinds are 1 and 2, and the header is 9 bytes', () => {
    expect(KIND_RESPONSE).toBe(1);
    expect(KIND_FINISH).toBe(2);
    expect(HEADER_SIZE).toBe(9);
  });

  test('a response: kind 1, channel id and length little-endian, then the payload', () => {
    expect(Array.from(encodeResponse(0x04030201, Uint8Array.of(0xaa, 0xbb)))).toEqual([
      0x01, 0x01, 0x02, 0x03, 0x04, 0x02, 0x00, 0x00, 0x00, 0xaa, 0xbb,
    ]);
    const big = new Uint8Array(0x010203);
    const rec = encodeResponse(7, big);
    expect(Array.from(rec.subarray(0, 9))).toEqual([0x01, 0x07, 0x00, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00]);
    expect(rec.length).toBe(9 + 0x010203);
  });

  test('a response header alone', () => {
    expect(Array.from(encodeResponseHeader(0x0a0b0c0d, 0xfffffffe))).toEqual([0x01, 0x0d, 0x0c, 0x0b, 0x0a, 0xfe, 0xff, 0xff, 0xff]);
  });

  test('a finish: kind 2, the channel id, length 0, nothing after', () => {
    expect(Array.from(encodeFinish(0x01020304))).toEqual([0x02, 0x04, 0x03, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00]);
  });

  test('channel ids 0 and 2^32 - 1', () => {
    expect(Array.from(encodeFinish(0))).toEqual([0x02, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(encodeFinish(2 ** 32 - 1))).toEqual([0x02, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    expect(Array.from(encodeResponse(2 ** 32 - 1, Uint8Array.of()))).toEqual([0x01, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    expect(Array.from(encodeResponse(0, Uint8Array.of(9)))).toEqual([0x01, 0, 0, 0, 0, 1, 0, 0, 0, 9]);
  });

  test.each([-1, 2 ** 32, 1.5, NaN, Infinity, -0.5, '1' as unknown as number])('channel id %s is a RangeError', (id) => {
    expect(() => encodeFinish(id)).toThrow(RangeError);
    expect(() => encodeResponse(id, OK_FRAME)).toThrow(RangeError);
    expect(() => encodeResponseHeader(id, 1)).toThrow(RangeError);
  });

  test.each([-1, 2 ** 32, 1.5, NaN])('length %s is a RangeError', (length) => {
    expect(() => encodeResponseHeader(1, length)).toThrow(RangeError);
  });
});

describe('resolveLimits', () => {
  test('defaults: 16 MiB, 4096 channels and 64 MiB held', () => {
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(16 * 1024 * 1024);
    expect(DEFAULT_MAX_OPEN_CHANNELS).toBe(4096);
    expect(DEFAULT_MAX_HELD_BYTES).toBe(64 * 1024 * 1024);
    const defaults = { maxFrameBytes: 16 * 1024 * 1024, maxOpenChannels: 4096, maxHeldBytes: 64 * 1024 * 1024 };
    expect(resolveLimits()).toEqual(defaults);
    expect(resolveLimits({})).toEqual(defaults);
  });

  test('the extremes are allowed', () => {
    expect(resolveLimits({ maxFrameBytes: 0, maxOpenChannels: 1, maxHeldBytes: 0 })).toEqual({
      maxFrameBytes: 0,
      maxOpenChannels: 1,
      maxHeldBytes: 0,
    });
    expect(resolveLimits({ maxFrameBytes: 2 ** 32 - 1, maxOpenChannels: 2 ** 32 - 1, maxHeldBytes: 2 ** 53 - 1 })).toEqual({
      maxFrameBytes: 2 ** 32 - 1,
      maxOpenChannels: 2 ** 32 - 1,
      maxHeldBytes: 2 ** 53 - 1,
    });
  });

  test.each([-1, 1.5, 2 ** 32, NaN, Infinity])('maxFrameBytes %s is a RangeError', (maxFrameBytes) => {
    expect(() => resolveLimits({ maxFrameBytes })).toThrow(RangeError);
    expect(() => new StreamDecoder({ endpoint: listResources, maxFrameBytes })).toThrow(RangeError);
  });

  test.each([0, -1, 1.5, 2 ** 32, NaN, Infinity])('maxOpenChannels %s is a RangeError', (maxOpenChannels) => {
    expect(() => resolveLimits({ maxOpenChannels })).toThrow(RangeError);
    expect(() => new StreamDecoder({ endpoint: listResources, maxOpenChannels })).toThrow(RangeError);
  });

  test.each([-1, 1.5, 2 ** 53, NaN, Infinity])('maxHeldBytes %s is a RangeError', (maxHeldBytes) => {
    expect(() => resolveLimits({ maxHeldBytes })).toThrow(RangeError);
    expect(() => new StreamDecoder({ endpoint: listResources, maxHeldBytes })).toThrow(RangeError);
  });
});

describe.each(BACKEND_ROWS)('records on %s', (_name, backend) => {
  const decoder = (limits: StreamLimits = {}) => new StreamDecoder({ endpoint: listResources, backend, ...limits });
  const decode = (bytes: Uint8Array, limits: StreamLimits = {}) =>
    plainEvents(decodeChunks([bytes], { endpoint: listResources, backend, ...limits }));

  describe('sequences (WIRE.md section 2)', () => {
    test('response then finish: the frame', () => {
      expect(decode(concat(resp(1), fin(1)))).toEqual([result(1), ok]);
    });

    test('an MCP error is an outcome, with its code', () => {
      expect(decode(concat(resp(2, ERROR_FRAME), fin(2)))).toEqual([
        { channel: 2, outcome: 'error', error: { code: -32601, message: 'Method not found' } },
        ok,
      ]);
    });

    test('a finish alone: not carried', () => {
      expect(decode(fin(7))).toEqual([{ channel: 7, outcome: 'not-carried' }, ok]);
    });

    test('a second and a third response: one sequence violation at the finish', () => {
      expect(decode(concat(resp(3), resp(3, ERROR_FRAME), resp(3), fin(3)))).toEqual([{ channel: 3, outcome: 'sequence-violation' }, ok]);
    });

    test('a channel used again after its finish', () => {
      expect(decode(concat(resp(5), fin(5), resp(5, ERROR_FRAME), fin(5), fin(5)))).toEqual([
        result(5),
        { channel: 5, outcome: 'error', error: { code: -32601, message: 'Method not found' } },
        { channel: 5, outcome: 'not-carried' },
        ok,
      ]);
    });

    test('channel ids 0 and 2^32 - 1 come out as unsigned numbers', () => {
      expect(decode(concat(resp(0), resp(2 ** 32 - 1), fin(2 ** 32 - 1), fin(0)))).toEqual([result(2 ** 32 - 1), result(0), ok]);
    });

    test('a zero-length response is a frame error: empty', () => {
      expect(decode(concat(resp(4, new Uint8Array(0)), fin(4)))).toEqual([{ channel: 4, outcome: 'frame-error', fault: { reason: 'empty' } }, ok]);
    });

    test('the incomplete outcomes at the end are in opening order', () => {
      const stream = concat(resp(5), resp(2), resp(9), fin(2), resp(2), resp(7), fin(7));
      expect(decode(stream)).toEqual([result(2), result(7), incomplete(5), incomplete(9), incomplete(2), ok]);
    });

    test('a channel in sequence violation that never finishes is incomplete', () => {
      expect(decode(concat(resp(1), resp(1)))).toEqual([incomplete(1), ok]);
    });

    test('outcomes come from the push that completes the finish, not later', () => {
      const d = decoder();
      expect(d.push(resp(1))).toEqual([]);
      const f = fin(1);
      expect(d.push(f.subarray(0, 8))).toEqual([]);
      expect(d.push(f.subarray(8))).toEqual([result(1)]);
      expect(d.end()).toEqual([ok]);
    });
  });

  test("a record longer than the kernel's window is held and scanned whole, not scanned again from where it starts", () => {
    // The core scans a chunk in windows of at most 2^31 bytes: under a frame limit raised past that, a
    // record that started a window was cut by it, and the next window started where it had, for ever.
    // A kernel with a 64-byte window shows the same with records of a few hundred bytes.
    const narrow: Backend = {
      ...backend,
      createReader: (limits, sink) => {
        const kernel = backend.createKernel();
        return new RecordReader(
          { ...kernel, window: () => 64, scan: kernel.scan.bind(kernel), holdInPlace: kernel.holdInPlace?.bind(kernel) },
          limits,
          sink,
        );
      },
    };
    const long = listResources.encode({ kind: 'result', result: { resources: [{ uri: 'u'.repeat(300), name: 'n' }] } });
    const stream = concat(resp(1, long), fin(1), resp(2), resp(3, long), fin(3), fin(2));
    const narrowDecode = (bytes: Uint8Array, limits: StreamLimits = {}) =>
      plainEvents(decodeChunks([bytes], { endpoint: listResources, backend: narrow, ...limits }));
    expect(narrowDecode(stream)).toEqual(decode(stream));
    for (let size = 50; size < 400; size += 70) {
      expect(plainEvents(decodeChunks(chunksOf(stream, size), { endpoint: listResources, backend: narrow }))).toEqual(decode(stream));
    }
    // The held limit still judges such a record from its header.
    expect(narrowDecode(stream, { maxHeldBytes: 100 })).toEqual([recordError('held-limit', 0)]);
  });

  test('decodeStream gives the events a StreamDecoder gives, for one buffer or for chunks', () => {
    const stream = concat(resp(1), resp(2, ERROR_FRAME), fin(2), resp(2), fin(1));
    const want = decode(stream);
    expect(plainEvents(decodeStream(stream, { endpoint: listResources, backend }))).toEqual(want);
    expect(plainEvents(decodeStream(chunksOf(stream, 4), { endpoint: listResources, backend }))).toEqual(want);
  });

  describe('payloads cut across chunks', () => {
    test('are buffered and delivered, wherever the cut falls', () => {
      const record = resp(1);
      for (let cut = 0; cut <= record.length; cut++) {
        const d = decoder();
        const a = record.slice(0, cut);
        const b = record.slice(cut);
        expect(d.push(a)).toEqual([]);
        expect(d.push(b)).toEqual([]);
        expect(d.position).toBe(record.length);
        expect(d.push(fin(1))).toEqual([result(1)]);
        expect(d.end()).toEqual([ok]);
      }
    });

    test('a byte at a time, and in every chunk size', () => {
      const stream = concat(resp(1), resp(2, ERROR_FRAME), fin(2), fin(1), fin(3));
      const whole = decode(stream);
      for (let size = 1; size <= 20; size++) {
        expect(plainEvents(decodeChunks(chunksOf(stream, size), { endpoint: listResources, backend }))).toEqual(whole);
      }
    });

    test('the caller may reuse its chunk after push: the decoder keeps nothing of it', () => {
      const d = decoder();
      const chunk = concat(resp(1), resp(2, ERROR_FRAME), resp(3).subarray(0, 20));
      expect(d.push(chunk)).toEqual([]);
      chunk.fill(0xee);
      const rest = concat(resp(3).subarray(20), fin(1), fin(2), fin(3));
      const events = d.push(rest);
      rest.fill(0xee);
      expect(events).toEqual([result(1), { channel: 2, outcome: 'error', error: { code: -32601, message: 'Method not found' } }, result(3)]);
      expect(d.end()).toEqual([ok]);
    });

    test('position counts the bytes taken in', () => {
      const d = decoder();
      expect(d.position).toBe(0);
      d.push(resp(1).subarray(0, 4));
      expect(d.position).toBe(4);
      d.push(resp(1).subarray(4, 12));
      expect(d.position).toBe(12);
      d.push(resp(1).subarray(12));
      expect(d.position).toBe(resp(1).length);
    });
  });

  describe('many records, large payloads, views and concurrent decoders', () => {
    test('10,000 exchanges and 10,000 finishes in one chunk, in order', () => {
      const tiny = listResources.encode({ kind: 'result', result: { resources: [] } });
      const parts: Uint8Array[] = [];
      for (let k = 0; k < 10_000; k++) parts.push(resp(k, tiny), fin(k));
      for (let k = 0; k < 10_000; k++) parts.push(fin(k));
      const events = decode(concat(...parts)) as { channel: number; outcome: string }[];
      expect(events.length).toBe(20_001);
      for (let k = 0; k < 10_000; k++) {
        expect(events[k]).toEqual({ channel: k, outcome: 'result', result: { resources: [] } });
        expect(events[10_000 + k]).toEqual({ channel: k, outcome: 'not-carried' });
      }
      expect(events.at(-1)).toEqual(ok);
    });

    test('a 3 MiB frame, whole or in chunks of any size, between small records', () => {
      const big = {
        contents: [
          { uri: 'file:///big.txt', text: 'é😀x'.repeat(200_000) },
          { uri: 'file:///big.bin', blob: Buffer.alloc(1_200_000, 7).toString('base64') },
        ],
      };
      const frame = readResource.encode({ kind: 'result', result: big });
      expect(frame.length).toBeGreaterThan(3_000_000);
      const stream = concat(resp(1), resp(2, frame), fin(1), fin(2));
      const want = [result(1), { channel: 2, outcome: 'result', result: big }, ok];
      const options = { endpoint: (ch: number) => (ch === 2 ? readResource : listResources), backend } as const;
      expect(decodeChunks([stream], options)).toEqual(want);
      for (const size of [65_536, (1 << 20) + 1, 3_000_001]) {
        expect(decodeChunks(chunksOf(stream, size), options)).toEqual(want);
      }
      expect(backend.verifyFrame(frame)).toBeNull();
      expect(readResource.withBackend(backend).decode(frame)).toEqual({ kind: 'result', result: big });
    });

    test('chunks that are views into a larger buffer, reused by the caller after each push', () => {
      const stream = concat(resp(1), resp(2, ERROR_FRAME), fin(2), resp(3), fin(1), fin(3));
      const want = decode(stream);
      const scratch = new Uint8Array(stream.length + 64);
      const d = decoder();
      const events: StreamEvent[] = [];
      for (let at = 0; at < stream.length; at += 7) {
        const piece = stream.subarray(at, at + 7);
        scratch.fill(0x02);
        scratch.set(piece, 13);
        events.push(...d.push(scratch.subarray(13, 13 + piece.length)));
        scratch.fill(0x01);
      }
      events.push(...d.end());
      expect(plainEvents(events)).toEqual(want);
    });

    test('two decoders pushed in turn keep their own state', () => {
      const a = concat(resp(1), resp(2, ERROR_FRAME), fin(1), resp(1), fin(2), fin(1));
      const b = concat(fin(9), resp(8, new Uint8Array(0)), resp(7), fin(7), resp(8), fin(8), Uint8Array.of(0x05));
      const da = decoder();
      const db = decoder({ maxOpenChannels: 2 });
      const ea: StreamEvent[] = [];
      const eb: StreamEvent[] = [];
      for (let k = 0; k < Math.max(a.length, b.length); k += 3) {
        ea.push(...da.push(a.subarray(k, k + 3)));
        eb.push(...db.push(b.subarray(k, k + 3)));
      }
      ea.push(...da.end());
      eb.push(...db.end());
      expect(plainEvents(ea)).toEqual(decode(a));
      expect(plainEvents(eb)).toEqual(decode(b, { maxOpenChannels: 2 }));
    });

    test("a decoder run from inside another decoder's callback", () => {
      const inner = concat(resp(4, ERROR_FRAME), fin(4), resp(5));
      const innerEvents: unknown[][] = [];
      const choose = (channel: number) => {
        innerEvents.push(plainEvents(decodeChunks(chunksOf(inner, 5), { endpoint: listResources, backend })));
        return channel % 2 ? readResource : listResources;
      };
      const read = readResource.encode({ kind: 'result', result: { contents: [{ uri: 'u', text: 't' }] } });
      const outer = concat(resp(1, read), resp(2), fin(2), fin(1));
      const events = plainEvents(decodeChunks([outer], { endpoint: choose, backend }));
      expect(events).toEqual([result(2), { channel: 1, outcome: 'result', result: { contents: [{ uri: 'u', text: 't' }] } }, ok]);
      expect(innerEvents.length).toBe(2);
      for (const e of innerEvents) expect(e).toEqual(decode(inner));
    });
  });

  describe('record errors (WIRE.md section 3)', () => {
    test('a bad kind is seen from its first byte alone', () => {
      for (const kind of [0x00, 0x03, 0x80, 0xff]) {
        const d = decoder();
        expect(d.push(Uint8Array.of(kind))).toEqual([recordError('bad-kind', 0)]);
      }
    });

    test('a bad kind after whole records: at its offset, with open channels incomplete', () => {
      const head = concat(resp(1), resp(2), fin(2));
      const d = decoder();
      expect(d.push(head)).toEqual([result(2)]);
      expect(d.push(Uint8Array.of(0x03))).toEqual([incomplete(1), recordError('bad-kind', head.length)]);
    });

    test('a run of zero bytes is refused at once', () => {
      expect(decode(new Uint8Array(64))).toEqual([recordError('bad-kind', 0)]);
    });

    test('a finish with a length is a bad finish, seen from its header', () => {
      const head = resp(1);
      const bad = Uint8Array.of(0x02, 1, 0, 0, 0, 1, 0, 0, 0);
      const d = decoder();
      expect(d.push(head)).toEqual([]);
      expect(d.push(bad)).toEqual([incomplete(1), recordError('bad-finish', head.length)]);
    });

    test('truncated: the stream ends inside a header or a payload', () => {
      const head = concat(resp(1), fin(1));
      const next = resp(2);
      for (let cut = 1; cut < next.length; cut++) {
        expect(decode(concat(head, next.subarray(0, cut)))).toEqual([result(1), recordError('truncated', head.length)]);
      }
      expect(decode(concat(resp(3), fin(1).subarray(0, 1)))).toEqual([incomplete(3), recordError('truncated', resp(3).length)]);
    });

    test('after a record error, push() and end() return nothing', () => {
      const d = decoder();
      expect(d.push(concat(resp(1), Uint8Array.of(0x09)))).toEqual([incomplete(1), recordError('bad-kind', resp(1).length)]);
      expect(d.push(concat(resp(2), fin(2)))).toEqual([]);
      expect(d.push(new Uint8Array(0))).toEqual([]);
      expect(d.end()).toEqual([]);
      expect(d.end()).toEqual([]);
    });

    test('after end(), push() and end() return nothing', () => {
      const d = decoder();
      expect(d.end()).toEqual([ok]);
      expect(d.push(concat(resp(2), fin(2)))).toEqual([]);
      expect(d.end()).toEqual([]);
    });
  });

  describe('limits (WIRE.md section 6)', () => {
    const payloadOf = (n: number) => {
      const p = new Uint8Array(n);
      p[0] = 0x07; // an unknown tag: the frame's verdict does not matter here
      return p;
    };

    test('a payload of exactly the frame limit passes; one byte more is oversize', () => {
      for (const limit of [1, 10, 100]) {
        expect(decode(concat(resp(1, payloadOf(limit)), fin(1)), { maxFrameBytes: limit })).toEqual([
          { channel: 1, outcome: 'frame-error', fault: { reason: 'unknown-tag', tag: 7, offset: 0 } },
          ok,
        ]);
        expect(decode(concat(fin(9), resp(1, payloadOf(limit + 1)), fin(1)), { maxFrameBytes: limit })).toEqual([
          { channel: 9, outcome: 'not-carried' },
          recordError('oversize', 9),
        ]);
      }
    });

    test('oversize is seen from the header, before any payload byte', () => {
      const head = concat(resp(1), fin(1));
      const d = decoder({ maxFrameBytes: 100 });
      expect(d.push(head)).toEqual([result(1)]);
      expect(d.push(concat(encodeResponseHeader(2, 101), new Uint8Array(50)))).toEqual([recordError('oversize', head.length)]);
      // Nothing past the header was taken in.
      expect(d.position).toBeLessThanOrEqual(head.length + HEADER_SIZE);
    });

    test('a frame limit of 0 allows only empty payloads', () => {
      expect(decode(concat(resp(1, new Uint8Array(0)), fin(1)), { maxFrameBytes: 0 })).toEqual([
        { channel: 1, outcome: 'frame-error', fault: { reason: 'empty' } },
        ok,
      ]);
      expect(decode(concat(resp(1, Uint8Array.of(0))), { maxFrameBytes: 0 })).toEqual([recordError('oversize', 0)]);
    });

    test('the default frame limit is 16 MiB, checked from the header', () => {
      const d = decoder();
      expect(d.push(encodeResponseHeader(1, 16 * 1024 * 1024))).toEqual([]);
      const e = decoder();
      expect(e.push(encodeResponseHeader(1, 16 * 1024 * 1024 + 1))).toEqual([recordError('oversize', 0)]);
    });

    test('maxOpenChannels N allows N open and refuses the N+1th at its offset', () => {
      for (const n of [1, 2, 5]) {
        const opens = Array.from({ length: n }, (_, k) => resp(100 + k));
        const head = concat(...opens);
        const d = decoder({ maxOpenChannels: n });
        expect(d.push(head)).toEqual([]);
        const events = d.push(resp(999));
        expect(events).toEqual([...opens.map((_, k) => incomplete(100 + k)), recordError('too-many-channels', head.length)]);
      }
    });

    test('too many channels is seen from the header, before the payload', () => {
      const d = decoder({ maxOpenChannels: 1 });
      expect(d.push(resp(1))).toEqual([]);
      expect(d.push(encodeResponseHeader(2, 50))).toEqual([incomplete(1), recordError('too-many-channels', resp(1).length)]);
    });

    test('a finish frees a slot', () => {
      expect(decode(concat(resp(1), resp(2), fin(1), resp(3), fin(2), fin(3)), { maxOpenChannels: 2 })).toEqual([
        result(1),
        result(2),
        result(3),
        ok,
      ]);
    });

    test('finishes that were not carried do not count', () => {
      expect(decode(concat(fin(5), fin(6), resp(1), fin(7), fin(1)), { maxOpenChannels: 1 })).toEqual([
        { channel: 5, outcome: 'not-carried' },
        { channel: 6, outcome: 'not-carried' },
        { channel: 7, outcome: 'not-carried' },
        result(1),
        ok,
      ]);
    });

    test("the same channel's second response does not open a new channel", () => {
      expect(decode(concat(resp(1), resp(1), resp(1), fin(1), resp(2), fin(2)), { maxOpenChannels: 1 })).toEqual([
        { channel: 1, outcome: 'sequence-violation' },
        result(2),
        ok,
      ]);
    });

    test("the held limit counts the open channels' responses and the one being read, and refuses at its header", () => {
      const n = OK_FRAME.length;
      // Two open channels hold 2n; a third response of n bytes makes 3n.
      expect(decode(concat(resp(1), resp(2), resp(3), fin(1), fin(2), fin(3)), { maxHeldBytes: 3 * n })).toEqual([
        result(1),
        result(2),
        result(3),
        ok,
      ]);
      expect(decode(concat(resp(1), resp(2), resp(3)), { maxHeldBytes: 3 * n - 1 })).toEqual([
        incomplete(1),
        incomplete(2),
        recordError('held-limit', 2 * resp(1).length),
      ]);
    });

    test('a finish gives its bytes back; a not-carried finish and a second response add none', () => {
      const n = OK_FRAME.length;
      expect(decode(concat(resp(1), fin(1), resp(2), fin(2)), { maxHeldBytes: n })).toEqual([result(1), result(2), ok]);
      // The second response must fit beside the first while it is read, then holds nothing.
      expect(decode(concat(resp(1), resp(1), fin(1)), { maxHeldBytes: 2 * n })).toEqual([{ channel: 1, outcome: 'sequence-violation' }, ok]);
      expect(decode(concat(resp(1), resp(1), fin(1)), { maxHeldBytes: 2 * n - 1 })).toEqual([
        incomplete(1),
        recordError('held-limit', resp(1).length),
      ]);
      expect(decode(concat(fin(7), resp(1), fin(1)), { maxHeldBytes: n })).toEqual([{ channel: 7, outcome: 'not-carried' }, result(1), ok]);
    });

    test('the held limit is judged from the header, before a byte of the payload is held', () => {
      const d = decoder({ maxHeldBytes: 1000 });
      expect(d.push(encodeResponseHeader(1, 1000))).toEqual([]);
      const e = decoder({ maxHeldBytes: 1000 });
      expect(e.push(encodeResponseHeader(1, 1001))).toEqual([recordError('held-limit', 0)]);
    });

    test('oversize is judged before too-many-channels, and both before the held limit', () => {
      expect(decode(concat(resp(1), resp(2)), { maxFrameBytes: 5, maxOpenChannels: 1, maxHeldBytes: 0 })).toEqual([recordError('oversize', 0)]);
      expect(decode(concat(resp(1), resp(2)), { maxOpenChannels: 1, maxHeldBytes: OK_FRAME.length })).toEqual([
        incomplete(1),
        recordError('too-many-channels', resp(1).length),
      ]);
    });

    test('the default held limit is 64 MiB, and not a byte more', () => {
      // Headers only: the limit is judged from them, so no payload needs to be sent to reach it.
      const d = decoder({ maxFrameBytes: 2 ** 32 - 1 });
      expect(d.push(encodeResponseHeader(1, 64 * 1024 * 1024))).toEqual([]);
      const e = decoder({ maxFrameBytes: 2 ** 32 - 1 });
      expect(e.push(encodeResponseHeader(1, 64 * 1024 * 1024 + 1))).toEqual([recordError('held-limit', 0)]);
    });

    test('the default is 4096 open channels', () => {
      const opens = concat(...Array.from({ length: 4096 }, (_, k) => resp(k, Uint8Array.of(0))));
      const d = decoder();
      expect(d.push(opens)).toEqual([]);
      const events: StreamEvent[] = d.push(resp(5000));
      expect(events.length).toBe(4097);
      expect(events.at(-1)).toEqual(recordError('too-many-channels', opens.length));
    });
  });
});
