// Checks, before the language client is started, that the configured server
// executable exists, so a wrong `nestor.server.path` gives one clear message
// naming the setting instead of a bare "spawn ENOENT".
import * as fs from 'fs';
import * as path from 'path';

export type ExecutableCheck =
  | { ok: true; resolvedPath: string }
  | { ok: false; reason: string };

function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function checkExecutable(command: string, searchPath: string | undefined = process.env.PATH): ExecutableCheck {
  if (command.includes('/') || command.includes('\\')) {
    if (!fs.existsSync(command)) return { ok: false, reason: `${command} does not exist` };
    if (!isExecutableFile(command)) return { ok: false, reason: `${command} is not an executable file` };
    return { ok: true, resolvedPath: command };
  }
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').concat(['']) : [''];
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      if (isExecutableFile(candidate)) return { ok: true, resolvedPath: candidate };
    }
  }
  return { ok: false, reason: `"${command}" was not found on PATH` };
}

/**
 * Where the server comes from when `nestor.server.path` is left at its default
 * (the bare name `nestor`): `PATH` first, then a binary shipped inside the
 * extension (`<extension>/bin/nestor`, what `scripts/package-vsix --bundle`
 * puts there). A configured path or name is used as configured.
 */
export function findServer(
  command: string,
  opts: { isDefault: boolean; extensionPath?: string; searchPath?: string },
): ExecutableCheck & { source?: 'settings' | 'PATH' | 'extension' } {
  const onPath = checkExecutable(command, opts.searchPath);
  if (!opts.isDefault) return { ...onPath, ...(onPath.ok ? { source: 'settings' as const } : {}) };
  if (onPath.ok) return { ...onPath, source: 'PATH' };
  if (opts.extensionPath) {
    const bundled = path.join(opts.extensionPath, 'bin', process.platform === 'win32' ? 'nestor.exe' : 'nestor');
    if (isExecutableFile(bundled)) return { ok: true, resolvedPath: bundled, source: 'extension' };
    return {
      ok: false,
      reason: `"${command}" was not found on PATH nor in the extension (${path.join(opts.extensionPath, 'bin')})`,
    };
  }
  return onPath;
}
