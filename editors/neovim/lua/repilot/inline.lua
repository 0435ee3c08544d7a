-- inline.lua: ghost text in Neovim. On Neovim 0.12 or newer it turns on the
-- native vim.lsp.inline_completion (the server answers
-- textDocument/inlineCompletion). On older versions (Debian's 0.7.2) it asks
-- the server's workspace/executeCommand "repilot.inlineSuggest" after a pause
-- in insert-mode typing (debounce) and draws the suggestion as extmark
-- virtual text: virt_text for the rest of the line, virt_lines for more.
-- The accept mapping (default <C-l>) inserts it. The text is cleared on
-- cursor move, on leaving insert mode and on the next keystroke that does not
-- match it; a keystroke that matches it keeps the rest (the server would
-- answer it from its cache anyway).
--
--   require('repilot.inline').setup({ accept = '<C-l>', debounce_ms = 150 })
local M = {}

M.defaults = { enabled = true, accept = '<C-l>', debounce_ms = 150, hl = 'Comment' }
M.config = vim.deepcopy(M.defaults)

local ns = vim.api.nvim_create_namespace('repilot_inline')
local COMMAND = 'repilot.inlineSuggest'

-- state[bufnr] = { text, row, col, tick, timer, req = {client, id} }
local state = {}

local function st(bufnr)
  state[bufnr] = state[bufnr] or {}
  return state[bufnr]
end

local function cancel(s)
  if s.timer then
    s.timer:stop()
    s.timer:close()
    s.timer = nil
  end
  if s.req then
    pcall(s.req.client.cancel_request, s.req.id)
    s.req = nil
  end
end

--- Clears the ghost text of bufnr and cancels its request in flight.
function M.clear(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = st(bufnr)
  cancel(s)
  s.text, s.note = nil, nil
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
end

--- Draws text at (row, col) (0-based; col in bytes) of bufnr.
function M.show(bufnr, row, col, text)
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local lines = vim.split(text, '\n', { plain = true })
  local opts = { virt_text = { { lines[1], M.config.hl } }, virt_text_pos = 'overlay', hl_mode = 'combine' }
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  if col < #line then
    opts.virt_text_pos = 'eol' -- 0.7 cannot draw between characters
  end
  if #lines > 1 then
    opts.virt_lines = {}
    for i = 2, #lines do
      table.insert(opts.virt_lines, { { lines[i], M.config.hl } })
    end
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, row, col, opts)
  local s = st(bufnr)
  s.text, s.row, s.col, s.tick = text, row, col, vim.api.nvim_buf_get_changedtick(bufnr)
end

-- LSP ErrorCodes (specification 3.17): a request cancelled, or superseded by
-- a newer one, and a document that changed meanwhile say nothing.
local QUIET_ERRORS = { [-32800] = true, [-32801] = true }

--- The line an invoked request (the mapping) shows when it gets no
--- suggestion: the server's error, or that none compiled; nil for a
--- cancelled or outdated request. Before, the mapping did nothing visible,
--- and a user could not tell a rejected suggestion from a broken setup.
function M.empty_message(err)
  if err then
    if QUIET_ERRORS[err.code] then
      return nil
    end
    return 'Repilot ghost text: ' .. tostring(err.message or vim.inspect(err))
  end
  return 'Repilot: no suggestion here that compiles'
end

--- Shows M.empty_message(err) after the end of the caret's line of bufnr,
--- as virtual text (the echo area is no use in Insert mode: 'showmode'
--- redraws "-- INSERT --" over any message), until the next keystroke,
--- cursor move or leaving Insert mode.
function M.tell_empty(bufnr, err)
  local msg = M.empty_message(err)
  if not msg or vim.api.nvim_get_current_buf() ~= bufnr or vim.api.nvim_get_mode().mode:sub(1, 1) ~= 'i' then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  vim.api.nvim_buf_set_extmark(bufnr, ns, row, 0,
    { virt_text = { { '  ' .. msg, err and 'WarningMsg' or M.config.hl } }, virt_text_pos = 'eol' })
  st(bufnr).note = true
end

--- Asks the server for a suggestion at the cursor of the current window.
function M.request(bufnr, invoked)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = require('repilot').client_for(bufnr)
  if not client then
    if invoked == true then
      M.tell_empty(bufnr, { message = 'repilot-lsp is not attached to this buffer yet (starting?)' })
    end
    return
  end
  local s = st(bufnr)
  cancel(s)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or 'utf-16')
  local cursor = vim.api.nvim_win_get_cursor(0)
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local args = { uri = params.textDocument.uri, position = params.position,
    version = vim.lsp.util.buf_versions[bufnr], invoked = invoked == true }
  -- mine is this request's handle. A late answer to a request that was
  -- cancelled or superseded is dropped, and it must not clear the handle of
  -- a newer request, which could then not be cancelled.
  local mine = { client = client }
  local ok, id = client.request('workspace/executeCommand', { command = COMMAND, arguments = { args } }, function(err, result)
    if s.req ~= mine then
      return
    end
    s.req = nil
    local now = vim.api.nvim_win_get_cursor(0)
    if vim.api.nvim_buf_get_changedtick(bufnr) ~= tick or now[1] ~= cursor[1] or now[2] ~= cursor[2]
      or vim.api.nvim_get_mode().mode:sub(1, 1) ~= 'i' then
      return -- stale: the buffer or the cursor moved on
    end
    if err or type(result) ~= 'table' or type(result.items) ~= 'table' or #result.items == 0 then
      if invoked == true then
        M.tell_empty(bufnr, err)
      end
      return
    end
    M.show(bufnr, cursor[1] - 1, cursor[2], result.items[1].insertText)
  end, bufnr)
  if ok then
    mine.id = id
    s.req = mine
  end
