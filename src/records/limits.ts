// The limits of a record stream and their defaults (WIRE.md section 6).
//
// Each is an option with a documented default, and each is checked from a
// record's header before any byte of its payload is buffered.

import { U32_MAX } from './record.js';

export interface StreamLimits {
  /** The largest payload a response may declare. Default 16 MiB; at most 2^32 - 1. */
  maxFrameBytes?: number;
  /** How many channels may be open (a response, no finish yet) at once. Default 4096. */
  maxOpenChannels?: number;
  /**
   * The most payload bytes the stream may hold at once: the responses of the
   * channels still open, plus the response being read. Default 64 MiB.
   */
  maxHeldBytes?: number;
}

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_OPEN_CHANNELS = 4096;
export const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;

/** The largest held limit: what a JS number counts exactly. */
export const MAX_HELD_BYTES_LIMIT = Number.MAX_SAFE_INTEGER;

/** The limits with defaults filled in; throws a RangeError for a value out of range. */
export function resolveLimits(limits: StreamLimits = {}): Required<StreamLimits> {
  const maxFrameBytes = limits.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const maxOpenChannels = limits.maxOpenChannels ?? DEFAULT_MAX_OPEN_CHANNELS;
  const maxHeldBytes = limits.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES;
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 0 || maxFrameBytes > U32_MAX) {
    throw new RangeError(`maxFrameBytes must be an integer from 0 to 2^32 - 1, not ${maxFrameBytes}`);
  }
  if (!Number.isInteger(maxOpenChannels) || maxOpenChannels < 1 || maxOpenChannels > U32_MAX) {
    throw new RangeError(`maxOpenChannels must be an integer from 1 to 2^32 - 1, not ${maxOpenChannels}`);
  }
  if (!Number.isSafeInteger(maxHeldBytes) || maxHeldBytes < 0) {
    throw new RangeError(`maxHeldBytes must be an integer from 0 to 2^53 - 1, not ${maxHeldBytes}`);
  }
  return { maxFrameBytes, maxOpenChannels, maxHeldBytes };
}
