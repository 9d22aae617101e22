// The relay's and the proxy's Prometheus metrics: a prom-client registry read from the TCP relay's live counters at each scrape.
//
// # Read at scrape, never counted per record
//
// The relay counts in its own stats (RelayStats per connection, summed by
// createTcpRelay). Each metric here is a prom-client Counter or Gauge whose
// collect() copies its value from those stats when /metrics is asked, so
// relaying a record never calls prom-client.
//
// # The histograms
//
// mcp_frames_validation_seconds is the relay's time per response frame,
// measured per input chunk and divided among the responses that chunk
// completed (src/relay/relay.ts says how); mcp_frames_proxy_exchange_seconds
// is the proxy's time from a line to its frame. prom-client's Histogram
// takes one observation per call, which would be a call per record; so
// both are one collector of our own (histogram()), registered in the same
// registry, reading buckets the relay and the proxy count themselves.
//
// # Workers
//
// With --workers, each worker keeps a registry like this and answers the
// primary's request with getMetricsAsJSON(); the primary sums them with
// prom-client's AggregatorRegistry.aggregate (src/cli/cluster.ts).

import { AggregatorRegistry, Counter, Gauge, type Metric, Registry } from 'prom-client';
import type { RecordErrorReason } from '../records/record-error.js';
import type { RelayFault } from '../relay/fault.js';
import { VALIDATION_BUCKETS } from '../relay/relay.js';
import type { ConnectionFault, Endpoint, TcpRelayStats, UpstreamFailure } from '../relay/tcp.js';
import { LATENCY_BUCKETS, NOT_CARRIED_CAUSES, type ProxyStats } from '../proxy/context.js';
import { serveHttp } from './http.js';

export { AggregatorRegistry, Registry };

const RECORD_ERRORS: readonly RecordErrorReason[] = ['bad-kind', 'bad-finish', 'oversize', 'too-many-channels', 'held-limit', 'truncated'];
const CHANNEL_FAULTS: readonly Exclude<RelayFault['reason'], RecordErrorReason>[] = ['frame-error', 'sequence-violation', 'incomplete'];
/** Every fault reason, so that each series exists (at 0) from the first scrape: an alert on a rate needs its series. */
export const FAULT_REASONS: readonly ConnectionFault['reason'][] = [
  ...CHANNEL_FAULTS,
  ...RECORD_ERRORS,
  'upstream-error',
  'upstream-timeout',
  'drain-timeout',
  'client-idle-timeout',
];
export const UPSTREAM_FAILURES: readonly UpstreamFailure[] = [
  'refused',
  'reset',
  'unreachable',
  'dns',
  'timeout',
  'error',
  'connect-timeout',
  'idle-timeout',
];

const PREFIX = 'mcp_frames_';

export { METRICS_MAX_CONNECTIONS } from './http.js';

/** A counter whose value is read from the stats at scrape. */
function counter(registry: Registry, name: string, help: string, value: () => number): void {
  new Counter({
    name: PREFIX + name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(value());
    },
  });
}

/** A counter with one label, each value read from the stats at scrape; `keys` are always present. */
function labelledCounter<K extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  keys: readonly K[],
  values: () => Partial<Record<K, number>>,
): void {
  new Counter({
    name: PREFIX + name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      const got = values();
      for (const key of new Set([...keys, ...(Object.keys(got) as K[])])) this.inc({ [label]: key }, got[key] ?? 0);
    },
  });
}

function gauge(registry: Registry, name: string, help: string, value: () => number): void {
  new Gauge({
    name: PREFIX + name,
    help,
    registers: [registry],
    collect() {
      this.set(value());
    },
  });
}

/**
 * A Prometheus histogram read from counts kept elsewhere: `read()` gives
 * the count per bucket (one past the last bound for the rest) and the sum.
 * Given to prom-client as cumulative buckets, +Inf, sum and count, in the
 * shape its own histograms give (and its cluster aggregation sums).
 */
