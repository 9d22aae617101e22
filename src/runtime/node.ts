// Node and Bun: the Node entry (src/node.ts), which reads and compiles both builds synchronously at import, with the face every entry shares.
//
// Node compiles modules of any size synchronously, so the choice is made
// before the importer's first line runs; `ready` is only there so that code
// written for every host (`await ready`) reads the same here. Bun takes this
// entry too: it matches the "node" condition and runs node:fs.

import { backend } from '../node.js';
import type { BackendName } from '../backend/backend.js';

export * from '../node.js';

/** Already settled: the Node entry chose at import. */
export const ready: Promise<BackendName> = Promise.resolve(backend);
