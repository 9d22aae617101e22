// A FrameError as data and as an exception: the relay's fault data says what one would say, and only a thrown one carries a stack.

import { expect, test } from 'vitest';
import { bodyRule } from '../src/contract/rules.js';
import { listResources } from '../src/frame/endpoints.js';
import { FrameError, frameErrorJSON, toFrameError } from '../src/frame/frame-error.js';
import { Status } from '../src/wire/status.js';

test("the relay's fault data is what a FrameError would say, for every status that is a frame error", () => {
  const payload = Uint8Array.of(0x07, 0x7b);
  let compared = 0;
  for (const status of Object.values(Status)) {
    if (status !== Status.Empty && status !== Status.UnknownTag && bodyRule(status) === undefined) continue;
    const fault = { status, offset: 1 };
    expect(frameErrorJSON(fault, payload)).toStrictEqual(toFrameError(fault, payload).toJSON());
    compared++;
  }
  expect(compared).toBeGreaterThan(8);
});

test('a FrameError as data carries no stack; thrown by decode, it carries the caller', () => {
  const before = Error.stackTraceLimit;
  const data = listResources.tryDecode(Uint8Array.of(0x07));
  expect(data).toBeInstanceOf(FrameError);
  expect((data as FrameError).stack).toBe(`FrameError: ${(data as FrameError).message}`);
  expect(Error.stackTraceLimit).toBe(before);
  function callerOfDecode() {
    return listResources.decode(Uint8Array.of(0x07));
  }
  let thrown: unknown;
  try {
    callerOfDecode();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(FrameError);
  expect((thrown as FrameError).stack).toContain('callerOfDecode');
});
