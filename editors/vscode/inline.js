// inline.js: ghost text in VS Code. An InlineCompletionItemProvider for Java
// documents that asks the proxy's workspace/executeCommand
// "repilot.inlineSuggest" ({uri, position, version, invoked}) and shows the
// item it returns: a suggestion that the proxy has compile-checked with its
// shadow JDT LS. Tab accepts it; VS Code's own "Accept Next Word Of Inline
// Suggestion" accepts it word by word. The setting repilot.inline.enabled
// turns it on or off; a status-bar item says when it is off or busy.
'use strict';

const vscode = require('vscode');
const { ExecuteCommandRequest } = require('vscode-languageclient/node');

/**
 * Registers the provider and the status-bar item.
 * @param {vscode.ExtensionContext} context
 * @param {() => import('vscode-languageclient/node').LanguageClient | undefined} getClient
 */
function register(context, getClient) {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  let busy = 0;
  const enabled = () => vscode.workspace.getConfiguration('repilot').get('inline.enabled', true);
  const refresh = () => {
    if (!enabled()) {
      status.text = '$(circle-slash) Repilot ghost text off';
      status.tooltip = 'Set repilot.inline.enabled to turn compile-checked ghost text on';
      status.show();
    } else if (busy > 0) {
      status.text = '$(sync~spin) Repilot';
      status.tooltip = 'Repilot is checking a suggestion';
      status.show();
    } else {
      status.hide();
    }
  };
  const provider = {
    async provideInlineCompletionItems(document, position, ctx, token) {
      const client = getClient();
      if (!enabled() || !client || !client.isRunning()) return [];
      const invoked = ctx.triggerKind === vscode.InlineCompletionTriggerKind.Invoke;
      busy++;
      refresh();
      try {
        const list = await client.sendRequest(ExecuteCommandRequest.type, {
          command: 'repilot.inlineSuggest',
          arguments: [{
            uri: client.code2ProtocolConverter.asUri(document.uri),
            position: { line: position.line, character: position.character },
            version: document.version,
            invoked,
          }],
        }, token);
        if (!list || !Array.isArray(list.items)) return [];
        return list.items.map((it) => new vscode.InlineCompletionItem(it.insertText,
          new vscode.Range(it.range.start.line, it.range.start.character, it.range.end.line, it.range.end.character)));
      } catch (_) {
        return []; // cancelled, superseded, or the document changed: show nothing
      } finally {
        busy--;
        refresh();
      }
    },
  };
  context.subscriptions.push(
    status,
    vscode.languages.registerInlineCompletionItemProvider({ language: 'java', scheme: 'file' }, provider),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('repilot.inline.enabled')) refresh();
    }),
  );
  refresh();
}

module.exports = { register };
