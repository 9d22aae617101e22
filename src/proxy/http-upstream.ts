// A Streamable HTTP MCP server behind the proxy: a POST for each message, its answer in that POST's response (JSON or server-sent events).
//
// # One request fails alone
//
// Each request is a POST of its own, aborted (its connection given back)
// when its exchange ends for any reason. A response that ends with no
// answer to its request (an error status, a body that holds none, a body
// cut short) fails that request only. The session ends only when the
// server says it has gone (404 on a session) or cannot be reached at all (a
// POST with no response).
//
// # Bounded three ways
//
// - At most MAX_POSTS requests are open at once, and at most
//   MAX_POSTS_EACH for one asker (a proxy connection), so a client with
//   thousands of exchanges in flight holds a few sockets, not thousands,
//   and leaves the rest to other clients: a burst of requests that hang
//   took every open request, and another client's waited for them to
//   time out. The rest wait, taking turns by asker, their text counted
//   against maxQueueBytes; past it send() takes nothing more
//   (`server-not-reading`). A request that ends while it waits never
//   reaches the server.
// - A body is read as it arrives, counted, and cut at the message limit; a
//   Content-Length past it is refused from the header.
// - The bodies being read share one budget, twice the message limit: past
//   it, only the oldest body reads on (it can always finish), and the
//   others wait for it. Each body alone would have held up to the limit
//   for as long as its server dripped it: 120 stalled bodies held 1 GB.
//
// Redirects are not followed: a 3xx is an error status, and the session's
// headers never go to another origin.

import { LineReader } from '../exchange/lines.js';
import type { HttpServer, RequestFailure, ServerEnd, Upstream, UpstreamHandlers, UpstreamLimits } from './server-spec.js';

/** The most POSTs open at once, and for one asker. */
const MAX_POSTS = 32;
const MAX_POSTS_EACH = 8;
/** How long a message that is not a request (a notification, a reply to the server) may take to be posted. */
const NOTIFY_TIMEOUT_MS = 10_000;

const utf8 = new TextEncoder();

/** One message to post: its text, the request's id when it is one, who asked, and its own abort. */
interface Post {
  readonly text: string;
  readonly id: number | undefined;
  readonly from: object;
  readonly bytes: number;
  readonly own: AbortController;
  /** Still waiting for a free POST. */
  queued: boolean;
  /** The response's status once its headers came: a failure after them is this request's alone. */
  status: number | null;
}

/** The answer to one POST: its body's messages handed on, or why it was given up. */
type Posted = { kind: 'messages' } | { kind: 'failed'; failure: RequestFailure } | { kind: 'gone'; end: ServerEnd };

/**
 * Body bytes held at once, over every POST. Past the limit only the oldest
 * reader goes on (it holds at most one message, so it finishes); the others
 * wait until bytes are given back, or their request is aborted.
 */
class BodyBudget {
  private held = 0;
  /** Readers in the order they began: the first is the oldest. */
  private readonly readers = new Set<object>();
  private waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  enter(reader: object): void {
    this.readers.add(reader);
  }

  /** Counts `bytes` read by `reader`; resolves once it may read on (or its request is aborted). */
  async take(reader: object, bytes: number, signal: AbortSignal): Promise<void> {
    this.held += bytes;
    const mustWait = () => this.held > this.limit && this.readers.values().next().value !== reader && !signal.aborted;
    if (!mustWait()) return;
    const wake = () => this.give(0);
    signal.addEventListener('abort', wake, { once: true });
    try {
      while (mustWait()) await new Promise<void>((resolve) => this.waiters.push(resolve));
    } finally {
      signal.removeEventListener('abort', wake);
    }
  }

  give(bytes: number): void {
    this.held -= bytes;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  leave(reader: object, bytes: number): void {
    this.readers.delete(reader);
    this.give(bytes);
  }
}

export class HttpUpstream implements Upstream {
  private readonly url: URL;
  private readonly abort = new AbortController();
  /** Requests queued or open, by id. */
  private readonly posts = new Map<number, Post>();
  /** Posts waiting for a free POST, by who asked, and the askers in turn (each once, while it has some waiting). */
  private readonly waiting = new Map<object, Post[]>();
  private readonly turns: object[] = [];
  private waitingBytes = 0;
  private open = 0;
  /** Open POSTs by asker, while it has some. */
  private readonly openBy = new Map<object, number>();
  private scheduled = false;
  private readonly budget: BodyBudget;
  private session: string | undefined;
  private version: string | undefined;
  private ended = false;

  constructor(
    private readonly spec: HttpServer,
    private readonly handlers: UpstreamHandlers,
    private readonly limits: UpstreamLimits,
  ) {
    this.url = new URL(spec.url);
    this.budget = new BodyBudget(2 * limits.maxMessageBytes);
  }

  private end(e: ServerEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.abort.abort();
    this.handlers.end(e);
  }

  get queued(): number {
    return this.waitingBytes;
  }