end

--- Inserts the ghost text at the cursor. Returns true when there was one.
function M.accept()
  local bufnr = vim.api.nvim_get_current_buf()
  local s = st(bufnr)
  local text = s.text
  if not text then
    return false
  end
  M.clear(bufnr)
  local lines = vim.split(text, '\n', { plain = true })
  vim.api.nvim_buf_set_text(bufnr, s.row, s.col, s.row, s.col, lines)
  local row = s.row + #lines
  local col = (#lines == 1 and s.col or 0) + #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { row, col })
  return true
end

-- After a change in insert mode: keep the rest when the typed text matches
-- the ghost text, else clear it and ask again after the debounce.
local function on_change(bufnr)
  local s = st(bufnr)
  local cursor = vim.api.nvim_win_get_cursor(0)
  if s.text and cursor[1] - 1 == s.row and cursor[2] > s.col then
    local line = vim.api.nvim_buf_get_lines(bufnr, s.row, s.row + 1, false)[1] or ''
    local typed = line:sub(s.col + 1, cursor[2])
    if s.text:sub(1, #typed) == typed and #typed < #s.text then
      M.show(bufnr, s.row, cursor[2], s.text:sub(#typed + 1))
      return
    end
  end
  M.clear(bufnr)
  s.timer = vim.loop.new_timer()
  s.timer:start(M.config.debounce_ms, 0, vim.schedule_wrap(function()
    if s.timer then
      s.timer:close()
      s.timer = nil
    end
    if vim.api.nvim_get_current_buf() == bufnr and vim.api.nvim_get_mode().mode:sub(1, 1) == 'i' then
      M.request(bufnr, false)
    end
  end))
end

--- Sets options and the autocommands and mapping of the current and future
--- Java buffers.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if not M.config.enabled then
    return
  end
  if vim.lsp.inline_completion and vim.lsp.inline_completion.enable then
    vim.lsp.inline_completion.enable(true) -- Neovim 0.12+: the native feature
    return
  end
  local group = vim.api.nvim_create_augroup('repilot_inline', { clear = true })
  vim.api.nvim_create_autocmd('TextChangedI', { group = group, pattern = '*.java', callback = function(ev)
    on_change(ev.buf)
  end })
  vim.api.nvim_create_autocmd('CursorMovedI', { group = group, pattern = '*.java', callback = function(ev)
    local s = st(ev.buf)
    if s.note then -- the note of an invoked request that got nothing
      s.note = nil
      vim.api.nvim_buf_clear_namespace(ev.buf, ns, 0, -1)
    end
    if s.text and vim.api.nvim_buf_get_changedtick(ev.buf) == s.tick then
      local c = vim.api.nvim_win_get_cursor(0)
      if c[1] - 1 ~= s.row or c[2] ~= s.col then
        M.clear(ev.buf) -- moved without typing
      end
    end
  end })
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, { group = group, pattern = '*.java', callback = function(ev)
    M.clear(ev.buf)
  end })
  -- The accept mapping is local to Java buffers: elsewhere the key keeps
  -- its own meaning.
  local function map(bufnr)
    vim.keymap.set('i', M.config.accept, function()
      if not M.accept() then
        local keys = vim.api.nvim_replace_termcodes(M.config.accept, true, false, true)
        vim.api.nvim_feedkeys(keys, 'n', false)
      end
    end, { buffer = bufnr, desc = 'Accept Repilot ghost text' })
  end
  vim.api.nvim_create_autocmd('FileType', { group = group, pattern = 'java', callback = function(ev)
    map(ev.buf)
  end })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'java' then
      map(b)
    end
  end
end

return M
