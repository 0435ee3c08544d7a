// lib/repair.js: the editor-independent part of the VS Code client: building
// the argument of the proxy's "repilot.repairHunk" command from a selection,
// turning its result into QuickPick items, and the environment the server
// process starts with. No `vscode` import, so `node --test` covers it.
'use strict';

/** The proxy's workspace/executeCommand id (proxy/repair.go CommandRepairHunk). */
const REPAIR_COMMAND = 'repilot.repairHunk';

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
function repairArgs(uri, sel, version) {
  return { uri, range: hunkRange(sel), version };
}

/** 1-based inclusive line numbers of a hunkRange, for messages. */
function lineLabel(range) {
  const a = range.start.line + 1;
  const b = range.end.line;
  return a === b ? `line ${a}` : `lines ${a}-${b}`;
}

/** The status of a patch in words: plausible (tests pass), compilable, or neither. */
function patchStatus(p) {
  if (p.plausible) return 'plausible: compiles, tests pass';
  if (p.compilable) return 'compilable';
  return 'does not compile';
}

/**
 * patchItems turns the command's result {patches: [{title, edit, compilable,
 * plausible, logProb, diff, hunk?}]} into QuickPick items, in the server's
 * (ranked) order. Each item keeps its patch in `patch`. Throws on a result
 * without a patches array.
 */
function patchItems(result) {
  if (!result || !Array.isArray(result.patches)) {
    throw new Error('repilot.repairHunk returned no patches list');
  }
  return result.patches.map((p, i) => {
    const icon = p.plausible ? '$(pass-filled)' : p.compilable ? '$(check)' : '$(warning)';
    const title = String(p.title || `Patch ${i + 1}`).replace(/^Apply Repilot patch \d+: /, '');
    const lp = typeof p.logProb === 'number' && Number.isFinite(p.logProb) ? `, log p ${p.logProb.toFixed(2)}` : '';
    return {
      label: `${icon} ${i + 1}. ${title}`,
      description: patchStatus(p) + lp,
      detail: addedLines(p),
      patch: p,
    };
  });
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
 * is read from the environment variable named by repilot.model.apiKeyEnv and
 * handed over as REPILOT_API_KEY (which lm/openai reads), so it never appears
 * in settings.json or in a log.
 * @param {{jdtlsHome?:string, baseURL?:string, model?:string, apiKeyEnv?:string, cache?:string}} s
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
  return out;
}

/** A user-facing message for a failed repilot.repairHunk request. */
function describeError(err) {
  const code = err && err.code;
  const msg = (err && err.message) || String(err);
  if (code === -32801) return `Repilot: the document changed while repairing; select the hunk again. (${msg})`;
  if (code === -32800) return 'Repilot: repair cancelled.';
  return `Repilot: ${msg}`;
}

module.exports = { REPAIR_COMMAND, hunkRange, repairArgs, lineLabel, patchItems, patchStatus, addedLines, serverEnv, describeError };