  send(text: string, id?: number, from: object = this): boolean {
    if (this.ended) return true;
    const post: Post = { text, id, from, bytes: utf8.encode(text).length, own: new AbortController(), queued: false, status: null };
    if (this.open >= MAX_POSTS || (this.openBy.get(from) ?? 0) >= MAX_POSTS_EACH) {
      // One request may always wait, so that one at the queue's whole size is still sent.
      if (this.waitingBytes > 0 && this.waitingBytes + post.bytes > this.limits.maxQueueBytes) return false;
      this.enqueue(post);
    } else this.start(post);
    if (id !== undefined) this.posts.set(id, post);
    return true;
  }

  forget(id: number): boolean {
    const post = this.posts.get(id);
    if (!post) return true;
    this.posts.delete(id);
    post.own.abort();
    if (!post.queued) return true;
    post.queued = false;
    this.waitingBytes -= post.bytes;
    return false;
  }

  private enqueue(post: Post): void {
    post.queued = true;
    this.waitingBytes += post.bytes;
    const queue = this.waiting.get(post.from);
    if (queue) queue.push(post);
    else {
      this.waiting.set(post.from, [post]);
      this.turns.push(post.from);
    }
  }

  /** The next post to start: the first of the next asker in turn below its own bound; undefined when none may start. */
  private dequeue(): Post | undefined {
    for (let tries = this.turns.length; tries > 0; tries--) {
      const from = this.turns.shift()!;
      const queue = this.waiting.get(from)!;
      while (queue.length > 0 && !queue[0].queued) queue.shift();
      if (queue.length === 0) {
        this.waiting.delete(from);
        continue;
      }
      this.turns.push(from);
      if ((this.openBy.get(from) ?? 0) >= MAX_POSTS_EACH) continue;
      const post = queue.shift()!;
      if (queue.length === 0) {
        this.waiting.delete(from);
        this.turns.pop();
      }
      return post;
    }
    return undefined;
  }

  private start(post: Post): void {
    this.open++;
    this.openBy.set(post.from, (this.openBy.get(post.from) ?? 0) + 1);
    const signal = this.abort.signal.aborted ? this.abort.signal : AbortSignal.any([this.abort.signal, post.own.signal]);
    // A plain timer, not AbortSignal.timeout(): joined by AbortSignal.any, Node 20 could collect that one unfired.
    const timer = post.id === undefined ? setTimeout(() => post.own.abort(), NOTIFY_TIMEOUT_MS) : undefined;
    this.post(post, signal)
      .then(
        (posted) => this.posted(post, posted),
        (error: unknown) => this.failed(post, error),
      )
      .finally(() => {
        clearTimeout(timer);
        this.open--;
        const left = this.openBy.get(post.from)! - 1;
        if (left > 0) this.openBy.set(post.from, left);
        else this.openBy.delete(post.from);
        if (post.id !== undefined && this.posts.get(post.id) === post) this.posts.delete(post.id);
        this.nextSoon();
      });
  }

