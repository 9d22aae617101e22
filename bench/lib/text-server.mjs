// A stdio MCP server whose resources/read answers hold one text of about ANSWER_BYTES (1 MiB by default), and the bytes it writes.
//
// Imported, it gives the bench the result bytes each answer carries, to check
// the frames against; run (`node text-server.mjs`), it is the server. The
// text is seeded prose in lines: ASCII words, some quoted, some not ASCII,
// with tabs and line feeds, so that its JSON string has escapes all through
// it as a text file's would. It is built and escaped once; each answer
// differs only in its uri.

import { pathToFileURL } from 'node:url';
import { createRng } from './rng.mjs';

const WORDS = ['resource', 'frame', 'record', 'channel', 'the', 'a', 'of', 'and', 'relay', 'proxy', 'schema', 'naïve', 'café', '—', 'übung', '漢字'];

/** A text whose JSON string is about `size` bytes, seeded: words in lines of about 72 characters. */
export function answerText(size) {
  const rng = createRng(0x7e47);
  const parts = [];
  let length = 0;
  let line = 0;
  while (length < size) {
    let word = rng.pick(WORDS);
    const r = rng.next();
    if (r < 0.02) word = `"${word}"`;
    else if (r < 0.03) word = `\t${word}`;
    const sep = line + word.length > 72 ? '\n' : ' ';
    line = sep === '\n' ? 0 : line + word.length + 1;
    parts.push(word, sep);
    // Its bytes in the JSON string, escapes included.
    length += Buffer.byteLength(JSON.stringify(word + sep)) - 2;
  }
  return parts.join('');
}

/** The bytes of the result member for `uri`, given the text already escaped as a JSON string. */
export function resultBytes(uri, textJson) {
  return `{"contents":[{"uri":${JSON.stringify(uri)},"mimeType":"text/plain","text":${textJson}}]}`;
}

async function serve() {
  const { createInterface } = await import('node:readline');
  const textJson = JSON.stringify(answerText(Number(process.env.ANSWER_BYTES ?? 1024 * 1024)));
  const write = (text) => process.stdout.write(`${text}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    const id = JSON.stringify(m.id);
    if (m.id === undefined) return;
    if (m.method === 'initialize') {
      const result = { protocolVersion: '2025-06-18', capabilities: { resources: {} }, serverInfo: { name: 'text-server', version: '1' } };
      write(`{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result)}}`);
    } else if (m.method === 'resources/read') {
      // As the SDK writes a response: result first, the id last.
      write(`{"result":${resultBytes(m.params.uri, textJson)},"jsonrpc":"2.0","id":${id}}`);
    } else write(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await serve();
