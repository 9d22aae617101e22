// The public API, as API Extractor reads it from the built declarations: one report per entry in etc/, committed.
//
//   node scripts/api-report.mjs            compare: exit 1 when an entry's API differs from its report
//   node scripts/api-report.mjs --update   write the reports anew (then commit them)
//
// `npm run check` compares, so every change to what an entry exports shows in review as a change to
// etc/*.api.md. Run after `npm run build`: it reads dist/runtime/*.d.ts.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('..', import.meta.url));
const update = process.argv.includes('--update');

/** Each entry of package.json's exports that declares an API, and the name of its report. */
const ENTRIES = [
  ['mcp-frames', 'dist/runtime/api.d.ts'],
  ['mcp-frames-tcp', 'dist/runtime/tcp.d.ts'],
  ['mcp-frames-proxy', 'dist/runtime/proxy.d.ts'],
  ['mcp-frames-client', 'dist/runtime/client.d.ts'],
  ['mcp-frames-worker', 'dist/runtime/worker.d.ts'],
  ['mcp-frames-core', 'dist/runtime/core.d.ts'],
  ['mcp-frames-wasm', 'dist/runtime/wasm-build.d.ts'],
];

let failed = 0;
for (const [name, entry] of ENTRIES) {
  if (!existsSync(path.join(root, entry))) {
    console.error(`api-report: ${entry} is missing; run npm run build first`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: path.join(root, entry),
      compiler: { tsconfigFilePath: path.join(root, 'tsconfig.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${name}.api.md`,
        reportFolder: path.join(root, 'etc'),
        reportTempFolder: path.join(root, 'node_modules/.cache/api-report'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is the review; release tags and TSDoc style are not asked of this package.
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          'ae-internal-missing-underscore': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } },
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      },
    },
    configObjectFullPath: path.join(root, 'api-extractor.json'),
    packageJsonFullPath: path.join(root, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    showVerboseMessages: false,
    messageCallback: (m) => {
      // Each message is in the report already (addToApiReportFile); the console gets only the verdict.
      if (m.category === 'Extractor' || m.category === 'TSDoc') m.handled = true;
    },
  });
  if (!result.succeeded || (!update && result.apiReportChanged)) {
    failed++;
    console.error(`api-report: ${name}: the API differs from etc/${name}.api.md (npm run api:update writes it; commit the change)`);
  } else {
    console.log(`api-report: ${name}: ${update && result.apiReportChanged ? 'written' : 'as reported'}`);
  }
}
process.exit(failed ? 1 : 0);
