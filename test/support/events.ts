// Stream decoder events as plain data, so that runs can be compared.
//
// A FrameError is an Error object; two runs are equal when their faults
// agree on reason, tag, rule and offset (the message is prose).

import type { FrameError } from '../../src/frame/frame-error.js';
import type { StreamEvent } from '../../src/exchange/outcome.js';
import { StreamDecoder, type StreamDecoderOptions } from '../../src/exchange/decoder.js';

export interface PlainFault {
  reason: string;
  tag?: number;
  rule?: string;
  offset?: number;
}

export function plainFault(fault: FrameError): PlainFault {
  const out: PlainFault = { reason: fault.reason };
  if (fault.tag !== undefined) out.tag = fault.tag;
  if (fault.rule !== undefined) out.rule = fault.rule;
  if (fault.offset !== undefined) out.offset = fault.offset;
  return out;
}

/** Events with each FrameError replaced by its plain form. */
export function plainEvents(events: readonly StreamEvent[]): unknown[] {
  return events.map((e) => ('outcome' in e && e.outcome === 'frame-error' ? { ...e, fault: plainFault(e.fault) } : e));
}

/** Decodes `chunks` with a fresh decoder; returns every event, end included. */
export function decodeChunks(chunks: Iterable<Uint8Array>, options: StreamDecoderOptions<unknown>): StreamEvent[] {
  const decoder = new StreamDecoder<unknown>(options);
  const events: StreamEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}
