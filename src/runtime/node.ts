// Node and Bun: the core builds embedded in the package, compiled synchronously at import, then chosen once.
//
// Node compiles modules of any size synchronously, so the choice is made
// before the importer's first line runs, and `backend` holds the winner;
// `ready` is already settled, and is there so that code written for every
// host (`await ready`) reads the same here. Bun takes this entry too: it
// matches the "node" condition. The builds come inside the JavaScript
// (src/backend/builds.ts), so a bundle of this entry keeps the core.

import { Buffer } from 'node:buffer';
import { readBuild } from '../backend/builds.js';
import { useUtf8Text } from '../contract/utf8-text.js';
import { useBuilds } from './selection.js';

export * from './api.js';

useBuilds(readBuild);

// Node's (and Bun's) own UTF-8 decoding, faster than TextDecoder for the
// values decode builds (src/contract/utf8-text.ts says by how much); put in
// force only if it gives TextDecoder's strings.
const utf8Slice = (Buffer.prototype as { utf8Slice?: (this: Uint8Array, start: number, end: number) => string }).utf8Slice;
if (typeof utf8Slice === 'function') useUtf8Text((b, start, end) => utf8Slice.call(b, start, end));
