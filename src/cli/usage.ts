// What `mcp-frames --help` says: the commands, the flags, the limits and the exit statuses.
//
// The limits' defaults are printed from the constants the decoder uses, so
// the help cannot drift from the behaviour.

import { readFileSync } from 'node:fs';
import { BACKEND_CHOICES } from '../backend/builds.js';
import { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_HELD_BYTES, DEFAULT_MAX_OPEN_CHANNELS } from '../records/limits.js';
import {
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_EXCHANGE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_MAX_CLIENT_QUEUE_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../connection/defaults.js';
import { U32_MAX } from '../records/record.js';
import { DEFAULT_VECTORS_DIR } from './vectors-dir.js';
import { size } from './output.js';

/** The package's version, from the package.json two folders above this module (dist/cli/). */
export function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return String((pkg as { version?: unknown }).version);
}

/** What each command line looks like: `mcp-frames` alone, or with a command it does not know, prints these. */
const SYNOPSIS = `Usage:
  mcp-frames decode --endpoint NAME --hex [--backend B]
  mcp-frames inspect --endpoint NAME [--backend B] [--json] [limits] [FILE|-]
  mcp-frames relay [--validate json|full|none] [--endpoint NAME] [--backend B]
                   [limits] [IN [OUT]]
  mcp-frames relay --listen HOST:PORT --upstream HOST:PORT [same flags]
  mcp-frames proxy --listen HOST:PORT [--validate full|json] [proxy flags]
                   (-- COMMAND [ARGS...] | --server-url URL)
  mcp-frames request HOST:PORT METHOD [PARAMS_JSON] [--timeout S] [--backend B]
  mcp-frames conformance [--backend B] [DIR]
  mcp-frames help | --help | -h      all of the help (also: COMMAND --help)
  mcp-frames --version               the package version`;

/** The short usage: the command lines and where the rest is. */
export function shortUsage(): string {
  return `${SYNOPSIS}\n\nmcp-frames COMMAND --help says what a command does and which flags it takes.`;
}

export type CommandName = 'decode' | 'inspect' | 'relay' | 'proxy' | 'request' | 'conformance';

/** The commands, in the order the full help gives them. */
const COMMAND_NAMES: readonly CommandName[] = ['decode', 'inspect', 'relay', 'proxy', 'request', 'conformance'];

