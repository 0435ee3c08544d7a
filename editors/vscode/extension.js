// extension.js: the VS Code client of repilot-lsp. It starts `repilot-lsp`
// (setting repilot.path) as the language server for Java documents and adds:
//   "Repilot: Repair with Repilot": workspace/executeCommand
//     "repilot.repairHunk" for the selected lines (with the
//     repilot.testCommand setting), a QuickPick of the patches that compile
//     (opened with the first one the server streams as repilot/patchFound,
//     filled as more arrive, then replaced by the ranked result), a diff
//     editor previewing the focused patch, and the chosen patch applied as
//     one undoable edit (a choice before the end cancels the rest);
//   "Repilot: Semantic search in repo": "repilot.semanticSearch", a QuickPick
//     of the results (file, line, snippet) previewing each as you move, and
//     the chosen one opened;
//   a status-bar item (JDT LS starting/ready, the model, a repair running;
//     a click shows the log) and "Repilot: Set model API key" (SecretStorage).
// The proxy's code actions "Repair with Repilot" and "Semantic search in repo"
// run through the same two flows (client middleware). Everything that does
// not need the `vscode` API lives in lib/repair.js.
'use strict';

const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest, WorkDoneProgress } = require('vscode-languageclient/node');
const repair = require('./lib/repair');

const SECRET_KEY = 'repilot.model.apiKey';
const PATCH_SCHEME = 'repilot-patch';

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel} */
let output;
/** @type {vscode.ExtensionContext} */
let extContext;
/** @type {vscode.StatusBarItem} */
let statusItem;
const state = { server: 'stopped', running: new Set() };
// The text of the patched documents the diff preview shows, by URI.
const previews = new Map();
const previewChanged = new vscode.EventEmitter();
let previewSeq = 0;
// Listeners of repilot/patchFound, one per running repair (repairLines).
const patchListeners = new Set();

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

function updateStatus() {
  const s = settings();
  const model = s.baseURL ? `${s.model || 'model'} at ${s.baseURL}` : 'embedded n-gram model';
  let text;
  if (state.running.size > 0) {
    text = `$(sync~spin) Repilot: ${[...state.running].join(', ')}`;
  } else if (state.server === 'ready') {
    text = '$(check) Repilot';
  } else if (state.server === 'starting') {
    text = '$(sync~spin) Repilot: JDT LS starting';
  } else {
    text = '$(error) Repilot: stopped';
  }
  statusItem.text = text;
  statusItem.tooltip = `Repilot: JDT LS ${state.server}; model: ${model}. Click to show the log.`;
  statusItem.show();
}

async function createClient() {
  const s = settings();
  s.apiKey = await extContext.secrets.get(SECRET_KEY);
  // The key stays out of logs; only the server's command line and where the
  // settings point are logged.
  output.appendLine(`starting ${s.path} ${s.args.join(' ')} (JDT LS: ${s.jdtlsHome || 'default'}, model: ${s.baseURL ? s.model + ' at ' + s.baseURL : 'embedded'}, API key: ${s.apiKey ? 'from SecretStorage' : 'from $' + s.apiKeyEnv + ' if set'})`);
  const serverOptions = {
    command: s.path,
    args: s.args,
    options: { env: repair.serverEnv(s, process.env) },
  };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'java' }],
    outputChannel: output,
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.java,pom.xml,build.gradle}') },
    middleware: {
      // The proxy's code actions run through the extension's flows: the
      // picker, the diff preview, the test command, the search QuickPick.
      executeCommand: async (command, args, next) => {
        if (command === repair.REPAIR_COMMAND && args && args[0] && args[0].uri) {
          const a = args[0];
          const doc = await vscode.workspace.openTextDocument(client.protocol2CodeConverter.asUri(a.uri));
          const range = client.protocol2CodeConverter.asRange(a.range);
          return repairLines(doc, new vscode.Selection(range.start, range.end));
        }
        if (command === repair.SEARCH_COMMAND && args && args[0]) {
          const a = { ...args[0] };
          delete a.show; // the QuickPick lists the results
          return searchWith(a, a.query || 'the selection');
        }
        return next(command, args);
      },
    },
  };
  return new LanguageClient('repilot', 'Repilot (JDT LS)', serverOptions, clientOptions);
}

