// Bundles the extension (dist/extension.js, with vscode-languageclient inlined
// so the .vsix needs no node_modules) or, with --tests, the unit tests
// (out/test/*.test.js) that `node --test` runs without VS Code.
import * as esbuild from 'esbuild';
import { readdirSync } from 'fs';

const tests = process.argv.includes('--tests');
const common = { bundle: true, platform: 'node', target: 'node18', format: 'cjs', sourcemap: true, logLevel: 'warning' };

if (tests) {
  const entryPoints = readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  // The pure modules under test must not import `vscode`; marking it external
  // would hide such a mistake until run time, so it is deliberately not external here.
  await esbuild.build({ ...common, entryPoints, outdir: 'out/test' });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: process.argv.includes('--minify'),
  });
}
