// Node and Bun: both core builds read from the package's build/ folder synchronously at import, then chosen once.
//
// Node compiles modules of any size synchronously, so the choice is made
// before the importer's first line runs, and `backend` holds the winner;
// `ready` is already settled, and is there so that code written for every
// host (`await ready`) reads the same here. Bun takes this entry too: it
// matches the "node" condition and runs node:fs. The files are read from
// disk (src/backend/disk.ts), nothing is fetched.

import { readBuild } from '../backend/disk.js';
import { useBuilds } from './selection.js';

export * from './api.js';

useBuilds(readBuild);
