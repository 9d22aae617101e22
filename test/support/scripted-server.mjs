// A stdio MCP server whose answers a test chooses by the URI it reads: the cases a real server rarely gives on demand.
//
//   resources/read uri:
//     spelled      a result with number spellings and escapes no printer makes
//     surrogate    a result with a lone surrogate escape (breaks WIRE.md 4.1)
//     crash        the process exits with status 3 before answering
//     hang         never answered
//     ask          sends a sampling request and a notification first, then answers
//                  with what the proxy replied to the request
//     cancelled    the requestIds of every notifications/cancelled received so far
//     received     every request received so far, as [method, bytes of its line]
//     line         the line of this request, as it came
//     size/N       a result whose text is N bytes, written as the SDK writes it: result first, id last
//     size-id-first/N   the same with the id first
//     fill/N/C     a result whose text is N copies of the letter or digit C, result first, id last
//     no-id/N      a line of N bytes with no id in it
//     contents-not-array   {"contents":"not an array"} (breaks the schema, rule 4.2)
//     both/result-first, both/error-first   a response holding result and error both
//   resources/list cursor uri-5: {"resources":[{"uri":5}]} (rule 4.2)
//   prompts/list cursor bad-error: the error {"code":"x","message":5} (rule 4.2)
//   anything else: -32002, resource not found.
//
// The environment can make it misbehave as a whole:
//   SCRIPTED_INIT_DELAY_MS=N        answer initialize N ms after it comes
//   SCRIPTED_EXIT_AFTER_INIT_MS=N   exit N ms after answering initialize
//   SCRIPTED_STOP_READING=1         read nothing more of stdin after initialize
//   SCRIPTED_STUBBORN=1             ignore SIGTERM, and stay up when stdin ends

import { createInterface } from 'node:readline';

const write = (text) => process.stdout.write(`${text}\n`);
const cancelled = [];
const received = [];
const asked = new Map();
let askId = 1000;

if (process.env.SCRIPTED_STUBBORN) {
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1 << 30);
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    const result = `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"scripted","version":"1"}}}`;
    const delay = Number(process.env.SCRIPTED_INIT_DELAY_MS);
    if (delay > 0) setTimeout(() => write(result), delay);
    else write(result);
    const exitAfter = Number(process.env.SCRIPTED_EXIT_AFTER_INIT_MS);
    if (exitAfter >= 0) setTimeout(() => process.exit(0), exitAfter);
    if (process.env.SCRIPTED_STOP_READING) {
      lines.close();
      process.stdin.pause();
      // Kept alive, reading nothing: its stdin pipe fills, and the proxy's writes wait.
      setInterval(() => {}, 1 << 30);
    }
    return;
  }
  if (m.id !== undefined && m.method !== undefined) received.push([m.method, Buffer.byteLength(line)]);
  if (m.method === 'notifications/cancelled') {
    cancelled.push(m.params.requestId);
    return;
  }
  if (m.id === undefined) return; // other notifications: nothing to answer
  if (m.method === undefined) {
    // The proxy's reply to a request of ours.
    const pending = asked.get(m.id);
    asked.delete(m.id);
    if (pending !== undefined) {
      const text = JSON.stringify(JSON.stringify(m));
      write(`{"jsonrpc":"2.0","id":${pending},"result":{"contents":[{"uri":"scripted://ask","text":${text}}]}}`);
    }
    return;
  }
  const uri = m.params?.uri ?? m.params?.cursor;
  const id = JSON.stringify(m.id);
  // scripted://fill/N/C: a text of N times the character C.
  const filled = /^scripted:\/\/fill\/(\d+)\/([A-Za-z0-9])$/.exec(uri ?? '');
  if (filled) {
    write(`{"result":{"contents":[{"uri":"scripted://fill","text":"${filled[2].repeat(Number(filled[1]))}"}]},"jsonrpc":"2.0","id":${id}}`);
    return;
  }
  // scripted://later/MS: answered after MS milliseconds.
  const later = /^scripted:\/\/later\/(\d+)$/.exec(uri ?? '');
  if (later) {
    setTimeout(() => write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":${JSON.stringify(uri)},"text":"later"}]}}`), Number(later[1]));
    return;
  }
  const sized = /^scripted:\/\/(size|size-id-first|no-id)\/(\d+)$/.exec(uri ?? '');
  if (sized) {
    const pad = 'x'.repeat(Number(sized[2]));
    if (sized[1] === 'size') write(`{"result":{"contents":[{"uri":"scripted://size","text":"${pad}"}]},"jsonrpc":"2.0","id":${id}}`);
    else if (sized[1] === 'size-id-first') write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"scripted://size","text":"${pad}"}]}}`);
    else write(`{"jsonrpc":"2.0","result":{"contents":[{"uri":"scripted://size","text":"${pad}"}]}}`);
    return;
  }
  switch (uri) {
    case 'scripted://line':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"scripted://line","text":${JSON.stringify(line)}}]}}`);
      return;
    case 'scripted://received':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"scripted://received","text":${JSON.stringify(JSON.stringify(received))}}]}}`);
      return;
    case 'scripted://contents-not-array':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":"not an array"}}`);
      return;
    case 'uri-5':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"resources":[{"uri":5}]}}`);
      return;
    case 'bad-error':
      write(`{"jsonrpc":"2.0","id":${id},"error":{"code":"x","message":5}}`);
      return;
    case 'scripted://both/result-first':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[]},"error":{"code":-32603,"message":"and an error"}}`);
      return;
    case 'scripted://both/error-first':
      write(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"and a result"},"result":{"contents":[]}}`);
      return;
    case 'scripted://spelled':
      write(
        `{"id":${id},"jsonrpc":"2.0","result":{"contents":[{"text":"caf\\u00e9 \\/ \\ud83d\\ude00","uri":"scripted://spelled","x-n":[1.0,1e2,-0,0.1e-1]}],"_meta":{"z":1,"a":2}}}`,
      );
      return;
    case 'scripted://surrogate':
      write(`{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"scripted://surrogate","text":"\\ud800"}]}}`);
      return;
    case 'scripted://crash':
      process.exit(3);
      return;
    case 'scripted://hang':
      return;
    case 'scripted://ask': {
      const ours = askId++;
      asked.set(ours, m.id);
      write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"asking"}}`);
      write(`{"jsonrpc":"2.0","id":${ours},"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`);
      return;
    }
    case 'scripted://cancelled':
      write(
        `{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"scripted://cancelled","text":${JSON.stringify(JSON.stringify(cancelled))}}]}}`,
      );
      return;
    default:
      write(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32002,"message":"Resource not found","data":{"uri":${JSON.stringify(uri ?? null)}}}}`);
  }
});
