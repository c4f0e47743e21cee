#!/usr/bin/env node
// Renders the VS Code report webview's page (editors/vscode/src/report.ts,
// bundled by the caller with esbuild) for each case of a JSON file
// {name: <nestor.profile result>}, into OUT_DIR/<name>.html. Used by
// tests/profiler/svg_render_test.py to check the chart in headless Chromium.
//   node render_report_pages.cjs REPORT_BUNDLE.cjs CASES.json OUT_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const [bundle, casesFile, outDir] = process.argv.slice(2);
const report = require(path.resolve(bundle));
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
for (const [name, result] of Object.entries(cases)) {
  const parsed = report.parseProfileResult(result);
  if (parsed.kind !== 'report') throw new Error(`${name}: not a report (${parsed.kind}: ${parsed.message})`);
  fs.writeFileSync(path.join(outDir, `${name}.html`), report.renderReportHtml(parsed, { nonce: 'dGVzdG5vbmNl' }));
}
