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
