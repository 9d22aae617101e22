// What WIRE.md says a relay sends downstream and reports: a reference
// model over a whole buffer, one record at a time, written from the spec and
// not from src/relay. Frame verdicts come from the JS codec, which the
// conformance and differential suites test on their own.

import { jsBackend } from '../../src/backend/js.js';
import type { FrameCodec } from '../../src/frame/codec.js';
import { FrameError } from '../../src/frame/frame-error.js';
import type { RelayFault } from '../../src/relay/fault.js';
import type { ValidationLevel } from '../../src/relay/relay.js';
import { encodeFinish, readU32 } from '../../src/records/record.js';

export interface Expected {
  bytes: Uint8Array;
  faults: RelayFault[];
  errored: boolean;
}

/** What WIRE.md says a relay sends downstream, and what it reports. */
export function model(
  input: Uint8Array,
  level: ValidationLevel,
  codec: FrameCodec<unknown>,
  maxFrameBytes: number,
  maxOpenChannels: number,
  maxHeldBytes = 64 * 1024 * 1024,
): Expected {
  const out: number[] = [];
  const faults: RelayFault[] = [];
  const open = new Map<number, number>();
  // The payload length of the response that opened each open channel.
  const lengths = new Map<number, number>();
  const held = () => [...lengths.values()].reduce((a, b) => a + b, 0);
  let pos = 0;
  // WIRE.md section 7: the record error is reported, and each channel the relay finishes, once.
  const stop = (reason: RelayFault['reason']): Expected => {
    for (const channel of open.keys()) out.push(...encodeFinish(channel));
    faults.push({ reason, offset: pos } as RelayFault);
    for (const [channel, offset] of open) faults.push({ reason: 'incomplete', channel, offset });
    return { bytes: Uint8Array.from(out), faults, errored: true };
  };
  while (pos < input.length) {
    const kind = input[pos];
    if (kind !== 1 && kind !== 2) return stop('bad-kind');
    if (input.length - pos < 9) return stop('truncated');
    const channel = readU32(input, pos + 1);
    const length = readU32(input, pos + 5);
    if (kind === 2) {
      if (length !== 0) return stop('bad-finish');
      out.push(...input.subarray(pos, pos + 9));
      open.delete(channel);
      lengths.delete(channel);
      pos += 9;
      continue;
    }
    if (length > maxFrameBytes) return stop('oversize');
    if (!open.has(channel) && open.size >= maxOpenChannels) return stop('too-many-channels');
    if (held() + length > maxHeldBytes) return stop('held-limit');
    if (input.length - pos - 9 < length) return stop('truncated');
    const payload = input.subarray(pos + 9, pos + 9 + length);
    if (open.has(channel)) {
      faults.push({ reason: 'sequence-violation', channel, offset: pos });
    } else {
      open.set(channel, pos);
      lengths.set(channel, length);
      let failed: FrameError | null = null;
      if (level === 'json') failed = codec.withBackend(jsBackend).validate(payload);
      if (level === 'full') {
        const frame = codec.withBackend(jsBackend).tryDecode(payload);
        failed = frame instanceof FrameError ? frame : null;
      }
      if (failed) faults.push({ reason: 'frame-error', channel, offset: pos, frame: failed.toJSON() });
      else out.push(...input.subarray(pos, pos + 9 + length));
    }
    pos += 9 + length;
  }
  for (const [channel, offset] of open) {
    out.push(...encodeFinish(channel));
    faults.push({ reason: 'incomplete', channel, offset });
  }
  return { bytes: Uint8Array.from(out), faults, errored: false };
}