function histogram(
  registry: Registry,
  name: string,
  help: string,
  bounds: readonly number[],
  read: () => { buckets: readonly number[]; sum: number },
): void {
  const full = PREFIX + name;
  const collector = {
    name: full,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const { buckets, sum } = read();
      let below = 0;
      const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      bounds.forEach((bound, k) => {
        below += buckets[k] ?? 0;
        values.push({ labels: { le: bound }, value: below, metricName: `${full}_bucket` });
      });
      const count = below + (buckets[bounds.length] ?? 0);
      values.push({ labels: { le: '+Inf' }, value: count, metricName: `${full}_bucket` });
      values.push({ labels: {}, value: sum, metricName: `${full}_sum` });
      values.push({ labels: {}, value: count, metricName: `${full}_count` });
      return { name: full, help, type: 'histogram', aggregator: 'sum', values };
    },
  };
  // The registry asks a metric for get() alone; the collector is a metric in all but class.
  registry.registerMetric(collector as unknown as Metric);
}

/** A registry with the relay's metrics, each read from `stats()` when scraped. */
export function relayRegistry(stats: () => Readonly<TcpRelayStats>): Registry {
  const registry = new Registry();
  gauge(registry, 'connections_open', 'Client connections open now', () => stats().connectionsOpen);
  counter(registry, 'connections_total', 'Client connections relayed', () => stats().connectionsTotal);
  counter(registry, 'connections_refused_total', 'Clients reset as they came, past --max-connections', () => stats().connectionsRefused);
  counter(
    registry,
    'proxy_header_refused_total',
    'Connections reset for their PROXY protocol header (--proxy-protocol): none, a malformed one, or none in time',
    () => stats().proxyHeaderRefused,
  );
  counter(registry, 'bytes_in_total', 'Record bytes read from upstream', () => stats().bytesIn);
  counter(registry, 'bytes_out_total', 'Record bytes sent to clients', () => stats().bytesOut);
  labelledCounter(registry, 'records_in_total', 'Records read from upstream, by kind', 'kind', ['response', 'finish'], () => ({
    response: stats().responsesIn,
    finish: stats().finishesIn,
  }));
  labelledCounter(
    registry,
    'records_out_total',
    'Records sent to clients, by kind (finishes the relay added included)',
    'kind',
    ['response', 'finish'],
    () => ({ response: stats().responsesOut, finish: stats().finishesOut }),
  );
  labelledCounter(registry, 'faults_total', 'Faults reported, by reason (WIRE.md section 7)', 'reason', FAULT_REASONS, () => stats().faultsByReason);
  labelledCounter(
    registry,
    'upstream_errors_total',
    'Upstream failures: errors by cause, timeouts as connect-timeout and idle-timeout',
    'cause',
    UPSTREAM_FAILURES,
    () => stats().upstreamFailures,
  );
  gauge(registry, 'open_channels', 'Channels open now, over all connections', () => stats().openChannels);
  gauge(registry, 'held_bytes', 'Payload bytes held now by the open channels, over all connections', () => stats().heldBytes);
  histogram(
    registry,
    'validation_seconds',
    "The relay's time per response frame (reading records, checking the frame, handing it on): each input chunk's time divided among the responses it completed",
    VALIDATION_BUCKETS,
    () => {
      const s = stats();
      return { buckets: s.validationBuckets, sum: s.validationSeconds };
    },
  );
  return registry;
}

/** The cluster primary's own counts, each read at scrape. */
export interface PrimaryCounts {
  /** Worker processes running now. */
  workers: () => number;
  /** Workers restarted after they died. */
  restarts: () => number;
  /** Clients reset as they came, past --max-connections (the primary counts them: it accepts). */
  refused: () => number;
  /** Connections the primary reset because their worker died with them open. */
  orphaned: () => number;
}

/** The cluster primary's own metrics: live workers, restarts, refused clients, and connections reset for a worker that died. */
export function primaryRegistry(counts: PrimaryCounts): Registry {
  const registry = new Registry();
  gauge(registry, 'workers', 'Worker processes running now', counts.workers);
  counter(registry, 'worker_restarts_total', 'Workers restarted after they died', counts.restarts);
  // The same name as each worker's (always 0 there: the primary refuses first), so the sum is the relay's.
  counter(registry, 'connections_refused_total', 'Clients reset as they came, past --max-connections', counts.refused);
  counter(registry, 'worker_connections_reset_total', 'Connections reset by the primary because their worker died with them open', counts.orphaned);
  return registry;
}

