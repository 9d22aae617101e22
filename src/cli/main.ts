#!/usr/bin/env node
// mcp-frames on the command line: which command runs, and what its exit status says.
//
// # Exit statuses, and why they are set rather than called
//
// 0 is a clean answer, 1 is an answer about bad input (a record error, a
// line that is not hex, a missed vector), 2 is a command line that could not
// run, 70 is our bug, 74 a read or write that failed (EX_IOERR). The status is put on process.exitCode, never passed
// to process.exit(): exit() would drop output still queued on a pipe, and
// the last line of a stream (its end) is the one a script reads first.

import { BoundedLines, drainedWithin, IoError, isDirectoryFd, LineWriter, OutputClosed, type Io } from './io.js';
import { UsageError } from './args.js';
import type { CommandName } from './usage.js';
import { clusterWorker } from './worker.js';

/** Exit status for our own bug: EX_SOFTWARE from sysexits.h. */
const EXIT_BUG = 70;
/** Exit status for a read or write that failed: EX_IOERR from sysexits.h. */
const EXIT_IO = 74;

type Command = (args: readonly string[], io: Io) => Promise<number | 'help'>;

/** Each command loaded when it runs, so that `relay` starts without what `decode` needs (the SDK's schemas). */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  decode: async () => (await import('./decode.js')).decodeCommand,
  inspect: async () => (await import('./inspect.js')).inspectCommand,
  relay: async () => (await import('./relay.js')).relayCommand,
  proxy: async () => (await import('./proxy.js')).proxyCommand,
  request: async () => (await import('./request.js')).requestCommand,
  conformance: async () => (await import('./conformance.js')).conformanceCommand,
};

/** The help's text, loaded only to be printed: it names the TCP relay's defaults, and so loads its modules. */
const help = () => import('./usage.js');

/** Runs one command line; resolves to the exit status. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    // No command is a usage error like any other: a script that forgot its command learns it from the status.
    if (command === undefined) {
      io.err(`mcp-frames: no command\n${(await help()).shortUsage()}`);
      return 2;
    }
    if (command === 'help' || command === '--help' || command === '-h') {
      await io.out.line((await (await help()).usage()).trimEnd());
      return 0;
    }
    if (command === '--version') {
      await io.out.line((await help()).version());
      return 0;
    }
    if (!Object.hasOwn(COMMANDS, command)) {
      const what = command.startsWith('-') ? 'flag' : 'command';
      throw new UsageError(`unknown ${what} '${command}' (commands: ${Object.keys(COMMANDS).join(', ')}, help)`);
    }
    const status = await (await COMMANDS[command]())(rest, io);
    if (status === 'help') {
      await io.out.line((await (await help()).commandUsage(command as CommandName)).trimEnd());
      return 0;
    }
    return status;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`mcp-frames: ${err.message}${err.hint ? '; see mcp-frames --help' : ''}`);
      return 2;
    }
    // The reader of stdout has gone (`| head`): there is no one left to tell.
    if (err instanceof OutputClosed) return 0;
    if (err instanceof IoError) {
      io.err(`mcp-frames: ${err.message}`);
      return EXIT_IO;
    }
    io.err(`mcp-frames: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_BUG;
  }
}

// A stderr that fails (its reader gone: EPIPE; a full disk: ENOSPC) takes no more lines, and
// changes nothing else: the work and its exit status go on as if it were read. Unwatched, its
// 'error' was an uncaught exception at the next line written, which killed a TCP relay mid-stream
// (its clients saw a clean end where upstream had failed) and turned any command's status into 1.
process.stderr.on('error', () => {});
// A worker's log-dropped lines name it, as its other lines do (src/cli/serve.ts).
const worker = await clusterWorker();
const stderrEvents = new BoundedLines(process.stderr, undefined, undefined, worker ? { worker: worker.id } : {});
process.on('exit', () => stderrEvents.flush(true));
const io: Io = {
  // A getter: a command that reads a file never touches stdin.
  get input() {
    return process.stdin;
  },
  inputIsDirectory: () => isDirectoryFd(0),
  out: new LineWriter(process.stdout),
  bytes: process.stdout,
  err: (line) => {
    // Event lines made before this one go first.
    stderrEvents.flush();
    process.stderr.write(`${line}\n`);
  },
  log: (line) => stderrEvents.write(line),
  settle: async (ms) => {
    stderrEvents.flush(true);
    await drainedWithin(process.stderr, ms);
    return process.stderr.writableLength === 0;
  },
  cwd: process.cwd(),
};

process.exitCode = await main(process.argv.slice(2), io);
