-- repilot: Neovim (0.7+) client of repilot-lsp, the Java language server proxy
-- in front of Eclipse JDT LS with "Repair with Repilot" and semantic search.
--
-- require('repilot').setup(opts) registers a FileType autocommand that starts
-- one `repilot-lsp` per project root with vim.lsp.start_client (vim.lsp.start
-- does not exist in 0.7) and attaches Java buffers to it, and the commands
-- :RepilotRepair, :RepilotPatches (the patches a running repair has streamed
-- with repilot/patchFound so far), :RepilotCancel and :RepilotSearch. The
-- plugin stays thin: the server does the work and reports it with $/progress;
-- the plugin shows that progress, picks patches and search results with
-- vim.ui.select, applies the chosen WorkspaceEdit and fills the quickfix list. The API key is never
-- an option: it is read from the environment variable named by
-- model.api_key_env. :help repilot documents all of it.
local M = {}

M.REPAIR_COMMAND = 'repilot.repairHunk'
M.SEARCH_COMMAND = 'repilot.semanticSearch'
-- LSP ErrorCodes.RequestCancelled (specification 3.17).
local REQUEST_CANCELLED = -32800

--- Default options; setup(opts) merges opts over a copy of these.
M.defaults = {
  -- The server command; nil means { path, unpack(args) }.
  cmd = nil,
  path = 'repilot-lsp',
  args = {},
  -- JDT LS install (REPILOT_JDTLS_HOME for the server); nil keeps the
  -- environment's value, then <cache>/jdtls-1.20.0.
  jdtls_home = nil,
  -- Cache root (REPILOT_CACHE); nil keeps the environment's value.
  cache = nil,
  model = {
    base_url = nil, -- OpenAI-compatible server, "http://127.0.0.1:8080/v1" (REPILOT_MODEL_BASE_URL)
    name = nil, -- model name (REPILOT_MODEL_NAME)
    api_key_env = 'REPILOT_API_KEY', -- environment variable holding the key
  },
  -- The project's test command (argv, no shell), e.g. { 'mvn', '-q', 'test' }:
  -- run on each compilable patch; exit status 0 makes it "tests pass".
  test_command = nil,
  -- Offer patches that do not compile too (they are hidden by default).
  show_uncompilable = false,
  -- How $/progress is shown: 'echo' (the command line), 'notify'
  -- (vim.notify for the end of a repair or its warm-up, and JDT LS ready:
  -- M.final_progress), or false (leave it to a progress plugin:
  -- the built-in handler still runs, so LspProgressUpdate still fires).
  progress = 'echo',
  -- Buffer-local K (hover), gd (definition) and omnifunc (<C-x><C-o>) on attach.
  default_keymaps = false,
  -- On 0.7 only: make vim.lsp.buf.code_action() called from visual mode use
  -- the selection, as 0.8+ does, so "Repair with Repilot" is in its menu.
  visual_code_action = true,
  filetypes = { 'java' },
  root_markers = { 'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'mvnw', '.project', 'src', '.git' },
  on_attach = nil, -- function(client, bufnr), as for any LSP client
  capabilities = nil, -- nil: vim.lsp.protocol.make_client_capabilities()
}

M.config = vim.deepcopy(M.defaults)
-- client ids by project root
M.clients = {}
-- Work done progress by client id, then token: {title, message, percentage,
-- cancellable, done}.
M.progress = {}
-- Requests of this plugin still running: list of {client_id, id, what}.
M.pending = {}
-- Repairs still running, oldest first: {client_id, bufnr, uri, version,
-- where, found (patches streamed so far, in arrival order), ...}, for
-- repilot/patchFound and :RepilotPatches.
M.repairs = {}

local function notify(msg, level)
  vim.notify('Repilot: ' .. msg, level or vim.log.levels.INFO)
end

--- The project root of a file: the nearest ancestor directory holding one of
--- config.root_markers, else the file's own directory.
function M.root_dir(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  local d = dir
  while true do
    for _, marker in ipairs(M.config.root_markers) do
      if vim.loop.fs_stat(d .. '/' .. marker) then
        return d
      end
    end
    local parent = vim.fn.fnamemodify(d, ':h')
    if parent == d then
      return dir
    end
    d = parent
  end
end

--- The environment the server starts with (cmd_env): only the variables the
--- options set. The key is copied from model.api_key_env to REPILOT_API_KEY.
function M.server_env(cfg)
  local env = {}
  if cfg.jdtls_home then
    env.REPILOT_JDTLS_HOME = cfg.jdtls_home
  end
  if cfg.cache then
    env.REPILOT_CACHE = cfg.cache
  end
  local model = cfg.model or {}
  if model.base_url then
    env.REPILOT_MODEL_BASE_URL = model.base_url
  end
  if model.name then
    env.REPILOT_MODEL_NAME = model.name
  end
  local key_env = model.api_key_env or 'REPILOT_API_KEY'
  if key_env ~= 'REPILOT_API_KEY' and os.getenv(key_env) then
    env.REPILOT_API_KEY = os.getenv(key_env)
  end
  return env
end

local function live_client(id)
  local c = id and vim.lsp.get_client_by_id(id)
  if c and not c.is_stopped() then
    return c
  end
  return nil
end

--- One line for a progress value: "title: message (pct%)"; a message equal
--- to the title (JDT LS sends "Publish Diagnostics" as both) is not repeated.
function M.format_progress(p)
  local s = p.title or ''
  if p.message and p.message ~= '' and p.message ~= p.title then
    s = s .. ': ' .. p.message
  end
  if type(p.percentage) == 'number' then
    s = s .. string.format(' (%d%%)', p.percentage)
  end
  return s
end

--- Whether a progress title is the proxy's own work: "Repilot: ..." (repair,
--- its warm-up) or "Semantic search..." (the index build and a search).
function M.own_progress(title)
  title = title or ''
  return title:find('^Repilot') ~= nil or title:find('^Semantic search') ~= nil
end

-- The ends of a repair's progress that come with an error answer, which
-- the plugin announces itself ("repair of line 30 cancelled", the error's
-- message): proxy/feature/repairfeat's pr.End before each proxy.Errorf.
local error_ends = {
  ['cancelled'] = true, ['timed out'] = true, ['failed'] = true, ['no candidate patch'] = true,
  ['the document was closed'] = true,
}

--- Whether the end of a progress goes to vim.notify (and :messages): a
--- repair's or the warm-up's end, except those of a repair that ends with an
--- error ("cancelled", "failed", ...), which the repair's own answer
--- announces already. The others (JDT LS's, the search index's) are only
--- echoed.
function M.final_progress(title, message)
  return (title or ''):find('^Repilot') ~= nil and not error_ends[message]
end

--- What to show of a window/showMessage of a repilot client: the message
--- itself, or nil when the plugin shows its content already. The server
--- sends one at every repair's end, for clients that show only messages ("Repilot:
--- 5 patches, 3 compilable for Cart.java line 30; each is offered as ..."),
--- which the progress end says too ("repairing Cart.java line 30: 5
--- patches, 3 compilable"): it was in :messages twice. Only its warning
--- stays (the test command passes on the buggy code). The warning that no
--- candidate came is the repair's error answer, shown as such. With
--- progress = false the plugin shows no progress end, and the message is
--- shown as is.
function M.show_message_text(message, progress)
  if progress == false or type(message) ~= 'string' then
    return message
  end
  if message:find('^Repilot: .* each is offered as "Apply Repilot patch k"') then
    local warning = message:match(' Warning: (.*)$')
    return warning and ('Repilot: ' .. warning) or nil
  end
  if message:find('^Repilot: the language model produced no candidate patch for ') then
    return nil
  end
  return message
end

--- The line shown for a progress value: Repilot's own progress as is, JDT
--- LS's own (forwarded by the proxy: "Publish Diagnostics", "Building") with
--- "JDT LS: " in front, so that it is not read as Repilot's work.
function M.progress_line(p)
  local s = M.format_progress(p)
  if M.own_progress(p.title) then
    return s
  end
  return 'JDT LS: ' .. s
end

--- text cut to at most width display cells, its last one "…" when cut:
--- an echo wider than v:echospace (the last line less 'showcmd' and
--- 'ruler') opens the hit-enter prompt.
function M.fit_echo(text, width)
  if width < 1 then
    return ''
  end
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local n = vim.fn.strchars(text)
  local cut = text
  while n > 0 and vim.fn.strdisplaywidth(cut) > width - 1 do
    n = n - 1
    cut = vim.fn.strcharpart(text, 0, n)
  end
  return cut .. '…'
end

--- Echoes one progress line in the echo area, cut to v:echospace, after a
--- redraw, and nothing while a prompt is open (mode "r": hit-enter, more,
--- confirm) or a command line is being typed (mode "c"). An echo while
--- messages are still scrolled up (a prompt just answered, the progress
--- queued meanwhile arriving in one go) adds a line under them and asks for
--- Enter again; the redraw puts them away first.
local function echo_progress(text)
  local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
  if mode == 'r' or mode == 'c' then
    return
  end
  vim.cmd('redraw')
  vim.api.nvim_echo({ { M.fit_echo(text, vim.v.echospace) } }, false, {})
end

local function show(text, level, final)
  text = text:gsub('^Repilot: ', '')
  local how = M.config.progress
  if how == 'notify' then
    if final then
      notify(text, level)
    end
  elseif how == 'echo' then
    -- The echo area; a final message goes through vim.notify so that it
    -- stays in :messages.
    if final then
      -- A progress line echoed just before (in the same batch of server
      -- messages) would stay above it and ask for Enter: redraw first, as
      -- echo_progress does.
      local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
      if mode ~= 'r' and mode ~= 'c' then
        vim.cmd('redraw')
      end
      notify(text, level)
    elseif text:find('^JDT LS') then
      echo_progress(text)
    else
      echo_progress('Repilot: ' .. text)
    end
  end
end

--- The hints a running repair's progress lines end with, longest first:
--- how to stop it. The plugin's own "(:RepilotCancel stops it)" at the
--- start was overwritten at once by the progress.
M.CANCEL_HINTS = { ' (:RepilotCancel stops it)', ' (:RepilotCancel)' }

--- line and the longest of M.CANCEL_HINTS that keeps it within width
--- display cells; nil when none fits.
function M.with_cancel_hint(line, width)
  for _, h in ipairs(M.CANCEL_HINTS) do
    if vim.fn.strdisplaywidth(line .. h) <= width then
      return line .. h
    end
  end
  return nil
end

-- A repair's progress title, then shorter forms of it: without the file
-- name ("Repilot: repairing line 30"), then without "repairing" ("Repilot:
-- line 30").
local function short_titles(title)
  return { title, (title:gsub('^Repilot: repairing %S+ (lines?) ', 'Repilot: repairing %1 ')),
    (title:gsub('^Repilot: repairing %S+ (lines?) ', 'Repilot: %1 ')) }
end

--- The echo line of a repair's progress p within width display cells,
--- ending with a hint of M.CANCEL_HINTS: its title as sent ("Repilot:
--- repairing Cart.java line 30"), else without the file ("Repilot: repairing
--- line 30"), else the lines alone ("Repilot: line 30"), whichever first
--- leaves room for a hint (the begin line names the file). At 80 columns
--- (v:echospace 68) "sampling 3/20 (13%)" with the whole title and a hint
--- takes 73 cells. When no form leaves room: the line as sent.
function M.repair_echo(p, width)
  local titles = short_titles(p.title or '')
  for _, t in ipairs(titles) do
    local line = M.with_cancel_hint(M.progress_line(vim.tbl_extend('force', p, { title = t })), width)
    if line then
      return line
    end
  end
  return M.progress_line(p)
end

-- A repair's progress title ("Repilot: repairing Cart.java line 30") and
-- the warm-up's (cli/warm.go).
local function repair_title(title)
  return (title or ''):find('^Repilot: repairing ') ~= nil
end
local function warmup_title(title)
  return (title or ''):find('^Repilot: preparing repair') ~= nil
end

--- The end of a repair's progress (title, msg) in width display cells
--- ("Repilot: " included): "Repilot: repairing Cart.java line 30: 5 patches,
--- 3 compilable in 38s", without the file name, then without "repairing"
--- where it does not fit, cut at its end when nothing does. It goes to
--- :messages: wider than the echo area it asked for Enter.
function M.repair_end(title, msg, width)
  local titles = short_titles(title)
  for _, t in ipairs(titles) do
    local line = t .. ': ' .. msg
    if vim.fn.strdisplaywidth(line) <= width then
      return line
    end
  end
  return M.fit_echo(titles[#titles] .. ': ' .. msg, width)
end

--- The line a begin or report of progress p shows, nil for none: a
--- repair's M.repair_echo (in width cells); the warm-up's none
--- while a repair of the same client runs (by: that client's progress),
--- whose own progress says that it waits and for how long ("waiting for
--- JDT LS (7s)"): the two took turns in the echo area. The warm-up's end
--- is shown as usual.
function M.progress_echo(p, by, width)
  if warmup_title(p.title) then
    for _, q in pairs(by) do
      if repair_title(q.title) then
        return nil
      end
    end
  end
  if repair_title(p.title) then
    return M.repair_echo(p, width)
  end
  return M.progress_line(p)
end

--- Records and shows one $/progress notification of a repilot client.
function M.on_progress(result, ctx)
  if type(result) ~= 'table' or type(result.value) ~= 'table' then
    return
  end
  local by = M.progress[ctx.client_id] or {}
  M.progress[ctx.client_id] = by
  local v, tok = result.value, result.token
  local function show_line()
    local line = M.progress_echo(by[tok], by, vim.v.echospace)
    if line then
      show(line)
    end
  end
  if v.kind == 'begin' then
    by[tok] = { title = v.title, message = v.message, percentage = v.percentage, cancellable = v.cancellable }
    show_line()
  elseif v.kind == 'report' and by[tok] then
    by[tok].message = v.message or by[tok].message
    by[tok].percentage = v.percentage or by[tok].percentage
    show_line()
  elseif v.kind == 'end' and by[tok] then
    local p = by[tok]
    by[tok] = nil
    local title = p.title or ''
    local own = M.own_progress(title)
    -- JDT LS ends "Initialize Workspace" with that message again: "done".
    local msg = v.message
    if not msg or msg == '' or msg == title then
      msg = 'done'
    end
    local line = (own and '' or 'JDT LS: ') .. title .. ': ' .. msg
    if repair_title(title) then
      line = M.repair_end(title, msg, M.message_width() + #'Repilot: ')
    end
    show(line, nil, M.final_progress(title, v.message))
  end
end

local handlers = {
  ['$/progress'] = function(err, result, ctx, config)
    -- The built-in handler first (client.messages and User
    -- LspProgressUpdate, which progress plugins read), looked up at call
    -- time so that a plugin replacing it still gets the message.
    local builtin = vim.lsp.handlers['$/progress']
    if builtin then
      pcall(builtin, err, result, ctx, config)
    end
    M.on_progress(result, ctx)
  end,
  -- The patches of a running repair, as each is validated.
  ['repilot/patchFound'] = function(_, result, ctx)
    M.on_patch_found(result, ctx)
  end,
  -- The server's messages, less those that repeat a repair's end
  -- (M.show_message_text); the rest go to the built-in handler.
  ['window/showMessage'] = function(err, result, ctx, config)
    if type(result) == 'table' then
      local text = M.show_message_text(result.message, M.config.progress)
      if text == nil then
        return vim.NIL
      end
      if text ~= result.message then
        notify((text:gsub('^Repilot: ', '')), vim.log.levels.WARN)
        return vim.NIL
      end
    end
    return vim.lsp.handlers['window/showMessage'](err, result, ctx, config)
  end,
  -- A patch applied through repilot.applyPatch: the built-in handler prints
  -- "Workspace edit Apply Repilot patch 1: <the patch>" (a second message
  -- about the patch, often wider than the echo area) before the plugin's
  -- own "applied: ..."; the label is left out for those.
  ['workspace/applyEdit'] = function(err, result, ctx, config)
    if type(result) == 'table' and type(result.label) == 'string' and result.label:find('^Apply Repilot patch') then
      result = vim.tbl_extend('force', {}, result)
      result.label = nil
    end
    return vim.lsp.handlers['workspace/applyEdit'](err, result, ctx, config)
  end,
  -- JDT LS's own status ("Starting", "ServiceReady").
  ['language/status'] = function(_, result)
    if type(result) == 'table' and result.type == 'ServiceReady' then
      show('JDT LS ready', nil, M.config.progress ~= false)
    elseif type(result) == 'table' and result.message then
      show('JDT LS: ' .. result.message)
    end
  end,
}

local function default_keymaps(bufnr)
  local o = { buffer = bufnr, silent = true }
  vim.keymap.set('n', 'K', vim.lsp.buf.hover, o)
  vim.keymap.set('n', 'gd', vim.lsp.buf.definition, o)
  vim.api.nvim_buf_set_option(bufnr, 'omnifunc', 'v:lua.vim.lsp.omnifunc')
end

--- Starts (or reuses) the client for the buffer's project and attaches the
--- buffer. Returns the client id, or nil when the buffer has no file.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' then
    return nil
  end
  local root = M.root_dir(fname)
  local id = M.clients[root]
  if not live_client(id) then
    local cfg = M.config
    local cmd = cfg.cmd or vim.list_extend({ cfg.path }, cfg.args or {})
    if vim.fn.executable(cmd[1]) ~= 1 then
      notify(cmd[1] .. ' is not executable: run scripts/install.sh and set path to bin/repilot-lsp (:checkhealth repilot)',
        vim.log.levels.ERROR)
      return nil
    end
    id = vim.lsp.start_client({
      name = 'repilot',
      cmd = cmd,
      cmd_env = M.server_env(cfg),
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      capabilities = cfg.capabilities or vim.lsp.protocol.make_client_capabilities(),
      handlers = handlers,
      on_attach = function(client, b)
        if M.config.default_keymaps then
          default_keymaps(b)
        end
        if cfg.on_attach then
          cfg.on_attach(client, b)
        end
      end,
      on_exit = function(_, _, client_id)
        M.progress[client_id] = nil
      end,
    })
    if not id then
      notify('could not start ' .. table.concat(cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    M.clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- The repilot client attached to bufnr, or nil.
function M.client_for(bufnr)
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'repilot' and not c.is_stopped() then
      return c
    end
  end
  return nil
end

--- Runs fn(client) with the repilot client of bufnr: at once when one is
--- attached, else, when the buffer's project has a client still starting
--- (JDT LS's start takes 10-60 s), once it is up: the user is told, and it
--- is polled every 200 ms for at most wait_ms (default 120 s). Before, a
--- command typed in that time failed with "no repilot-lsp attached to this
--- buffer", which read as a setup error. missing(msg) gets the message when
--- there is no client, or it stopped or did not come up in time.
function M.with_client(bufnr, what, fn, missing, wait_ms)
  local c = M.client_for(bufnr)
  if c then
    return fn(c)
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local id = fname ~= '' and M.clients[M.root_dir(fname)] or nil
  if not live_client(id) then
    return missing(nil)
  end
  notify('repilot-lsp is starting: the ' .. what .. ' runs once it is up')
  local deadline = vim.loop.now() + (wait_ms or 120000)
  local function poll()
    if not vim.api.nvim_buf_is_valid(bufnr) then
      return missing('the buffer was closed before repilot-lsp was up: no ' .. what)
    end
    local ready = M.client_for(bufnr)
    if ready then
      return fn(ready)
    end
    if not live_client(id) then
      return missing('repilot-lsp stopped while starting: no ' .. what .. ' (:checkhealth repilot, :LspInfo)')
    end
    if vim.loop.now() >= deadline then
      return missing('repilot-lsp is not up after ' .. math.floor((wait_ms or 120000) / 1000) .. ' s: no ' .. what .. '; try again')
    end
    vim.defer_fn(poll, 200)
  end
  vim.defer_fn(poll, 200)
end

-- request sends a request of this plugin and remembers it for :RepilotCancel.
-- handler runs once: with the response, or with a RequestCancelled error when
-- :RepilotCancel stops the request (0.7 drops the server's RequestCancelled
-- response without calling the handler).
local function request(client, method, params, bufnr, what, handler)
  local entry = { client_id = client.id, what = what }
  entry.finish = function(err, result, ctx)
    if entry.done then
      return
    end
    entry.done = true
    for i, p in ipairs(M.pending) do
      if p == entry then
        table.remove(M.pending, i)
        break
      end
    end
    handler(err, result, ctx)
  end
  local ok, id = client.request(method, params, entry.finish, bufnr)
  if ok then
    entry.id = id
    table.insert(M.pending, entry)
  end
  return ok, entry
end

-- cancel_one cancels one request of this plugin ($/cancelRequest); its
-- handler gets a RequestCancelled error.
local function cancel_one(entry)
  local c = live_client(entry.client_id)
  if c and entry.id and not entry.done then
    c.cancel_request(entry.id)
  end
  entry.finish({ code = REQUEST_CANCELLED, message = entry.what .. ' cancelled' })
end

--- Cancels what this plugin is running (repairs, searches): a
--- window/workDoneProgress/cancel for each open cancellable "Repilot"
--- progress, and $/cancelRequest for requests of clients that have none.
--- The requests' handlers get a RequestCancelled error. Returns how many
--- requests were cancelled.
function M.cancel()
  local with_progress = {}
  for client_id, by in pairs(M.progress) do
    local c = live_client(client_id)
    if c then
      for tok, p in pairs(by) do
        if p.cancellable and (p.title or ''):find('^Repilot') then
          c.notify('window/workDoneProgress/cancel', { token = tok })
          with_progress[client_id] = true
        end
      end
    end
  end
  local pending = M.pending
  M.pending = {}
  for _, p in ipairs(pending) do
    local c = live_client(p.client_id)
    if c and not with_progress[p.client_id] and p.id then
      c.cancel_request(p.id)
    end
    p.finish({ code = REQUEST_CANCELLED, message = p.what .. ' cancelled' })
  end
  if #pending == 0 then
    notify('nothing to cancel')
  end
  return #pending
end

--- The argument of repilot.repairHunk for 1-based inclusive lines line1..line2:
--- whole lines, end-exclusive at the start of the next line, with the
--- test_command option.
function M.repair_args(bufnr, line1, line2)
  return {
    uri = vim.uri_from_bufnr(bufnr),
    range = {
      start = { line = line1 - 1, character = 0 },
      ['end'] = { line = line2, character = 0 },
    },
    version = vim.lsp.util.buf_versions[bufnr],
    testCommand = M.config.test_command,
  }
end

--- A patch's status in words.
function M.patch_status(p)
  if p.plausible then
    return 'compiles, tests pass'
  elseif p.compilable then
    return 'compiles'
  end
  return 'does not compile'
end

--- A patch's status in one or two words, for messages that must fit the
--- echo area: "tests pass" (which implies "compiles"), "compiles", "does not
--- compile".
function M.short_status(p)
  if p.plausible then
    return 'tests pass'
  end
  return M.patch_status(p)
end

--- The text of a patch without its status: the server's title (the hunk's
--- first non-blank line), or for a hunk of more lines all of them, joined by
--- " ⏎ " (cut at 120 characters), so two patches that differ only after their
--- first line do not look the same in the menu.
function M.patch_text(p)
  local title = tostring(p.title or 'patch'):gsub('^Apply Repilot patch %d+: ', ''):gsub('^Repilot patch found: ', '')
  if type(p.hunk) == 'string' then
    local lines = {}
    for l in p.hunk:gmatch('[^\n]+') do
      l = vim.trim(l)
      if l ~= '' then
        table.insert(lines, l)
      end
    end
    if #lines > 1 then
      title = table.concat(lines, ' ⏎ ')
      if vim.fn.strchars(title) > 120 then
        title = vim.fn.strcharpart(title, 0, 117) .. '...'
      end
    end
  end
  return title
end

--- One line describing a patch, for vim.ui.select: M.patch_text and its
--- status, "int off = 0;  [compiles]".
function M.format_patch(p)
  return string.format('%s  [%s]', M.patch_text(p), M.patch_status(p))
end

--- The display cells a message may take without the hit-enter prompt: the
--- lines of 'cmdheight' above the last, and the last less 'showcmd' and
--- 'ruler' (v:echospace), less the "Repilot: " that notify puts in front.
function M.message_width()
  return math.max(vim.o.cmdheight - 1, 0) * vim.o.columns + vim.v.echospace - #'Repilot: '
end

--- head .. text .. tail cut to width display cells by cutting text (to its
--- start and "…"): what a message says about a patch keeps its frame (the
--- lines, the status, the count and the command) and loses the end of the
--- patch's text first. When even the frame does not fit, the text goes and
--- the rest is cut from its end.
function M.fit_around(head, text, tail, width)
  local frame = vim.fn.strdisplaywidth(head .. tail)
  local room = width - frame
  if room >= math.min(vim.fn.strdisplaywidth(text), 4) then
    return head .. M.fit_echo(text, room) .. tail
  end
  return M.fit_echo(vim.trim((head:gsub(':%s*$', ''))) .. tail, width)
end

--- The announcement of a streamed patch better than those told before,
--- "line 30: int off = … [tests pass] (1 found; :RepilotPatches)", in width
--- display cells (M.message_width()): at 80 columns the whole patch line
--- (125 and more cells with the old wording) opened the hit-enter prompt
--- in the middle of the repair. count is what :RepilotPatches would offer.
function M.found_message(where, p, count, width)
  return M.fit_around(where .. ': ', M.patch_text(p),
    string.format(' [%s] (%d found; :RepilotPatches)', M.short_status(p), count), width)
end

--- The message after a patch is applied, "applied: int off = … [tests
--- pass] (u undoes it)", in width display cells.
function M.applied_message(p, width)
  return M.fit_around('applied: ', M.patch_text(p), string.format(' [%s] (u undoes it)', M.short_status(p)), width)
end

--- The warning that none of the n patches of a repair of where compiles
--- (all hidden without show_uncompilable), in width display cells
--- (M.message_width()): the longest of these wordings that fits, else the
--- shortest cut. Before, its 88 cells opened the hit-enter prompt at 80
--- columns.
function M.none_compile_message(where, n, width)
  local fits = {
    string.format('none of the %d patches for %s compiles (show_uncompilable = true lists them)', n, where),
    string.format('%s: %d patches, none compiles (show_uncompilable = true lists them)', where, n),
    string.format('%s: %d patches, none compiles (see show_uncompilable)', where, n),
  }
  for _, m in ipairs(fits) do
    if vim.fn.strdisplaywidth(m) <= width then
      return m
    end
  end
  return M.fit_echo(fits[#fits], width)
end

-- What identifies a patch across the stream and the result (their titles
-- differ): its hunk, else its title's text.
local function patch_key(p)
  if type(p.hunk) == 'string' then
    return 'h:' .. p.hunk
  end
  return 't:' .. tostring(p.title or ''):gsub('^Apply Repilot patch %d+: ', ''):gsub('^Repilot patch found: ', '')
end

--- Appends a streamed patch to found unless the same patch (hunk) is there;
--- returns whether it did.
function M.add_found(found, patch)
  local k = patch_key(patch)
  for _, p in ipairs(found) do
    if patch_key(p) == k then
      return false
    end
  end
  table.insert(found, patch)
  return true
end

--- The patches streamed so far as offered before the end: "compiles, tests
--- pass" first, then "compiles", then (with show_uncompilable) the rest, each
--- group by logProb (highest first), ties in arrival order.
function M.found_patches(found, show_uncompilable)
  local list = {}
  for i, p in ipairs(found) do
    if p.compilable or show_uncompilable then
      table.insert(list, { p = p, i = i })
    end
  end
  local function grade(p)
    return p.plausible and 2 or (p.compilable and 1 or 0)
  end
  local function lp(p)
    return type(p.logProb) == 'number' and p.logProb or -math.huge
  end
  table.sort(list, function(a, b)
    if grade(a.p) ~= grade(b.p) then
      return grade(a.p) > grade(b.p)
    end
    if lp(a.p) ~= lp(b.p) then
      return lp(a.p) > lp(b.p)
    end
    return a.i < b.i
  end)
  return vim.tbl_map(function(x)
    return x.p
  end, list)
end

--- Records one repilot/patchFound notification ({uri, version, patch}) for
--- the running repair of that document version and tells the user about a
--- patch that would be offered, when it is better than every patch told
--- before (the first that compiles, the first whose tests pass): a repair
--- streams up to its sample count of patches, and a message for each would
--- flood the message area. :RepilotPatches lists them all.
function M.on_patch_found(result, ctx)
  if type(result) ~= 'table' or type(result.patch) ~= 'table' then
    return
  end
  for _, rep in ipairs(M.repairs) do
    if rep.client_id == ctx.client_id and rep.uri == result.uri and rep.version == result.version then
      local p = result.patch
      if M.add_found(rep.found, p) and (p.compilable or M.config.show_uncompilable) then
        local grade = p.plausible and 2 or (p.compilable and 1 or 0)
        if grade > (rep.told or -1) then
          rep.told = grade
          -- "found" counts what :RepilotPatches would offer, not the
          -- patches that do not compile (hidden without show_uncompilable).
          notify(M.found_message(rep.where, p, #M.found_patches(rep.found, M.config.show_uncompilable), M.message_width()))
        end
      end
      return
    end
  end
end

-- apply_choice applies a chosen patch: through its repilot.applyPatch
-- command (the server checks that the buffer is still at the version it
-- repaired and sends workspace/applyEdit: one undoable edit), else here.
-- on_done(patch_or_nil, err_or_nil).
local function apply_choice(client, bufnr, version, choice, on_done)
  local function applied()
    notify(M.applied_message(choice, M.message_width()))
    on_done(choice, nil)
  end
  local function apply_here()
    if vim.lsp.util.buf_versions[bufnr] ~= version then
      notify('the buffer changed while choosing; patch not applied, repair again', vim.log.levels.WARN)
      return on_done(nil, 'changed')
    end
    vim.lsp.util.apply_workspace_edit(choice.edit, client.offset_encoding or 'utf-16')
    applied()
  end
  if not choice.command then
    return apply_here() -- a server without repilot.applyPatch
  end
  request(client, 'workspace/executeCommand', { command = choice.command.command, arguments = choice.command.arguments },
    bufnr, 'apply', function(aerr, aresult)
      if aerr then
        notify('patch not applied: ' .. (aerr.message or vim.inspect(aerr)), vim.log.levels.WARN)
        return on_done(nil, aerr)
      end
      if type(aresult) == 'table' and aresult.applied == false and aresult.edit then
        return apply_here()
      end
      applied()
    end)
end

--- Repairs lines line1..line2 (1-based, inclusive) of bufnr: asks the server,
--- lets the user choose a patch, applies it. on_done(applied_patch_or_nil,
--- err_or_nil) is called at the end (used by the tests).
function M.repair(line1, line2, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  on_done = on_done or function() end
  M.with_client(bufnr, 'repair', function(client)
    M._repair(client, line1, line2, bufnr, on_done)
  end, function(msg)
    notify(msg or 'no repilot-lsp attached to this buffer (is it a Java file? see :checkhealth repilot)', vim.log.levels.ERROR)
    on_done(nil, 'no client')
  end)
end

-- _repair is M.repair once the client is up.
function M._repair(client, line1, line2, bufnr, on_done)
  local args = M.repair_args(bufnr, line1, line2)
  local where = line1 == line2 and ('line ' .. line1) or ('lines ' .. line1 .. '-' .. line2)
  if M.config.progress ~= 'echo' then
    -- With progress = 'echo' the repair's progress lines say it
    -- (M.with_cancel_hint); this message was overwritten by them at once.
    notify('repairing ' .. where .. ' (:RepilotCancel stops it)')
  end
  local rep = { client_id = client.id, bufnr = bufnr, uri = args.uri, version = args.version, where = where, found = {} }
  rep.client = client
  rep.on_done = on_done
  table.insert(M.repairs, rep)
  local ok, entry = request(client, 'workspace/executeCommand', { command = M.REPAIR_COMMAND, arguments = { args } }, bufnr, 'repair',
    function(err, result)
      rep.ended = true
      for i, r in ipairs(M.repairs) do
        if r == rep then
          table.remove(M.repairs, i)
          break
        end
      end
      if rep.chosen then
        return -- a patch found before the end was chosen (M.patches)
      end
      local function final()
        if err then
          if err.code == REQUEST_CANCELLED then
            notify('repair of ' .. where .. ' cancelled')
          else
            notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
          end
          return on_done(nil, err)
        end
        local all = result and result.patches
        if type(all) ~= 'table' or #all == 0 then
          notify('no patch for ' .. where, vim.log.levels.WARN)
          return on_done(nil, 'no patch')
        end
        local patches = {}
        for _, p in ipairs(all) do
          if p.compilable or M.config.show_uncompilable then
            table.insert(patches, p)
          end
        end
        if #patches == 0 then
          notify(M.none_compile_message(where, #all, M.message_width()), vim.log.levels.WARN)
          return on_done(nil, 'no compilable patch')
        end
        vim.ui.select(patches, { prompt = 'Repilot patches for ' .. where, format_item = M.format_patch }, function(choice)
          if not choice then
            return on_done(nil, nil)
          end
          apply_choice(client, bufnr, args.version, choice, on_done)
        end)
      end
      if rep.picking then
        rep.deferred = final -- after the menu of :RepilotPatches, unless it chooses
        return
      end
      final()
    end)
  if ok then
    rep.entry = entry
  else
    table.remove(M.repairs) -- not sent (the client is stopping)
  end
end

--- :RepilotPatches: the patches found so far by the running repair of bufnr
--- (else the latest running repair) in a vim.ui.select menu. Choosing one
--- applies it and cancels the rest of the repair; leaving the menu lets the
--- repair go on, and its ranked menu comes at the end as usual.
--- on_done(applied_patch_or_nil, err_or_nil) is for the tests.
function M.patches(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  on_done = on_done or function() end
  local rep
  for i = #M.repairs, 1, -1 do
    if M.repairs[i].bufnr == bufnr then
      rep = M.repairs[i]
      break
    end
  end
  rep = rep or M.repairs[#M.repairs]
  if not rep then
    notify('no repair is running (:RepilotRepair starts one)', vim.log.levels.WARN)
    return on_done(nil, 'no repair')
  end
  local offered = M.found_patches(rep.found, M.config.show_uncompilable)
  if #offered == 0 then
    notify('no patch for ' .. rep.where .. ' yet; the repair goes on')
    return on_done(nil, 'none yet')
  end
  rep.picking = true
  vim.ui.select(offered, {
    prompt = 'Repilot patches found so far for ' .. rep.where .. ' (choosing one stops the repair)',
    format_item = M.format_patch,
  }, function(choice)
    rep.picking = false
    if not choice then
      local d = rep.deferred
      rep.deferred = nil
      if d then
        d() -- the repair ended meanwhile: its ranked menu
      end
      return on_done(nil, nil)
    end
    rep.chosen = true
    rep.deferred = nil
    if not rep.ended and rep.entry then
      cancel_one(rep.entry)
      notify('repair of ' .. rep.where .. ' cancelled: a patch was chosen')
    end
    apply_choice(rep.client, rep.bufnr, rep.version, choice, function(p, e)
      rep.on_done(p, e)
      on_done(p, e)
    end)
  end)
end

--- Lines (1-based, inclusive) of the diagnostic under the cursor, or nil.
function M.diagnostic_lines(bufnr, row)
  local best
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = row - 1 })) do
    if not best or d.severity < best.severity then
      best = d
    end
  end
  if not best then
    return nil
  end
  local last = best.end_lnum or best.lnum
  if last > best.lnum and (best.end_col or 0) == 0 then
    last = last - 1
  end
  return best.lnum + 1, last + 1
end

--- Parses "30" or "28-31" (or "28,31") into two line numbers, or nil.
function M.parse_lines(s)
  local a, b = tostring(s or ''):match('^%s*(%d+)%s*[-,]%s*(%d+)%s*$')
  if not a then
    a = tostring(s or ''):match('^%s*(%d+)%s*$')
    b = a
  end
  a, b = tonumber(a), tonumber(b)
  if not a or a < 1 or b < a then
    return nil
  end
  return a, b
end

--- :RepilotRepair without a range: the lines of the diagnostic under the
--- cursor, else the lines the user types (the cursor's line by default).
function M.repair_here(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local a, b = M.diagnostic_lines(bufnr, row)
  if a then
    return M.repair(a, b, bufnr, on_done)
  end
  vim.ui.input({ prompt = 'Repilot: no diagnostic here; repair which lines? (30 or 28-31) ', default = tostring(row) },
    function(input)
      if input == nil or input == '' then
        return (on_done or function() end)(nil, nil)
      end
      local l1, l2 = M.parse_lines(input)
      if not l1 or l2 > vim.api.nvim_buf_line_count(bufnr) then
        notify('not a line range of this buffer: ' .. input, vim.log.levels.ERROR)
        return (on_done or function() end)(nil, 'bad lines')
      end
      M.repair(l1, l2, bufnr, on_done)
    end)
end

--- Quickfix items for search results (SearchHit: location, name, kind,
--- signature, snippet).
function M.search_items(results)
  local items = {}
  for _, h in ipairs(results or {}) do
    local loc = h.location or {}
    local start = (loc.range or {}).start or { line = 0, character = 0 }
    local label = h.signature and h.signature ~= '' and h.signature or h.name or ''
    -- The code's first line after its declaration (which label shows).
    local lines = {}
    for l in tostring(h.snippet or ''):gmatch('[^\n]+') do
      l = vim.trim(l)
      if l ~= '' then
        table.insert(lines, l)
      end
    end
    if lines[1] and label ~= '' and lines[1]:sub(1, #label) == label then
      table.remove(lines, 1)
    end
    local snippet = lines[1] or ''
    table.insert(items, {
      filename = vim.uri_to_fname(loc.uri),
      lnum = start.line + 1,
      col = start.character + 1,
      text = (label ~= '' and snippet ~= '') and (label .. ' | ' .. snippet) or (label .. snippet),
    })
  end
  return items
end

--- Runs semantic search with args ({query} or {uri, range}), fills the
--- quickfix list and offers the results with vim.ui.select; the choice is
--- jumped to (:cc). on_done(result_or_nil, err_or_nil) is for the tests.
function M.search_args(args, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  on_done = on_done or function() end
  M.with_client(bufnr, 'search', function(client)
    M._search_args(client, args, bufnr, on_done)
  end, function(msg)
    notify(msg or 'no repilot-lsp attached to this buffer (open a Java file of the project first)', vim.log.levels.ERROR)
    on_done(nil, 'no client')
  end)
end

-- _search_args is M.search_args once the client is up.
-- How often, 1 s apart, a search that found nothing while the index was
-- still being built is asked again (the server's index of a project opened a
-- moment ago).
M.search_retries = 60

function M._search_args(client, args, bufnr, on_done, tries)
  tries = tries or 0
  request(client, 'workspace/executeCommand', { command = M.SEARCH_COMMAND, arguments = { args } }, bufnr, 'search',
    function(err, result)
      if err then
        notify(err.message or vim.inspect(err), err.code == REQUEST_CANCELLED and vim.log.levels.INFO or vim.log.levels.ERROR)
        return on_done(nil, err)
      end
      local query = (result and result.query) or args.query or ''
      local items = M.search_items(result and result.results)
      if #items == 0 and result and result.indexing and tries < M.search_retries and live_client(client.id) then
        -- Before, a search typed right after opening the project said "no
        -- results" while its index was empty.
        if tries == 0 then
          notify('indexing the project: the search runs again in a moment')
        end
        vim.defer_fn(function()
          M._search_args(client, args, bufnr, on_done, tries + 1)
        end, 1000)
        return
      end
      vim.fn.setqflist({}, ' ', { title = 'Repilot search: ' .. query, items = items })
      if #items == 0 then
        notify('no results for "' .. query .. '"', vim.log.levels.WARN)
        return on_done(result, nil)
      end
      if result.indexing then
        notify('the index is still being built: results so far')
      end
      local idx = {}
      for i = 1, #items do
        idx[i] = i
      end
      vim.ui.select(idx, {
        prompt = 'Repilot search: ' .. query .. ' (also in the quickfix list)',
        format_item = function(i)
          local it = items[i]
          -- One screen line each: 0.7's menu (inputlist) writes "i: "
          -- before it, and a longer item wraps (the menu of 8 results
          -- filled 16 lines at 80 columns).
          return M.fit_echo(string.format('%s:%d  %s', vim.fn.fnamemodify(it.filename, ':~:.'), it.lnum, it.text),
            vim.o.columns - #tostring(#items) - 3)
        end,
      }, function(choice)
        if choice then
          -- :cc echoes "(1 of 8): <the item's text>", which at 80
          -- columns wraps and asks for Enter: jump silently and echo
          -- that line cut to the echo area (not kept in :messages).
          vim.cmd('silent cc ' .. choice)
          vim.cmd('redraw') -- the menu's lines away first
          vim.api.nvim_echo({ { M.fit_echo(string.format('(%d of %d): %s', choice, #items, items[choice].text),
            vim.v.echospace) } }, false, {})
        end
        on_done(result, nil)
      end)
    end)
end

--- :RepilotSearch {query}
function M.search(query, bufnr, on_done)
  return M.search_args({ query = query }, bufnr, on_done)
end

-- The commands of the proxy's code actions run here, so that they get the
-- same picker, test command and quickfix list as the user commands.
local function client_commands()
  vim.lsp.commands[M.REPAIR_COMMAND] = function(command, ctx)
    local a = (command.arguments or {})[1] or {}
    local bufnr = a.uri and vim.uri_to_bufnr(a.uri) or ctx.bufnr
    local r = a.range or {}
    local s, e = r.start or {}, r['end'] or {}
    local l1, l2 = (s.line or 0) + 1, (e.line or 0) + 1
    if (e.character or 0) == 0 and l2 > l1 then
      l2 = l2 - 1
    end
    M.repair(l1, l2, bufnr)
  end
  vim.lsp.commands[M.SEARCH_COMMAND] = function(command, ctx)
    local a = vim.deepcopy((command.arguments or {})[1] or {})
    a.show = nil -- the plugin lists the results itself
    local bufnr = a.uri and vim.uri_to_bufnr(a.uri) or ctx.bufnr
    M.search_args(a, bufnr)
  end
end

-- On 0.7, vim.lsp.buf.code_action() ignores a visual selection (0.8 uses it):
-- called from visual mode (a mapping with <cmd> or :lua in x mode), it asks
-- for the selection's range instead.
local function visual_code_action()
  if vim.fn.has('nvim-0.8') == 1 or M._orig_code_action then
    return
  end
  M._orig_code_action = vim.lsp.buf.code_action
  vim.lsp.buf.code_action = function(context)
    local mode = vim.api.nvim_get_mode().mode
    if mode ~= 'v' and mode ~= 'V' and mode ~= '\22' then
      return M._orig_code_action(context)
    end
    local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
    if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
      a, b = b, a
    end
    local s, e = { a[2], a[3] - 1 }, { b[2], b[3] - 1 }
    if mode == 'V' then
      s[2] = 0
      e[2] = math.max(#vim.fn.getline(b[2]) - 1, 0)
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'n', false)
    return vim.lsp.buf.range_code_action(context, s, e)
  end
end

--- Sets options and registers the FileType autocommand and the commands.
-- The options setup knows (those of M.defaults, with the ones whose default
-- is nil), and model's.
local known_options = {
  cmd = true, path = true, args = true, jdtls_home = true, cache = true, model = true, test_command = true,
  show_uncompilable = true, progress = true, default_keymaps = true, visual_code_action = true, filetypes = true,
  root_markers = true, on_attach = true, capabilities = true,
}
local known_model_options = { base_url = true, name = true, api_key_env = true }

--- What is wrong with setup's opts, one line each (empty when nothing is):
--- an option it does not know (a typo would be ignored without a word), a
--- test_command that is not a list of strings (a string was sent to the
--- server as is, and :checkhealth failed on it), a progress that is none
--- of 'echo', 'notify', false.
function M.config_problems(opts)
  local problems = {}
  if type(opts) ~= 'table' then
    return problems
  end
  local unknown = {}
  for k in pairs(opts) do
    if not known_options[k] then
      table.insert(unknown, tostring(k))
    end
  end
  if type(opts.model) == 'table' then
    for k in pairs(opts.model) do
      if not known_model_options[k] then
        table.insert(unknown, 'model.' .. tostring(k))
      end
    end
  end
  table.sort(unknown)
  for _, k in ipairs(unknown) do
    table.insert(problems, 'unknown option ' .. k .. ' (ignored; :help repilot-options lists them)')
  end
  local tc = opts.test_command
  if tc ~= nil then
    local ok = type(tc) == 'table' and #tc > 0 and vim.tbl_count(tc) == #tc
    for _, w in ipairs(type(tc) == 'table' and tc or {}) do
      ok = ok and type(w) == 'string'
    end
    if not ok then
      table.insert(problems, 'test_command must be a list of strings (argv, no shell), e.g. '
        .. "{ 'mvn', '-q', 'test' }, or { 'sh', '-c', 'a shell line' }; ignored")
    end
  end
  local pr = opts.progress
  if pr ~= nil and pr ~= 'echo' and pr ~= 'notify' and pr ~= false then
    table.insert(problems, "progress must be 'echo', 'notify' or false, not " .. vim.inspect(pr) .. "; 'echo' used")
  end
  return problems
end

function M.setup(opts)
  M.problems = M.config_problems(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  for _, p in ipairs(M.problems) do
    if p:find('^test_command') then
      M.config.test_command = nil
    elseif p:find('^progress') then
      M.config.progress = 'echo'
    end
    notify('setup: ' .. p, vim.log.levels.WARN)
  end
  local group = vim.api.nvim_create_augroup('repilot', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  vim.api.nvim_create_user_command('RepilotRepair', function(c)
    if c.range == 0 then
      M.repair_here(0)
    else
      M.repair(c.line1, c.line2, 0)
    end
  end, { range = true, desc = 'Repair the selected lines (or the diagnostic under the cursor) with Repilot' })
  vim.api.nvim_create_user_command('RepilotPatches', function()
    M.patches(0)
  end, { desc = 'Choose among the patches the running Repilot repair has found so far' })
  vim.api.nvim_create_user_command('RepilotCancel', function()
    M.cancel()
  end, { desc = 'Cancel the running Repilot repair or search' })
  vim.api.nvim_create_user_command('RepilotSearch', function(c)
    M.search(c.args, 0)
  end, { nargs = '+', desc = 'Semantic search in the project: quickfix list and a picker' })
  client_commands()
  if M.config.visual_code_action then
    visual_code_action()
  end
end

return M
