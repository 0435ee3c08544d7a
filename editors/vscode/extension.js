// extension.js: the VS Code client of repilot-lsp. It starts `repilot-lsp`
// (setting repilot.path) as the language server for Java documents, and adds
// the command "Repilot: Repair hunk", which sends the proxy's
// workspace/executeCommand "repilot.repairHunk" for the selected lines, lists
// the returned patches in a QuickPick and applies the chosen WorkspaceEdit.
// Everything that does not need the `vscode` API lives in lib/repair.js.
'use strict';

const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest } = require('vscode-languageclient/node');
const repair = require('./lib/repair');

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel} */
let output;

function settings() {
  const c = vscode.workspace.getConfiguration('repilot');
  return {
    path: c.get('path') || 'repilot-lsp',
    args: c.get('args') || [],
    jdtlsHome: c.get('jdtls.home') || '',
    cache: c.get('cache') || '',
    baseURL: c.get('model.baseURL') || '',
    model: c.get('model.name') || '',
    apiKeyEnv: c.get('model.apiKeyEnv') || 'REPILOT_API_KEY',
  };
}

function createClient() {
  const s = settings();
  // The key stays in the environment; only the server's command line and the
  // names of the settings used are logged.
  output.appendLine(`starting ${s.path} ${s.args.join(' ')} (JDT LS: ${s.jdtlsHome || 'default'}, model: ${s.baseURL ? s.model + ' at ' + s.baseURL : 'embedded'})`);
  const serverOptions = {
    command: s.path,
    args: s.args,
    options: { env: repair.serverEnv(s, process.env) },
  };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'java' }],
    outputChannel: output,
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.java,pom.xml,build.gradle}') },
  };
  return new LanguageClient('repilot', 'Repilot (JDT LS)', serverOptions, clientOptions);
}

async function startClient() {
  client = createClient();
  try {
    await client.start();
  } catch (err) {
    const msg = `Repilot: could not start ${settings().path}: ${err && err.message ? err.message : err}. ` +
      'Run scripts/install.sh in the repilot-lsp clone and set "repilot.path" to its bin/repilot-lsp.';
    output.appendLine(msg);
    vscode.window.showErrorMessage(msg);
  }
}

async function restart() {
  if (client) {
    await client.stop().catch(() => undefined);
  }
  await startClient();
}

/** "Repilot: Repair hunk": repair the selected lines (or the cursor's line). */
async function repairSelection() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'java') {
    vscode.window.showWarningMessage('Repilot: open a Java file and select the lines to repair.');
    return;
  }
  if (!client || !client.isRunning()) {
    vscode.window.showErrorMessage('Repilot: the language server is not running (see the "Repilot" output).');
    return;
  }
  const doc = editor.document;
  const args = repair.repairArgs(client.code2ProtocolConverter.asUri(doc.uri), editor.selection, doc.version);
  const where = `${vscode.workspace.asRelativePath(doc.uri)} ${repair.lineLabel(args.range)}`;
  let result;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Repilot: repairing ${where}`, cancellable: true },
      (_progress, token) => client.sendRequest(ExecuteCommandRequest.type, { command: repair.REPAIR_COMMAND, arguments: [args] }, token),
    );
  } catch (err) {
    vscode.window.showErrorMessage(repair.describeError(err));
    return;
  }
  let items;
  try {
    items = repair.patchItems(result);
  } catch (err) {
    vscode.window.showErrorMessage(repair.describeError(err));
    return;
  }
  if (items.length === 0) {
    vscode.window.showInformationMessage(`Repilot: no patch for ${where}.`);
    return;
  }
  for (const it of items) {
    output.appendLine(`${it.label} [${it.description}]\n${it.patch.diff || it.patch.hunk || ''}`);
  }
  const chosen = await vscode.window.showQuickPick(items, {
    title: `Repilot patches for ${where}`,
    placeHolder: 'Pick a patch to apply (ranked: plausible, then compilable, then by model log-probability)',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!chosen) {
    return;
  }
  if (doc.version !== args.version) {
    vscode.window.showWarningMessage('Repilot: the file changed while you were choosing; the patch was not applied. Repair again.');
    return;
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(chosen.patch.edit);
  if (!(await vscode.workspace.applyEdit(edit))) {
    vscode.window.showErrorMessage('Repilot: VS Code refused the edit (the file may have changed).');
  }
}

async function activate(context) {
  output = vscode.window.createOutputChannel('Repilot');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('repilot.repairSelection', repairSelection),
    vscode.commands.registerCommand('repilot.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('repilot') || e.affectsConfiguration('repilot.inline')) return;
      const pick = await vscode.window.showInformationMessage('Repilot settings changed: restart the language server?', 'Restart');
      if (pick === 'Restart') await restart();
    }),
  );
  require('./inline').register(context, () => client); // ghost text (inline.js)
  await startClient();
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
