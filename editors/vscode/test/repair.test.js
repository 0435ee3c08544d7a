// test/repair.test.js: unit tests of lib/repair.js (node --test).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const r = require('../lib/repair');

const pos = (line, character) => ({ line, character });
const sel = (a, b, c, d) => ({ start: pos(a, b), end: pos(c, d) });

test('hunkRange covers whole lines, end-exclusive', () => {
  assert.deepEqual(r.hunkRange(sel(4, 3, 6, 10)), { start: pos(4, 0), end: pos(7, 0) });
  // A selection ending at column 0 of a later line stops at the line before.
  assert.deepEqual(r.hunkRange(sel(4, 0, 6, 0)), { start: pos(4, 0), end: pos(6, 0) });
  // A cursor selects its line.
  assert.deepEqual(r.hunkRange(sel(9, 5, 9, 5)), { start: pos(9, 0), end: pos(10, 0) });
  assert.deepEqual(r.hunkRange(sel(9, 0, 9, 0)), { start: pos(9, 0), end: pos(10, 0) });
});

test('repairArgs passes the test command only when set', () => {
  assert.deepEqual(r.repairArgs('u', sel(0, 0, 0, 0), 1, ['mvn', '-q', 'test']).testCommand, ['mvn', '-q', 'test']);
  assert.equal('testCommand' in r.repairArgs('u', sel(0, 0, 0, 0), 1, []), false);
  assert.equal(r.checkTestCommand(undefined), '');
  assert.equal(r.checkTestCommand([]), '');
  assert.equal(r.checkTestCommand(['mvn', 'test']), '');
  assert.match(r.checkTestCommand('mvn test'), /array of strings/);
  assert.match(r.checkTestCommand(['mvn', 3]), /array of strings/);
  assert.match(r.checkTestCommand([' ']), /program name/);
});

test('applyTextEdits and patchEdits build the previewed text', () => {
  const text = 'a\nbb\ncc\n';
  const uri = 'file:///p/A.java';
  const edit = { documentChanges: [{ textDocument: { uri, version: 3 }, edits: [{ range: { start: pos(1, 0), end: pos(2, 0) }, newText: 'BB\nB2\n' }] }] };
  assert.equal(r.applyTextEdits(text, r.patchEdits(edit, uri)), 'a\nBB\nB2\ncc\n');
  assert.deepEqual(r.patchEdits(edit, 'file:///other'), []);
  const changes = { changes: { [uri]: [{ range: { start: pos(0, 0), end: pos(0, 1) }, newText: 'A' }, { range: { start: pos(2, 1), end: pos(3, 0) }, newText: '' }] } };
  assert.equal(r.applyTextEdits(text, r.patchEdits(changes, uri)), 'A\nbb\nc');
  // A range past the end clamps to the text.
  assert.equal(r.applyTextEdits('x', [{ range: { start: pos(0, 1), end: pos(5, 0) }, newText: 'y' }]), 'xy');
});

test('searchItems shows name, file:line and the snippet', () => {
  const items = r.searchItems({ results: [{ location: { uri: 'file:///p/src/D.java', range: { start: pos(3, 0), end: pos(5, 1) } },
    name: 'Discount', signature: 'public record Discount(String code, int percentOff)',
    snippet: '\n  public record Discount(String code, int percentOff) {\n  static final Discount NONE = new Discount("", 0);\n\n  int off(int c) {\n  return 0; }' }] },
  (u) => u.replace('file:///p/', ''));
  assert.equal(items.length, 1);
  assert.equal(items[0].label, 'public record Discount(String code, int percentOff)');
  assert.equal(items[0].description, 'src/D.java:4');
  assert.equal(items[0].detail, 'static final Discount NONE = new Discount("", 0); ⏎ int off(int c) {');
  assert.deepEqual(r.searchItems(null, String), []);
});

test('repairArgs and lineLabel', () => {
  const a = r.repairArgs('file:///p/Cart.java', sel(29, 8, 29, 20), 7);
  assert.deepEqual(a, { uri: 'file:///p/Cart.java', range: { start: pos(29, 0), end: pos(30, 0) }, version: 7 });
  assert.equal(r.lineLabel(a.range), 'line 30');
  assert.equal(r.lineLabel(r.hunkRange(sel(1, 0, 3, 2))), 'lines 2-4');
});

