// What the proxy reports and counts, and what its connections share: the words of WIRE.md section 8 for every way an exchange ends.

import type { FrameCodec } from '../frame/frame.js';
import type { AnswerLevel } from './answer.js';
import type { Envelope } from './message.js';
import type { LineRefusal } from '../exchange/request-line.js';
import type { ServerFault, SessionCounts, SessionLoss, SessionRequest } from './session.js';

/** Why an exchange was not carried (WIRE.md section 8). */
export type NotCarriedCause =
  | 'server-ended'
  | 'server-unavailable'
  | 'timeout'
  | 'invalid-answer'
  | 'oversize'
  | 'server-error'
  | 'server-not-reading'
  | 'draining'
  | 'drain-timeout';

export const NOT_CARRIED_CAUSES: readonly NotCarriedCause[] = [
  'server-ended',
  'server-unavailable',
  'timeout',
  'invalid-answer',
  'oversize',
  'server-error',
  'server-not-reading',
  'draining',
  'drain-timeout',
];

/** What the proxy reports: one per exchange not carried, line refused, client given up on, or server event. */
export type ProxyFault =
  | {
      reason: 'not-carried';
      cause: NotCarriedCause;
      channel: number;
      method?: string;
      message?: string;
      rule?: string;
      offset?: number;
      limit?: number;
      status?: number;
    }
  | ({ reason: 'bad-line' } & LineRefusal)
  | { reason: 'channel-in-flight'; channel: number; method: string }
  | { reason: 'line-too-long'; limit: number }
  /** The client left more than `limit` answer bytes unread: it was reset, and its exchanges cancelled at the server. */
  | { reason: 'client-overrun'; queued: number; limit: number; cancelled: number }
  /** The connection went nowhere for `afterMs` (nothing in flight and no byte either way, or a client that took nothing): reset. */
  | { reason: 'client-idle-timeout'; afterMs: number }
  | ServerFault;

/** Upper bounds, in seconds, of the exchange latency histogram's buckets. */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface ProxyStats extends SessionCounts {
  /** Whether a server is initialized and taking requests now: false while it starts, after it ended until it is ready again, and once the proxy gave up. */
  serverReady: boolean;
  connectionsOpen: number;
  connectionsTotal: number;
  /** Clients reset as they came because maxConnections were open. */
  connectionsRefused: number;
  /** Connections reset for their PROXY protocol header (proxyProtocol). */
  proxyHeaderRefused: number;
  inFlight: number;
  /** Exchanges ended, by outcome: a result frame, an error frame, or not carried. */
  results: number;
  errors: number;
  notCarried: Record<NotCarriedCause, number>;
  /** Exchanges a client's going away (or being reset) cancelled. */
  cancelled: number;
  refusedLines: number;
  /** Clients reset for leaving too much unread, and for going nowhere. */
  clientOverruns: number;
  clientIdleTimeouts: number;
  /** Count per LATENCY_BUCKETS bound (and one past the last), of the exchanges answered with a frame. */
  latencyBuckets: number[];
  latencySeconds: number;
}

/** The counts that are the proxy's own (the session keeps its own, and the core its connections'). */
export type OwnCounts = Omit<
  ProxyStats,
  keyof SessionCounts | 'connectionsOpen' | 'connectionsTotal' | 'connectionsRefused' | 'proxyHeaderRefused' | 'serverReady'
>;

export function newCounts(): OwnCounts {
  return {
    inFlight: 0,
    results: 0,
    errors: 0,
    notCarried: Object.fromEntries(NOT_CARRIED_CAUSES.map((c) => [c, 0])) as Record<NotCarriedCause, number>,
    cancelled: 0,
    refusedLines: 0,
    clientOverruns: 0,
    clientIdleTimeouts: 0,
    latencyBuckets: new Array(LATENCY_BUCKETS.length + 1).fill(0),
    latencySeconds: 0,
  };
}

/** Counts an exchange answered with a frame, `ms` after its line. */
export function countAnswer(counts: OwnCounts, isError: boolean, ms: number): void {
  if (isError) counts.errors++;
  else counts.results++;
  const seconds = ms / 1000;
  counts.latencySeconds += seconds;
  let k = 0;
  while (k < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[k]) k++;
  counts.latencyBuckets[k]++;
}

/** Whoever asked for an exchange: the session hands its end back there. */
export interface ExchangeOwner {
  answered(exchange: Exchange, message: Uint8Array, envelope: Envelope): void;
  lost(exchange: Exchange, cause: SessionLoss, detail: { message: string; limit?: number; status?: number }): void;
}

/** One exchange in flight: a channel of a connection, sent (or waiting) as a request to the server. */
export interface Exchange extends SessionRequest {
  readonly owner: ExchangeOwner;
  readonly channel: number;
  readonly codec: FrameCodec<unknown>;
  /** performance.now() at its line. */
  readonly started: number;
  timer?: NodeJS.Timeout;
}

/** How a proxy connection ended. */
export type ProxyConnectionEnd =
  /** Every exchange ended and the connection closed: the client sent its last request (FIN) and had every answer, or a drain found nothing owed. */
  | 'ended'
  /** The client went away (a reset, or found closed by a write) with exchanges in flight, which were cancelled. */
  | 'client-gone'
  /** Reset: nothing in flight and no byte either way for clientIdleTimeout, or a client that took nothing. */
  | 'idle'
  /** Reset: more than maxClientQueueBytes of answers left unread. */
  | 'overrun'
  /** Reset: a request line past the limit. */
  | 'line-too-long'
  /** Open at the drain's timeout: its exchanges were not carried (drain-timeout), then it was reset. */
  | 'drained'
  /** Reset at once by reset() (a process exiting). */
  | 'reset';

/** One proxy connection, when it has closed. */
export interface ProxyConnectionSummary {
  connection: number;
  remote: string;
  end: ProxyConnectionEnd;
  durationMs: number;
  /** Request bytes read from the client, and record bytes sent to it. */
  bytesIn: number;
  bytesOut: number;
  /** Request lines read, and exchanges answered with a frame or not carried. */
  lines: number;
  answered: number;
  notCarried: number;
  /** Exchanges cancelled at the server when the client went away. */
  cancelled: number;
  faults: number;
}

/** The settings every connection of one proxy shares, resolved once. */
interface ProxySettings {
  readonly level: AnswerLevel;
  readonly exchangeTimeoutMs: number;
  readonly clientIdleTimeoutMs: number;
  readonly maxLineBytes: number;
  readonly maxInFlight: number;
  readonly maxClientQueueBytes: number;
}

/** What a connection reaches of its proxy. */
export interface ProxyContext {
  readonly settings: ProxySettings;
  readonly counts: OwnCounts;
  codecOf(method: string): FrameCodec<unknown>;
  /** Sends (or keeps for a server not ready) an exchange; the loss, with why, when the server cannot take it. */
  submit(exchange: Exchange): { cause: SessionLoss; message: string } | null;
  /** An exchange over before its answer: the server is told, if it was sent. */
  cancel(exchange: Exchange, reason: string): void;
  /** Reports a fault; `connection` is null for the server's own. */
  fault(fault: ProxyFault, connection: number | null): void;
  /** Told of each exchange answered with a frame, when anyone watches: the payload and the message are then the watcher's to keep. */
  readonly exchanged?: (connection: number, exchange: Exchange, payload: Uint8Array, message: Uint8Array, ms: number) => void;
}
