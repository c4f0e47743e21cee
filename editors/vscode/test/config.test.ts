import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { configurationChangePayload, resolveSettings, sameLaunch } from '../src/config';

const env = { workspaceFolder: '/home/u/proj', userHome: '/home/u', workspaceTrusted: true };

test('defaults give `nestor lsp` and the contract initializationOptions', () => {
  const r = resolveSettings({}, env);
  assert.deepEqual(r.launch, { command: 'nestor', args: ['lsp'] });
  assert.deepEqual(r.initializationOptions, {
    compileCommandsDir: null,
    gpuArch: 'sm_90',
    workspaceTrusted: true,
    profile: { buildCommand: '', runCommand: '' },
  });
  assert.deepEqual(r.problems, []);
});

test('all settings map onto the keys of the contract', () => {
  const r = resolveSettings({
    serverPath: '/opt/nestor/bin/nestor',
    serverArgs: ['--log-level', 'debug'],
    compileCommandsDir: 'build',
    gpuArch: 'sm_80',
    buildCommand: 'make bench',
    runCommand: './bench --kernel tmv',
  }, { ...env, workspaceTrusted: false });
  assert.deepEqual(r.launch, { command: '/opt/nestor/bin/nestor', args: ['lsp', '--log-level', 'debug'] });
  assert.deepEqual(r.initializationOptions, {
    compileCommandsDir: '/home/u/proj/build',
    gpuArch: 'sm_80',
    workspaceTrusted: false,
    profile: { buildCommand: 'make bench', runCommand: './bench --kernel tmv' },
  });
  assert.deepEqual(r.problems, []);
});

test('variables and ~ are expanded; relative server paths are resolved against the workspace', () => {
  const r = resolveSettings({
    serverPath: '${workspaceFolder}/build/cli/nestor',
    compileCommandsDir: '~/builds/proj',
    serverArgs: ['--cache=${userHome}/.cache'],
  }, env);
  assert.equal(r.launch.command, '/home/u/proj/build/cli/nestor');
  assert.deepEqual(r.launch.args, ['lsp', '--cache=/home/u/.cache']);
  assert.equal(r.initializationOptions.compileCommandsDir, '/home/u/builds/proj');
  assert.equal(resolveSettings({ serverPath: 'build/cli/nestor' }, env).launch.command, '/home/u/proj/build/cli/nestor');
  // A bare name stays a bare name: the OS looks it up on PATH.
  assert.equal(resolveSettings({ serverPath: 'nestor-dev' }, env).launch.command, 'nestor-dev');
});

test('bad values fall back to defaults and are reported, never thrown', () => {
  const r = resolveSettings({
    serverPath: 42,
    serverArgs: ['ok', 7, null],
    compileCommandsDir: { dir: 'x' },
    gpuArch: 'volta',
    buildCommand: ['make'],
    runCommand: null,
  }, env);
  assert.deepEqual(r.launch, { command: 'nestor', args: ['lsp', 'ok'] });
  assert.equal(r.initializationOptions.compileCommandsDir, null);
  assert.equal(r.initializationOptions.gpuArch, 'sm_90');
  assert.equal(r.initializationOptions.profile.buildCommand, '');
  assert.equal(r.initializationOptions.profile.runCommand, '');
  assert.equal(r.problems.length, 6, r.problems.join('\n'));
  assert.ok(r.problems.some((p) => p.includes('nestor.gpuArch') && p.includes('volta')));
  assert.ok(r.problems.some((p) => p.includes('nestor.server.args[1]')));
});

test('empty server path and args that are not an array are reported', () => {
  const r = resolveSettings({ serverPath: '   ', serverArgs: '--verbose' }, env);
  assert.deepEqual(r.launch, { command: 'nestor', args: ['lsp'] });
  assert.equal(r.problems.length, 2);
});

test('${workspaceFolder} without an open folder and unknown variables are reported and left visible', () => {
  const r = resolveSettings({ serverPath: '${workspaceFolder}/nestor', compileCommandsDir: '${buildDir}' },
    { workspaceTrusted: true });
  assert.equal(r.launch.command, '${workspaceFolder}/nestor');
  assert.equal(r.initializationOptions.compileCommandsDir, '${buildDir}');
  assert.equal(r.problems.length, 2);
});

test('empty compileCommandsDir means "let the server search"', () => {
  assert.equal(resolveSettings({ compileCommandsDir: '  ' }, env).initializationOptions.compileCommandsDir, null);
});

test('didChangeConfiguration carries the same keys under settings.nestor', () => {
  const opts = resolveSettings({ gpuArch: 'sm_90a' }, env).initializationOptions;
  assert.deepEqual(configurationChangePayload(opts), { settings: { nestor: opts } });
  assert.equal(opts.gpuArch, 'sm_90a');
});

test('sameLaunch compares command and every argument', () => {
  assert.ok(sameLaunch({ command: 'a', args: ['lsp'] }, { command: 'a', args: ['lsp'] }));
  assert.ok(!sameLaunch({ command: 'a', args: ['lsp'] }, { command: 'b', args: ['lsp'] }));
  assert.ok(!sameLaunch({ command: 'a', args: ['lsp'] }, { command: 'a', args: ['lsp', '-v'] }));
});
