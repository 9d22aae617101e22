#!/usr/bin/env node
// Renders report.md and report.svg again from a report.json, without
// running anything: `node bench/render.mjs [path/to/report.json]`.
// For when only the presentation changed; the numbers stay those of the run.
// From the committed report it writes the README's benchmark table too.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { withHeadline } from './lib/headline.mjs';
import { renderMarkdown } from './lib/report.mjs';
import { renderSvg } from './lib/svg.mjs';
import { ROOT } from './lib/env.mjs';

const file = resolve(process.argv[2] ?? join(ROOT, 'bench', 'report', 'report.json'));
const report = JSON.parse(readFileSync(file, 'utf8'));
const dir = dirname(file);
writeFileSync(join(dir, 'report.md'), renderMarkdown(report));
writeFileSync(join(dir, 'report.svg'), renderSvg(report));
const committed = join(ROOT, 'bench', 'report', 'report.json');
if (file === committed) {
  const readme = join(ROOT, 'README.md');
  writeFileSync(readme, withHeadline(readFileSync(readme, 'utf8'), report));
}
process.stderr.write(
  `rendered ${join(dir, 'report.md')} and report.svg${file === committed ? ", and README.md's benchmark table," : ''} from ${file}\n`,
);
