// The TCP relay's log: one JSON line per event on stderr, kept or dropped by its level.
//
// # Levels
//
//   error   a connection failed: an upstream error or timeout, a record
//           error, a drain timeout; a worker that died
//   warn    one exchange went wrong: a frame error, a sequence violation, an
//           incomplete channel
//   info    connections opening and closing, draining, workers starting
//
// --log-level keeps its level and those above it; the default, warn, prints
// what the relay printed before it had levels (every fault, nothing else).
//
// # Writes
//
// Each line is handed to `write` whole; the CLI's writer (src/cli/io.ts,
// BoundedLines) gathers the lines of one event-loop turn into writes of
// whole lines of up to PIPE_BUF, and drops and counts lines while stderr is
// far behind. Lines of workers sharing stderr interleave only between
// lines while stderr keeps up (see BoundedLines for when it does not).

import type { ConnectionFault } from '../relay/tcp.js';

export type LogLevel = 'error' | 'warn' | 'info';

export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info'];

const RANK: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2 };

/** The level of a fault: warn when it touches one exchange, error when the connection failed. */
export function faultLevel(fault: ConnectionFault): LogLevel {
  return fault.reason === 'frame-error' || fault.reason === 'sequence-violation' || fault.reason === 'incomplete' ? 'warn' : 'error';
}

export class Log {
  constructor(
    private readonly write: (line: string) => void,
    readonly level: LogLevel,
    /** Fields every line carries (a worker's number). */
    private readonly base: Readonly<Record<string, unknown>> = {},
  ) {}

  /** Whether a line at `level` is kept. */
  keeps(level: LogLevel): boolean {
    return RANK[level] <= RANK[this.level];
  }

  /** Writes `fields` as one line, after the time and level, when the level is kept. */
  line(level: LogLevel, event: string, fields: Readonly<Record<string, unknown>>): void {
    if (this.keeps(level)) this.always(level, event, fields);
  }

  /** Writes the line whatever the level (the listening line, which scripts read the port from). */
  always(level: LogLevel, event: string, fields: Readonly<Record<string, unknown>>): void {
    this.write(JSON.stringify({ time: new Date().toISOString(), level, event, ...this.base, ...fields }));
  }

  /** A fault on a connection: today's fields (connection, reason, and the fault's own), with the time, level and event. */
  fault(fault: ConnectionFault, connection: number): void {
    this.line(faultLevel(fault), 'fault', { connection, ...fault });
  }
}
