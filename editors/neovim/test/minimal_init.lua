-- minimal_init.lua: loads the plugin from this checkout with no other
-- configuration and checks that setup() works and :RepilotRepair exists.
-- Usage: nvim --headless -u editors/neovim/test/minimal_init.lua +qa
-- Exits with status 1 (cquit) when a check fails.
local here = debug.getinfo(1, 'S').source:sub(2)
local plugin = vim.fn.fnamemodify(here, ':p:h:h')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false

local ok, err = pcall(function()
  local repilot = require('repilot')
  repilot.setup({ path = 'repilot-lsp' })
  for _, c in ipairs({ 'RepilotRepair', 'RepilotPatches', 'RepilotCancel', 'RepilotSearch' }) do
    assert(vim.fn.exists(':' .. c) == 2, ':' .. c .. ' is not defined')
  end
  assert(vim.lsp.commands['repilot.repairHunk'] and vim.lsp.commands['repilot.semanticSearch'], 'code action commands not registered')
  assert(#vim.api.nvim_get_autocmds({ group = 'repilot', event = 'FileType' }) == 1, 'FileType autocommand missing')
  -- setup's options are checked: a misspelt one, a test_command given as a
  -- string (sent to the server as is; :checkhealth failed on it), a bad
  -- progress. Each is reported, and a bad value is not used.
  assert(#repilot.config_problems({ path = 'x', test_command = { 'mvn', '-q', 'test' }, progress = false, model = { name = 'm' } }) == 0)
  local probs = repilot.config_problems({ progres = false, test_command = 'mvn -q test', progress = 'loud', model = { baseurl = 'u' } })
  assert(#probs == 4 and probs[1]:find('unknown option model.baseurl', 1, true) and probs[2]:find('unknown option progres', 1, true)
    and probs[3]:find('test_command must be a list of strings', 1, true) and probs[4]:find('progress must be', 1, true), vim.inspect(probs))
  assert(#repilot.config_problems({ test_command = {} }) == 1 and #repilot.config_problems({ test_command = { 'sh', 1 } }) == 1
    and #repilot.config_problems({ test_command = { cmd = 'mvn' } }) == 1, 'a test_command that is no argv passes')
  do
    local warned, real_notify = {}, vim.notify
    vim.notify = function(msg) table.insert(warned, msg) end
    repilot.setup({ path = 'repilot-lsp', test_command = 'mvn -q test', progress = 'loud' })
    vim.notify = real_notify
    assert(repilot.config.test_command == nil and repilot.config.progress == 'echo' and #warned == 2, vim.inspect(warned))
    repilot.setup({ path = 'repilot-lsp' })
    assert(#repilot.problems == 0)
  end
  local env = repilot.server_env({ jdtls_home = '/opt/jdtls', model = { base_url = 'http://h/v1', name = 'm' } })
  assert(env.REPILOT_JDTLS_HOME == '/opt/jdtls' and env.REPILOT_MODEL_BASE_URL == 'http://h/v1' and env.REPILOT_MODEL_NAME == 'm')
  assert(repilot.format_patch({ title = 'Apply Repilot patch 2: x = 1;', compilable = true, logProb = -1.5 }) == 'x = 1;  [compiles]')
  assert(repilot.format_patch({ title = 'y', compilable = true, plausible = true }) == 'y  [compiles, tests pass]')
  -- Two patches whose hunks differ only after the first line (the example's
  -- "int off = subtotal - discount.percentOff();" with and without a ";" line
  -- after it) were two equal menu lines.
  assert(repilot.format_patch({ title = 'Apply Repilot patch 4: int off = s;', hunk = '        int off = s;\n        ;\n', compilable = true })
    == 'int off = s; ⏎ ;  [compiles]', repilot.format_patch({ title = 'x', hunk = 'a\nb\n' }))
  assert(repilot.format_patch({ title = 'Apply Repilot patch 3: int off = s;', hunk = '        int off = s;\n\n', compilable = true })
    == 'int off = s;  [compiles]', 'a one-line hunk (blank lines aside) keeps its title')
  local long = repilot.format_patch({ title = 't', hunk = string.rep('x', 100) .. '\n' .. string.rep('y', 100) .. '\n', compilable = true })
  assert(vim.fn.strchars(long) == 120 + #'  [compiles]' and long:find('...  [compiles]', 1, true), long)
  local a, b = repilot.parse_lines('28-31')
  assert(a == 28 and b == 31, 'parse_lines 28-31')
  a, b = repilot.parse_lines(' 30 ')
  assert(a == 30 and b == 30, 'parse_lines 30')
  assert(repilot.parse_lines('31-28') == nil and repilot.parse_lines('x') == nil, 'parse_lines accepts junk')
  assert(repilot.format_progress({ title = 'Repilot: repairing', message = 'sampling 3/20', percentage = 15 }) == 'Repilot: repairing: sampling 3/20 (15%)')
  assert(repilot.format_progress({ title = 'Publish Diagnostics', message = 'Publish Diagnostics', percentage = 25 }) == 'Publish Diagnostics (25%)',
    'format_progress repeats a message equal to its title')
  assert(repilot.progress_line({ title = 'Publish Diagnostics', percentage = 25 }) == 'JDT LS: Publish Diagnostics (25%)',
    'JDT LS progress is not labelled as its own')
  assert(repilot.progress_line({ title = 'Repilot: repairing', message = 'sampling 3/20' }) == 'Repilot: repairing: sampling 3/20')
  assert(repilot.progress_line({ title = 'Semantic search: indexing', message = '5/5 files, 16 units' }) == 'Semantic search: indexing: 5/5 files, 16 units',
    'the proxy\'s search progress is labelled as JDT LS\'s')
  -- A progress echo wider than v:echospace opened the hit-enter prompt, and
  -- every later one stacked under it (one Enter per JDT LS progress step).
  assert(repilot.fit_echo('abc', 10) == 'abc' and repilot.fit_echo('abc', 3) == 'abc')
  local cut = repilot.fit_echo(string.rep('x', 130), 100)
  assert(vim.fn.strdisplaywidth(cut) == 100 and cut:sub(-#'…') == '…', cut)
  cut = repilot.fit_echo(string.rep('日', 10), 7)
  assert(vim.fn.strdisplaywidth(cut) <= 7 and cut:sub(-#'…') == '…', cut)
  assert(repilot.fit_echo('abc', 0) == '', 'no room still echoes')
  do -- the end of a JDT LS progress whose message repeats its title
    local echoed, real_echo = {}, vim.api.nvim_echo
    vim.api.nvim_echo = function(chunks) table.insert(echoed, chunks[1][1]) end
    local tok, ctx = 'jdt-1', { client_id = 4299 }
    repilot.on_progress({ token = tok, value = { kind = 'begin', title = 'Initialize Workspace', message = 'Initialize Workspace' } }, ctx)
    repilot.on_progress({ token = tok, value = { kind = 'end', message = 'Initialize Workspace' } }, ctx)
    repilot.on_progress({ token = 'jdt-2', value = { kind = 'begin', title = 'Building' } }, ctx)
    repilot.on_progress({ token = 'jdt-2', value = { kind = 'end', message = 'Built 3 projects' } }, ctx)
    vim.api.nvim_echo = real_echo
    assert(vim.deep_equal(echoed, { 'JDT LS: Initialize Workspace', 'JDT LS: Initialize Workspace: done', 'JDT LS: Building',
      'JDT LS: Building: Built 3 projects' }), vim.inspect(echoed))
  end
  assert(repilot.final_progress('Repilot: repairing Cart.java line 30', '5 patches, 4 compilable'), 'a repair\'s end is not notified')
  assert(not repilot.final_progress('Repilot: repairing Cart.java line 30', 'cancelled'),
    'a cancelled repair is notified twice (its answer says so too)')
  for _, e in ipairs({ 'failed', 'timed out', 'no candidate patch', 'the document was closed' }) do
    assert(not repilot.final_progress('Repilot: repairing Cart.java line 30', e),
      'a repair that ends with an error (' .. e .. ') is notified twice (its answer says so too)')
  end
  -- The server's showMessage at a repair's end repeated the progress end in
  -- :messages; its warning alone stays, and with progress = false all of it.
  local summary = 'Repilot: 5 patches, 3 compilable for Cart.java line 30; each is offered as "Apply Repilot patch k" among the code actions there.'
  assert(repilot.show_message_text(summary, 'echo') == nil and repilot.show_message_text(summary, 'notify') == nil,
    'the repair summary is shown twice')
  assert(repilot.show_message_text(summary, false) == summary, 'with progress = false the summary is lost')
  assert(repilot.show_message_text('Repilot: 2 patches, 2 compilable; x for C.java line 3; each is offered as "Apply Repilot patch k" among the code actions there. Warning: the tests pass on the bug.', 'echo')
    == 'Repilot: the tests pass on the bug.', 'the warning of a repair summary is lost')
  assert(repilot.show_message_text('Repilot: the language model produced no candidate patch for C.java line 3.', 'echo') == nil)
  assert(repilot.show_message_text('Repilot ghost text failed: x', 'echo') == 'Repilot ghost text failed: x', 'another message is dropped')
  -- The announcement of a streamed patch fits the echo area (at 80 columns
  -- v:echospace is 68, 59 after "Repilot: "): before, its 125 cells asked
  -- for Enter in the middle of the repair. It keeps the lines, the status,
  -- the count and the command, and cuts the patch's text.
  local fix = { title = 'Repilot patch found: int off = subtotal * discount.percentOff() / 100;', compilable = true, plausible = true }
  local m = repilot.found_message('line 30', fix, 1, 59)
  assert(vim.fn.strdisplaywidth(m) <= 59 and m:find('^line 30: int off') and vim.endswith(m, '… [tests pass] (1 found; :RepilotPatches)'), m)
  m = repilot.found_message('line 30', fix, 2, 200)
  assert(m == 'line 30: int off = subtotal * discount.percentOff() / 100; [tests pass] (2 found; :RepilotPatches)', m)
  m = repilot.found_message('lines 28-31', { title = 'x', compilable = true }, 3, 30)
  assert(vim.fn.strdisplaywidth(m) <= 30 and m:find('^lines 28%-31 %[compiles%]'), 'no room for the text: ' .. m)
  m = repilot.applied_message(fix, 59)
  assert(vim.fn.strdisplaywidth(m) <= 59 and m:find('^applied: int off') and m:find('[tests pass] (u undoes it)', 1, true), m)
  assert(repilot.message_width() == vim.v.echospace - #'Repilot: ' + (vim.o.cmdheight - 1) * vim.o.columns)
  assert(not repilot.final_progress('Semantic search: indexing', '16 units indexed') and not repilot.final_progress('Publish Diagnostics', nil),
    'the index build\'s or JDT LS\'s end is notified')
  local items = repilot.search_items({ { location = { uri = 'file:///p/A.java', range = { start = { line = 4, character = 2 } } },
    name = 'f', signature = 'int f()', snippet = '  int f() {\n return 1; }' } })
  assert(items[1].filename == '/p/A.java' and items[1].lnum == 5 and items[1].col == 3 and items[1].text == 'int f() | return 1; }',
    vim.inspect(items))
  assert(require('repilot.health').jdtls_version(vim.fn.tempname()) == nil)
  do -- :checkhealth showed {'sh', '-c', 'javac $(find src -name "*.java")'} as sh -c javac $(find src -name ".java")
    local h = require('repilot.health')
    local argv = { 'sh', '-c', 'rm -rf out && javac -d out $(find src -name "*.java")', "it's", '', 'mvn', '-q', 'test' }
    local line = h.shell_join(argv)
    assert(line == [[sh -c 'rm -rf out && javac -d out $(find src -name "*.java")' 'it'\''s' '' mvn -q test]], line)
    assert(vim.deep_equal(vim.fn.split(vim.fn.system({ 'sh', '-c', 'for a in ' .. line:gsub('^sh %-c ', '') .. '; do echo "[$a]"; done' }), '\n'),
      { '[rm -rf out && javac -d out $(find src -name "*.java")]', "[it's]", '[]', '[mvn]', '[-q]', '[test]' }), 'shell_join does not round-trip through sh')
    assert(h.code_span('a "*.java" b') == '`a "*.java" b`' and h.code_span('x `y` z') == '``x `y` z``' and h.code_span('`y`') == '`` `y` ``')
  end
  do -- "none of the N patches ... compiles" fits the echo area (59 cells at 80 columns)
    local m = repilot.none_compile_message('line 30', 5, 59)
    assert(vim.fn.strdisplaywidth(m) <= 59 and m == 'line 30: 5 patches, none compiles (see show_uncompilable)', m)
    m = repilot.none_compile_message('lines 28-31', 12, 200)
    assert(m == 'none of the 12 patches for lines 28-31 compiles (show_uncompilable = true lists them)', m)
    m = repilot.none_compile_message('lines 28-31', 12, 20)
    assert(vim.fn.strdisplaywidth(m) <= 20, m)
  end
  do -- a repair's progress lines say how to stop it; the warm-up's wait while a repair runs
    local line = 'Repilot: repairing Cart.java line 30'
    assert(repilot.with_cancel_hint(line, 68) == line .. ' (:RepilotCancel stops it)')
    assert(repilot.with_cancel_hint(line, 55) == line .. ' (:RepilotCancel)')
    assert(repilot.with_cancel_hint(line, 40) == nil)
    local function echo(msg, pct, width)
      return repilot.repair_echo({ title = 'Repilot: repairing Cart.java line 30', message = msg, percentage = pct }, width)
    end
    -- At 80 columns (v:echospace 68) every step keeps a hint, the title shortened where needed.
    for _, c in ipairs({
      { nil, nil, 68, 'Repilot: repairing Cart.java line 30 (:RepilotCancel stops it)' },
      { 'sampling 3/20', 13, 68, 'Repilot: repairing line 30: sampling 3/20 (13%) (:RepilotCancel)' },
      { 'sampling 3/20', 13, 100, 'Repilot: repairing Cart.java line 30: sampling 3/20 (13%) (:RepilotCancel stops it)' },
      { 'waiting for JDT LS (12s)', nil, 68, 'Repilot: line 30: waiting for JDT LS (12s) (:RepilotCancel stops it)' },
      { 'validating candidate 12 again (a better-scored spelling)', 45, 68,
        'Repilot: repairing Cart.java line 30: validating candidate 12 again (a better-scored spelling) (45%)' },
    }) do
      local got = echo(c[1], c[2], c[3])
      assert(got == c[4], vim.inspect(got))
    end
    -- The end goes to :messages through vim.notify: wider than the echo area it asked for Enter.
    assert(repilot.repair_end('Repilot: repairing Cart.java line 30', '5 patches, 3 compilable in 38s', 68)
      == 'Repilot: repairing Cart.java line 30: 5 patches, 3 compilable in 38s')
    assert(repilot.repair_end('Repilot: repairing ShoppingCart.java line 30', '12 patches, 10 compilable in 1m5s', 68)
      == 'Repilot: repairing line 30: 12 patches, 10 compilable in 1m5s')
    local e = repilot.repair_end('Repilot: repairing ShoppingCart.java lines 300-310', '12 patches, 10 compilable in 1m5s; the tests pass on the unchanged code too: no patch is plausible', 68)
    assert(vim.fn.strdisplaywidth(e) <= 68 and e:find('^Repilot: lines 300%-310: 12 patches'), e)
    assert(repilot.repair_echo({ title = 'Repilot: repairing A.java lines 28-31', message = 'sampling 1/20' }, 64)
      == 'Repilot: repairing lines 28-31: sampling 1/20 (:RepilotCancel)')
    local warm = { title = 'Repilot: preparing repair', message = 'JDT LS still starting (45s so far)' }
    local rep = { title = 'Repilot: repairing Cart.java line 30', message = 'waiting for JDT LS (7s)' }
    assert(repilot.progress_echo(warm, { w = warm }, 68) == 'Repilot: preparing repair: JDT LS still starting (45s so far)')
    assert(repilot.progress_echo(warm, { w = warm, r = rep }, 68) == nil, 'the warm-up and the repair take turns in the echo area')
    assert(repilot.progress_echo(rep, { w = warm, r = rep }, 100) == 'Repilot: repairing Cart.java line 30: waiting for JDT LS (7s) (:RepilotCancel stops it)')
    local echoed, real_echo = {}, vim.api.nvim_echo
    vim.api.nvim_echo = function(chunks) table.insert(echoed, chunks[1][1]) end
    local ctx = { client_id = 4298 }
    repilot.on_progress({ token = 'w', value = { kind = 'begin', title = warm.title } }, ctx)
    repilot.on_progress({ token = 'r', value = { kind = 'begin', title = rep.title } }, ctx)
    repilot.on_progress({ token = 'w', value = { kind = 'report', message = warm.message } }, ctx)
    repilot.on_progress({ token = 'r', value = { kind = 'report', message = rep.message } }, ctx)
    vim.api.nvim_echo = real_echo
    assert(#echoed == 3 and echoed[2]:find('^Repilot: repairing Cart.java line 30') and echoed[2]:find(':RepilotCancel', 1, true)
      and echoed[3]:find('waiting for JDT LS (7s)', 1, true), vim.inspect(echoed))
    repilot.progress[4298] = nil
  end
  -- Streamed patches (repilot/patchFound): deduplicated by hunk, offered
  -- tests-pass first, then by logProb, ties in arrival order.
  assert(repilot.format_patch({ title = 'Repilot patch found: z();', compilable = true }) == 'z();  [compiles]')
  local found = {}
  local pa = { title = 'Repilot patch found: a', hunk = 'a\n', compilable = true, logProb = -1 }
  local pb = { title = 'Repilot patch found: b', hunk = 'b\n', compilable = false, logProb = 0 }
  local pc = { title = 'Repilot patch found: c', hunk = 'c\n', compilable = true, plausible = true, logProb = -9 }
  local pd = { title = 'Repilot patch found: d', hunk = 'd\n', compilable = true, logProb = -0.5 }
  local pe = { title = 'Repilot patch found: e', hunk = 'e\n', compilable = true, logProb = -1 }
  assert(repilot.add_found(found, pa) and not repilot.add_found(found, vim.deepcopy(pa)), 'add_found keeps a duplicate')
  for _, p in ipairs({ pb, pc, pd, pe }) do
    repilot.add_found(found, p)
  end
  local hunks = function(list)
    return table.concat(vim.tbl_map(function(p) return vim.trim(p.hunk) end, list), ',')
  end
  assert(hunks(repilot.found_patches(found, false)) == 'c,d,a,e', hunks(repilot.found_patches(found, false)))
  assert(hunks(repilot.found_patches(found, true)) == 'c,d,a,e,b', hunks(repilot.found_patches(found, true)))
  -- A repair with a stand-in client: notifications of another version are
  -- ignored; :RepilotPatches offers what arrived; when the repair ends while
  -- that menu is open, its ranked menu comes after the menu is left.
  do
    local sb = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_name(sb, vim.fn.tempname() .. '/S.java')
    local cb
    local fake = { id = 4242, name = 'repilot', request = function(_, _, f) cb = f return true, 1 end }
    local real_client_for, real_select, real_notify = repilot.client_for, vim.ui.select, vim.notify
    repilot.client_for = function() return fake end
    local told = {}
    vim.notify = function(msg) table.insert(told, msg) end
    local selects, ends = {}, {}
    vim.ui.select = function(items, opts, on_choice)
      table.insert(selects, { items = items, prompt = opts.prompt, on_choice = on_choice })
    end
    repilot.repair(3, 3, sb, function(p, e) table.insert(ends, { p = p, e = e }) end)
    local rep = repilot.repairs[#repilot.repairs]
    assert(rep and rep.bufnr == sb, 'the repair is not listed')
    repilot.on_patch_found({ uri = rep.uri, version = (rep.version or 0) + 1, patch = pa }, { client_id = 4242 })
    repilot.on_patch_found({ uri = rep.uri, version = rep.version, patch = pa }, { client_id = 4243 })
    assert(#rep.found == 0, 'a patch of another version or client was taken')
    repilot.on_patch_found({ uri = rep.uri, version = rep.version, patch = pb }, { client_id = 4242 })
    repilot.patches(sb)
    assert(#selects == 0, 'a menu of patches that do not compile only')
    repilot.on_patch_found({ uri = rep.uri, version = rep.version, patch = pd }, { client_id = 4242 })
    repilot.on_patch_found({ uri = rep.uri, version = rep.version, patch = pc }, { client_id = 4242 })
    repilot.patches(sb)
    assert(#selects == 1 and hunks(selects[1].items) == 'c,d', vim.inspect(selects))
    -- The announcements count what :RepilotPatches offers (before, "(2 so
    -- far" with one patch on offer: b does not compile).
    local found_told = vim.tbl_filter(function(m) return m:find(':RepilotPatches)', 1, true) end, told)
    assert(#found_told == 2 and found_told[1]:find('(1 found', 1, true) and found_told[2]:find('(2 found', 1, true),
      vim.inspect(told))
    cb(nil, { patches = { pc, pa } }) -- the repair ends while the menu is open
    assert(#selects == 1, 'the ranked menu opened over the early one')
    assert(#repilot.repairs == 0, 'the ended repair is still listed')
    selects[1].on_choice(nil) -- Escape
    assert(#selects == 2 and hunks(selects[2].items) == 'c,a', 'the ranked menu did not follow: ' .. vim.inspect(selects))
    selects[2].on_choice(nil)
    assert(#ends == 1 and ends[1].p == nil and ends[1].e == nil, vim.inspect(ends))
    repilot.client_for, vim.ui.select, vim.notify = real_client_for, real_select, real_notify
  end
  -- Ghost text (0.7 path): the accept mapping is local to Java buffers, and
  -- a late answer to a superseded request neither shows its text nor clears
  -- the newer request's handle (which :clear must still cancel).
  local inline = require('repilot.inline')
  if not (vim.lsp.inline_completion and vim.lsp.inline_completion.enable) then
    -- No server here: the plugin's own FileType autocommand (checked above)
    -- would start one for a Java buffer.
    vim.api.nvim_clear_autocmds({ group = 'repilot', event = 'FileType' })
    local txt = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(txt)
    vim.bo[txt].filetype = 'text'
    local jb = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(jb)
    vim.api.nvim_buf_set_name(jb, vim.fn.tempname() .. '/A.java')
    vim.bo[jb].filetype = 'java'
    inline.setup({ accept = '<C-l>' })
    local function mapped(b)
      for _, m in ipairs(vim.api.nvim_buf_get_keymap(b, 'i')) do
        if m.lhs == '<C-L>' then return true end
      end
      return false
    end
    assert(mapped(jb), 'the accept mapping is missing in a Java buffer')
    assert(not mapped(txt), 'the accept mapping leaks into a non-Java buffer')
    local later = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(later)
    vim.bo[later].filetype = 'java'
    assert(mapped(later), 'the accept mapping is missing in a Java buffer opened after setup')
    vim.api.nvim_set_current_buf(jb)
    local callbacks, cancelled, next_id = {}, {}, 0
    local fake = { name = 'repilot', offset_encoding = 'utf-16',
      request = function(_, _, cb)
        next_id = next_id + 1
        callbacks[next_id] = cb
        return true, next_id
      end,
      cancel_request = function(id) table.insert(cancelled, id) end }
    local real_client_for = repilot.client_for
    repilot.client_for = function() return fake end
    inline.request(jb, true) -- id 1
    inline.request(jb, true) -- id 2 supersedes 1 (cancels it)
    assert(vim.deep_equal(cancelled, { 1 }), 'superseding did not cancel request 1: ' .. vim.inspect(cancelled))
    callbacks[1](nil, { items = { { insertText = 'stale();' } } }) -- request 1 answers late
    assert(#vim.api.nvim_buf_get_extmarks(jb, vim.api.nvim_create_namespace('repilot_inline'), 0, -1, {}) == 0,
      'a superseded answer was drawn')
    inline.clear(jb)
    -- An invoked request with nothing to show says why (an automatic one
    -- stays silent); a cancelled or outdated one says nothing.
    assert(inline.empty_message(nil) == 'Repilot: no suggestion here that compiles')
    assert(inline.empty_message({ code = -32803, message = "Repilot's ghost text works on files up to 1 MiB" })
      == "Repilot ghost text: Repilot's ghost text works on files up to 1 MiB")
    assert(inline.empty_message({ code = -32800, message = 'cancelled' }) == nil and inline.empty_message({ code = -32801 }) == nil)
    inline.request(jb, true)
    callbacks[next_id](nil, { items = {} }) -- answered empty: no error from the message path
    assert(vim.deep_equal(cancelled, { 1, 2 }), 'request 2 could not be cancelled after a late answer to 1: ' .. vim.inspect(cancelled))
    repilot.client_for = real_client_for
  end
  -- :help repilot: the doc's tags build and every command is documented.
  local docs = vim.fn.tempname()
  vim.fn.mkdir(docs .. '/doc', 'p')
  vim.fn.writefile(vim.fn.readfile(plugin .. '/doc/repilot.txt'), docs .. '/doc/repilot.txt')
  vim.cmd('helptags ' .. docs .. '/doc')
  vim.opt.runtimepath:append(docs)
  for _, tag in ipairs({ 'repilot', ':RepilotRepair', ':RepilotPatches', ':RepilotCancel', ':RepilotSearch', 'repilot-health', 'repilot-option-test_command' }) do
    vim.cmd('help ' .. tag)
    vim.cmd('close')
  end
end)
if not ok then
  io.stderr:write('repilot minimal_init: ' .. tostring(err) .. '\n')
  vim.cmd('cquit 1')
end