/** A command's usage lines and what it does. */
function commandText(name: CommandName): string {
  switch (name) {
    case 'decode':
      return `  mcp-frames decode --endpoint NAME --hex [--backend B]
      Reads stdin: one payload per line, in hex. An empty line is the empty
      payload; a "\\r" before the "\\n" is ignored; a final newline does not
      add a line. Prints one JSON line per input line, in order:
        {"kind":"result","result":...}         a result, as the server sent it
        {"kind":"error","error":...}           the MCP server's error, as sent
        {"kind":"frame-error","reason":...}    not a frame: empty, unknown-tag,
                                               or body (with rule and offset)
        {"kind":"input-error","line":N,...}    the line is not hex; decoding
                                               goes on with the next line`;
    case 'inspect':
      return `  mcp-frames inspect --endpoint NAME [--backend B] [--json] [--max-frame-bytes N]
                     [--max-open-channels N] [--max-held-bytes N] [FILE|-]
      Reads a record stream from FILE, or from stdin when FILE is absent or
      "-", and prints each channel's outcome as soon as it is known, then
      how the stream ended: a table, or with --json one JSON line each:
        {"channel":n,"outcome":"result"|"error"|"frame-error"|"not-carried"
                              |"sequence-violation"|"incomplete",...}
        {"end":"ok"}  or  {"end":"record-error","reason":...,"offset":n}`;
    case 'relay':
      return `  mcp-frames relay [--validate json|full|none] [--endpoint NAME] [--backend B]
                   [--max-frame-bytes N] [--max-open-channels N]
                   [--max-held-bytes N] [IN [OUT]]
  mcp-frames relay --listen HOST:PORT --upstream HOST:PORT [same flags]
                   [--connect-timeout S] [--idle-timeout S] [--drain-timeout S]
                   [--client-idle-timeout S] [--max-connections N]
                   [--workers N|auto] [--metrics HOST:PORT | --health HOST:PORT]
                   [--proxy-protocol] [--log-level error|warn|info]
      Forwards every valid record byte for byte, from IN (or stdin) to OUT
      (or stdout), or from each TCP client's own upstream connection back to
      the client. A response whose frame fails is dropped and its finish goes
      alone (not carried); an extra response is dropped; on a record error or
      at the end, every open channel gets its finish. Each fault is one JSON
      line on stderr. --validate json (default) checks the tag and strict
      JSON; full also the --endpoint schema; none only records and sequences.
      A TCP relay prints {"listening":...} on stderr and runs until SIGTERM
      or SIGINT; then it drains: /readyz answers 503, it stops accepting once
      no client has come for a second, lets open connections end (an idle
      one once its client has been quiet a second) for up to --drain-timeout, gives each one still open a finish for
      each open channel and a reset, and exits 0. A second signal exits at
      once (128 + the signal's number), resetting every open connection.
      With --workers, node:cluster runs that many worker processes; the
      primary accepts, hands each connection to a worker, and resets the
      connections of a worker that dies (a client never sees a clean end
      of a cut stream), then restarts it. Past --max-connections open, a
      new client is reset as it comes. --metrics serves GET /metrics in
      the Prometheus text format.
      Log lines are JSON with time, level and event; faults are warn (one
      exchange) or error (the connection failed); connections opening and
      closing are info. When upstream fails (refused, unreachable, unknown
      host, reset, a stream cut inside a record, a record error, a timeout)
      the client gets a finish for each open channel and then a reset, never
      a clean end, and a line names the connection and the cause:
        {"connection":n,"reason":"upstream-error","cause":"refused"|"reset"|
         "unreachable"|"dns"|"timeout"|"error","code":...,"message":...}
        {"connection":n,"reason":"upstream-timeout","phase":"connect"|"idle",
         "afterMs":n}
      A connection that goes nowhere for --client-idle-timeout (nothing in
      flight and no byte either way, or a client that takes nothing) is
      reset, and a line says so:
        {"connection":n,"reason":"client-idle-timeout","afterMs":n}`;
    case 'proxy':
      return `  mcp-frames proxy --listen HOST:PORT [--validate full|json] [--backend B]
                   [--exchange-timeout S] [--initialize-timeout S]
                   [--client-idle-timeout S]
                   [--drain-timeout S] [--max-connections N]
                   [--max-client-queue N] [--max-line-bytes N]
                   [--max-message-bytes N] [--metrics HOST:PORT | --health HOST:PORT]
                   [--proxy-protocol] [--log-level error|warn|info]
                   (-- COMMAND [ARGS...] | --server-url URL)
      Runs COMMAND as a stdio MCP server, or reaches the Streamable HTTP
      server at URL, initializes it once, and serves TCP clients. A client
      sends one JSON line per exchange:
        {"channel":N,"method":"resources/read","params":{...}}
      (method: one of the eight endpoints' methods) and gets that channel's
      response record, then its finish. The frame is the server's result or
      error member byte for byte as the server wrote it, judged first by
      --validate: full (default) holds it to every wire rule, the method's
      schema included; json to the tag and strict JSON. An exchange is not
      carried (its finish alone, and a fault line naming the cause) when the
      answer breaks those rules or is past --max-message-bytes, the server
      ends (it is started again after a backoff) or is not reading its
      requests, --exchange-timeout passes (default ${DEFAULT_EXCHANGE_TIMEOUT_MS / 1000}; the server is sent
      notifications/cancelled), or the proxy drains. Refused lines are
      reported. A client that leaves more than --max-client-queue bytes of
      answers unread is reset and its exchanges cancelled at the server.
      Prints {"listening":...} on stderr; log lines, --max-connections,
      --client-idle-timeout, --metrics and the drain on SIGTERM are the
      relay's.`;
    case 'request':
      return `  mcp-frames request HOST:PORT METHOD [PARAMS_JSON] [--timeout S] [--backend B]
      Asks a proxy (or a relay in front of one) for one exchange: METHOD is
      one of the eight endpoints' methods (resources/read, tools/call, …),
      PARAMS_JSON its params as a JSON object (strict JSON text). Prints the
      outcome as one JSON line on stdout:
        {"outcome":"result","result":…}
        {"outcome":"error","error":{"code":…,"message":…,"data":…}}
        {"outcome":"not-carried"}  {"outcome":"frame-error","fault":…}
        {"outcome":"cut","end":…}  {"outcome":"unreachable","message":…}
        {"outcome":"timeout","afterMs":…}
      Exit status 0 for a result, 1 for anything else, 2 for bad usage.`;
    case 'conformance':
      return `  mcp-frames conformance [--backend B] [DIR]
      Answers the vectors in DIR/frames.json and DIR/streams.json, one line
      each, then "conformance (BACKEND): N/M vectors answered exactly".
      DIR defaults to the vectors this package ships (spec/vectors/ at the
      package root: ${DEFAULT_VECTORS_DIR}).`;
  }
}

