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
//   anything else: -32002, resource not found.

import { createInterface } from 'node:readline';

const write = (text) => process.stdout.write(`${text}\n`);
const cancelled = [];
const asked = new Map();
let askId = 1000;

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    write(
      `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"scripted","version":"1"}}}`,
    );
    return;
  }
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
  const uri = m.params?.uri;
  const id = JSON.stringify(m.id);
  switch (uri) {
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
