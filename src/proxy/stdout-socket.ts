// A stdio server's stdout as a socket the proxy connected itself, so that it reads the server's bytes into one buffer of its own.
//
// # Why not the pipe spawn makes
//
// Node reads a child's stdout into a fresh buffer for every read, and a
// socket the proxy connects can read into a buffer it gives (`onread`);
// Node offers no way to do that with the pipe `spawn` makes. So the proxy
// listens on a Unix socket in a directory of its own (mode 0700: no other
// user can reach it), connects to it, and hands the accepted end to the
// server as its stdout. The server sees what `spawn` would have given it,
// a Unix stream socket; the listener and its directory are gone before the
// server starts.
//
// Where this cannot be done (Windows, no temporary directory, a path past
// the socket's limit), the server gets the pipe `spawn` makes, read as
// Node reads it.
//
// PERF NOTE: reading a MiB as 64 KiB fresh buffers cost 0.9 to 2.3 ms of
// CPU and 35 to 112 page faults; into one buffer, 0.24 to 0.26 ms and 2.

import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Both ends of the connection: the proxy reads `ours`; `theirs` becomes the server's stdout, and is closed here once it has. */
export interface StdoutPair {
  ours: net.Socket;
  theirs: net.Socket;
}

/** Connects a pair whose `ours` reads with `onread`; null where it cannot be done, for the pipe spawn makes. */
export function connectStdout(onread: net.OnReadOpts): Promise<StdoutPair | null> {
  if (process.platform === 'win32') return Promise.resolve(null);
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'mcp-frames-stdout-'));
  } catch {
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const server = net.createServer({ pauseOnConnect: true });
    let ours: net.Socket | null = null;
    let theirs: net.Socket | null = null;
    let connected = false;
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      server.close();
      rmSync(dir, { recursive: true, force: true });
      if (ok) resolve({ ours: ours!, theirs: theirs! });
      else {
        ours?.destroy();
        theirs?.destroy();
        resolve(null);
      }
    };
    const both = () => {
      if (connected && theirs) settle(true);
    };
    server.once('error', () => settle(false));
    // The first connection is ours: nobody else can reach the directory.
    server.once('connection', (socket) => {
      theirs = socket;
      socket.on('error', () => {});
      both();
    });
    server.listen(join(dir, 'stdout'), () => {
      ours = net.connect({ path: join(dir, 'stdout'), onread });
      ours.on('error', () => settle(false));
      ours.once('connect', () => {
        connected = true;
        both();
      });
    });
  });
}
