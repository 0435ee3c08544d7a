// fake_server.js: a stand-in for repilot-lsp in the Neovim plugin's headless
// test (e2e.lua). It speaks the LSP base protocol on stdio, mirrors document
// versions from didOpen/didChange, and answers workspace/executeCommand
// "repilot.repairHunk" like proxy/feature/repairfeat: it checks the argument
// {uri, range, version} (whole lines, the current version) and returns two
// patches for the selected lines, the first replacing them with FIX below,
// each with its "repilot.applyPatch" command, which it runs like the proxy:
// version check, then workspace/applyEdit to the editor. Before the result it
// streams each patch as a repilot/patchFound notification, as the proxy does;
// with the test command ["hold"] it then holds the result back until a
// $/cancelRequest for the request comes, and answers RequestCancelled.
// Every message it receives is appended to $REPILOT_FAKE_LOG as a JSON line.
'use strict';
const fs = require('fs');

const FIX = '        int off = subtotal * discount.percentOff() / 100;\n';
const log = process.env.REPILOT_FAKE_LOG;
const versions = new Map();
const texts = new Map();
let buf = Buffer.alloc(0);

function send(msg) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function lineCount(text) {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function repair(a) {
  if (!a || typeof a.uri !== 'string' || !a.range) {
    return { error: { code: -32602, message: 'want {uri, range, version}' } };
  }
  if (!versions.has(a.uri)) {
    return { error: { code: -32602, message: `${a.uri} is not open` } };
  }
  if (a.version !== versions.get(a.uri)) {
    return { error: { code: -32801, message: `version ${a.version}, document is at ${versions.get(a.uri)}` } };
  }
  const { start, end } = a.range;
  if (start.character !== 0 || end.character !== 0 || end.line <= start.line || end.line > lineCount(texts.get(a.uri))) {
    return { error: { code: -32602, message: `not a whole-line range: ${JSON.stringify(a.range)}` } };
  }
  const edit = (text) => ({ changes: { [a.uri]: [{ range: a.range, newText: text }] } });
  const withCommand = (p) => ({ ...p, command: { title: p.title, command: 'repilot.applyPatch',
    arguments: [{ uri: a.uri, version: a.version, title: p.title, edit: p.edit }] } });
  return {
    result: {
      patches: [
        { title: 'Apply Repilot patch 1: int off = subtotal * discount.percentOff() / 100;', edit: edit(FIX), hunk: FIX,
          compilable: true, plausible: true, logProb: -1.25, diff: '+' + FIX },
        { title: 'Apply Repilot patch 2: int off = 0;', edit: edit('        int off = 0;\n'), hunk: '        int off = 0;\n',
          compilable: true, plausible: false, logProb: -7.5, diff: '+        int off = 0;\n' },
      ].map(withCommand),
      stats: { Samples: 2 },
    },
  };
}

// applyPatch answers request id for repilot.applyPatch: version check, then
// workspace/applyEdit to the editor, then the editor's answer.
let searches = 0; // repilot.semanticSearch requests so far
const waiting = new Map(); // our request id -> function(response)
const held = new Map(); // repairs held back until cancelled (test command ["hold"])
let nextID = 0;
function applyPatch(id, a) {
  if (!a || a.version !== versions.get(a.uri)) {
    return send({ id, error: { code: -32801, message: 'the document changed since the repair' } });
  }
  const own = `fake/${++nextID}`;
  waiting.set(own, (resp) => {
    if (resp.result && resp.result.applied) return send({ id, result: { applied: true } });
    send({ id, error: { code: -32803, message: 'the patch was not applied: ' + JSON.stringify(resp) } });
  });
  send({ id: own, method: 'workspace/applyEdit', params: { label: a.title, edit: a.edit } });
}

function applyChange(uri, change) {
  // Only full-text changes and simple ranges are needed by the test.
  if (!change.range) {
    texts.set(uri, change.text);
    return;
  }
  const lines = texts.get(uri).split('\n');
  const off = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const t = texts.get(uri);
  texts.set(uri, t.slice(0, off(change.range.start)) + change.text + t.slice(off(change.range.end)));
}

function handle(msg) {
  if (log) fs.appendFileSync(log, JSON.stringify(msg) + '\n');
  if (msg.method === undefined && waiting.has(msg.id)) {
    const k = waiting.get(msg.id);
    waiting.delete(msg.id);
    return k(msg);
  }
  switch (msg.method) {
    case 'initialize':
      return send({ id: msg.id, result: {
        capabilities: { textDocumentSync: { openClose: true, change: 2 }, executeCommandProvider: { commands: ['repilot.repairHunk', 'repilot.applyPatch'] } },
        serverInfo: { name: 'fake-repilot-lsp' },
      } });
    case 'textDocument/didOpen':
      versions.set(msg.params.textDocument.uri, msg.params.textDocument.version);
      texts.set(msg.params.textDocument.uri, msg.params.textDocument.text);
      return;
    case 'textDocument/didChange':
      versions.set(msg.params.textDocument.uri, msg.params.textDocument.version);
      for (const c of msg.params.contentChanges) applyChange(msg.params.textDocument.uri, c);
      return;
    case 'workspace/executeCommand':
      if (msg.params.command === 'repilot.applyPatch') return applyPatch(msg.id, (msg.params.arguments || [])[0]);
      if (msg.params.command === 'repilot.semanticSearch') {
        // The first two searches meet an index still being built (nothing
        // found yet), as right after a project is opened.
        searches++;
        const a = (msg.params.arguments || [])[0] || {};
        const uri = [...versions.keys()][0];
        const results = searches <= 2 ? [] : [{ location: { uri, range: { start: { line: 29, character: 8 }, end: { line: 29, character: 20 } } },
          name: 'totalCents', signature: 'public int totalCents()', snippet: 'int off = 0;' }];
        return send({ id: msg.id, result: { query: a.query, results, indexing: searches <= 2 } });
      }
      if (msg.params.command !== 'repilot.repairHunk') {
        return send({ id: msg.id, error: { code: -32602, message: 'unknown command ' + msg.params.command } });
      }
      {
        const a = (msg.params.arguments || [])[0];
        const answer = repair(a);
        if (answer.result) {
          for (const p of answer.result.patches) {
            send({ method: 'repilot/patchFound', params: { uri: a.uri, version: a.version,
              patch: { ...p, title: p.title.replace(/^Apply Repilot patch \d+: /, 'Repilot patch found: ') } } });
          }
          if (JSON.stringify(a.testCommand) === '["hold"]') {
            held.set(msg.id, true);
            return;
          }
        }
        return send({ id: msg.id, ...answer });
      }
    case '$/cancelRequest':
      if (held.delete(msg.params.id)) send({ id: msg.params.id, error: { code: -32800, message: 'the repair was cancelled' } });
      return;
    case 'shutdown':
      return send({ id: msg.id, result: null });
    case 'exit':
      process.exit(0);
    default:
      if (msg.id !== undefined && msg.method) send({ id: msg.id, error: { code: -32601, message: 'not handled: ' + msg.method } });
  }
}

process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const sep = buf.indexOf('\r\n\r\n');
    if (sep < 0) return;
    const m = /Content-Length: *(\d+)/i.exec(buf.slice(0, sep).toString('ascii'));
    const len = Number(m[1]);
    if (buf.length < sep + 4 + len) return;
    const body = buf.slice(sep + 4, sep + 4 + len).toString('utf8');
    buf = buf.slice(sep + 4 + len);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
