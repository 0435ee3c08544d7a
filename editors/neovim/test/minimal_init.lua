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
  assert(vim.fn.exists(':RepilotRepair') == 2, ':RepilotRepair is not defined')
  assert(#vim.api.nvim_get_autocmds({ group = 'repilot', event = 'FileType' }) == 1, 'FileType autocommand missing')
  local env = repilot.server_env({ jdtls_home = '/opt/jdtls', model = { base_url = 'http://h/v1', name = 'm' } })
  assert(env.REPILOT_JDTLS_HOME == '/opt/jdtls' and env.REPILOT_MODEL_BASE_URL == 'http://h/v1' and env.REPILOT_MODEL_NAME == 'm')
  assert(repilot.format_patch({ title = 'Apply Repilot patch 2: x = 1;', compilable = true, logProb = -1.5 }) == 'x = 1;  [compilable, log p -1.50]')
end)
if not ok then
  io.stderr:write('repilot minimal_init: ' .. tostring(err) .. '\n')
  vim.cmd('cquit 1')
end
