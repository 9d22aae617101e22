// The CLI benchmark's peer: a bare Node pipe of a file, what `relay FILE OUT` is measured against.
//
//   node bench/peers/pipe.mjs IN OUT [READ_BYTES]
//
// READ_BYTES: the read size (highWaterMark); Node's default, 64 KiB, when left out.

import fs from 'node:fs';

const [input, output, read] = process.argv.slice(2);
fs.createReadStream(input, read ? { highWaterMark: Number(read) } : {}).pipe(fs.createWriteStream(output));