/** Each command's flags, in the order the flags' table gives them. */
const COMMAND_FLAGS: Readonly<Record<CommandName, readonly string[]>> = {
  decode: ['endpoint', 'backend', 'hex'],
  inspect: ['endpoint', 'backend', 'json', 'limits'],
  relay: ['endpoint', 'backend', 'limits', 'tcp', 'serve'],
  proxy: ['backend', 'proxy', 'serve'],
  request: ['request', 'backend'],
  conformance: ['backend'],
};

/** The flags' table, in groups a command takes whole. */
async function flagText(group: string): Promise<string> {
  switch (group) {
    case 'endpoint': {
      const { ENDPOINTS } = await import('../frame/endpoints.js');
      return `  --endpoint NAME         the result every frame carries; one of:
${wrap(Object.keys(ENDPOINTS).join(', '), 26)}
                          or its method (resources/read, …); a relay that
                          listens also takes auto, its default when it
                          validates in full: each channel by the method
                          its request line named`;
    }
    case 'backend':
      return `  --backend B             who checks the bytes; one of:
${wrap(BACKEND_CHOICES.join(', '), 26)}
                          default auto: the WebAssembly core when it loads,
                          else js. wasm: the SIMD build when the host runs
                          it, else the scalar one.`;
    case 'hex':
      return '  --hex                   the input format of decode (required; the only one)';
    case 'json':
      return '  --json                  inspect: JSON lines instead of a table';
    case 'limits':
      return `  --max-frame-bytes N     the largest payload a response may declare, checked
                          from the record header; default ${DEFAULT_MAX_FRAME_BYTES} (${size(DEFAULT_MAX_FRAME_BYTES)}),
                          from 0 up to ${U32_MAX} (2^32 - 1)
  --max-open-channels N   how many channels may be open at once (a response,
                          no finish yet); default ${DEFAULT_MAX_OPEN_CHANNELS}, from 1 up to ${U32_MAX}
  --max-held-bytes N      the most payload bytes a stream may hold at once: the
                          responses of open channels and the one being read;
                          default ${DEFAULT_MAX_HELD_BYTES} (${size(DEFAULT_MAX_HELD_BYTES)}), from 0 up to 2^53 - 1
  Limits are whole numbers in decimal; breaking one is a record error
  (oversize, too-many-channels, held-limit) that stops the stream.`;
    case 'proxy':
      return `  -- COMMAND [ARGS...]    proxy: run COMMAND as a stdio MCP server
  --server-url URL        proxy: reach the Streamable HTTP MCP server at URL
                          (http: or https:) instead
  --validate full|json    proxy: how much of the wire rules answers are held to:
                          full (default) every rule, the method's schema
                          included; json the tag and strict JSON
  --exchange-timeout S    proxy: seconds an exchange may wait for its answer;
                          default ${DEFAULT_EXCHANGE_TIMEOUT_MS / 1000}, 0 for never
  --initialize-timeout S  proxy: seconds a server may take to answer initialize
                          before it is stopped and started again
                          (server-init-failed); default ${DEFAULT_INITIALIZE_TIMEOUT_MS / 1000}, 0 for never
  --max-client-queue N    proxy: answer bytes a client may leave unread before
                          it is reset; default ${DEFAULT_MAX_CLIENT_QUEUE_BYTES} (${size(DEFAULT_MAX_CLIENT_QUEUE_BYTES)}); 0 lets one
                          answer wait at a time
  --max-message-bytes N   proxy: the longest message read from the server; a
                          longer answer is not carried; default ${DEFAULT_MAX_FRAME_BYTES + 64 * 1024}`;
    case 'request':
      return `  --timeout S             request: seconds to connect and be answered; default
                          ${DEFAULT_REQUEST_TIMEOUT_MS / 1000} (past the proxy's own exchange timeout), 0 for never`;
    case 'serve':
      return `  --listen HOST:PORT      relay, proxy: where clients connect (port 0: any)
  --client-idle-timeout S relay --listen, proxy: seconds a connection may go
                          nowhere: nothing in flight and no byte either way, or
                          a client that takes nothing; default ${DEFAULT_CLIENT_IDLE_TIMEOUT_MS / 1000}, 0 for never
  --max-connections N     relay --listen, proxy: most connections open at once;
                          past it a new client is reset as it comes; default
                          ${DEFAULT_MAX_CONNECTIONS}, 0 for no limit
  --drain-timeout S       relay --listen, proxy: seconds open connections get to
                          end after SIGTERM or SIGINT; default ${DEFAULT_DRAIN_TIMEOUT_MS / 1000}
  --max-line-bytes N      proxy: the longest request line; relay --listen with
                          endpoint auto: the longest it reads (the proxy's);
                          default ${DEFAULT_MAX_LINE_BYTES} (${size(DEFAULT_MAX_LINE_BYTES)})
  --proxy-protocol        relay --listen, proxy: every connection starts with
                          a PROXY protocol header (v1 or v2) from the load
                          balancer in front; logs name the client it gives.
                          One without a header in 5 s is reset and logged
  --metrics HOST:PORT     relay --listen, proxy: serve GET /metrics there
                          (Prometheus), and /healthz and /readyz
  --health HOST:PORT      relay --listen, proxy: serve GET /healthz (200 while
                          the process serves) and /readyz (200 while it takes
                          clients, 503 from the start of a drain, and while
                          the proxy's MCP server is not ready) there, when
                          --metrics is off
  --log-level L           relay, proxy: error, warn (default) or info`;
    default:
      return `  --upstream HOST:PORT    relay --listen: where each client's own upstream
                          connection goes
  --connect-timeout S     relay --listen: seconds upstream may take to accept a
                          connection; default ${DEFAULT_CONNECT_TIMEOUT_MS / 1000}, 0 for the system's own
  --idle-timeout S        relay --listen: seconds upstream may stay silent while
                          a channel is open or a record is partly received;
                          default ${DEFAULT_IDLE_TIMEOUT_MS / 1000}, 0 for never
  --workers N|auto        relay --listen: worker processes sharing the port;
                          auto is one per core; default 1 (this process)`;
  }
}

