// VS Code client for the Nestor language server (`nestor lsp`).
//
// What the server provides (diagnostics, hovers, code actions, code lenses)
// flows through vscode-languageclient unchanged. This file adds what the
// protocol leaves to the client: turning settings and workspace trust into
// initializationOptions / didChangeConfiguration, a status-bar item, and the
// `nestor.profile` command, whose JSON result is rendered as a report webview.
import * as crypto from 'crypto';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CancellationToken as LspCancellationToken,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
} from 'vscode-languageclient/node';
import { configurationChangePayload, DEFAULT_SERVER_PATH, Environment, RawSettings, resolveSettings, ResolvedSettings, sameLaunch, ServerLaunch } from './config';
import { findServer } from './executable';
import { kernelAtOffset } from './kernels';
import { parseProfileResult, renderReportHtml } from './report';

const PROFILE_COMMAND = 'nestor.profile';
const LAST_REPORT_KEY = 'nestor.lastProfileReport';

interface StoredReport {
  result: unknown;
  kernel: string;
  at: string;
}

class NestorExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private launch: ServerLaunch | undefined;
  /** Our own `nestor.profile` registration, only when the server did not advertise the command. */
  private fallbackProfileCommand: vscode.Disposable | undefined;
  private reportPanel: vscode.WebviewPanel | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  /** Serialises start/stop so quick successive restarts cannot interleave. */
  private lifecycle: Promise<void> = Promise.resolve();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Nestor');
    this.status = vscode.window.createStatusBarItem('nestor.status', vscode.StatusBarAlignment.Left, 0);
    this.status.name = 'Nestor language server';
    this.status.command = 'nestor.showOutput';
    this.setStatus('starting', 'starting');
    this.status.show();

    this.disposables.push(
      this.output,
      this.status,
      vscode.commands.registerCommand('nestor.restartServer', () => this.restart('restart requested')),
      vscode.commands.registerCommand('nestor.showOutput', () => this.output.show(true)),
      vscode.commands.registerCommand('nestor.profileKernelAtCursor', () => this.profileKernelAtCursor()),
      vscode.commands.registerCommand('nestor.showLastReport', () => this.showLastReport()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('nestor.server') || e.affectsConfiguration('nestor.compileCommandsDir') ||
            e.affectsConfiguration('nestor.gpuArch') || e.affectsConfiguration('nestor.profile')) {
          void this.onSettingsChanged('settings changed');
        }
      }),
      // Restricted settings take their workspace values only once the folder
      // is trusted, and the server must learn that it may now run commands.
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.onSettingsChanged('workspace trusted')),
    );
  }

  dispose(): void {
    this.fallbackProfileCommand?.dispose();
    this.reportPanel?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private log(message: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${message}`);
  }

  private setStatus(state: 'starting' | 'running' | 'stopped' | 'error', detail: string): void {
    const icon = { starting: '$(sync~spin)', running: '$(check)', stopped: '$(circle-slash)', error: '$(error)' }[state];
    this.status.text = `${icon} Nestor`;
    this.status.tooltip = `Nestor language server: ${detail}\nClick to show the output.`;
    this.status.backgroundColor = state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.status.accessibilityInformation = { label: `Nestor language server ${state}` };
  }

  private environment(): Environment {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    return { workspaceFolder: folder?.uri.fsPath, userHome: os.homedir(), workspaceTrusted: vscode.workspace.isTrusted };
  }

  private readSettings(): ResolvedSettings {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cfg = vscode.workspace.getConfiguration('nestor', folder?.uri);
    const raw: RawSettings = {
      serverPath: cfg.get('server.path'),
      serverArgs: cfg.get('server.args'),
      compileCommandsDir: cfg.get('compileCommandsDir'),
      gpuArch: cfg.get('gpuArch'),
      buildCommand: cfg.get('profile.buildCommand'),
      runCommand: cfg.get('profile.runCommand'),
    };
    const resolved = resolveSettings(raw, this.environment());
    for (const p of resolved.problems) this.log(`settings: ${p}`);
    if (resolved.problems.length) {
      void vscode.window.showWarningMessage(`Nestor: ${resolved.problems[0]}${resolved.problems.length > 1 ? ` (and ${resolved.problems.length - 1} more; see the Nestor output)` : ''}`);
    }
    return resolved;
  }

  start(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.doStart(), () => this.doStart());
    return this.lifecycle;
  }

  restart(why: string): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.doRestart(why), () => this.doRestart(why));
    return this.lifecycle;
  }

  private async doRestart(why: string): Promise<void> {
    this.log(`restarting the server: ${why}`);
    await this.doStop();
    await this.doStart();
  }

  private async doStop(): Promise<void> {
    this.fallbackProfileCommand?.dispose();
    this.fallbackProfileCommand = undefined;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      if (client.needsStop()) await client.stop(3000);
    } catch (e) {
      this.log(`stopping the server failed: ${(e as Error).message}`);
    }
    try {
      await client.dispose(1000);
    } catch {
      // Already stopped; dispose only releases the client's registrations.
    }
  }

  private async doStart(): Promise<void> {
    const settings = this.readSettings();
    this.launch = settings.launch;
    const check = findServer(settings.launch.command, {
      isDefault: settings.launch.command === DEFAULT_SERVER_PATH,
      extensionPath: this.context.extensionPath,
    });
    if (!check.ok) {
      const msg = `Nestor: cannot start the language server: ${check.reason}. Set "nestor.server.path" to the nestor executable.`;
      this.log(msg);
      this.setStatus('error', `not started: ${check.reason}`);
      void vscode.window.showErrorMessage(msg, 'Open Settings', 'Show Output').then((choice) => {
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'nestor.server.path');
        if (choice === 'Show Output') this.output.show(true);
      });
      return;
    }

    const folder = this.environment().workspaceFolder;
    this.log(`server: ${check.resolvedPath} (from ${check.source ?? 'settings'})`);
    const serverOptions: ServerOptions = {
      command: check.resolvedPath,
      args: settings.launch.args,
      transport: TransportKind.stdio,
      options: folder ? { cwd: folder } : undefined,
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'cuda-cpp' },
        { scheme: 'untitled', language: 'cuda-cpp' },
      ],
      initializationOptions: settings.initializationOptions,
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        // vscode-languageclient registers every command the server lists in
        // executeCommandProvider; registering `nestor.profile` ourselves as
        // well would fail with "command already exists". Instead we intercept
        // the client's own registration here and send the request ourselves
        // (with a workDoneToken, so the server's $/progress shows up).
        executeCommand: (command, args, next) =>
          command === PROFILE_COMMAND ? this.runProfile(args) : next(command, args),
      },
      initializationFailedHandler: (error) => {
        this.log(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
    };

    const client = new LanguageClient('nestor', 'Nestor', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Running) this.setStatus('running', `running (${check.resolvedPath})`);
      else if (e.newState === State.Starting) this.setStatus('starting', 'starting');
      else this.setStatus('error', 'stopped; see the Nestor output, or run "Nestor: Restart Language Server"');
    });
    this.log(`starting ${settings.launch.command} ${settings.launch.args.join(' ')}`);
    this.log(`initializationOptions: ${JSON.stringify(settings.initializationOptions)}`);
    this.setStatus('starting', 'starting');
    try {
      await client.start();
    } catch (e) {
      this.log(`the server did not start: ${(e as Error).message}`);
      this.setStatus('error', `failed to start: ${(e as Error).message}`);
      return;
    }
    const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    if (!advertised.includes(PROFILE_COMMAND)) {
      // Code lenses name `nestor.profile`; without a registration VS Code
      // would answer "command not found". Forward it ourselves.
      this.log(`the server does not advertise ${PROFILE_COMMAND}; registering a client-side forwarder`);
      this.fallbackProfileCommand = vscode.commands.registerCommand(PROFILE_COMMAND, (...args: unknown[]) => this.runProfile(args));
    }
  }

  private async onSettingsChanged(why: string): Promise<void> {
    const settings = this.readSettings();
    if (!this.client || !this.launch || !sameLaunch(settings.launch, this.launch)) {
      await this.restart(why);
      return;
    }
    if (this.client.isRunning()) {
      this.log(`${why}: sending didChangeConfiguration ${JSON.stringify(settings.initializationOptions)}`);
      await this.client.sendNotification(DidChangeConfigurationNotification.type, configurationChangePayload(settings.initializationOptions));
    }
  }

  /** Forwards `nestor.profile` to the server and shows the returned report. */
  private async runProfile(args: unknown[]): Promise<unknown> {
    const client = this.client;
    const kernel = typeof args[1] === 'string' ? args[1] : 'kernel';
    if (!client || !client.isRunning()) {
      void vscode.window.showErrorMessage('Nestor: the language server is not running; profiling needs it. Run "Nestor: Restart Language Server".');
      return undefined;
    }
    const workDoneToken = `nestor-profile-${crypto.randomUUID()}`;
    let result: unknown;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Nestor: profiling ${kernel}`, cancellable: true },
        async (progress, token) => {
          let lastPercentage = 0;
          const progressSubscription = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
            if (value.kind === 'end') return;
            const increment = typeof value.percentage === 'number' ? Math.max(0, value.percentage - lastPercentage) : undefined;
            if (typeof value.percentage === 'number') lastPercentage = value.percentage;
            progress.report({ message: value.message, increment });
          });
          try {
            return await client.sendRequest(
              ExecuteCommandRequest.type,
              { command: PROFILE_COMMAND, arguments: args, workDoneToken },
              token as unknown as LspCancellationToken,
            );
          } finally {
            progressSubscription.dispose();
          }
        },
      );
    } catch (e) {
      const message = e instanceof ResponseError || e instanceof Error ? e.message : String(e);
      this.log(`profiling ${kernel} failed: ${message}`);
      void vscode.window.showErrorMessage(`Nestor: profiling ${kernel} failed: ${message}`);
      return undefined;
    }
    const stored: StoredReport = { result, kernel, at: new Date().toISOString() };
    await this.context.workspaceState.update(LAST_REPORT_KEY, stored);
    this.showReport(stored);
    return result;
  }

  private showReport(stored: StoredReport): void {
    const parsed = parseProfileResult(stored.result);
    if (parsed.kind === 'invalid') this.log(`profile report for ${stored.kernel}: ${parsed.message}`);
    if (parsed.kind === 'report') for (const w of parsed.warnings) this.log(`profile report for ${stored.kernel}: ${w}`);
    const title = parsed.kind === 'report' ? `Nestor profile: ${parsed.report.kernel}` : `Nestor profile: ${stored.kernel}`;
    if (!this.reportPanel) {
      this.reportPanel = vscode.window.createWebviewPanel('nestor.profileReport', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: false,
        enableCommandUris: false,
        localResourceRoots: [],
      });
      this.reportPanel.onDidDispose(() => { this.reportPanel = undefined; });
    } else {
      this.reportPanel.title = title;
      this.reportPanel.reveal(undefined, true);
    }
    this.reportPanel.webview.html = renderReportHtml(parsed, { nonce: crypto.randomBytes(16).toString('base64') });
  }

  private showLastReport(): void {
    const stored = this.context.workspaceState.get<StoredReport>(LAST_REPORT_KEY);
    if (!stored) {
      void vscode.window.showInformationMessage('Nestor: no profile report yet. Use "Nestor: Profile Kernel at Cursor" or the "Profile variants" code lens above a kernel.');
      return;
    }
    this.showReport(stored);
  }

  private async profileKernelAtCursor(): Promise<unknown> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'cuda-cpp') {
      void vscode.window.showInformationMessage('Nestor: open a CUDA file and place the cursor in a __global__ function to profile it.');
      return undefined;
    }
    const doc = editor.document;
    const kernel = kernelAtOffset(doc.getText(), doc.offsetAt(editor.selection.active));
    if (!kernel) {
      void vscode.window.showInformationMessage('Nestor: the cursor is not inside a __global__ function.');
      return undefined;
    }
    if (doc.isDirty) await doc.save();
    return this.runProfile([doc.uri.toString(), kernel.name]);
  }

  stop(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.doStop(), () => this.doStop());
    return this.lifecycle;
  }
}

let extension: NestorExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new NestorExtension(context);
  context.subscriptions.push(extension);
  // Activation must not wait for the server: a slow or missing server would
  // otherwise block the extension host's activation of other extensions.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
