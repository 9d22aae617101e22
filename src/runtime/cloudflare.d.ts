// What the Worker entry uses of the Cloudflare Workers runtime that TypeScript's DOM library does not describe.
//
// Only what src/runtime/worker.ts touches, written from the Workers
// documentation (TCP sockets: connect(); WebSockets: WebSocketPair, accept()).
// A declaration file: tsc emits nothing from it, and the entry's emitted
// types do not mention it.

declare module 'cloudflare:sockets' {
  export interface SocketAddress {
    hostname: string;
    port: number;
  }
  export interface Socket {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
    /** Resolves once the connection is established; rejects when it cannot be. */
    readonly opened: Promise<unknown>;
    readonly closed: Promise<void>;
    close(): Promise<void>;
  }
  export function connect(address: SocketAddress, options?: { secureTransport?: 'off' | 'on' | 'starttls'; allowHalfOpen?: boolean }): Socket;
}

/** A server-side WebSocket: accept() it, then send and listen as in the browser. */
interface WorkersWebSocket extends WebSocket {
  accept(): void;
}

declare class WebSocketPair {
  0: WebSocket;
  1: WorkersWebSocket;
}
