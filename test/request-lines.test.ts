// The relay's reading of request lines (endpoint 'auto') takes a line exactly when the proxy does, and holds at most
// one line's bytes: a refused line, a line on a channel in flight and a line past the most in flight name nothing; a
// line past the longest ends the reading.

import { describe, expect, it } from 'vitest';
import { codecForMethod } from '../src/frame/endpoints.js';
import { RequestLineWatcher } from '../src/relay/request-lines.js';

const enc = new TextEncoder();
const watcher = (maxInFlight = 8, maxLineBytes = 1024) => new RequestLineWatcher({ maxInFlight, maxLineBytes });

describe('RequestLineWatcher', () => {
  it('names a channel by the method of a line the proxy takes, split across chunks anywhere', () => {
    const w = watcher();
    const bytes = enc.encode('{"channel":7,"method":"tools/list"}\r\n{"channel":8,"method":"resources/read","params":{"uri":"x"}}\n');
    for (let k = 0; k < bytes.length; k++) w.push(bytes.subarray(k, k + 1));
    expect(w.codecOf(7)).toBe(codecForMethod('tools/list'));
    expect(w.codecOf(8)).toBe(codecForMethod('resources/read'));
  });

  it.each([
    ['not strict JSON (a duplicate member)', '{"channel":1,"channel":2,"method":"tools/list"}'],
    ['not UTF-8', '{"channel":1,"method":"tools/list","params":{"a":"\xff"}}'],
    ['a lone surrogate', '{"channel":1,"method":"tools/list","params":{"a":"\\ud800"}}'],
    ['params not an object', '{"channel":1,"method":"tools/list","params":[]}'],
    ['an unknown method', '{"channel":1,"method":"tools/delete"}'],
    ['a channel past 2^32 - 1', '{"channel":4294967296,"method":"tools/list"}'],
    ['a number too large to be read exactly', '{"channel":1,"method":"tools/list","params":{"n":1e400}}'],
  ])('a line the proxy refuses names nothing: %s', (_, line) => {
    const w = watcher();
    w.push(Buffer.from(`${line}\n`, 'latin1'));
    expect(w.codecOf(1)).toBeUndefined();
    expect(w.codecOf(4294967295)).toBeUndefined();
  });

  it('a line on a channel in flight changes nothing; after its finish, the next line names the channel anew', () => {
    const w = watcher();
    w.push(enc.encode('{"channel":1,"method":"tools/list"}\n{"channel":1,"method":"prompts/list"}\n'));
    expect(w.codecOf(1)).toBe(codecForMethod('tools/list'));
    w.finished(1);
    expect(w.codecOf(1)).toBeUndefined();
    w.push(enc.encode('{"channel":1,"method":"prompts/list"}\n'));
    expect(w.codecOf(1)).toBe(codecForMethod('prompts/list'));
  });

  it('past the most exchanges in flight a line names nothing, as the proxy refuses it; a finish frees a place', () => {
    const w = watcher(2);
    w.push(enc.encode('{"channel":1,"method":"tools/list"}\n{"channel":2,"method":"tools/list"}\n{"channel":3,"method":"tools/list"}\n'));
    expect([w.codecOf(1), w.codecOf(2), w.codecOf(3)].map(Boolean)).toEqual([true, true, false]);
    w.finished(1);
    w.push(enc.encode('{"channel":3,"method":"tools/list"}\n'));
    expect(w.codecOf(3)).toBe(codecForMethod('tools/list'));
  });

  it('a line past the longest ends the reading, as the proxy resets that client; what it held is let go', () => {
    const w = watcher(8, 64);
    w.push(enc.encode(`{"channel":1,"method":"tools/list","params":{"pad":"${'x'.repeat(100)}"}}\n`));
    w.push(enc.encode('{"channel":2,"method":"tools/list"}\n'));
    expect(w.codecOf(1)).toBeUndefined();
    expect(w.codecOf(2)).toBeUndefined();
    expect(w.held).toBe(0);
  });

  it('holds at most twice the longest line for a line sent a byte at a time, and nothing once it ends', () => {
    const limit = 64 * 1024;
    const w = watcher(8, limit);
    const line = enc.encode(`{"channel":1,"method":"tools/list","params":{"pad":"${'x'.repeat(limit - 64)}"}}`);
    let most = 0;
    for (let k = 0; k < line.length; k++) {
      w.push(line.subarray(k, k + 1));
      most = Math.max(most, w.held);
    }
    expect(most).toBeLessThanOrEqual(2 * limit);
    w.push(enc.encode('\n'));
    expect(w.held).toBe(0);
    expect(w.codecOf(1)).toBe(codecForMethod('tools/list'));
  });
});