async function startClient() {
  state.server = 'starting';
  updateStatus();
  client = await createClient();
  client.onDidChangeState((e) => {
    // vscode-languageclient State: Stopped 1, Starting 3, Running 2.
    if (e.newState === 1) state.server = 'stopped';
    updateStatus();
  });
  try {
    await client.start();
    client.onNotification(repair.FOUND_NOTIFICATION, (p) => {
      for (const f of patchListeners) f(p);
    });
    // window/showMessage as vscode-languageclient shows it, less the
    // repair's summary that the picker says already (showMessageText).
    client.onNotification('window/showMessage', (m) => {
      const text = repair.showMessageText(m && m.message);
      if (!text) return;
      output.appendLine(text);
      const show = m.type === 1 ? vscode.window.showErrorMessage : m.type === 2 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      show(text);
    });
    client.onNotification('language/status', (p) => {
      if (p && p.type === 'ServiceReady') {
        state.server = 'ready';
        output.appendLine('JDT LS is ready');
      } else if (p && p.type === 'Starting') {
        state.server = 'starting';
      }
      updateStatus();
    });
  } catch (err) {
    state.server = 'stopped';
    updateStatus();
    const msg = `Repilot: could not start ${settings().path}: ${err && err.message ? err.message : err}. ` +
      'Run scripts/install.sh in the repilot-lsp clone and set "repilot.path" to its bin/repilot-lsp.';
    output.appendLine(msg);
    vscode.window.showErrorMessage(msg, 'Show log').then((b) => b && output.show());
  }
}

async function restart() {
  if (client) {
    await client.stop().catch(() => undefined);
  }
  await startClient();
}

function clientReady() {
  if (!client || !client.isRunning()) {
    vscode.window.showErrorMessage('Repilot: the language server is not running.', 'Show log').then((b) => b && output.show());
    return false;
  }
  return true;
}

// sendWithProgress sends workspace/executeCommand with a workDoneToken of
// ours, shows the server's $/progress for it in one cancellable
// notification, and marks the status bar while it runs. Cancel (or stop, a
// CancellationToken of the caller's, when it fires) sends $/cancelRequest.
async function sendWithProgress(title, running, params, stop) {
  const token = `repilot-vscode/${Date.now()}/${previewSeq++}`;
  state.running.add(running);
  updateStatus();
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, cancel) => {
        let last = 0;
        const sub = client.onProgress(WorkDoneProgress.type, token, (v) => {
          const pct = typeof v.percentage === 'number' ? v.percentage : undefined;
          const increment = pct !== undefined && pct > last ? pct - last : undefined;
          if (pct !== undefined) last = Math.max(last, pct);
          if (v.kind !== 'end') progress.report({ message: v.message, increment });
        });
        const either = new vscode.CancellationTokenSource();
        const subs = [cancel.onCancellationRequested(() => either.cancel())];
        if (stop) subs.push(stop.onCancellationRequested(() => either.cancel()));
        try {
          return await client.sendRequest(ExecuteCommandRequest.type, { ...params, workDoneToken: token }, either.token);
        } finally {
          sub.dispose();
          subs.forEach((d) => d.dispose());
          either.dispose();
        }
      },
    );
  } finally {
    state.running.delete(running);
    updateStatus();
  }
}

/** "Repilot: Repair with Repilot" on the active editor's selection (or the cursor's line). */
async function repairSelection() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'java') {
    vscode.window.showWarningMessage('Repilot: open a Java file and select the lines to repair.');
    return;
  }
  return repairLines(editor.document, editor.selection);
}

// previewUri returns a virtual document holding text, for the diff editor.
function previewUri(doc, text) {
  const uri = vscode.Uri.from({ scheme: PATCH_SCHEME, path: doc.uri.path, query: String(previewSeq++) });
  previews.set(uri.toString(), text);
  previewChanged.fire(uri);
  return uri;
}