test('patchItems keeps the ranking and describes each patch', () => {
  const result = {
    patches: [
      { title: 'Apply Repilot patch 1: int off = subtotal * discount.percentOff() / 100;', edit: {}, compilable: true, plausible: true, logProb: -2.5,
        diff: '--- a/Cart.java\n+++ b/Cart.java\n@@ -30 +30 @@\n-        int off = subtotal * discount.percentage / 100;\n+        int off = subtotal * discount.percentOff() / 100;\n' },
      { title: 'Apply Repilot patch 2: x', edit: {}, compilable: true, plausible: false, logProb: -4 },
      { title: 'Apply Repilot patch 3: y', edit: {}, compilable: false, plausible: false, hunk: '' },
    ],
  };
  const items = r.patchItems(result);
  assert.equal(items.length, 3);
  assert.equal(items[0].label, '$(pass-filled) 1. int off = subtotal * discount.percentOff() / 100;');
  assert.equal(items[0].description, 'compiles, tests pass');
  assert.equal(items[0].detail, undefined, 'a one-line hunk is its title already');
  assert.equal(items[0].patch, result.patches[0]);
  assert.equal(items[1].description, 'compiles');
  // Without showUncompilable the patch that does not compile is left out; ranks stay.
  assert.deepEqual(r.patchItems(result, false).map((i) => i.label.split(' ')[1]), ['1.', '2.']);
  assert.ok(items[1].label.startsWith('$(check) 2.'));
  assert.equal(items[2].description, 'does not compile');
  assert.equal(items[2].detail, '(deletes the lines)');
  assert.throws(() => r.patchItems(null));
  assert.throws(() => r.patchItems({}));
  assert.deepEqual(r.patchItems({ patches: [] }), []);
});

test('serverEnv passes settings and the key, never as a setting', () => {
  const env = { PATH: '/bin', MY_KEY: 'sk-secret' };
  const out = r.serverEnv({ jdtlsHome: '/opt/jdtls', baseURL: 'http://127.0.0.1:8080/v1', model: 'qwen', apiKeyEnv: 'MY_KEY' }, env);
  assert.equal(out.PATH, '/bin');
  assert.equal(out.REPILOT_JDTLS_HOME, '/opt/jdtls');
  assert.equal(out.REPILOT_MODEL_BASE_URL, 'http://127.0.0.1:8080/v1');
  assert.equal(out.REPILOT_MODEL_NAME, 'qwen');
  assert.equal(out.REPILOT_API_KEY, 'sk-secret');
  assert.equal(env.REPILOT_API_KEY, undefined, 'the input environment is not modified');
  assert.equal(r.serverEnv({ apiKey: 'from-secrets', apiKeyEnv: 'MY_KEY' }, env).REPILOT_API_KEY, 'from-secrets');
  const plain = r.serverEnv({}, { PATH: '/bin' });
  assert.deepEqual(plain, { PATH: '/bin' });
});

test('describeError', () => {
  assert.match(r.describeError({ code: -32801, message: 'changed' }), /select the hunk again/);
  assert.equal(r.describeError({ code: -32800, message: 'x' }), 'Repilot: repair cancelled.');
  assert.equal(r.describeError({ name: 'Canceled', message: 'Canceled' }, 'search'), 'Repilot: search cancelled.');
  assert.equal(r.describeError(new Error('boom')), 'Repilot: boom');
});

test('applyParams takes the patch\'s repilot.applyPatch command, or nothing', () => {
  const args = [{ uri: 'file:///a.java', version: 3, edit: { changes: {} } }];
  assert.deepEqual(r.applyParams({ command: { title: 't', command: 'repilot.applyPatch', arguments: args } }),
    { command: 'repilot.applyPatch', arguments: args });
  assert.equal(r.applyParams({ edit: {} }), undefined);
  assert.equal(r.applyParams({ command: { command: 'something.else' } }), undefined);
  assert.equal(r.applyParams(undefined), undefined);
});

test('matchesRepair takes the pending repair\'s document and version only', () => {
  const pending = { uri: 'file:///p/Cart.java', version: 7 };
  const patch = { title: 'Repilot patch found: x', compilable: true };
  assert.equal(r.matchesRepair({ uri: 'file:///p/Cart.java', version: 7, patch }, pending), true);
  assert.equal(r.matchesRepair({ uri: 'file:///p/Cart.java', version: 6, patch }, pending), false, 'an older repair of the file');
  assert.equal(r.matchesRepair({ uri: 'file:///p/Other.java', version: 7, patch }, pending), false);
  assert.equal(r.matchesRepair({ uri: 'file:///p/Cart.java', version: 7 }, pending), false, 'no patch');
  assert.equal(r.matchesRepair(null, pending), false);
  assert.equal(r.matchesRepair({ uri: 'file:///p/Cart.java', version: 7, patch }, undefined), false);
});

