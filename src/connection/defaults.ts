// The waits and bounds of a served connection, and their defaults: the one table the TCP relay, the proxy, the CLI and the Worker read.
//
// No `node:` import here: the Worker relay (src/runtime/worker.ts) takes
// its timeouts from this module, and the CLI's help prints them without
// loading a server.

/** How long upstream may take to accept a connection (WIRE.md section 7). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long upstream may stay silent while a channel is open or a record is partly received. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
/** How long a drain lets open connections end on their own before it cuts them. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** How long a connection may go nowhere: nothing in flight and no byte either way, or a client that takes nothing. */
export const DEFAULT_CLIENT_IDLE_TIMEOUT_MS = 300_000;
/**
 * How long a drain waits for quiet: the listener closes once no client has
 * come for this long (a load balancer's health check, every 500 ms in
 * examples/haproxy, has found /readyz failing and stopped sending), and a
 * connection with nothing in flight ends once its client has sent nothing
 * for this long (its next request may be on its way).
 */
export const DRAIN_QUIET_MS = 1_000;
/** How long a connection may take to send its PROXY protocol header: more than a TCP retransmit (3 s), as the protocol asks. */
export const DEFAULT_PROXY_HEADER_TIMEOUT_MS = 5_000;
/** Two descriptors each for the relay: 20,000 of them, within the usual 65,536 of a service's limit and far past a relay's load. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;

/** How long an exchange may wait for the server's answer before it is finished alone (`timeout`). */
export const DEFAULT_EXCHANGE_TIMEOUT_MS = 60_000;
/** How long `mcp-frames request` may take to connect and be answered: past the exchange timeout, so that the proxy's own answer comes first. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 2 * DEFAULT_EXCHANGE_TIMEOUT_MS;
/** How long a server may take to answer initialize before it is stopped and started again. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
/** The longest request line a client may send (WIRE.md section 8). */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/**
 * The most answer bytes a client's connection may have waiting to be sent:
 * two answers at the default frame limit. A client that lets more pile up
 * is not reading, and is reset.
 */
export const DEFAULT_MAX_CLIENT_QUEUE_BYTES = 32 * 1024 * 1024;
/**
 * The most request bytes waiting for the server: written to a stdio
 * server's stdin and not yet read, or waiting for it to be ready. Past it,
 * an exchange is not carried (`server-not-reading`).
 */
export const DEFAULT_MAX_SERVER_QUEUE_BYTES = 8 * 1024 * 1024;
/** The first wait before a server is started again; it doubles with each failure up to the max. */
export const DEFAULT_RESTART_DELAY_MS: Readonly<{ first: number; max: number }> = { first: 100, max: 10_000 };
/** Starts in a row that may end before a server was ever ready (a command that does not exist, a server that exits at once) before the proxy gives up. */
export const DEFAULT_MAX_START_FAILURES = 5;
/** How long a server must stay up before the restart backoff starts again from its first wait. */
export const DEFAULT_STABLE_AFTER_MS = 10_000;
