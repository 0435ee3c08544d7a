-- e2e.lua: drives the plugin headless against test/fake_server.js: opens a
-- copy of the example's Cart.java, waits for the client to attach, edits the
-- buffer (so the version moves), runs :30RepilotRepair, picks the first patch
-- through vim.ui.select and checks that line 30 now holds the fix and that
-- the server saw the right {uri, range, version}. Then it repairs again with
-- the server holding its result back ("hold"): the streamed patches
-- (repilot/patchFound) are announced, :RepilotPatches offers them before the
-- end, and the choice is applied and cancels the rest of the repair.
-- Usage (from the repository root):
--   nvim --headless -u editors/neovim/test/minimal_init.lua -c 'luafile editors/neovim/test/e2e.lua'
-- Exits 0 on success, 1 (cquit) with a message on stderr otherwise.
local function fail(msg)
  io.stderr:write('repilot e2e: FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local ok, err = pcall(function()
  local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
  local repo = vim.fn.fnamemodify(here, ':h:h:h')
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp .. '/src', 'p')
  vim.fn.writefile({}, tmp .. '/pom.xml') -- a root marker
  local src = repo .. '/example/shop-cart-discount/project/src/com/example/shop/Cart.java'
  local file = tmp .. '/src/Cart.java'
  vim.fn.writefile(vim.fn.readfile(src), file)
  local log = tmp .. '/server.log'

  local repilot = require('repilot')
  repilot.setup({ cmd = { 'node', here .. '/fake_server.js' }, cache = tmp .. '/cache' })
  vim.env.REPILOT_FAKE_LOG = log

  vim.cmd('edit ' .. file) -- FileType java starts and attaches the client
  local bufnr = vim.api.nvim_get_current_buf()
  -- A command typed while the server starts waits for it: before, it
  -- failed with "no repilot-lsp attached to this buffer".
  assert(repilot.client_for(bufnr) == nil, 'the client was up before the event loop ran')
  local got, missed
  repilot.with_client(bufnr, 'test', function(c) got = c end, function(m) missed = m or 'no client' end)
  assert(vim.wait(10000, function() return got ~= nil or missed ~= nil end, 50), 'with_client never called back')
  assert(got and got.name == 'repilot' and not missed, 'a command during the start failed: ' .. tostring(missed))
  local none
  repilot.with_client(vim.api.nvim_create_buf(true, true), 'test', function() none = 'client' end, function() none = 'missing' end)
  assert(none == 'missing', 'a buffer without a project got ' .. tostring(none))
  assert(vim.bo.filetype == 'java', 'filetype is ' .. vim.bo.filetype)
  assert(vim.wait(10000, function()
    local c = repilot.client_for(bufnr)
    return c ~= nil and c.initialized
  end, 50), 'the client did not start and attach')
  assert(repilot.root_dir(file) == tmp, 'root_dir: ' .. repilot.root_dir(file))

  -- Edit line 1 so that the document version is not the initial one.
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, true, { 'package com.example.shop; // edited' })
  local buggy = vim.api.nvim_buf_get_lines(bufnr, 29, 30, true)[1]
  assert(buggy:find('discount.percentage', 1, true), 'line 30 is not the buggy line: ' .. buggy)

  local notified = {}
  local real_notify = vim.notify
  vim.notify = function(msg, ...)
    table.insert(notified, msg)
    return real_notify(msg, ...)
  end
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(items[1], 1)
  end
  local done, applied, rerr = false, nil, nil
  -- :30RepilotRepair with a completion callback (0.7 flushes the pending
  -- didChange before the request, so the version matches).
  repilot.repair(30, 30, bufnr, function(p, e)
    done, applied, rerr = true, p, e
  end)
  assert(vim.wait(10000, function() return done end, 50), 'no answer to repilot.repairHunk')
  assert(rerr == nil, 'repair failed: ' .. vim.inspect(rerr))
  assert(applied ~= nil, 'no patch applied')
  assert(#offered == 2, 'offered ' .. vim.inspect(offered))
  assert(offered[1] == 'int off = subtotal * discount.percentOff() / 100;  [compiles, tests pass]', offered[1])
  local fixed = vim.api.nvim_buf_get_lines(bufnr, 29, 30, true)[1]
  assert(fixed == '        int off = subtotal * discount.percentOff() / 100;', 'line 30 after the patch: ' .. fixed)
  assert(vim.api.nvim_buf_line_count(bufnr) == #vim.fn.readfile(src), 'line count changed')

  -- What the server received.
  local sent, apply, apply_answer
  for _, line in ipairs(vim.fn.readfile(log)) do
    local m = vim.fn.json_decode(line)
    if m.method == 'workspace/executeCommand' and m.params.command == 'repilot.repairHunk' then
      sent = m.params
    elseif m.method == 'workspace/executeCommand' and m.params.command == 'repilot.applyPatch' then
      apply = m.params
    elseif m.method == nil and type(m.id) == 'string' and m.id:find('^fake/') then
      apply_answer = m
    end
  end
  assert(sent, 'no repilot.repairHunk seen')
  -- The patch was applied through repilot.applyPatch and workspace/applyEdit.
  assert(apply and apply.arguments[1].version == sent.arguments[1].version, 'no repilot.applyPatch seen: ' .. vim.inspect(apply))
  assert(apply_answer and apply_answer.result and apply_answer.result.applied == true,
    'workspace/applyEdit answer: ' .. vim.inspect(apply_answer))
  local a = sent.arguments[1]
  assert(a.uri == vim.uri_from_fname(file), 'uri ' .. tostring(a.uri))
  assert(a.range.start.line == 29 and a.range.start.character == 0 and a.range['end'].line == 30 and a.range['end'].character == 0,
    'range ' .. vim.inspect(a.range))
  assert(type(a.version) == 'number' and a.version > 0, 'version ' .. vim.inspect(a.version))

  -- The streamed fix was announced with its status; the next patch, no
  -- better than it, was not (it is offered by :RepilotPatches).
  local function announced(text)
    for _, m in ipairs(notified) do
      if m:find(text, 1, true) then
        return true
      end
    end
    return false
  end
  assert(announced('line 30: int off') and announced('[tests pass] (1 found; :RepilotPatches)'),
    'no message for the streamed fix: ' .. vim.inspect(notified))
  assert(not announced('line 30: int off = 0;'), 'a patch no better than the one announced was announced: ' .. vim.inspect(notified))

  assert(#repilot.repairs == 0, 'a finished repair is still listed')

  -- Choose before the end: the server holds the result until cancelled.
  vim.api.nvim_buf_set_lines(bufnr, 29, 30, true, { buggy })
  repilot.config.test_command = { 'hold' }
  local ends, early, prompt = 0, nil, nil
  repilot.repair(30, 30, bufnr, function(p, e)
    ends = ends + 1
    early, rerr = p, e
  end)
  assert(vim.wait(10000, function() return repilot.repairs[1] ~= nil and #repilot.repairs[1].found == 2 end, 50),
    'the streamed patches did not arrive')
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    prompt = opts.prompt
    on_choice(items[1], 1)
  end
  local picked
  vim.cmd('RepilotPatches')
  assert(vim.wait(10000, function() return ends > 0 end, 50), 'the early choice was not applied')
  picked = early
  assert(rerr == nil and picked ~= nil, 'early choice: ' .. vim.inspect(rerr))
  assert(prompt:find('found so far for line 30', 1, true), prompt)
  assert(offered[1] == 'int off = subtotal * discount.percentOff() / 100;  [compiles, tests pass]', vim.inspect(offered))
  fixed = vim.api.nvim_buf_get_lines(bufnr, 29, 30, true)[1]
  assert(fixed == '        int off = subtotal * discount.percentOff() / 100;', 'line 30 after the early choice: ' .. fixed)
  assert(announced('repair of line 30 cancelled: a patch was chosen'), 'no message about the cancelled rest')
  local cancelled = false
  assert(vim.wait(5000, function()
    for _, line in ipairs(vim.fn.readfile(log)) do
      local m = vim.fn.json_decode(line)
      if m.method == '$/cancelRequest' then
        cancelled = true
      end
    end
    return cancelled
  end, 50), 'the rest of the repair was not cancelled ($/cancelRequest)')
  vim.wait(300)
  assert(ends == 1, 'the repair ended ' .. ends .. ' times')
  assert(#repilot.repairs == 0 and #repilot.pending == 0, 'the repair is still listed')
  repilot.config.test_command = nil

  -- Each message of both repairs fits the echo area (at 80 columns, 68
  -- cells): a wider one asks for Enter.
  for _, m in ipairs(notified) do
    assert(vim.fn.strdisplaywidth(m) <= vim.v.echospace, 'wider than the echo area: ' .. m)
  end

  -- A search while the index is still being built (empty, indexing) runs
  -- again until it finds something; before, it said "no results".
  do
    local picked, sdone, sres
    vim.ui.select = function(items, opts, on_choice)
      picked = vim.tbl_map(opts.format_item, items)
      on_choice(nil)
    end
    local t0 = vim.loop.now()
    repilot.search('discount total', bufnr, function(r) sdone, sres = true, r end)
    assert(vim.wait(10000, function() return sdone end, 50), 'the search did not end')
    assert(picked and #picked == 1 and picked[1]:find('Cart.java:30', 1, true), 'search results: ' .. vim.inspect(picked))
    assert(vim.loop.now() - t0 >= 1500, 'the search was not asked again 1 s apart')
    assert(announced('indexing the project: the search runs again in a moment') and not announced('no results'),
      vim.inspect(notified))
  end

  -- The :RepilotRepair command exists as a range command.
  local cmds = vim.api.nvim_get_commands({})
  assert(cmds.RepilotRepair and cmds.RepilotRepair.range ~= nil, 'RepilotRepair is not a range command')
end)
if not ok then
  fail(tostring(err))
else
  print('repilot e2e: ok')
  vim.cmd('qa!')
end
