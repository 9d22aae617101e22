// Which schema judges a command runs, and the one warning a user gets when they are the SDK's.
//
// The compiled judges fall back to the SDK's own schemas when the SDK
// loaded is not the one the package was built with (src/contract/schema.ts,
// COMPILED_DRIFT). The verdicts stay the same and only the speed drops, so
// nothing fails: the warning is the only place an operator can learn it,
// besides the `judges` field of the TCP relay's listening line.

import { COMPILED_DRIFT, type SchemaJudges, schemaJudges } from '../contract/schema.js';
import type { Io } from './io.js';

/** The judges in use, after one warning on stderr when they are the SDK's, naming why. Loads the SDK's schemas. */
export function judgesInUse(io: Io, warn: boolean): SchemaJudges {
  if (COMPILED_DRIFT && warn) {
    const why = COMPILED_DRIFT.message.split('\n')[0];
    io.err(`mcp-frames: warning: schema checks fall back to the SDK's own schemas, with the same verdicts at a slower speed: ${why}`);
  }
  return schemaJudges;
}
