// What V8 cannot hold as a value, met where a value is not needed.
//
// A body of more than 2^28 bytes can hold an array of more than 2^27 - 3
// elements, and JSON.parse making one stops a V8 process with no exception
// (README, "Past 256 MiB"). The relay's 'full' level forwards bytes and
// throws values away, so for a large error object it judges the schema and
// the code's range on the bytes (codec.ts, judgeOnly): these tests hold its
// verdict to build's, which parses, on frames build can parse, and show it
// surviving the frame build cannot.

import { describe, expect, it } from 'vitest';
import { BACKEND_ROWS, BACKENDS } from './backends.js';
import { buildFrame, judgeFrame } from '../src/frame/build.js';
import { listResources } from '../src/frame/endpoints.js';
import { SMALL } from '../src/contract/judge-bytes.js';

const encoder = new TextEncoder();

/** An error frame: `{code, message, data}` written by hand around `code` (its JSON text), padded past SMALL. */
function errorFrame(members: string): Uint8Array {
  const pad = 'x'.repeat(SMALL + 16);
  return encoder.encode(`\u0001{${members.replace('PAD', pad)}}`);
}

const CASES: Array<[string, string]> = [
  ['a code in range', '"code":-32602,"message":"PAD"'],
  ['the largest code', '"code":2147483647,"message":"PAD"'],
  ['the smallest code', '"code":-2147483648,"message":"PAD"'],
  ['a code one past the largest', '"code":2147483648,"message":"PAD"'],
  ['a code one below the smallest', '"code":-2147483649,"message":"PAD"'],
  ['a code with an exponent, in range', '"code":1e3,"message":"PAD"'],
  ['a code with an exponent, out of range', '"code":1E10,"message":"PAD"'],
  ['a code written with a fraction of zero', '"code":-32600.0,"message":"PAD"'],
  ['minus zero', '"code":-0,"message":"PAD"'],
  ['a code that is not an integer', '"code":1.5,"message":"PAD"'],
  ['a code that is a string', '"code":"1","message":"PAD"'],
  ['no code', '"message":"PAD"'],
  ['two codes, the last out of range', '"code":1,"message":"PAD","code":99999999999'],
  ['two codes, the last in range', '"code":99999999999,"message":"PAD","code":1'],
  ['a code inside data, out of range', '"code":7,"message":"m","data":{"code":99999999999,"pad":"PAD"}'],
  ['data after the code', '"code":5,"message":"m","data":[1,2,{"code":-99999999999},"PAD"]'],
  ['spaces around the code', '"code" :  42 ,"message":"PAD"'],
];

describe.each(BACKEND_ROWS)("the relay's verdict on a large error object (%s)", (_name, backend) => {
  const codec = listResources.withBackend(backend);
  for (const [name, members] of CASES) {
    it(`is build's: ${name}`, () => {
      const frame = errorFrame(members);
      expect(frame.length).toBeGreaterThan(SMALL + 1);
      const built = buildFrame(codec, frame, null);
      const expected = built instanceof Error ? built.toJSON() : null;
      expect(judgeFrame(codec, frame)?.toJSON() ?? null).toEqual(expected);
    });
  }
});

describe('an error object past what V8 holds as a value', () => {
  it('is judged, and accepted, without building its value: 140 million elements in data', () => {
    const n = 140_000_000;
    const head = encoder.encode('\u0001{"code":-32000,"message":"m","data":[');
    const frame = new Uint8Array(head.length + 2 * n + 1);
    frame.set(head);
    frame.fill(0x30, head.length);
    for (let i = head.length + 1; i < frame.length - 2; i += 2) frame[i] = 0x2c;
    frame[frame.length - 2] = 0x5d;
    frame[frame.length - 1] = 0x7d;
    // On the old code JSON.parse stopped the process here ("Fatal JavaScript invalid size error 140000000").
    expect(judgeFrame(listResources.withBackend(BACKENDS[0]), frame)).toBeNull();
  }, 120_000);
});
