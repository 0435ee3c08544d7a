// lib/repair.js: the editor-independent part of the VS Code client: building
// the argument of the proxy's "repilot.repairHunk" command from a selection,
// turning its result into QuickPick items, and the environment the server
// process starts with. No `vscode` import, so `node --test` covers it.
'use strict';

/** The proxy's workspace/executeCommand id (proxy/feature/repairfeat CommandRepairHunk). */
const REPAIR_COMMAND = 'repilot.repairHunk';

/** The command that applies a patch (proxy/feature/repairfeat CommandApplyPatch). */
const APPLY_COMMAND = 'repilot.applyPatch';

/**
 * applyParams returns the workspace/executeCommand params that apply a patch
 * through the server: its repilot.applyPatch command, which checks that the
 * document is still at the version the repair read and sends
 * workspace/applyEdit. Undefined when the patch carries no such command (a
 * server without it).
 */
function applyParams(patch) {
  const c = patch && patch.command;
  if (!c || c.command !== APPLY_COMMAND) return undefined;
  return { command: c.command, arguments: Array.isArray(c.arguments) ? c.arguments : [] };
}

/**
 * hunkRange turns a selection into the LSP range of the whole lines it
 * touches: {start: line s, character 0} to {line e+1, character 0}
 * (end-exclusive). A selection that ends at character 0 of a later line does
 * not include that line; an empty selection (a cursor) selects its line.
 * Lines are 0-based as in LSP (specification 3.17, "Range").
 * @param {{start:{line:number,character:number}, end:{line:number,character:number}}} sel
 */
function hunkRange(sel) {
  const first = sel.start.line;
  let last = sel.end.line;
  if (sel.end.character === 0 && sel.end.line > sel.start.line) {
    last -= 1;
  }
  return { start: { line: first, character: 0 }, end: { line: last + 1, character: 0 } };
}

/**
 * repairArgs is the one argument of repilot.repairHunk: {uri, range, version}.
 * The proxy refuses (ContentModified) when version is not the document
 * version it mirrors, so the patches always match what the user selected.
 */
function repairArgs(uri, sel, version, testCommand) {
  const a = { uri, range: hunkRange(sel), version };
  if (Array.isArray(testCommand) && testCommand.length > 0) a.testCommand = testCommand.map(String);
  return a;
}

/** 1-based inclusive line numbers of a hunkRange, for messages. */
function lineLabel(range) {
  const a = range.start.line + 1;
  const b = range.end.line;
  return a === b ? `line ${a}` : `lines ${a}-${b}`;
}

/** The status of a patch in words: compiles, tests pass; compiles; or does not compile. */
function patchStatus(p) {
  if (p.plausible) return 'compiles, tests pass';
  if (p.compilable) return 'compiles';
  return 'does not compile';
}

/**
 * patchItems turns the command's result {patches: [{title, edit, compilable,
 * plausible, logProb, diff, hunk?}]} into QuickPick items, in the server's
 * (ranked) order, numbered by that rank. Patches that do not compile are
 * left out unless showUncompilable. Each item keeps its patch in `patch`.
 * Throws on a result without a patches array.
 */
function patchItems(result, showUncompilable = true) {
  if (!result || !Array.isArray(result.patches)) {
    throw new Error('repilot.repairHunk returned no patches list');
  }
  const items = result.patches.map((p, i) => patchItem(p, i + 1));
  return showUncompilable ? items : items.filter((it) => it.patch.compilable);
}

// patchItem is the QuickPick item of one patch, numbered rank (1-based) when
// rank is given (a ranked result), unnumbered otherwise (a streamed patch).
function patchItem(p, rank) {
  const icon = p.plausible ? '$(pass-filled)' : p.compilable ? '$(check)' : '$(warning)';
  const title = String(p.title || `Patch ${rank || ''}`.trim())
    .replace(/^Apply Repilot patch \d+: /, '').replace(/^Repilot patch found: /, '');
  // The added lines, unless they are the title already (a one-line hunk).
  const added = addedLines(p);
  return {
    label: rank ? `${icon} ${rank}. ${title}` : `${icon} ${title}`,
    description: patchStatus(p),
    detail: added === title ? undefined : added,
    patch: p,
  };
}

/** The notification that streams a repair's patches (proxy/feature/repairfeat NotifyPatchFound). */
const FOUND_NOTIFICATION = 'repilot/patchFound';

/**
 * matchesRepair tells whether a repilot/patchFound notification's params
 * {uri, version, patch} belong to the repair pending = {uri, version} (the
 * document and version repairArgs sent).
 */
function matchesRepair(params, pending) {
  return !!params && !!pending && params.uri === pending.uri && params.version === pending.version &&
    !!params.patch && typeof params.patch === 'object';
}

/**
 * patchKey identifies a patch across the stream and the ranked result (their
 * titles differ): its hunk, else its diff, else its title's text.
 */
function patchKey(p) {
  if (!p) return '';
  if (typeof p.hunk === 'string') return 'h:' + p.hunk;
  if (typeof p.diff === 'string' && p.diff) return 'd:' + p.diff;
  return 't:' + String(p.title || '').replace(/^Apply Repilot patch \d+: /, '').replace(/^Repilot patch found: /, '');
}