/** Sums the registries' JSON (one per worker, and the primary's) with prom-client's cluster aggregation. */
export async function aggregate(parts: Parameters<typeof AggregatorRegistry.aggregate>[0]): Promise<string> {
  return AggregatorRegistry.aggregate(parts).metrics();
}

/** Serves GET /metrics from `scrape`, with /healthz and /readyz (`notReady` says why not), on `at`. */
export function serveMetrics(at: Endpoint, scrape: () => Promise<string>, notReady: () => string | null = () => null) {
  return serveHttp(at, { scrape: async () => ({ contentType: Registry.PROMETHEUS_CONTENT_TYPE, text: await scrape() }), notReady });
}

/** A registry with the proxy's metrics, each read from `stats()` when scraped. */
export function proxyRegistry(stats: () => Readonly<ProxyStats>): Registry {
  const registry = new Registry();
  gauge(registry, 'proxy_connections_open', 'Client connections open now', () => stats().connectionsOpen);
  counter(registry, 'proxy_connections_total', 'Client connections accepted', () => stats().connectionsTotal);
  counter(registry, 'proxy_connections_refused_total', 'Clients reset as they came, past --max-connections', () => stats().connectionsRefused);
  counter(
    registry,
    'proxy_proxy_header_refused_total',
    'Connections reset for their PROXY protocol header (--proxy-protocol): none, a malformed one, or none in time',
    () => stats().proxyHeaderRefused,
  );
  labelledCounter(
    registry,
    'proxy_clients_reset_total',
    'Clients the proxy reset: for leaving too many answers unread (overrun), or for going nowhere (idle)',
    'cause',
    ['overrun', 'idle'],
    () => ({ overrun: stats().clientOverruns, idle: stats().clientIdleTimeouts }),
  );
  gauge(registry, 'proxy_in_flight', 'Exchanges in flight now', () => stats().inFlight);
  gauge(registry, 'proxy_server_ready', 'Whether the MCP server is initialized and taking requests now (1) or not (0)', () =>
    stats().serverReady ? 1 : 0,
  );
  labelledCounter(
    registry,
    'proxy_exchanges_total',
    'Exchanges ended, by outcome: a result frame, an error frame, not carried, or cancelled by a client that went away',
    'outcome',
    ['result', 'error', 'not-carried', 'cancelled'],
    () => {
      const s = stats();
      return { result: s.results, error: s.errors, 'not-carried': Object.values(s.notCarried).reduce((a, b) => a + b, 0), cancelled: s.cancelled };
    },
  );
  labelledCounter(
    registry,
    'proxy_not_carried_total',
    'Exchanges not carried, by cause (WIRE.md section 8)',
    'cause',
    NOT_CARRIED_CAUSES,
    () => stats().notCarried,
  );
  counter(registry, 'proxy_refused_lines_total', 'Request lines refused', () => stats().refusedLines);
  counter(
    registry,
    'proxy_server_restarts_total',
    'Times the MCP server was started again after it ended or failed to start',
    () => stats().serverRestarts,
  );
  counter(registry, 'proxy_notifications_dropped_total', "The server's notifications, dropped", () => stats().notificationsDropped);
  counter(registry, 'proxy_server_requests_refused_total', "The server's own requests, answered with an error", () => stats().serverRequestsRefused);
  counter(registry, 'proxy_late_answers_total', 'Answers that came after their exchange ended', () => stats().lateAnswers);
  histogram(
    registry,
    'proxy_exchange_seconds',
    'Time from a request line to the frame sent for it, for exchanges answered with a frame',
    LATENCY_BUCKETS,
    () => {
      const s = stats();
      return { buckets: s.latencyBuckets, sum: s.latencySeconds };
    },
  );
  return registry;
}
