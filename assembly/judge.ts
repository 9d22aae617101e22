// Rule 4.2's acceptance, proven in the core: a schema plan walked over bodies rule 4.1 already accepts.
//
// The byte judge of src/contract/judge-bytes.ts (acceptsBytes) follows a
// plan (src/contract/judge-plan.ts) over a body's text; this walk follows
// the same plan, lowered to the table of ./plan, over the body's bytes. It
// answers only "accepted": wherever the plan asks something the table does
// not carry (a pattern, an escaped member name, a defaulted member absent,
// the value of a number with an exponent), it proves nothing, and JS judges
// the frame as before. So it accepts a body only where acceptsBytes does,
// and the verdicts stay the JS path's on every backend. Stage 2 proves most
// frames in its own walk (./stage2); this one takes what that one leaves:
// a frame read alone, or a value with options to try in turn.
//
// PERF NOTES: the plan walked here, a run of folded exchanges a call, in
// place of the JS byte judge a frame a call: `relay --validate full` over
// 64 MiB (whole process, CPU) took 0.60 s against 0.75 on ~80-byte
// listings and 0.77 against 0.91 on 16 KiB ones, json with the same
// --endpoint 0.52 and 0.65. Names found by a slot of their length and
// first byte, strings ended 16 bytes a turn: 0.7-1.0 ns a byte of
// listing (1.2 a byte at a time, names searched), beside verifyFrame's 0.6-1.0.

import { base64Valid } from './base64';
import { HEADER_SIZE } from './record-layout';
import { TAG_RESULT } from './frame';
import {
  enumHas,
  isSpace,
  K_ANY,
  K_ARRAY,
  K_BASE64,
  K_BOOLEAN,
  K_CONTAINER,
  K_ENUM,
  K_NUMBER,
  K_OBJECT,
  K_OPTIONS,
  K_RECORD,
  K_STRING,
  memberChild,
  memberOf,
  membersMet,
  NULL_OK,
  number,
  quoteOrSlash,
  skipScalar,
  skipString,
  strictObject,
  usePlan,
  word,
} from './plan';
import { deferred, deferredCount } from './stage2';

@inline function ws(p: usize): usize {
  // Compact text has none: one compare for a byte that is not a space.
  while (<u32>load<u8>(p) <= 0x20 && isSpace(<u32>load<u8>(p))) p++;
  return p;
}

/** Past any value at p (text rule 4.1 accepted), or 0 where a string runs past end. */
function skip(p: usize, end: usize): usize {
  const c = <u32>load<u8>(p);
  if (c == 0x22) return skipString(p, end);
  if (c != 0x7b && c != 0x5b) return skipScalar(p, end);
  let depth = 0;
  while (p < end) {
    const x = <u32>load<u8>(p);
    if (x == 0x22) {
      p = skipString(p, end);
      if (p == 0) return 0;
      continue;
    }
    if (x == 0x7b || x == 0x5b) depth++;
    else if ((x == 0x7d || x == 0x5d) && --depth == 0) return p + 1;
    p++;
  }
  return 0;
}

/** The end of the value at p if the plan at `node` accepts it; 0 when the walk proves nothing. */
function value(node: usize, p: usize, end: usize): usize {
  const head = word(node, 0);
  const kind = head & 0xff;
  const c = <u32>load<u8>(p);
  if (c == 0x6e && (head & NULL_OK) != 0) return p + 4;
  switch (kind) {
    case K_ANY:
      return skip(p, end);
    case K_STRING:
      return c == 0x22 ? skipString(p, end) : 0;
    case K_OBJECT:
      return c == 0x7b ? object(node, p, end) : 0;
    case K_ARRAY:
      return c == 0x5b ? array(node, p, end) : 0;
    case K_RECORD:
      return c == 0x7b ? record(node, p, end) : 0;
    case K_CONTAINER:
      return c == 0x7b || c == 0x5b ? skip(p, end) : 0;
    case K_BASE64: {
      if (c != 0x22) return 0;
      const e = skipString(p, end);
      return e != 0 && base64Valid(p + 1, e - 1, true) ? e : 0;
    }
    case K_NUMBER:
      return c == 0x2d || (c >= 0x30 && c <= 0x39) ? number(node, p, end) : 0;
    case K_BOOLEAN:
      return c == 0x74 || c == 0x66 ? skipScalar(p, end) : 0;
    case K_ENUM: {
      if (c != 0x22) return 0;
      const e = skipString(p, end);
      if (e == 0) return 0;
      return enumHas(node, p + 1, e - p - 2, end) ? e : 0;
    }
    case K_OPTIONS: {
      const n = word(node, 1);
      for (let k: u32 = 0; k < n; k++) {
        const e = value(word(node, 2 + k), p, end);
        if (e != 0) return e;
      }
      return 0;
    }
  }
  return 0; // K_BAIL
}

