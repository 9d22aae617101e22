// The CLI benchmark's peer: a bare Node pipe of a file, what `relay FILE OUT` is measured against.
//
//   node bench/peers/pipe.mjs IN OUT

import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
fs.createReadStream(input).pipe(fs.createWriteStream(output));
