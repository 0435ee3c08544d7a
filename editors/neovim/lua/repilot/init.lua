-- repilot: Neovim (0.7+) client of repilot-lsp, the Java language server proxy
-- in front of Eclipse JDT LS with "Repair hunk with Repilot".
--
-- require('repilot').setup(opts) registers a FileType autocommand that starts
-- one `repilot-lsp` per project root with vim.lsp.start_client and attaches
-- Java buffers to it (vim.lsp.start does not exist in 0.7), and the range
-- command :RepilotRepair, which sends workspace/executeCommand
-- "repilot.repairHunk" {uri, range, version} for the lines, lets the user pick
-- a patch with vim.ui.select and applies its WorkspaceEdit with
-- vim.lsp.util.apply_workspace_edit. The API key is never an option: it is
-- read from the environment variable named by model.api_key_env.
local M = {}

local COMMAND = 'repilot.repairHunk'

--- Default options; setup(opts) merges opts over a copy of these.
M.defaults = {
  -- The server command; nil means { path, unpack(args) }.
  cmd = nil,
  path = 'repilot-lsp',
  args = {},
  -- JDT LS install (REPILOT_JDTLS_HOME for the server); nil keeps the
  -- environment's value, then ~/.cache/repilot-lsp/jdtls-1.20.0.
  jdtls_home = nil,
  -- Cache root (REPILOT_CACHE); nil keeps the environment's value.
  cache = nil,
  model = {
    base_url = nil, -- OpenAI-compatible server, "http://127.0.0.1:8080/v1" (REPILOT_MODEL_BASE_URL)
    name = nil, -- model name (REPILOT_MODEL_NAME)
    api_key_env = 'REPILOT_API_KEY', -- environment variable holding the key
  },
  filetypes = { 'java' },
  root_markers = { 'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'mvnw', '.project', 'src', '.git' },
  on_attach = nil, -- function(client, bufnr), as for any LSP client
  capabilities = nil, -- nil: vim.lsp.protocol.make_client_capabilities()
}

M.config = vim.deepcopy(M.defaults)
-- client ids by project root
M.clients = {}

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
      notify(cmd[1] .. ' is not executable: run scripts/install.sh and set path to bin/repilot-lsp', vim.log.levels.ERROR)
      return nil
    end
    id = vim.lsp.start_client({
      name = 'repilot',
      cmd = cmd,
      cmd_env = M.server_env(cfg),
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      capabilities = cfg.capabilities or vim.lsp.protocol.make_client_capabilities(),
      on_attach = cfg.on_attach,
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

--- The argument of repilot.repairHunk for 1-based inclusive lines line1..line2:
--- whole lines, end-exclusive at the start of the next line.
function M.repair_args(bufnr, line1, line2)
  return {
    uri = vim.uri_from_bufnr(bufnr),
    range = {
      start = { line = line1 - 1, character = 0 },
      ['end'] = { line = line2, character = 0 },
    },
    version = vim.lsp.util.buf_versions[bufnr],
  }
end

local function status(p)
  if p.plausible then
    return 'plausible'
  elseif p.compilable then
    return 'compilable'
  end
  return 'does not compile'
end

--- One line describing a patch, for vim.ui.select.
function M.format_patch(p)
  local title = tostring(p.title or 'patch'):gsub('^Apply Repilot patch %d+: ', '')
  local lp = type(p.logProb) == 'number' and string.format(', log p %.2f', p.logProb) or ''
  return string.format('%s  [%s%s]', title, status(p), lp)
end

--- Repairs lines line1..line2 (1-based, inclusive) of bufnr: asks the server,
--- lets the user choose a patch, applies it. on_done(applied_patch_or_nil,
--- err_or_nil) is called at the end (used by the tests).
function M.repair(line1, line2, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  on_done = on_done or function() end
  local client = M.client_for(bufnr)
  if not client then
    notify('no repilot-lsp attached to this buffer (is it a Java file? see :LspInfo)', vim.log.levels.ERROR)
    return on_done(nil, 'no client')
  end
  local args = M.repair_args(bufnr, line1, line2)
  local where = line1 == line2 and ('line ' .. line1) or ('lines ' .. line1 .. '-' .. line2)
  notify('repairing ' .. where .. ' ...')
  client.request('workspace/executeCommand', { command = COMMAND, arguments = { args } }, function(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
      return on_done(nil, err)
    end
    local patches = result and result.patches
    if type(patches) ~= 'table' or #patches == 0 then
      notify('no patch for ' .. where, vim.log.levels.WARN)
      return on_done(nil, 'no patch')
    end
    vim.ui.select(patches, { prompt = 'Repilot patches for ' .. where, format_item = M.format_patch }, function(choice)
      if not choice then
        return on_done(nil, nil)
      end
      if vim.lsp.util.buf_versions[bufnr] ~= args.version then
        notify('the buffer changed while choosing; patch not applied, repair again', vim.log.levels.WARN)
        return on_done(nil, 'changed')
      end
      vim.lsp.util.apply_workspace_edit(choice.edit, client.offset_encoding or 'utf-16')
      notify('applied: ' .. M.format_patch(choice))
      on_done(choice, nil)
    end)
  end, bufnr)
end

--- Sets options and registers the FileType autocommand and :RepilotRepair.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('repilot', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  vim.api.nvim_create_user_command('RepilotRepair', function(c)
    M.repair(c.line1, c.line2, 0)
  end, { range = true, desc = 'Repair the selected lines with Repilot' })
end

return M
