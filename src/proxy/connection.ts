// One client of the proxy: request lines in, each channel's records out (WIRE.md section 8), on the connection core.
//
// # Lines in, records out
//
// The client's bytes go through the one line splitter (lines.ts); each
// line is read (request-line.ts) and, when it names a free channel and a
// method, becomes an exchange in the connection's open-channel table
// (exchange/open-channels.ts) and a request to the session. Its end comes
// back here: the response record and its finish (answer.ts), or the
// finish alone with a fault naming the cause.
//
// # A client that does not read
//
// While the client has not taken what was sent, its next lines wait: the
// socket is not read until it drains. Answers to exchanges already in
// flight still come, and wait for it, up to maxClientQueueBytes. Past that
// the client is not reading: it is reset, its exchanges are cancelled at
// the server (`client-overrun`), and no other client notices. One answer
// may always wait when nothing else does, so a reading client can be sent
// an answer as long as the frame limit.
//
// # Every wait is timed
//
// The exchange timeout bounds each exchange. The client idle timeout
// (WIRE.md section 7) bounds a connection with nothing in flight on which
// neither side sends a byte, and a client that takes none of what waits
// for it: either is reset. A drain ends a connection with nothing in
// flight at once; at the drain's timeout the exchanges still in flight are
// not carried (`drain-timeout`), and the client gets their finishes and a
// reset, whether or not it reads.
//
// # A client that has sent its last request, and one that goes away
//
// A client's FIN says it has sent its last request (WIRE.md section 8, as a
// relay passes a client's FIN upstream in section 7): its exchanges in
// flight are still answered, and once the last has ended the proxy ends the
// connection (FIN). A client that goes away (a reset, or a connection found
// closed when the proxy writes to it) has its exchanges in flight cancelled
// at the server.

import { DRAIN_QUIET_MS } from '../connection/defaults.js';
import { type Accepted, ClientIdle, confirmEnd, resetAfterFlush, resetSocket, type Served } from '../connection/server.js';
import { ALREADY_OPEN, OpenChannels } from '../exchange/open-channels.js';
import { encodeFinish } from '../records/record.js';
import { Status } from '../wire/status.js';
import { answerRecords, isAnswerRefusal } from './answer.js';
import { giveAnswerBuffer, LARGE } from './answer-buffers.js';
import type { Exchange, ExchangeOwner, NotCarriedCause, ProxyConnectionEnd, ProxyConnectionSummary, ProxyContext, ProxyFault } from './context.js';
import { countAnswer } from './context.js';
import { LineReader } from '../exchange/lines.js';
import type { Envelope } from './message.js';
import { isRefusal, type LineRefusal, type RequestLine, readRequestBytes } from '../exchange/request-line.js';
import type { SessionLoss } from './session.js';

/** What a finish alone is sent with: the fault's detail. */
type Detail = { message?: string; rule?: string; offset?: number; limit?: number; status?: number };

/**
 * The most lines of one connection read in one turn of the event loop; the
 * rest of its chunk waits for the next turn, with the socket paused. Read
 * whole, a chunk of 20,000 refused lines from one client held every other
 * client's answers back for a third of a second.
 */
const LINES_PER_TURN = 64;

/** Lines that are only whitespace are skipped (WIRE.md section 8). */
function isBlank(line: Uint8Array): boolean {
  for (const c of line) if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  return true;
}

export class ProxyConnection implements Served, ExchangeOwner {
  private readonly socket: Accepted['socket'];
  private readonly exchanges: OpenChannels<Exchange>;
  private readonly lines: LineReader;
  private readonly idle: ClientIdle;
  /** Why the proxy ended the connection, once it has. */
  private ending: ProxyConnectionEnd | null = null;
  /** What stopped the connection, for onClose: null after a clean end. */
  private error: unknown = null;
  private drainBegun = false;
  /** Whether a chunk's lines are being read now. */
  private reading = false;
  /** performance.now() of the client's last byte (of the accept, before any). */
  private lastClientByte: number;
  /** While draining, the wait for a connection's client to have been quiet long enough. */
  private quiet: NodeJS.Timeout | undefined;
  /** The client sent its FIN: no line comes after it. */
  private halfClosed = false;
  /** The part of a chunk left for the next turn (LINES_PER_TURN), and whether the client's socket is backed up. */
  private backlog: Uint8Array | null = null;
  private blocked = false;
  private readonly counts = { bytesIn: 0, bytesOut: 0, lines: 0, answered: 0, notCarried: 0, cancelled: 0, faults: 0 };