/**
 * addFound appends a streamed patch to found (an array, in arrival order)
 * unless a patch with the same patchKey is there; returns whether it did.
 */
function addFound(found, patch) {
  const k = patchKey(patch);
  if (found.some((p) => patchKey(p) === k)) return false;
  found.push(patch);
  return true;
}

/**
 * foundItems turns the patches streamed so far into QuickPick items (not
 * numbered: the ranking comes with the result): "compiles, tests pass"
 * first, then "compiles", then the rest, each group by logProb (highest
 * first), ties in arrival order. Patches that do not compile are left out
 * unless showUncompilable.
 */
function foundItems(found, showUncompilable = false) {
  const grade = (p) => (p.plausible ? 2 : p.compilable ? 1 : 0);
  const lp = (p) => (typeof p.logProb === 'number' ? p.logProb : -Infinity);
  return found.map((p, i) => ({ p, i }))
    .filter(({ p }) => showUncompilable || p.compilable)
    .sort((a, b) => grade(b.p) - grade(a.p) || lp(b.p) - lp(a.p) || a.i - b.i)
    .map(({ p }) => patchItem(p));
}

/**
 * sameItem returns the item of items showing the same patch (patchKey) as
 * item, or undefined: the focus kept when the picker's items are replaced.
 */
function sameItem(item, items) {
  if (!item || !item.patch) return undefined;
  const k = patchKey(item.patch);
  return items.find((it) => it.patch && patchKey(it.patch) === k);
}

/**
 * patchEdits returns the TextEdits a patch's WorkspaceEdit makes to the
 * document uri (documentChanges or changes), [] when none.
 */
function patchEdits(edit, uri) {
  if (!edit) return [];
  if (Array.isArray(edit.documentChanges)) {
    return edit.documentChanges.filter((dc) => dc.textDocument && dc.textDocument.uri === uri).flatMap((dc) => dc.edits || []);
  }
  return (edit.changes && edit.changes[uri]) || [];
}

/**
 * applyTextEdits returns text with LSP TextEdits applied (positions are
 * 0-based lines and UTF-16 characters, as JavaScript strings count them;
 * edits do not overlap, as the specification requires).
 */
function applyTextEdits(text, edits) {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p) => {
    if (p.line >= lineStarts.length) return text.length;
    const start = lineStarts[p.line];
    const end = p.line + 1 < lineStarts.length ? lineStarts[p.line + 1] - 1 : text.length;
    return Math.min(start + p.character, end);
  };
  const sorted = edits.map((e) => ({ a: offset(e.range.start), b: offset(e.range.end), t: e.newText }))
    .sort((x, y) => y.a - x.a);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.a) + e.t + out.slice(e.b);
  return out;
}

/**
 * searchItems turns repilot.semanticSearch's result {results: [{location,
 * name, kind, signature, snippet, score}]} into QuickPick items: the
 * signature (or name), "file:line" and the snippet's first two lines after
 * the declaration. relPath(uri) gives the
 * file's name as shown. Each item keeps its hit in `hit`.
 */
function searchItems(result, relPath) {
  if (!result || !Array.isArray(result.results)) return [];
  return result.results.map((h) => {
    const start = (h.location && h.location.range && h.location.range.start) || { line: 0, character: 0 };
    const label = h.signature || h.name || '(unnamed)';
    // The first lines of the code after its declaration line (which the label shows).
    let lines = String(h.snippet || '').split('\n').map((l) => l.trim()).filter((l) => l !== '');
    if (lines.length > 0 && lines[0].startsWith(label)) lines = lines.slice(1);
    const detail = lines.slice(0, 2).join(' ⏎ ');
    return {
      label,
      description: `${relPath(h.location.uri)}:${start.line + 1}`,
      detail: detail.length > 160 ? detail.slice(0, 157) + '...' : detail,
      hit: h,
    };
  });
}

/**
 * checkTestCommand returns an error message for a repilot.testCommand
 * setting that is not argv (a non-empty array of strings), or '' when it
 * is fine or unset.
 */
function checkTestCommand(cmd) {
  if (cmd === undefined || cmd === null || (Array.isArray(cmd) && cmd.length === 0)) return '';
  if (!Array.isArray(cmd) || !cmd.every((w) => typeof w === 'string')) {
    return '"repilot.testCommand" must be an array of strings (argv, no shell), e.g. ["mvn", "-q", "test"]';
  }
  if (cmd[0].trim() === '') return '"repilot.testCommand": the program name (the first word) is empty';
  return '';
}

/** The lines a patch adds, from its diff (or its hunk), joined on one line. */
function addedLines(p) {
  let lines = [];
  if (typeof p.diff === 'string' && p.diff) {
    lines = p.diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1));
  } else if (typeof p.hunk === 'string') {
    lines = p.hunk.split('\n');
  }
  const text = lines.map((l) => l.trim()).filter(Boolean).join(' ⏎ ');
  return text === '' ? '(deletes the lines)' : text;
}

