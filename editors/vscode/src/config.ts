// Turns the raw `nestor.*` settings into what the language server receives.
// Kept free of the `vscode` module so it can be unit-tested with `node --test`;
// extension.ts reads the settings and passes them in as plain values.
import * as path from 'path';

export const DEFAULT_SERVER_PATH = 'nestor';
export const DEFAULT_GPU_ARCH = 'sm_90';
const GPU_ARCH_PATTERN = /^sm_[0-9]+[a-z]?$/;

/** Settings exactly as read from the configuration: anything may be wrong in them. */
export interface RawSettings {
  serverPath?: unknown;
  serverArgs?: unknown;
  compileCommandsDir?: unknown;
  gpuArch?: unknown;
  buildCommand?: unknown;
  runCommand?: unknown;
}

export interface Environment {
  /** File-system path of the first workspace folder, if any. */
  workspaceFolder?: string;
  /** Home directory, used for `~` and `${userHome}`. */
  userHome?: string;
  /** vscode.workspace.isTrusted */
  workspaceTrusted: boolean;
}

/** The contract's initializationOptions, also sent as settings.nestor in didChangeConfiguration. */
export interface InitializationOptions {
  compileCommandsDir: string | null;
  gpuArch: string;
  workspaceTrusted: boolean;
  profile: { buildCommand: string; runCommand: string };
}

export interface ServerLaunch {
  command: string;
  /** Always starts with `lsp`. */
  args: string[];
}

export interface ResolvedSettings {
  launch: ServerLaunch;
  initializationOptions: InitializationOptions;
  /** Human-readable problems with the settings; the defaults were used instead. */
  problems: string[];
}

/**
 * Expands `${workspaceFolder}`, `${userHome}` and a leading `~`. Unknown
 * `${...}` variables are left alone and reported, so a typo is visible.
 */
export function expandVariables(value: string, env: Environment, problems: string[], settingName: string): string {
  let result = value;
  if (env.userHome && (result === '~' || result.startsWith('~/'))) {
    result = env.userHome + result.slice(1);
  }
  return result.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name === 'workspaceFolder') {
      if (env.workspaceFolder) return env.workspaceFolder;
      problems.push(`${settingName}: \${workspaceFolder} is used but no folder is open`);
      return whole;
    }
    if (name === 'userHome') {
      if (env.userHome) return env.userHome;
      problems.push(`${settingName}: \${userHome} is used but the home directory is unknown`);
      return whole;
    }
    problems.push(`${settingName}: unknown variable ${whole}`);
    return whole;
  });
}

function resolveAgainstWorkspace(p: string, env: Environment): string {
  if (path.isAbsolute(p) || !env.workspaceFolder) return p;
  return path.resolve(env.workspaceFolder, p);
}

function stringOr(value: unknown, fallback: string, settingName: string, problems: string[]): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  problems.push(`${settingName} must be a string; using ${JSON.stringify(fallback)}`);
  return fallback;
}

export function resolveServerLaunch(raw: RawSettings, env: Environment, problems: string[]): ServerLaunch {
  let command = stringOr(raw.serverPath, DEFAULT_SERVER_PATH, 'nestor.server.path', problems).trim();
  if (command === '') {
    problems.push(`nestor.server.path is empty; using "${DEFAULT_SERVER_PATH}" from PATH`);
    command = DEFAULT_SERVER_PATH;
  }
  command = expandVariables(command, env, problems, 'nestor.server.path');
  // A bare name is looked up on PATH by the OS; anything with a separator is a
  // path, and a relative one is meant relative to the workspace, not to
  // whatever directory VS Code happened to be started from.
  if (command.includes('/') || command.includes('\\')) {
    command = resolveAgainstWorkspace(command, env);
  }

  const args: string[] = ['lsp'];
  if (raw.serverArgs !== undefined && raw.serverArgs !== null) {
    if (!Array.isArray(raw.serverArgs)) {
      problems.push('nestor.server.args must be an array of strings; ignoring it');
    } else {
      raw.serverArgs.forEach((arg, i) => {
        if (typeof arg === 'string') {
          args.push(expandVariables(arg, env, problems, `nestor.server.args[${i}]`));
        } else {
          problems.push(`nestor.server.args[${i}] is not a string; ignoring it`);
        }
      });
    }
  }
  return { command, args };
}

export function buildInitializationOptions(raw: RawSettings, env: Environment, problems: string[]): InitializationOptions {
  let compileCommandsDir: string | null = null;
  const dir = raw.compileCommandsDir;
  if (typeof dir === 'string') {
    const trimmed = dir.trim();
    if (trimmed !== '') {
      compileCommandsDir = resolveAgainstWorkspace(expandVariables(trimmed, env, problems, 'nestor.compileCommandsDir'), env);
    }
  } else if (dir !== undefined && dir !== null) {
    problems.push('nestor.compileCommandsDir must be a string or null; letting the server search for compile_commands.json');
  }

  let gpuArch = stringOr(raw.gpuArch, DEFAULT_GPU_ARCH, 'nestor.gpuArch', problems).trim();
  if (!GPU_ARCH_PATTERN.test(gpuArch)) {
    problems.push(`nestor.gpuArch ${JSON.stringify(gpuArch)} is not of the form sm_XY; using ${DEFAULT_GPU_ARCH}`);
    gpuArch = DEFAULT_GPU_ARCH;
  }

  return {
    compileCommandsDir,
    gpuArch,
    workspaceTrusted: env.workspaceTrusted === true,
    profile: {
      buildCommand: stringOr(raw.buildCommand, '', 'nestor.profile.buildCommand', problems),
      runCommand: stringOr(raw.runCommand, '', 'nestor.profile.runCommand', problems),
    },
  };
}

export function resolveSettings(raw: RawSettings, env: Environment): ResolvedSettings {
  const problems: string[] = [];
  const launch = resolveServerLaunch(raw, env, problems);
  const initializationOptions = buildInitializationOptions(raw, env, problems);
  return { launch, initializationOptions, problems };
}

/** Payload of workspace/didChangeConfiguration, per the server contract. */
export function configurationChangePayload(options: InitializationOptions): { settings: { nestor: InitializationOptions } } {
  return { settings: { nestor: options } };
}

export function sameLaunch(a: ServerLaunch, b: ServerLaunch): boolean {
  return a.command === b.command && a.args.length === b.args.length && a.args.every((x, i) => x === b.args[i]);
}