const EXIT_STATUS = `Exit status:
  0  decode: every line was hex. inspect, relay: the stream ended ok.
     relay --listen, proxy: drained after SIGTERM or SIGINT.
     conformance: every vector answered exactly. help, --version.
     Also when the reader of stdout went away (EPIPE: \`| head\`).
  1  decode: some line was not hex (its input-error line was printed).
     inspect, relay: a record error stopped the stream.
     proxy: no server could be started: 5 starts in a row ended before one
     was ready (a command that does not exist, a server that exits at
     once); the line before says why.
     request: the outcome was not a result (an MCP error, not carried, a
     frame error, the connection cut or not made): its line says which.
     conformance: some vector was not answered exactly.
  2  bad usage: no command, an unknown command or flag, a flag's value given
     twice, a missing or unknown --endpoint, decode without --hex, a bad
     limit, a backend that is not available here, or an input that cannot be
     opened or is a directory (stdin included); relay --listen, proxy: a
     port or address that cannot be listened on. One line on stderr says which.
  70 a bug in mcp-frames: an unexpected error, with its stack on stderr.
  74 a read or a write failed once the command had started (a full disk,
     an I/O error): one line on stderr names the file and the cause.
  128 + N  relay --listen, proxy: a second SIGTERM or SIGINT (N its number)
     exits at once, resetting every open connection.
  A frame error, a not-carried exchange or a sequence violation is an
  answer about the input, not a failure: it does not change the status.`;

const TITLE = () => `mcp-frames ${version()}: MCP channel responses as frames, sequences and records`;

/** The whole help: every command, every flag, the exit statuses. */
export async function usage(): Promise<string> {
  const flags: string[] = [];
  for (const group of ['endpoint', 'backend', 'hex', 'json', 'limits', 'serve', 'tcp', 'proxy']) flags.push(await flagText(group));
  return `${TITLE()}

Usage:
${COMMAND_NAMES.map(commandText).join('\n\n')}

  mcp-frames help | --help | -h      this text (also: COMMAND --help)
  mcp-frames --version               the package version

Flags:
${flags.join('\n')}

${EXIT_STATUS}
`;
}

/** One command's help: its command lines, what it does, and only the flags it takes. */
export async function commandUsage(name: CommandName): Promise<string> {
  const flags: string[] = [];
  for (const group of COMMAND_FLAGS[name]) flags.push(await flagText(group));
  return `${TITLE()}

Usage:
${commandText(name)}

Flags:
${flags.join('\n')}

mcp-frames --help gives every command and the exit statuses.
`;
}

/** `text` broken at spaces into lines of at most 78 columns, each indented by `indent`. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > 78) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => ' '.repeat(indent) + l).join('\n');
}