/**
 * serverEnv is the environment of the repilot-lsp process: the extension
 * host's environment plus the settings. The API key is never a setting: it
 * comes from VS Code's SecretStorage (s.apiKey, stored by "Repilot: Set model
 * API key"), else from the environment variable named by
 * repilot.model.apiKeyEnv, and is handed over as REPILOT_API_KEY (which
 * lm/openai reads), so it never appears in settings.json or in a log.
 * @param {{jdtlsHome?:string, baseURL?:string, model?:string, apiKeyEnv?:string, cache?:string, apiKey?:string}} s
 * @param {Record<string,string|undefined>} env
 */
function serverEnv(s, env) {
  const out = { ...env };
  if (s.jdtlsHome) out.REPILOT_JDTLS_HOME = s.jdtlsHome;
  if (s.cache) out.REPILOT_CACHE = s.cache;
  if (s.baseURL) out.REPILOT_MODEL_BASE_URL = s.baseURL;
  if (s.model) out.REPILOT_MODEL_NAME = s.model;
  const keyVar = s.apiKeyEnv || 'REPILOT_API_KEY';
  if (keyVar !== 'REPILOT_API_KEY' && env[keyVar]) out.REPILOT_API_KEY = env[keyVar];
  if (s.apiKey) out.REPILOT_API_KEY = s.apiKey; // from SecretStorage
  return out;
}

/**
 * A user-facing message for a failed request; what names it ("repair",
 * "search"). A request the user cancelled comes back as RequestCancelled
 * (-32800) or as VS Code's CancellationError ("Canceled").
 */
function describeError(err, what = 'repair') {
  const code = err && err.code;
  const msg = (err && err.message) || String(err);
  if (code === -32801) return `Repilot: the document changed while repairing; select the hunk again. (${msg})`;
  if (isCancelled(err)) return `Repilot: ${what} cancelled.`;
  return `Repilot: ${msg}`;
}

/** Whether err is a cancellation (RequestCancelled, or VS Code's CancellationError). */
function isCancelled(err) {
  return !!err && (err.code === -32800 || err.name === 'Canceled' || err.message === 'Canceled');
}

/**
 * showMessageText is what the extension shows of the server's
 * window/showMessage text, or null for nothing. The server ends every repair
 * with a message for clients that show only messages ("Repilot: 5 patches, 3
 * compilable for Cart.java line 30; each is offered as "Apply Repilot patch
 * k" among the code actions there."): in VS Code it was cut off, stayed up
 * after the patch was applied and repeated the picker, which now says the
 * same (pickerTitle). Only its warning stays ("the tests pass on the
 * unchanged code too"). "the language model produced no candidate patch" is
 * the repair's error answer too, shown as such.
 */
function showMessageText(message) {
  if (typeof message !== 'string') return message;
  if (/^Repilot: .* each is offered as "Apply Repilot patch k"/.test(message)) {
    const w = message.match(/ Warning: (.*)$/);
    return w ? `Repilot: ${w[1]}` : null;
  }
  if (/^Repilot: the language model produced no candidate patch for /.test(message)) return null;
  return message;
}

/**
 * pickerTitle is the title of the patches' QuickPick: where, how many
 * patches that do not compile are hidden (without
 * repilot.repair.showUncompilable), and the repair's state (note, else
 * "still running" while busy): "Repilot patches for Cart.java line 30 (2
 * that do not compile hidden)". Before, nothing said that any were hidden.
 */
function pickerTitle(where, hidden, busy, note) {
  const parts = [];
  if (hidden > 0) parts.push(`${hidden} that ${hidden === 1 ? 'does' : 'do'} not compile hidden`);
  if (note) parts.push(note);
  else if (busy) parts.push('repair still running: more may come');
  return `Repilot patches for ${where}` + (parts.length ? ` (${parts.join('; ')})` : '');
}

/**
 * pickerPlaceholder is the QuickPick's placeholder: what Enter and Escape
 * do, and with hidden patches the setting that lists them.
 */
function pickerPlaceholder(hidden, busy) {
  const keys = busy ?
    'Enter applies the patch shown in the diff and stops the repair; Escape hides this list until the repair ends' :
    'Enter applies the patch shown in the diff; Escape keeps the file as it is';
  return hidden > 0 ? `${keys}. Setting "repilot.repair.showUncompilable" lists the hidden` : keys;
}

/** The proxy's semantic search command id (proxy/feature/searchfeat CommandSemanticSearch). */
const SEARCH_COMMAND = 'repilot.semanticSearch';

module.exports = {
  REPAIR_COMMAND, APPLY_COMMAND, SEARCH_COMMAND, FOUND_NOTIFICATION, applyParams, matchesRepair, patchKey, addFound, foundItems, sameItem, hunkRange, repairArgs, lineLabel, patchItems, patchStatus, addedLines, patchEdits,
  applyTextEdits, searchItems, checkTestCommand, serverEnv, describeError, isCancelled, showMessageText, pickerTitle, pickerPlaceholder,
};