function object(node: usize, p: usize, end: usize): usize {
  const n = <usize>word(node, 4);
  let met: u32 = 0;
  let i = ws(p + 1);
  if (load<u8>(i) != 0x7d) {
    for (;;) {
      // The name: read to its quote; one with an escape may spell a known name, so JS judges it.
      const ks = i + 1;
      const q = quoteOrSlash(ks, end);
      if (q >= end || load<u8>(q) != 0x22) return 0;
      const k = memberOf(node, ks, q - ks, end);
      i = ws(ws(q + 1) + 1); // past ':'
      let e: usize;
      if (k < n) {
        const child = memberChild(node, k);
        // A string where a string is asked, the commonest member, without the call.
        e = word(child, 0) == K_STRING && load<u8>(i) == 0x22 ? skipString(i, end) : value(child, i, end);
        met |= 1 << <u32>k;
      } else {
        if (strictObject(node)) return 0;
        e = skip(i, end);
      }
      if (e == 0) return 0;
      i = ws(e);
      if (load<u8>(i) != 0x2c) break;
      i = ws(i + 1);
    }
  }
  return membersMet(node, met) ? i + 1 : 0;
}

function array(node: usize, p: usize, end: usize): usize {
  const element = <usize>word(node, 1);
  const cap = <i32>word(node, 2);
  let i = ws(p + 1);
  if (load<u8>(i) == 0x5d) return i + 1;
  let count = 0;
  for (;;) {
    if (cap >= 0 && ++count > cap) return 0;
    const e = value(element, i, end);
    if (e == 0) return 0;
    i = ws(e);
    if (load<u8>(i) != 0x2c) break;
    i = ws(i + 1);
  }
  return i + 1;
}

function record(node: usize, p: usize, end: usize): usize {
  const element = <usize>word(node, 1);
  let i = ws(p + 1);
  if (load<u8>(i) == 0x7d) return i + 1;
  for (;;) {
    const ke = skipString(i, end);
    if (ke == 0) return 0;
    i = ws(ws(ke) + 1);
    const e = value(element, i, end);
    if (e == 0) return 0;
    i = ws(e);
    if (load<u8>(i) != 0x2c) break;
    i = ws(i + 1);
  }
  return i + 1;
}

/**
 * Whether the plan stage 2 judged with accepts each value its last judged
 * walk left here (options, tried in turn), in a text that ends at `end`:
 * called right after that walk found the text valid, with its plan still
 * the one in use.
 */
export function provenDeferred(end: usize): bool {
  for (let k = 0; k < deferredCount; k++) {
    const at = deferred + (<usize>k << 3);
    if (value(<usize>load<u32>(at), <usize>load<u32>(at, 4), end) == 0) return false;
  }
  return true;
}

/** Whether the plan at `plan` (in the plan area) accepts the JSON text [start, end), which rule 4.1 accepts. */
export function provenBody(start: usize, end: usize, plan: usize): bool {
  if (start >= end) return false;
  usePlan(plan);
  let e = value(0, ws(start), end);
  if (e == 0 || e > end) return false;
  while (e < end && isSpace(<u32>load<u8>(e))) e++;
  return e == end;
}

/**
 * How many of the `count` exchanges from ptr (a response, its frame
 * accepted by rule 4.1, then its finish) have a result frame the plan
 * accepts, counted from the first up to the first it does not prove.
 */
export function provenRun(ptr: usize, count: i32, plan: usize): i32 {
  for (let n = 0; n < count; n++) {
    const length = <usize>load<u32>(ptr + 5);
    const frame = ptr + HEADER_SIZE;
    if (length < 2 || load<u8>(frame) != TAG_RESULT || !provenBody(frame + 1, frame + length, plan)) return n;
    ptr = frame + length + HEADER_SIZE;
  }
  return count;
}
