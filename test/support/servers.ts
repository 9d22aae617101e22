// The real-server captures (test/fixtures/servers/) as frames, named for the tests: each answer's `result` or
// `error` member, cut out of the line the server wrote byte for byte, behind its tag (frames.mjs there).

import { locate } from '../../src/contract/locate.js';
import { loadServerFrames } from '../fixtures/servers/frames.mjs';

export interface ServerFrame {
  /** server, method, and what was asked, in a few words. */
  name: string;
  /** The codec for the method; an unknown method's error is judged by list-resources' codec (errors are judged alike). */
  endpoint: string;
  /** The tag, then the member's bytes exactly as the server wrote them. */
  frame: Uint8Array;
}

export const SERVER_FRAMES: readonly ServerFrame[] = loadServerFrames(locate).map((f) => {
  const what = String(f.params.name ?? f.params.uri ?? f.params.cursor ?? '');
  return {
    name: `${f.server} #${f.index} ${f.method}${what ? ` ${what}` : ''}${f.isError ? ' (error)' : ''}`,
    endpoint: f.endpoint,
    frame: f.frame,
  };
});
