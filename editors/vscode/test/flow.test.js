// test/flow.test.js: extension.js's repair flow (streamed patches in the
// QuickPick, the ranked result, an early choice, Escape, Cancel) against a
// stand-in for the `vscode` API and the language client, so that it runs
// under `node --test` without VS Code. The stand-in QuickPick behaves as VS
// Code's does where the flow depends on it: setting items moves the focus to
// the first item, and focus changes arrive as events after the setter.
'use strict';
const Module = require('module');
const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const EXT = path.join(__dirname, '..', 'extension.js');

class Emitter { constructor() { this.l = []; this.event = (f) => { this.l.push(f); return { dispose: () => { this.l = this.l.filter((x) => x !== f); } }; }; }
  fire(v) { for (const f of [...this.l]) f(v); } dispose() {} }
class TokenSource { constructor() { this.e = new Emitter(); this.token = { isCancellationRequested: false, onCancellationRequested: this.e.event }; }
  cancel() { if (!this.token.isCancellationRequested) { this.token.isCancellationRequested = true; this.e.fire(); } } dispose() {} }
const tick = () => new Promise((r) => setTimeout(r, 5));
const settle = () => new Promise((r) => setTimeout(r, 150)); // past the preview's 100 ms

const log = { info: [], error: [], warn: [], diffs: 0, quickPicks: [], requests: [] };
let conf = { testCommand: ['t'], 'repair.showUncompilable': false };
const commands = {};
const vscode = {
  EventEmitter: Emitter, CancellationTokenSource: TokenSource,
  StatusBarAlignment: { Left: 1, Right: 2 }, ProgressLocation: { Notification: 15 },
  Selection: class { constructor(a, b) { this.start = a; this.end = b; } },
  TabInputTextDiff: class {},
  Uri: { from: (o) => ({ ...o, toString: () => `${o.scheme}:${o.path}?${o.query}` }) },
  window: {
    createOutputChannel: () => ({ appendLine: () => {}, show: () => {}, dispose() {} }),
    createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
    showInformationMessage: (m) => { log.info.push(m); return Promise.resolve(log.answer && log.answer(m)); },
    showErrorMessage: (m) => { log.error.push(m); return Promise.resolve(); },
    showWarningMessage: (m) => { log.warn.push(m); return Promise.resolve(); },
    setStatusBarMessage: () => {},
    showTextDocument: async () => {},
    withProgress: async (o, task) => { const s = new TokenSource(); log.progressCancel = s; return task({ report() {} }, s.token); },
    createQuickPick: () => {
      const qp = { _items: [], _active: [], selectedItems: [], shown: false, hidden: false, disposed: false,
        a: new Emitter(), acc: new Emitter(), h: new Emitter() };
      Object.defineProperty(qp, 'items', { get: () => qp._items, set: (v) => {
        assert.ok(!qp.disposed, 'items set after dispose');
        qp._items = v;
        const first = v.slice(0, 1);
        setImmediate(() => { qp._active = first; qp.a.fire(first); });
      } });
      Object.defineProperty(qp, 'activeItems', { get: () => qp._active, set: (v) => { setImmediate(() => { qp._active = v; qp.a.fire(v); }); } });
      qp.onDidChangeActive = qp.a.event; qp.onDidAccept = qp.acc.event; qp.onDidHide = qp.h.event;
      qp.show = () => { qp.shown = true; };
      qp.hide = () => { if (!qp.hidden) { qp.hidden = true; qp.h.fire(); } };
      qp.dispose = () => { qp.disposed = true; };
      qp.accept = (item) => { qp.selectedItems = [item]; qp.acc.fire(); };
      log.quickPicks.push(qp);
      return qp;
    },
    tabGroups: { all: [], close: async () => {} },
    activeTextEditor: undefined,
  },
  workspace: {
    getConfiguration: () => ({ get: (k) => conf[k] }),
    asRelativePath: () => 'Cart.java',
    registerTextDocumentContentProvider: () => ({ dispose() {} }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
    createFileSystemWatcher: () => ({}),
    openTextDocument: async () => doc,
    applyEdit: async () => true,
  },
  commands: {
    registerCommand: (n, f) => { commands[n] = f; return { dispose() {} }; },
    executeCommand: async (c) => { if (c === 'vscode.diff') log.diffs++; },
  },
  languages: { registerInlineCompletionItemProvider: () => ({ dispose() {} }) },
};
let repairReq; // {resolve, reject, token}
const notif = {};
class LanguageClient {
  constructor() { this.code2ProtocolConverter = { asUri: () => 'file:///p/Cart.java' }; this.protocol2CodeConverter = {}; }
  async start() {} isRunning() { return true; } onDidChangeState() {}
  onNotification(m, f) { notif[m] = f; } onProgress() { return { dispose() {} }; }
  sendRequest(type, params, token) {
    log.requests.push(params);
    if (params.command === 'repilot.repairHunk') {
      return new Promise((resolve, reject) => {
        repairReq = { resolve, reject, token };
        token.onCancellationRequested(() => reject({ code: -32800, message: 'cancelled' }));
      });
    }
    return Promise.resolve({ applied: true });
  }
}
const origResolve = Module._resolveFilename;
Module._resolveFilename = function (r, ...rest) { return r === 'vscode' || r === 'vscode-languageclient/node' ? r : origResolve.call(this, r, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
require.cache['vscode-languageclient/node'] = { id: 'x', filename: 'x', loaded: true, exports: { LanguageClient, ExecuteCommandRequest: { type: 'ec' }, WorkDoneProgress: { type: 'wdp' } } };

const doc = { languageId: 'java', uri: { path: '/p/Cart.java' }, version: 7, getText: () => 'a\nb\nc\n' };
const uri = 'file:///p/Cart.java';
const patch = (t, o) => ({ title: 'Repilot patch found: ' + t, hunk: t + '\n', edit: { changes: { [uri]: [] } },
  command: { command: 'repilot.applyPatch', arguments: [{ uri, version: 7, t }] }, ...o });
const found = (p, version = 7) => notif['repilot/patchFound']({ uri, version, patch: p });
const ranked = (ps) => ({ patches: ps.map((p, i) => ({ ...p, title: `Apply Repilot patch ${i + 1}: ` + p.title.replace(/^Repilot patch found: /, '') })) });

function run(name, f) {
  test(name, () => scenario(f));
}

async function scenario(f) {
  log.info = []; log.error = []; log.quickPicks = []; log.requests = []; repairReq = undefined;
  vscode.window.activeTextEditor = { document: doc, selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } } };
  const done = commands['repilot.repairSelection']();
  await tick();
  await f(done);
  await done;
}

test('activate', async () => {
  const ext = require(EXT);
  await ext.activate({ subscriptions: { push() {} }, secrets: { get: async () => undefined } });
  assert.equal(typeof notif['repilot/patchFound'], 'function', 'no repilot/patchFound handler');
});
{
  const A = patch('a', { compilable: true, logProb: -1 });
  const B = patch('b', { compilable: false, logProb: 0 });
  const C = patch('c', { compilable: true, plausible: true, logProb: -3 });
  const D = patch('d', { compilable: true, logProb: -2 });

  run('early choice cancels the rest and applies', async () => {
    found(B); await tick();
    assert.equal(log.quickPicks.length, 0, 'opened on a patch that does not compile');
    found(A, 6); await tick();
    assert.equal(log.quickPicks.length, 0, 'took another version');
    found(A); await tick();
    const qp = log.quickPicks[0];
    assert.ok(qp && qp.shown && qp.busy === true && /still running/.test(qp.title), qp && qp.title);
    assert.deepEqual(qp.items.map((i) => i.label), ['$(check) a']);
    found(C); await tick();
    assert.deepEqual(qp.items.map((i) => i.label), ['$(pass-filled) c', '$(check) a']);
    qp.activeItems = [qp.items[1]]; await settle();
    const diffs = log.diffs;
    found(D); await settle();
    assert.equal(qp.activeItems[0].patch.hunk, 'a\n', 'focus lost');
    assert.equal(log.diffs, diffs, 'the preview moved while the focus stayed on a');
    qp.accept(qp.activeItems[0]); await tick(); await tick();
    assert.equal(repairReq.token.isCancellationRequested, true, 'the repair was not cancelled');
    const apply = log.requests.find((p) => p.command === 'repilot.applyPatch');
    assert.ok(apply && apply.arguments[0].t === 'a', JSON.stringify(log.requests));
    await tick();
    assert.ok(log.info.some((m) => /rest of the repair was cancelled/.test(m)), JSON.stringify(log.info));
    assert.ok(!log.info.some((m) => /repair cancelled\./.test(m)), 'a "cancelled" message for the user\'s own choice');
  });

  run('the ranked result replaces the streamed items, focus kept', async () => {
    found(A); found(C); await tick();
    const qp = log.quickPicks[0];
    qp.activeItems = [qp.items[1]]; await tick(); // a
    repairReq.resolve(ranked([C, A, D])); await tick(); await tick();
    assert.equal(log.quickPicks.length, 1, 'a second picker');
    assert.equal(qp.busy, false);
    assert.ok(!/still running/.test(qp.title), qp.title);
    assert.deepEqual(qp.items.map((i) => i.label), ['$(pass-filled) 1. c', '$(check) 2. a', '$(check) 3. d']);
    assert.equal(qp.activeItems[0].label, '$(check) 2. a');
    qp.accept(qp.activeItems[0]); await tick();
    assert.equal(repairReq.token.isCancellationRequested, false);
    assert.ok(log.requests.some((p) => p.command === 'repilot.applyPatch'));
  });

  run('Escape before the end: the repair goes on, the ranked list opens at the end', async () => {
    found(A); await tick();
    const qp = log.quickPicks[0];
    qp.hide(); await tick();
    found(C); await tick();
    assert.equal(repairReq.token.isCancellationRequested, false, 'Escape cancelled the repair');
    repairReq.resolve(ranked([C, A])); await tick(); await tick();
    assert.equal(log.quickPicks.length, 2);
    const q2 = log.quickPicks[1];
    assert.equal(q2.busy, false);
    assert.deepEqual(q2.items.map((i) => i.label), ['$(pass-filled) 1. c', '$(check) 2. a']);
    q2.hide();
  });

  run('no streamed patch: as before', async () => {
    repairReq.resolve(ranked([C, B])); await tick(); await tick();
    const qp = log.quickPicks[0];
    assert.equal(qp.busy, false);
    assert.deepEqual(qp.items.map((i) => i.label), ['$(pass-filled) 1. c']);
    // The picker says that one was hidden, and how to list it.
    assert.equal(qp.title, 'Repilot patches for Cart.java line 2 (1 that does not compile hidden)');
    assert.match(qp.placeholder, /repilot\.repair\.showUncompilable/);
    qp.hide();
  });

  run('the streamed picker counts the hidden patches', async () => {
    found(B); found(A); await tick();
    const qp = log.quickPicks[0];
    assert.match(qp.title, /\(1 that does not compile hidden; repair still running/);
    repairReq.resolve(ranked([A, B, D])); await tick(); await tick();
    assert.equal(qp.title, 'Repilot patches for Cart.java line 2 (1 that does not compile hidden)');
    qp.hide();
  });

  run('the server\'s end-of-repair message is not shown (the picker says it)', async () => {
    const show = notif['window/showMessage'];
    assert.equal(typeof show, 'function', 'window/showMessage is left to the language client');
    show({ type: 3, message: 'Repilot: 2 patches, 1 compilable for Cart.java line 2; each is offered as "Apply Repilot patch k" among the code actions there.' });
    show({ type: 3, message: 'Repilot: something else' });
    assert.deepEqual(log.info, ['Repilot: something else']);
    repairReq.resolve(ranked([A])); await tick(); await tick();
    log.quickPicks[0].hide();
  });

  run('Cancel from the notification with the picker open keeps the patches found', async () => {
    found(A); await tick();
    log.progressCancel.cancel(); await tick(); await tick();
    const qp = log.quickPicks[0];
    assert.equal(qp.busy, false);
    assert.ok(/repair cancelled/.test(qp.title), qp.title);
    assert.ok(log.info.includes('Repilot: repair cancelled.'), JSON.stringify(log.info));
    qp.accept(qp.items[0]); await tick();
    assert.ok(log.requests.some((p) => p.command === 'repilot.applyPatch'));
  });

  run('none compiles: the message says so and "Show them" lists them', async () => {
    log.answer = (m) => (/none of the 2 patches/.test(m) ? 'Show them' : undefined);
    repairReq.resolve(ranked([B, patch('e', { compilable: false, logProb: -2 })])); await tick(); await tick();
    log.answer = undefined;
    assert.deepEqual(log.info, ['Repilot: none of the 2 patches for Cart.java line 2 compiles.']);
    const qp = log.quickPicks[0];
    assert.ok(qp && qp.shown, 'no picker after "Show them"');
    assert.deepEqual(qp.items.map((i) => i.description), ['does not compile', 'does not compile']);
    assert.equal(qp.title, 'Repilot patches for Cart.java line 2');
    qp.hide();
  });

  run('the repair fails with no picker: the error as before', async () => {
    repairReq.reject({ code: -32803, message: 'boom' }); await tick();
    assert.ok(log.error.some((m) => /boom/.test(m)), JSON.stringify(log.error));
  });
}
