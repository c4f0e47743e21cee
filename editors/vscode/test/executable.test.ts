import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findServer } from '../src/executable';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nestor-exe-'));
}

function fakeBinary(dir: string, name = 'nestor'): string {
  fs.mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  fs.writeFileSync(p, '#!/bin/sh\n');
  fs.chmodSync(p, 0o755);
  return p;
}

test('the default name is found on PATH before a bundled binary', () => {
  const root = tempDir();
  const onPath = fakeBinary(path.join(root, 'path-bin'));
  const ext = path.join(root, 'ext');
  fakeBinary(path.join(ext, 'bin'));
  const r = findServer('nestor', { isDefault: true, extensionPath: ext, searchPath: path.join(root, 'path-bin') });
  assert.deepEqual(r, { ok: true, resolvedPath: onPath, source: 'PATH' });
});

test('without nestor on PATH the binary next to the extension is used', () => {
  const root = tempDir();
  const ext = path.join(root, 'ext');
  const bundled = fakeBinary(path.join(ext, 'bin'));
  const r = findServer('nestor', { isDefault: true, extensionPath: ext, searchPath: path.join(root, 'empty') });
  assert.deepEqual(r, { ok: true, resolvedPath: bundled, source: 'extension' });
});

test('nowhere: the reason names PATH and the extension folder', () => {
  const root = tempDir();
  const r = findServer('nestor', { isDefault: true, extensionPath: path.join(root, 'ext'), searchPath: root });
  assert.equal(r.ok, false);
  assert.match((r as { reason: string }).reason, /not found on PATH nor in the extension \(.*ext\/bin\)/);
});

test('a configured path is used as configured, never replaced by a bundled one', () => {
  const root = tempDir();
  const ext = path.join(root, 'ext');
  fakeBinary(path.join(ext, 'bin'));
  const configured = fakeBinary(path.join(root, 'opt'));
  assert.deepEqual(findServer(configured, { isDefault: false, extensionPath: ext, searchPath: '' }),
    { ok: true, resolvedPath: configured, source: 'settings' });
  const missing = findServer(path.join(root, 'nope', 'nestor'), { isDefault: false, extensionPath: ext, searchPath: '' });
  assert.equal(missing.ok, false);
  assert.match((missing as { reason: string }).reason, /does not exist/);
});