async function repairLines(doc, selection) {
  if (!clientReady()) return;
  const conf = vscode.workspace.getConfiguration('repilot', doc.uri);
  const testCommand = conf.get('testCommand');
  const bad = repair.checkTestCommand(testCommand);
  if (bad) {
    vscode.window.showErrorMessage(`Repilot: ${bad}`);
    return;
  }
  const uri = client.code2ProtocolConverter.asUri(doc.uri);
  const args = repair.repairArgs(uri, selection, doc.version, testCommand);
  const where = `${vscode.workspace.asRelativePath(doc.uri)} ${repair.lineLabel(args.range)}`;
  const showAll = conf.get('repair.showUncompilable') === true;
  // Streaming (repilot/patchFound): the picker opens with the first patch
  // that compiles and fills as patches arrive; the ranked result replaces
  // its items. A choice before the end stops the repair (stop).
  const stop = new vscode.CancellationTokenSource();
  const found = [];
  let picker;
  let ended = false;
  let chooseEarly;
  const early = new Promise((resolve) => { chooseEarly = resolve; });
  const onPatch = (params) => {
    if (ended || !repair.matchesRepair(params, args) || !repair.addFound(found, params.patch)) return;
    const p = params.patch;
    output.appendLine(`found: ${String(p.title || '').replace(/^Repilot patch found: /, '')} [${repair.patchStatus(p)}]`);
    const items = repair.foundItems(found, showAll);
    const hidden = found.length - items.length;
    if (picker) {
      picker.update(items, true, undefined, hidden);
    } else if (p.compilable) {
      picker = openPicker(doc, items, where, true, hidden);
      picker.chosen.then((c) => { if (c && !ended) chooseEarly(c); });
    }
  };
  patchListeners.add(onPatch);
  const request = sendWithProgress(`Repilot: repairing ${where}`, `repairing ${repair.lineLabel(args.range)}`,
    { command: repair.REPAIR_COMMAND, arguments: [args] }, stop.token)
    .then((r) => ({ result: r }), (err) => ({ err }))
    .then((o) => { ended = true; return o; });
  const first = await Promise.race([request, early.then((chosen) => ({ chosen }))]);
  patchListeners.delete(onPatch);
  let result;
  let chosen;
  if (first.chosen) {
    // The user chose before the end: the rest of the repair is not needed
    // (and the patch, once applied, makes its result stale).
    stop.cancel();
    chosen = first.chosen;
    output.appendLine(`repair of ${where}: a patch was chosen before the end; the rest of the repair is cancelled`);
  } else if (first.err && picker && !picker.hidden()) {
    // Failed or cancelled with the picker open: the patches found so far stay.
    const err = first.err;
    output.appendLine(`repair of ${where} ended early: ${repair.describeError(err)}`);
    if (repair.isCancelled(err)) vscode.window.showInformationMessage(repair.describeError(err));
    else vscode.window.showErrorMessage(repair.describeError(err), 'Show log').then((b) => b && output.show());
    const items = repair.foundItems(found, showAll);
    picker.update(items, false, repair.isCancelled(err) ? 'repair cancelled; the patches found before' : 'repair failed; the patches found before',
      found.length - items.length);
    chosen = await picker.chosen;
  } else if (first.err) {
    const err = first.err;
    if (repair.isCancelled(err)) {
      output.appendLine(`repair of ${where} cancelled`);
      vscode.window.showInformationMessage(repair.describeError(err));
    } else {
      vscode.window.showErrorMessage(repair.describeError(err), 'Show log').then((b) => b && output.show());
    }
    if (picker) picker.close();
    return;
  } else {
    result = first.result;
    // A patch accepted just as the repair ended is the user's choice.
    chosen = picker && picker.accepted();
  }
  if (!chosen) {
    let all;
    try {
      all = repair.patchItems(result);
    } catch (err) {
      if (picker) picker.close();
      vscode.window.showErrorMessage(repair.describeError(err));
      return;
    }
    for (const it of all) {
      output.appendLine(`${it.label} [${it.description}]\n${it.patch.diff || it.patch.hunk || ''}`);
    }
    let items = showAll ? all : all.filter((it) => it.patch.compilable);
    if (items.length === 0) {
      if (picker) picker.close();
      if (all.length === 0) {
        vscode.window.showInformationMessage(`Repilot: no patch for ${where}.`);
        return;
      }
      // None compiles: "Show them" lists them all in the picker (the
      // setting "repilot.repair.showUncompilable" always does).
      const b = await vscode.window.showInformationMessage(
        `Repilot: none of the ${all.length} patches for ${where.replace(/^.*\//, '')} compiles.`, 'Show them');
      if (b !== 'Show them') return;
      items = all;
    }
    // The ranked list replaces the patches found so far in the open picker;
    // a picker the user hid (Escape) during the repair opens again.
    const hidden = all.length - items.length;
    if (!picker || picker.hidden()) picker = openPicker(doc, items, where, false, hidden);
    else picker.update(items, false, undefined, hidden);
    chosen = await picker.chosen;
  }
  if (!chosen) return;
  const apply = repair.applyParams(chosen.patch);
  if (apply) {
    // repilot.applyPatch: the server checks that the file is still at the
    // version it repaired and applies the patch with workspace/applyEdit
    // (the language client's handler: one undoable edit).
    try {
      await client.sendRequest('workspace/executeCommand', apply);
    } catch (err) {
      vscode.window.showWarningMessage(`Repilot: ${(err && err.message) || err}`);
      return;
    }
  } else if (!(await applyHere(doc, args.version, chosen.patch))) {
    return;
  }
  await vscode.window.showTextDocument(doc, { preview: false });
  vscode.window.setStatusBarMessage(`Repilot: applied ${chosen.label.replace(/^\$\([^)]*\) /, '')} (${chosen.description}); Undo reverts it`, 8000);
  if (first.chosen) {
    vscode.window.showInformationMessage(`Repilot: applied a patch found before the repair of ${where} ended; the rest of the repair was cancelled (Undo reverts the patch).`);
  }
}