  constructor(
    private readonly proxy: ProxyContext,
    private readonly accepted: Accepted,
    private readonly closed: (error: unknown, summary: ProxyConnectionSummary) => void,
  ) {
    const { settings } = proxy;
    const socket = accepted.socket;
    this.socket = socket;
    this.lastClientByte = accepted.opened;
    // No held-bytes limit: an exchange waiting for the server holds its params' text (the server queue's bound counts
    // it), and one sent holds none.
    this.exchanges = new OpenChannels(settings.maxInFlight, Number.MAX_SAFE_INTEGER);
    this.lines = new LineReader(settings.maxLineBytes, {
      line: (bytes) => this.onLine(bytes),
      long: () => this.lineTooLong(),
    });
    this.idle = new ClientIdle(
      socket,
      settings.clientIdleTimeoutMs,
      () => this.exchanges.size > 0 && socket.writableLength === 0,
      () => this.idleTimeout(),
    );
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      this.counts.bytesIn += chunk.length;
      this.lastClientByte = performance.now();
      this.feed(chunk);
    });
    // Pausing stops reading lines; a pause for a full socket ends when it drains.
    socket.on('drain', () => {
      this.blocked = false;
      this.resume();
    });
    socket.on('end', () => this.clientEnded());
    socket.once('close', () => this.onClose());
    if (accepted.openThrew) this.abandon('reset', accepted.openThrew.error);
    else if (accepted.draining) this.draining();
  }

  /** Reads a chunk's lines, LINES_PER_TURN of them a turn: the rest waits for the next turn, with reading paused. */
  private feed(chunk: Uint8Array): void {
    if (this.backlog) {
      // Read while lines waited (a paused socket may still hand over what it had): kept behind them, in order.
      this.backlog = Buffer.concat([this.backlog, chunk]);
      return;
    }
    this.reading = true;
    let taken: number;
    try {
      taken = this.lines.pushSome(chunk, LINES_PER_TURN);
    } finally {
      this.reading = false;
    }
    if (taken >= chunk.length || this.ending) {
      // Every line of the chunk has been answered or refused: a connection with nothing left in flight may end now.
      this.endIfDone();
      return;
    }
    this.backlog = chunk.subarray(taken);
    this.socket.pause();
    setImmediate(() => {
      const rest = this.backlog;
      this.backlog = null;
      if (rest && !this.ending) this.feed(rest);
      this.resume();
    });
  }

  /** Reading goes on unless the client's socket is backed up, or lines wait for the next turn. */
  private resume(): void {
    if (!this.ending && !this.blocked && !this.backlog) this.socket.resume();
  }

  private fault(fault: ProxyFault): void {
    this.counts.faults++;
    this.proxy.fault(fault, this.accepted.id);
  }

  /** One request line, read; an exchange started, or the line refused. */
  private onLine(bytes: Uint8Array): void {
    if (this.ending || isBlank(bytes)) return;
    this.counts.lines++;
    const request = readRequestBytes(bytes);
    if (isRefusal(request)) {
      this.refuse(request);
      return;
    }
    const exchange: Exchange = {
      owner: this,
      from: this,
      channel: request.channel,
      method: request.method,
      paramsText: request.paramsText,
      size: bytes.length,
      codec: this.proxy.codecOf(request.method),
      started: performance.now(),
    };
    // One lookup: a channel in flight, or one past the limit, is refused before anything is kept for it.
    const taken = this.exchanges.take(request.channel, 0, exchange);
    if (taken === ALREADY_OPEN) {
      // A finish now would end the exchange already on the channel; that one is still answered.
      this.proxy.counts.refusedLines++;
      this.fault({ reason: 'channel-in-flight', channel: request.channel, method: request.method });
    } else if (taken === Status.TooManyChannels) this.refuseTooMany(request);
    else this.start(exchange);
  }

  private refuse(refusal: LineRefusal): void {
    this.proxy.counts.refusedLines++;
    this.fault({ reason: 'bad-line', ...refusal });
    // A line that named a free channel gets its finish: that exchange is over.
    if (refusal.channel !== undefined && !this.exchanges.has(refusal.channel)) this.send(encodeFinish(refusal.channel));
  }

  private refuseTooMany(request: RequestLine): void {
    const limit = this.proxy.settings.maxInFlight;
    this.refuse({
      refused: 'too-many-in-flight',
      message: `at most ${limit} exchanges in flight on a connection`,
      channel: request.channel,
      method: request.method,
      limit,
    });
  }

  private start(exchange: Exchange): void {
    this.proxy.counts.inFlight++;
    if (this.drainBegun) {
      this.notCarried(exchange, 'draining', { message: 'the proxy is draining' });
      return;
    }
    const timeoutMs = this.proxy.settings.exchangeTimeoutMs;
    if (timeoutMs > 0) exchange.timer = setTimeout(() => this.timedOut(exchange), timeoutMs);
    const loss = this.proxy.submit(exchange);
    if (loss) this.notCarried(exchange, loss.cause, { message: loss.message });
  }

  private timedOut(exchange: Exchange): void {
    this.proxy.cancel(exchange, 'timeout');
    this.notCarried(exchange, 'timeout', { message: `no answer within ${this.proxy.settings.exchangeTimeoutMs} ms` });
  }

  /** Takes the exchange off the table and its timer; the milliseconds it took. */
  private end(exchange: Exchange): number {
    clearTimeout(exchange.timer);
    if (this.exchanges.get(exchange.channel) === exchange) this.exchanges.close(exchange.channel);
    this.proxy.counts.inFlight--;
    return performance.now() - exchange.started;
  }

  /** The session's answer to `exchange`: its records, or its finish alone when section 4 refuses it. */
  answered(exchange: Exchange, message: Uint8Array, envelope: Envelope): void {
    const answer = answerRecords(exchange.channel, message, envelope, exchange.codec, this.proxy.settings.level);
    if (isAnswerRefusal(answer)) {
      this.notCarried(exchange, 'invalid-answer', { message: answer.message, rule: answer.rule, offset: answer.offset });
      return;
    }
    const ms = this.end(exchange);
    countAnswer(this.proxy.counts, answer.isError, ms);
    this.counts.answered++;
    const { exchanged } = this.proxy;
    // A large answer's buffer goes back once written, unless it was handed on (the payload is the watcher's to keep).
    this.send(answer.records, !exchanged && answer.records.byteLength >= LARGE);
    exchanged?.(this.accepted.id, exchange, answer.payload, message, ms);
    this.endIfDone();
  }

  /** The session lost `exchange` (the server ended, refused it, or answered past the limit). */
  lost(exchange: Exchange, cause: SessionLoss, detail: { message: string; limit?: number; status?: number }): void {
    this.notCarried(exchange, cause, detail);
  }

  private notCarried(exchange: Exchange, cause: NotCarriedCause, detail: Detail): void {
    this.end(exchange);
    this.proxy.counts.notCarried[cause]++;
    this.counts.notCarried++;
    this.fault({ reason: 'not-carried', cause, channel: exchange.channel, method: exchange.method, ...detail });
    this.send(encodeFinish(exchange.channel));
    this.endIfDone();
  }

  /**
   * Queues `bytes` for the client. Past maxClientQueueBytes unread, the
   * client is not reading: it is reset, and its exchanges cancelled. With
   * `giveBack`, the buffer goes back (answer-buffers.ts) once the socket is
   * done with it, written or dropped.
   */
  private send(bytes: Uint8Array, giveBack = false): void {
    const socket = this.socket;
    const queued = socket.writableLength;
    const limit = this.proxy.settings.maxClientQueueBytes;
    const overrun = queued > 0 && queued + bytes.length > limit;
    if (this.ending || socket.destroyed || overrun) {
      if (giveBack) giveAnswerBuffer(bytes);
      if (overrun && !this.ending && !socket.destroyed) this.overrun(queued + bytes.length, limit);
      return;
    }
    this.counts.bytesOut += bytes.length;
    this.idle.refresh();
    // A client that does not read stops being read: its next lines wait until its answers drain.
    if (!socket.write(bytes, giveBack ? () => giveAnswerBuffer(bytes) : undefined)) {
      this.blocked = true;
      socket.pause();
    }
  }

  private overrun(queued: number, limit: number): void {
    this.proxy.counts.clientOverruns++;
    const cancelled = this.exchanges.size;
    this.fault({ reason: 'client-overrun', queued, limit, cancelled });
    this.abandon('overrun');
  }

  private lineTooLong(): void {
    this.proxy.counts.refusedLines++;
    this.fault({ reason: 'line-too-long', limit: this.proxy.settings.maxLineBytes });
    this.abandon('line-too-long');
  }

  private idleTimeout(): void {
    // Given its FIN with nothing owed, and its own side never closed: closed for it, with no fault.
    if (this.ending) {
      this.socket.destroy();
      return;
    }
    this.proxy.counts.clientIdleTimeouts++;
    this.fault({ reason: 'client-idle-timeout', afterMs: this.proxy.settings.clientIdleTimeoutMs });
    this.abandon('idle');
  }

  /** The proxy gives up on the client: its exchanges are cancelled at the server, and it is reset at once. */
  private abandon(why: ProxyConnectionEnd, error: unknown = null): void {
    if (this.ending) return;
    this.ending = why;
    this.error = error;
    this.lines.stop();
    this.cancelAll(why === 'reset' ? 'the proxy is stopping' : 'the client was given up on');
    resetSocket(this.socket);
  }

  /** The client sent its FIN: it has sent its last request. A line it left without its line feed is refused. */
  private clientEnded(): void {
    // Lines left for the next turn come before the end.
    const rest = this.backlog;
    this.backlog = null;
    if (rest && !this.ending) this.lines.push(rest);
    this.halfClosed = true;
    if (this.lines.pending > 0 && !this.ending) {
      this.counts.lines++;
      this.refuse({ refused: 'unterminated', message: 'the connection ended inside a line: a line ends with a line feed' });
    }
    this.lines.stop();
    // A reset read as an end is found now, and its exchanges cancelled, rather than when an answer fails on it.
    if (this.exchanges.size > 0) confirmEnd(this.socket);
    this.endIfDone();
  }

  /** Cancels every exchange in flight at the server; none is answered now. */
  private cancelAll(reason: string): void {
    for (const [, exchange] of this.exchanges.closeAll()) {
      clearTimeout(exchange.timer);
      this.proxy.counts.inFlight--;
      this.proxy.counts.cancelled++;
      this.counts.cancelled++;
      this.proxy.cancel(exchange, reason);
    }
  }

  /**
   * Once the client has sent its last request, or the proxy is draining, a
   * connection with nothing in flight ends cleanly, once its answers have gone.
   */
  private endIfDone(): void {
    if (!(this.drainBegun || this.halfClosed) || this.ending || this.exchanges.size > 0) return;
    // Not while lines already received wait to be read (the rest of a chunk, or the next turn's), nor, in a drain,
    // while a line is partly received: each of them gets its answer or its finish first.
    if (this.reading || this.backlog || (!this.halfClosed && this.lines.pending > 0)) return;
    if (!this.halfClosed) {
      // The client's next line may be on its way (from a client between two requests, or behind a load balancer,
      // where a client's bytes trail its connection): a connection ends once its client has been quiet a while.
      const wait = DRAIN_QUIET_MS - (performance.now() - this.lastClientByte);
      if (wait > 0) {
        clearTimeout(this.quiet);
        this.quiet = setTimeout(() => this.endIfDone(), wait);
        return;
      }
      // A client that has sent nothing: a clean end would read as an empty, complete answer; a reset says nothing was carried.
      if (this.counts.bytesIn === 0) {
        this.ending = 'drained';
        this.lines.stop();
        resetSocket(this.socket);
        return;
      }
    }
    this.ending = 'ended';
    this.lines.stop();
    this.socket.end();
  }

  draining(): void {
    this.drainBegun = true;
    this.endIfDone();
  }

  cut(afterMs: number): boolean {
    if (this.ending) {
      // Ended, and all it was sent has left the process: a client that never closes its side is closed for it.
      if (this.socket.writableFinished || this.socket.destroyed) {
        this.socket.destroy();
        return false;
      }
      // Answers it has not taken would be dropped, and a FIN after them would read as a clean end: a reset says they were cut.
      this.ending = 'drained';
      resetSocket(this.socket);
      return true;
    }
    this.ending = 'drained';
    this.lines.stop();
    for (const [, exchange] of this.exchanges.closeAll()) {
      clearTimeout(exchange.timer);
      this.proxy.cancel(exchange, 'the proxy stopped');
      this.proxy.counts.inFlight--;
      this.proxy.counts.notCarried['drain-timeout']++;
      this.counts.notCarried++;
      this.fault({
        reason: 'not-carried',
        cause: 'drain-timeout',
        channel: exchange.channel,
        method: exchange.method,
        message: `still in flight after ${afterMs} ms of draining`,
      });
      this.socket.write(encodeFinish(exchange.channel));
    }
    resetAfterFlush(this.socket);
    return true;
  }

  reset(): void {
    this.abandon('reset');
  }

  private onClose(): void {
    this.idle.stop();
    clearTimeout(this.quiet);
    this.lines.stop();
    // A client that reset, or that was found gone by a write: its exchanges go with it.
    if (!this.ending) this.ending = this.exchanges.size > 0 ? 'client-gone' : 'ended';
    this.cancelAll('the client went away');
    this.closed(this.error, {
      connection: this.accepted.id,
      remote: this.accepted.remote,
      end: this.ending,
      durationMs: Math.round((performance.now() - this.accepted.opened) * 1000) / 1000,
      ...this.counts,
    });
  }
}
