// Seeded generators of frames and record streams, for the differential
// and relay tests: mostly JSON, with the pieces most likely to find a
// disagreement, then mutated.

import { encodeFinish, encodeResponse } from '../../src/records/record.js';

/** mulberry32: a small seeded generator, enough for test inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

const STRING_PIECES = [
  'file:///a.txt',
  'é',
  '日本語',
  '😀',
  '\\n',
  '\\"',
  '\\\\',
  '\\u00e9',
  '\\ud83d\\ude00',
  '\\ud800',
  '\\udc00',
  '\\u',
  '\\x',
  '\t',
  '\u0001',
  'abcdefghijklmnopqrstuvwxyz0123456789',
  'bE5pWQq8WCmLqdW/Eo4p3zc7RqDgJx+',
  '\u2028',
  '\uffff',
];
const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '1e5',
  '1E+5',
  '1e-5',
  '-0.0e0',
  '123456789012345678901234567890',
  '1.7976931348623157e308',
  '1.7976931348623159e308',
  '1.8e308',
  '-1.8e308',
  '1e309',
  '1e400',
  '1e-400',
  '0e99999999999',
  '2147483648',
  '-2147483648',
  '01',
  '1.',
  '.5',
  '-',
  '1e',
  '+1',
  '0x10',
  '1e+',
  '17976931348623158e292',
  // 309 digits: the threshold 2^1024 - 2^970 itself (refused), and one below it (accepted).
  (2n ** 1024n - 2n ** 970n).toString(),
  (2n ** 1024n - 2n ** 970n - 1n).toString(),
];
const LITERALS = ['true', 'false', 'null', 'tru', 'nul', 'NaN', 'Infinity'];

/** Text that is mostly JSON, with the pieces most likely to find a disagreement. */
export function jsonText(g: Gen, depth: number): string {
  const r = g.int(depth > 6 ? 3 : 6);
  switch (r) {
    case 0: {
      let s = '';
      for (let k = g.int(4); k > 0; k--) s += g.pick(STRING_PIECES);
      return `"${s}"`;
    }
    case 1:
      return g.pick(NUMBERS);
    case 2:
      return g.pick(LITERALS);
    case 3:
    case 4: {
      const items: string[] = [];
      for (let k = g.int(4); k > 0; k--) items.push(jsonText(g, depth + 1));
      return `[${items.join(g.pick([',', ', ', ',\n']))}]`;
    }
    default: {
      const items: string[] = [];
      for (let k = g.int(4); k > 0; k--)
        items.push(jsonText(g, 0 + depth + 1).replace(/^/, `"${g.pick(['uri', 'name', '_meta', 'k', 'resources', 'contents'])}":`));
      return `{${items.join(',')}}`;
    }
  }
}

const encoder = new TextEncoder();
const PALETTE = [
  0x00, 0x01, 0x02, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x30,
  0x65, 0x2d,
];

export function mutate(g: Gen, bytes: Uint8Array): Uint8Array {
  const b = Array.from(bytes);
  for (let k = 1 + g.int(3); k > 0; k--) {
    const at = g.int(b.length + 1);
    switch (g.int(5)) {
      case 0:
        if (b.length) b[Math.min(at, b.length - 1)] = g.pick(PALETTE);
        break;
      case 1:
        b.splice(at, 0, g.pick(PALETTE));
        break;
      case 2:
        b.splice(at, 1 + g.int(3));
        break;
      case 3:
        b.length = Math.min(b.length, at);
        break;
      default:
        if (b.length) b[Math.min(at, b.length - 1)] ^= 1 << g.int(8);
    }
  }
  return Uint8Array.from(b);
}

export function framePayload(g: Gen): Uint8Array {
  const deep = g.int(50) === 0;
  let text: string;
  if (deep) {
    const n = 120 + g.int(16);
    text = `{"resources":[],"_meta":{"x":${'['.repeat(n)}${']'.repeat(n)}}}`;
  } else if (g.int(2) === 0) {
    text = `{"resources":[${jsonText(g, 1)}],"nextCursor":${jsonText(g, 1)}}`;
  } else {
    text = jsonText(g, 0);
  }
  const body = encoder.encode(text);
  const payload = new Uint8Array(body.length + 1);
  payload[0] = g.int(8) === 0 ? g.int(4) : 0;
  payload.set(body, 1);
  return g.int(3) === 0 ? payload : mutate(g, payload);
}

/** A frame readResource accepts, or an MCP error, so that streams carry whole outcomes too. */
export function goodFrame(g: Gen): Uint8Array {
  const text =
    g.int(2) === 0
      ? `{"contents":[{"uri":"u","text":"${g.pick(STRING_PIECES.slice(0, 9))}"}],"_meta":{"k":${jsonText(g, 3)}}}`
      : `{"code":${g.pick(['-32601', '-32602', '-32002', '2147483648'])},"message":"m","data":${jsonText(g, 3)}}`;
  const body = encoder.encode(text);
  const payload = new Uint8Array(body.length + 1);
  payload[0] = text.startsWith('{"code"') ? 1 : 0;
  payload.set(body, 1);
  return payload;
}

export function stream(g: Gen): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let k = g.int(12); k > 0; k--) {
    const channel = g.int(5);
    if (g.int(3) === 0) parts.push(encodeFinish(channel));
    else parts.push(encodeResponse(channel, g.int(3) === 0 ? goodFrame(g) : framePayload(g)));
  }
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    whole.set(p, at);
    at += p.length;
  }
  return g.int(2) === 0 ? whole : mutate(g, whole);
}

/**
 * A record stream of mostly whole exchanges, a valid response then at once
 * its finish, as a relay sees from a working proxy, with now and then what
 * breaks one: a frame that fails, a response left open (its finish later,
 * or never; at times more than FOLD_MAX of them), a second response on an
 * open channel, a finish alone. Half of
 * these streams are mutated as stream() mutates.
 */
export function exchanges(g: Gen): Uint8Array {
  const parts: Uint8Array[] = [];
  const open: number[] = [];
  // Now and then more channels left open than a kernel folds against.
  if (g.int(4) === 0) {
    for (let c = 100; c < 109 + g.int(4); c++) {
      parts.push(encodeResponse(c, goodFrame(g)));
      open.push(c);
    }
  }
  for (let k = 1 + g.int(40); k > 0; k--) {
    const channel = g.int(12);
    const odd = g.int(8);
    if (odd === 0) parts.push(encodeResponse(channel, framePayload(g)), encodeFinish(channel));
    else if (odd === 1) {
      parts.push(encodeResponse(channel, goodFrame(g)));
      open.push(channel);
    } else if (odd === 2 && open.length > 0) parts.push(encodeFinish(open.splice(g.int(open.length), 1)[0]));
    else if (odd === 3 && open.length > 0) parts.push(encodeResponse(g.pick(open), goodFrame(g)));
    else if (odd === 4) parts.push(encodeFinish(channel));
    else parts.push(encodeResponse(channel, goodFrame(g)), encodeFinish(channel));
  }
  const whole = Buffer.concat(parts);
  return g.int(2) === 0 ? whole : mutate(g, whole);
}
