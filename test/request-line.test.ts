import { describe, expect, it } from 'vitest';
import { readRequestBytes, readRequestLine } from '../src/exchange/request-line.js';

const line = (channel: string, rest = '') => `{"method":"tools/list"${rest},"channel":${channel}}`;
const channelOf = (text: string) => {
  const read = readRequestBytes(new TextEncoder().encode(text));
  return 'refused' in read ? read.refused : read.channel;
};

describe('a request line: the channel', () => {
  it.each([
    ['7', 7],
    ['0', 0],
    ['-0', 0],
    ['4294967295', 4294967295],
    ['7.0', 7],
    ['7.000', 7],
    ['0.7e1', 7],
    ['70e-1', 7],
    ['7E+0', 7],
    ['1e2', 100],
    ['4.294967295e9', 4294967295],
    ['0e5', 0],
  ])('takes %s, which denotes the integer %d exactly', (spelling, channel) => {
    expect(channelOf(line(spelling))).toBe(channel);
    expect(readRequestLine(line(spelling))).toMatchObject({ channel });
  });

  it.each(['4294967295.0000001', '7.00000000000000001', '6.99999999999999999', '1.5', '0.55e1', '1e-1', '4294967296', '-1', '"7"', 'null'])(
    'refuses %s: not an integer from 0 to 2^32 - 1 as written, though some parse as one',
    (spelling) => {
      expect(channelOf(line(spelling))).toBe('bad-channel');
    },
  );

  it('reads the top-level member: one nested in params, an earlier duplicate and escaped names do not decide', () => {
    const params = ',"params":{"channel":7.00000000000000001,"x":"\\"channel\\":1.5"}';
    expect(channelOf(line('7', params))).toBe(7);
    // The last of duplicate names wins, as in JSON.parse: its spelling is the one judged.
    expect(channelOf('{"channel":7.00000000000000001,"method":"tools/list","channel":7}')).toBe(7);
    expect(channelOf('{"channel":7,"method":"tools/list","channel":7.00000000000000001}')).toBe('bad-channel');
    expect(channelOf('{"method":"tools/list","\\u0063hannel":7.00000000000000001}')).toBe('bad-channel');
    expect(channelOf('{"method":"tools/list","\\u0063hannel":7.0}')).toBe(7);
    expect(channelOf('{"method":"tools/list","channel" :\t7.00000000000000001 }')).toBe('bad-channel');
  });

  it('reads a channel spelled at any length, and names escaped at any length', () => {
    expect(channelOf(line(`7.${'0'.repeat(80)}`))).toBe(7);
    expect(channelOf(line(`7.${'0'.repeat(80)}1`))).toBe('bad-channel');
    const escaped = '\\u0063\\u0068\\u0061\\u006e\\u006e\\u0065\\u006c';
    expect(channelOf(`{"${escaped}":7,"method":"tools/list"}`)).toBe(7);
    // The last of duplicate names decides, escaped or not.
    expect(channelOf(`{"channel":7,"${escaped}":7.00000000000000001,"method":"tools/list"}`)).toBe('bad-channel');
    expect(channelOf(`{"${escaped}":7.00000000000000001,"channel":7,"method":"tools/list"}`)).toBe(7);
  });
});

describe('a request line: the params', () => {
  const read = (text: string) => readRequestBytes(new TextEncoder().encode(text));

  it('are kept as the client wrote them: number spellings, duplicates, key order and escapes', () => {
    const params = '{ "n":1.000000,"m":12345678901234567890,"z":-0,"2":1,"1":2,"a":"\\u00e9\\"}","a":[{"channel":1.5}] }';
    expect(read(`{"channel":3,"method":"tools/call","params":${params}}`)).toEqual({ channel: 3, method: 'tools/call', paramsText: params });
    // The last of duplicate params is the one sent, as JSON.parse would take it.
    expect(read('{"params":{"a":1},"channel":3,"method":"tools/call","params":{"b":2}}')).toMatchObject({ paramsText: '{"b":2}' });
    expect(read('{"channel":3,"method":"tools/list"}')).toEqual({ channel: 3, method: 'tools/list' });
  });

  it('are an object: anything else is refused', () => {
    for (const params of ['null', '[]', '"x"', '1', 'true']) {
      expect(read(`{"channel":3,"method":"tools/list","params":${params}}`)).toMatchObject({ refused: 'bad-params', channel: 3 });
    }
  });

  it('readRequestLine gives them parsed', () => {
    expect(readRequestLine('{"channel":3,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}')).toEqual({
      channel: 3,
      method: 'tools/call',
      params: { name: 'x', arguments: { a: [1, 2] } },
    });
    expect(readRequestLine('{"channel":3,')).toMatchObject({ refused: 'bad-json' });
    expect(readRequestLine('[1]')).toMatchObject({ refused: 'bad-json' });
  });
});