// applyHere applies a patch that carries no repilot.applyPatch command (a
// server without it) in the extension, unless the document has changed since
// the repair; reports whether it did.
async function applyHere(doc, version, patch) {
  if (doc.version !== version) {
    vscode.window.showWarningMessage('Repilot: the file changed while you were choosing; the patch was not applied. Repair again.');
    return false;
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(patch.edit);
  if (!(await vscode.workspace.applyEdit(edit))) {
    vscode.window.showErrorMessage('Repilot: VS Code refused the edit (the file may have changed).');
    return false;
  }
  return true;
}

// openPicker shows the patches in a QuickPick; the focused one is shown in a
// diff editor (the document against the document with the patch) so the user
// sees the change before accepting. busy: the repair is still running (the
// title says so, and update() adds what arrives). Returns {chosen: a promise
// of the chosen item or undefined (the preview is closed either way),
// update(items, busy, note, hidden: how many patches that do not compile
// are left out), hidden() (closed: Escape or a choice),
// accepted() (the chosen item, at once), close()}.
function openPicker(doc, items, where, busy, nHidden = 0) {
  const original = doc.getText();
  const uri = client.code2ProtocolConverter.asUri(doc.uri);
  const qp = vscode.window.createQuickPick();
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.ignoreFocusOut = true;
  qp.keepScrollPosition = true;
  let previewTab;
  let previewed;
  let hidden = false;
  let accepted;
  const show = async (item) => {
    // The same patch under the same label (items added around it) keeps its diff.
    const key = `${repair.patchKey(item && item.patch)}\n${item && item.label}`;
    if (!item || key === previewed) return;
    previewed = key;
    const right = previewUri(doc, repair.applyTextEdits(original, repair.patchEdits(item.patch.edit, uri)));
    const n = item.label.match(/ (\d+)\. /);
    await vscode.commands.executeCommand('vscode.diff', doc.uri, right,
      `${vscode.workspace.asRelativePath(doc.uri)} ↔ Repilot patch${n ? ' ' + n[1] : ''} (${item.description})`,
      { preview: true, preserveFocus: true });
    previewTab = right;
  };
  // Replacing the items makes VS Code focus the first one before the focus
  // is set back: the preview follows where the focus settles (100 ms).
  let timer;
  const preview = (item) => {
    clearTimeout(timer);
    timer = setTimeout(() => show(qp.activeItems[0] || item).catch((e) => output.appendLine(`preview: ${e}`)), 100);
  };
  const update = (next, stillBusy, note, hiddenCount = 0) => {
    if (hidden) return;
    // The file's name without its folders: the title has room for about
    // 80 characters, and the diff's tab shows the path.
    qp.title = repair.pickerTitle(where.replace(/^.*\//, ''), hiddenCount, stillBusy, note);
    qp.placeholder = repair.pickerPlaceholder(hiddenCount, stillBusy);
    qp.busy = stillBusy;
    // Replacing the items moves the focus to the first one: keep the user's.
    const keep = repair.sameItem(qp.activeItems[0], next);
    qp.items = next;
    if (keep) qp.activeItems = [keep];
    preview(keep || next[0]);
  };
  const chosen = new Promise((resolve) => {
    qp.onDidChangeActive((a) => { preview(a[0]); });
    qp.onDidAccept(() => {
      accepted = qp.selectedItems[0] || qp.activeItems[0];
      resolve(accepted);
      qp.hide();
    });
    qp.onDidHide(() => { hidden = true; resolve(undefined); });
    update(items, busy, undefined, nHidden);
    qp.show();
  }).then(async (c) => {
    clearTimeout(timer);
    qp.dispose();
    if (previewTab) await closeDiffPreviews();
    return c;
  });
  return { chosen, update, hidden: () => hidden, accepted: () => accepted, close: () => { if (!hidden) qp.hide(); } };
}

async function closeDiffPreviews() {
  const tabs = [];
  for (const g of vscode.window.tabGroups.all) {
    for (const t of g.tabs) {
      if (t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PATCH_SCHEME) tabs.push(t);
    }
  }
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
  previews.clear();
}

/** "Repilot: Semantic search in repo": asks for a query (the selection by default). */
async function searchCommand() {
  if (!clientReady()) return;
  const editor = vscode.window.activeTextEditor;
  const sel = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim().slice(0, 200) : '';
  const query = await vscode.window.showInputBox({
    title: 'Repilot: Semantic search in repo',
    prompt: 'What the code does, in words or code (e.g. "apply a percentage discount")',
    value: sel,
  });
  if (!query) return;
  return searchWith({ query }, query);
}

async function searchWith(args, label) {
  if (!clientReady()) return;
  let result;
  try {
    result = await sendWithProgress(`Repilot: searching for "${label}"`, 'searching', { command: repair.SEARCH_COMMAND, arguments: [args] });
  } catch (err) {
    const show = repair.isCancelled(err) ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
    show(repair.describeError(err, 'search'));
    return;
  }
  const items = repair.searchItems(result, (u) => vscode.workspace.asRelativePath(vscode.Uri.parse(u)));
  if (items.length === 0) {
    vscode.window.showInformationMessage(`Repilot: no results for "${(result && result.query) || label}".`);
    return;
  }
  const qp = vscode.window.createQuickPick();
  qp.title = `Repilot search: ${(result && result.query) || label}${result && result.indexing ? ' (index still building)' : ''}`;
  qp.placeholder = 'Moving previews the code; Enter opens it';
  qp.items = items;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  const open = async (item, preview) => {
    const loc = client.protocol2CodeConverter.asLocation(item.hit.location);
    // The cursor goes to the start of the code unit, which is shown whole.
    const at = new vscode.Range(loc.range.start, loc.range.start);
    const ed = await vscode.window.showTextDocument(loc.uri, { selection: at, preview, preserveFocus: preview });
    ed.revealRange(loc.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  };
  const back = vscode.window.activeTextEditor;
  let previewing = Promise.resolve();
  const chosen = await new Promise((resolve) => {
    qp.onDidChangeActive((a) => { if (a[0]) previewing = open(a[0], true).catch(() => undefined); });
    qp.onDidAccept(() => { resolve(qp.activeItems[0]); qp.hide(); });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  // A preview still opening would land after the jump back (seen in the e2e
  // run: Escape left the previewed file active).
  await previewing;
  if (chosen) {
    await open(chosen, false);
  } else if (back) {
    // Escape: back to where the search started, as "Go to Symbol" does.
    await vscode.window.showTextDocument(back.document, { selection: back.selection, viewColumn: back.viewColumn });
  }
}

async function setApiKey() {
  const key = await vscode.window.showInputBox({
    title: 'Repilot: model API key',
    prompt: 'Stored in VS Code\'s SecretStorage and handed to the server as REPILOT_API_KEY. Empty removes it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key === '') await extContext.secrets.delete(SECRET_KEY);
  else await extContext.secrets.store(SECRET_KEY, key);
  const pick = await vscode.window.showInformationMessage(`Repilot: API key ${key ? 'stored' : 'removed'}. Restart the language server to use it?`, 'Restart');
  if (pick === 'Restart') await restart();
}

async function activate(context) {
  extContext = context;
  output = vscode.window.createOutputChannel('Repilot');
  statusItem = vscode.window.createStatusBarItem('repilot.status', vscode.StatusBarAlignment.Left, 0);
  statusItem.name = 'Repilot';
  statusItem.command = 'repilot.showLog';
  context.subscriptions.push(
    output,
    statusItem,
    previewChanged,
    vscode.workspace.registerTextDocumentContentProvider(PATCH_SCHEME, {
      onDidChange: previewChanged.event,
      provideTextDocumentContent: (uri) => previews.get(uri.toString()) || '',
    }),
    vscode.commands.registerCommand('repilot.repairSelection', repairSelection),
    vscode.commands.registerCommand('repilot.search', searchCommand),
    vscode.commands.registerCommand('repilot.showLog', () => output.show()),
    vscode.commands.registerCommand('repilot.setApiKey', setApiKey),
    vscode.commands.registerCommand('repilot.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('repilot') || e.affectsConfiguration('repilot.inline')) return;
      updateStatus();
      // Settings read per request need no restart.
      if (['repilot.testCommand', 'repilot.repair.showUncompilable'].some((k) => e.affectsConfiguration(k)) &&
        !['repilot.path', 'repilot.args', 'repilot.jdtls', 'repilot.cache', 'repilot.model'].some((k) => e.affectsConfiguration(k))) return;
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
