// The check that encode refused a value as it must: with an EncodeError, and nothing else.

import { expect } from 'vitest';
import { EncodeError } from '../../src/contract/encode-rules.js';

/** Runs `fn`, which must throw an EncodeError and nothing else. */
export function encodeError(fn: () => unknown): EncodeError {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'encode threw').toBeDefined();
  expect(thrown).toBeInstanceOf(EncodeError);
  return thrown as EncodeError;
}
