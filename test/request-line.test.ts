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

  it('refuses a channel spelled in more bytes than any integer needs to be kept (past 64)', () => {
    expect(channelOf(line(`7.${'0'.repeat(40)}`))).toBe(7);
    expect(channelOf(line(`7.${'0'.repeat(80)}`))).toBe('bad-channel');
  });
});