  /**
   * Starts the next waiting requests at the next turn of the event loop:
   * requests that end together (timeouts set at once fire together) are
   * all taken off the queue first, rather than each freed POST going to a
   * request about to end, which would then be cancelled at the server.
   */
  private nextSoon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.next();
    });
  }

  /** Starts the requests waiting for a free POST, taking turns among those who asked. */
  private next(): void {
    while (this.open < MAX_POSTS && !this.ended) {
      const post = this.dequeue();
      if (!post) return;
      post.queued = false;
      this.waitingBytes -= post.bytes;
      this.start(post);
    }
  }

  /**
   * A POST's response has ended. A request's answer comes in its own
   * response: one that ended without it (its exchange not yet over, so not
   * answered) has failed, or the exchange would wait for its timeout.
   */
  private posted(post: Post, posted: Posted): void {
    if (posted.kind === 'gone') this.end(posted.end);
    else if (post.id !== undefined && !post.own.signal.aborted && !this.ended)
      this.handlers.failed(post.id, posted.kind === 'failed' ? posted.failure : { cause: 'server-error', status: post.status ?? 0 });
  }

  /** A POST threw: our own abort is no failure; after the response's headers it is this request's; before them, the server cannot be reached. */
  private failed(post: Post, error: unknown): void {
    if (post.own.signal.aborted || this.abort.signal.aborted || post.id === undefined || this.ended) return;
    const message = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
    if (post.status !== null)
      this.handlers.failed(post.id, { cause: 'server-error', status: post.status, message: `the response was cut: ${message}` });
    else this.end({ cause: 'unreachable', message });
  }

  negotiated(protocolVersion: string): void {
    this.version = protocolVersion;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { ...this.spec.headers };
    if (this.session) headers['mcp-session-id'] = this.session;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    return headers;
  }

  private async post(post: Post, signal: AbortSignal): Promise<Posted> {
    const headers = { ...this.headers(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const response = await fetch(this.url, { method: 'POST', headers, body: post.text, signal, redirect: 'manual' });
    post.status = response.status;
    const id = response.headers.get('mcp-session-id');
    if (id && !this.session) this.session = id;
    const type = response.headers.get('content-type') ?? '';
    const limit = this.limits.maxMessageBytes;
    if (response.status === 404 && this.session) {
      await response.body?.cancel().catch(() => {});
      return { kind: 'gone', end: { cause: 'http', status: 404 } };
    }
    // A JSON-RPC error can come with a 4xx status; any other error status fails this request alone.
    const json = type.includes('application/json');
    if (response.status === 202 || !response.body || (!response.ok && !json)) {
      await response.body?.cancel().catch(() => {});
      return response.ok || response.status === 202
        ? { kind: 'messages' }
        : { kind: 'failed', failure: { cause: 'server-error', status: response.status } };
    }
    if (type.includes('text/event-stream')) return this.readEvents(response.body, signal);
    if (Number(response.headers.get('content-length') ?? Number.NaN) > limit) {
      // Judged from the header, before a byte of the body is read.
      await response.body.cancel().catch(() => {});
      return { kind: 'failed', failure: { cause: 'oversize', limit } };
    }
    const bytes = await this.readBody(response.body, signal);
    if (bytes === null) return { kind: 'failed', failure: { cause: 'oversize', limit } };
    this.message(bytes);
    return { kind: 'messages' };
  }

  private message(bytes: Uint8Array): void {
    if (!this.ended) this.handlers.message(bytes);
  }

  /** A JSON body, read whole up to the limit into one buffer, within the budget; null (and the body cancelled) past the limit. */
  private async readBody(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<Uint8Array | null> {
    const limit = this.limits.maxMessageBytes;
    const chunks: Uint8Array[] = [];
    let length = 0;
    const reader = body.getReader();
    const me = {};
    this.budget.enter(me);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.length;
        if (length > limit) {
          await reader.cancel().catch(() => {});
          return null;
        }
        chunks.push(value);
        await this.budget.take(me, value.length, signal);
      }
    } finally {
      this.budget.leave(me, length);
    }
    return join(chunks, length);
  }

  /**
   * Reads server-sent events from a body, handing on the data of each event
   * as bytes, within the budget. An event whose data passes the limit fails
   * the request (`oversize`): the body is cancelled, having held at most the
   * limit.
   */
  private async readEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<Posted> {
    const limit = this.limits.maxMessageBytes;
    const events = new EventReader(limit, (bytes) => this.message(bytes));
    const reader = body.getReader();
    const me = {};
    this.budget.enter(me);
    let counted = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { kind: 'messages' };
        events.push(value);
        if (events.over) {
          await reader.cancel().catch(() => {});
          return { kind: 'failed', failure: { cause: 'oversize', limit } };
        }
        // What this body holds now: the event and the line not yet ended.
        const held = events.held;
        if (held > counted) await this.budget.take(me, held - counted, signal);
        else this.budget.give(counted - held);
        counted = held;
      }
    } finally {
      this.budget.leave(me, counted);
    }
  }

  kill(): void {
    this.ended = true;
    this.abort.abort();
  }

  async close(): Promise<void> {
    this.ended = true;
    this.abort.abort();
    if (!this.session) return;
    // Ends the session at the server, at most a second's wait.
    await fetch(this.url, { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(1000), redirect: 'manual' }).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  }
}

/** `chunks` as one buffer of `length` bytes (the chunk itself when there is one). */
function join(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}

const DATA = utf8.encode('data:');

/** Server-sent events out of a body's bytes: the data of each event, its data lines joined by LF, handed on as one message. */
class EventReader {
  private data: Uint8Array[] = [];
  private dataBytes = 0;
  /** An event's data, or a line, passed the limit. */
  over = false;
  private readonly lines: LineReader;

  constructor(
    private readonly limit: number,
    private readonly message: (bytes: Uint8Array) => void,
  ) {
    // A data line is its field name, an optional space and the value: a value at the limit fits the line's own limit.
    this.lines = new LineReader(limit + DATA.length + 1, {
      line: (line) => this.line(line),
      long: () => {
        this.over = true;
      },
    });
  }

  /** Bytes held now: the event's data so far, and the line not yet ended. */
  get held(): number {
    return this.dataBytes + this.lines.capacity;
  }

  push(chunk: Uint8Array): void {
    this.lines.push(chunk);
  }

  private line(line: Uint8Array): void {
    // An empty line ends an event.
    if (line.length === 0) {
      if (this.data.length) this.message(this.data.length === 1 ? this.data[0] : this.joined());
      this.data = [];
      this.dataBytes = 0;
      return;
    }
    if (!DATA.every((b, k) => line[k] === b)) return;
    const value = line.subarray(line[DATA.length] === 0x20 ? DATA.length + 1 : DATA.length);
    this.dataBytes += value.length + (this.data.length ? 1 : 0);
    this.data.push(value);
    if (this.dataBytes > this.limit) this.over = true;
  }

  private joined(): Uint8Array {
    const whole = new Uint8Array(this.dataBytes);
    let at = 0;
    for (const [k, part] of this.data.entries()) {
      if (k) whole[at++] = 0x0a;
      whole.set(part, at);
      at += part.length;
    }
    return whole;
  }
}
