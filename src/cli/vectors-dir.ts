// Where `mcp-frames conformance` finds the vectors when it is given no folder: the ones this package ships.
//
// spec/vectors/ at the package root, found from this module's own place
// (dist/cli/), not from the current directory. A module of its own, so that
// the help text can name it without loading the conformance command.

import { fileURLToPath } from 'node:url';

export const DEFAULT_VECTORS_DIR = fileURLToPath(new URL('../../spec/vectors/', import.meta.url));
