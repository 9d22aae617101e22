// A client of the proxy for tests: sends request lines, reads the records that come back, and hands each exchange's end over.

import net from 'node:net';
import { HEADER_SIZE, KIND_FINISH, KIND_RESPONSE } from '../../src/records/record.js';

/** One exchange as the client saw it: the frame of its response record (null when its finish came alone). */
export interface Answer {
  channel: number;
  payload: Uint8Array | null;
}

export class ProxyClient {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly responses = new Map<number, Uint8Array>();
  private readonly waiting = new Map<number, (a: Answer) => void>();
  /** Every exchange ended on this connection, in the order the finishes came. */
  readonly answers: Answer[] = [];
  /** Responses that came on a channel that already had one, or finishes with none open: none should. */
  strays = 0;
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.take(chunk));
    this.closed = new Promise((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<ProxyClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new ProxyClient(socket)));
      socket.once('error', reject);
    });
  }

  private take(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    for (;;) {
      if (this.buffered.length < HEADER_SIZE) return;
      const kind = this.buffered[0];
      const channel = this.buffered.readUInt32LE(1);
      const length = this.buffered.readUInt32LE(5);
      if (this.buffered.length < HEADER_SIZE + length) return;
      const payload = new Uint8Array(this.buffered.subarray(HEADER_SIZE, HEADER_SIZE + length));
      this.buffered = this.buffered.subarray(HEADER_SIZE + length);
      if (kind === KIND_RESPONSE) {
        if (this.responses.has(channel)) this.strays++;
        this.responses.set(channel, payload);
      } else if (kind === KIND_FINISH) {
        const answer = { channel, payload: this.responses.get(channel) ?? null };
        this.responses.delete(channel);
        this.answers.push(answer);
        const resolve = this.waiting.get(channel);
        this.waiting.delete(channel);
        if (resolve) resolve(answer);
        else this.strays++;
      } else throw new Error(`bad record kind ${kind}`);
    }
  }

  /** Sends one request line; resolves when the channel's finish comes. */
  exchange(channel: number, method: string, params?: Record<string, unknown>): Promise<Answer> {
    const done = new Promise<Answer>((resolve) => this.waiting.set(channel, resolve));
    this.socket.write(`${JSON.stringify({ channel, method, ...(params ? { params } : {}) })}\n`);
    return done;
  }

  /** Resolves when the channel's finish comes, without sending anything. */
  finishOf(channel: number): Promise<Answer> {
    return new Promise<Answer>((resolve) => this.waiting.set(channel, resolve));
  }

  close(): void {
    this.socket.destroy();
  }
}