test('streamed patches: deduplicated, ordered by status then logProb, focus kept on the ranked list', () => {
  const found = [];
  const a = { title: 'Repilot patch found: a', hunk: 'a\n', compilable: true, plausible: false, logProb: -1 };
  const b = { title: 'Repilot patch found: b', hunk: 'b\n', compilable: false, plausible: false, logProb: 0 };
  const c = { title: 'Repilot patch found: c', hunk: 'c\n', compilable: true, plausible: true, logProb: -9 };
  const d = { title: 'Repilot patch found: d', hunk: 'd\n', compilable: true, plausible: false, logProb: -0.5 };
  assert.equal(r.addFound(found, a), true);
  assert.equal(r.addFound(found, { ...a }), false, 'the same hunk twice');
  r.addFound(found, b);
  r.addFound(found, c);
  r.addFound(found, d);
  const items = r.foundItems(found);
  assert.deepEqual(items.map((it) => it.patch.hunk), ['c\n', 'd\n', 'a\n'], 'tests pass first, then by logProb; b does not compile');
  assert.equal(items[0].label, '$(pass-filled) c', 'unnumbered, without the "found" prefix');
  assert.equal(items[0].description, 'compiles, tests pass');
  assert.deepEqual(r.foundItems(found, true).map((it) => it.patch.hunk), ['c\n', 'd\n', 'a\n', 'b\n']);
  // Equal status and logProb: arrival order.
  const e = { title: 'Repilot patch found: e', hunk: 'e\n', compilable: true, logProb: -1 };
  r.addFound(found, e);
  assert.deepEqual(r.foundItems(found).map((it) => it.patch.hunk), ['c\n', 'd\n', 'a\n', 'e\n']);
  // The ranked result titles the same patches differently; the focus follows the hunk.
  const ranked = r.patchItems({ patches: [
    { title: 'Apply Repilot patch 1: c', hunk: 'c\n', compilable: true, plausible: true },
    { title: 'Apply Repilot patch 2: a', hunk: 'a\n', compilable: true },
  ] });
  assert.equal(r.sameItem(items[2], ranked), ranked[1]);
  assert.equal(r.sameItem(items[1], ranked), undefined, 'd is not in the ranked list');
  assert.equal(r.sameItem(undefined, ranked), undefined);
  assert.equal(r.patchKey({ title: 'Apply Repilot patch 3: x' }), r.patchKey({ title: 'Repilot patch found: x' }));
});

test('the repair summary message is left to the picker; its warning stays', () => {
  const summary = 'Repilot: 5 patches, 3 compilable for Cart.java line 30; each is offered as "Apply Repilot patch k" among the code actions there.';
  assert.equal(r.showMessageText(summary), null);
  assert.equal(r.showMessageText('Repilot: 2 patches, 2 compilable; the tests pass on the unchanged code too: no patch is plausible for C.java line 3; ' +
    'each is offered as "Apply Repilot patch k" among the code actions there. Warning: the tests pass on the bug.'), 'Repilot: the tests pass on the bug.');
  assert.equal(r.showMessageText('Repilot: the language model produced no candidate patch for C.java line 3.'), null);
  assert.equal(r.showMessageText('Repilot ghost text failed: x'), 'Repilot ghost text failed: x');
});

test('the picker says how many patches are hidden and how to list them', () => {
  assert.equal(r.pickerTitle('Cart.java line 30', 0, false), 'Repilot patches for Cart.java line 30');
  assert.equal(r.pickerTitle('Cart.java line 30', 2, false), 'Repilot patches for Cart.java line 30 (2 that do not compile hidden)');
  assert.equal(r.pickerTitle('Cart.java line 30', 1, true), 'Repilot patches for Cart.java line 30 (1 that does not compile hidden; repair still running: more may come)');
  assert.equal(r.pickerTitle('Cart.java line 30', 0, false, 'repair cancelled'), 'Repilot patches for Cart.java line 30 (repair cancelled)');
  assert.doesNotMatch(r.pickerPlaceholder(0, false), /showUncompilable/);
  assert.match(r.pickerPlaceholder(2, false), /Escape keeps the file as it is\. Setting "repilot\.repair\.showUncompilable" lists the hidden$/);
  assert.match(r.pickerPlaceholder(2, true), /stops the repair/);
});
