-- :checkhealth repilot: the server binary, JDT LS and its version, Java, the
-- cache folder, the model server, and whether a repilot client runs.
local M = {}

-- The report functions: vim.health.start/ok/... (0.10), vim.health.report_*
-- (0.8, 0.9), require('health').report_* (0.7).
local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  h = (h and h.report_start) and h or require('health')
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
end

--- argv as one command line a user can read and paste into a shell: each
--- argument made only of letters, digits and -_./=:,+@% as is, any other
--- quoted ('...', a ' inside as '\''), an empty one as ''. Before, the
--- arguments were joined with spaces: {'sh', '-c', 'javac "$(find . -name
--- "*.java")"'} read as three words, and the checkhealth buffer (markdown)
--- hid its "*" as emphasis.
function M.shell_join(argv)
  local words = {}
  for _, a in ipairs(argv) do
    a = tostring(a)
    if a:match('^[%w%-_./=:,+@%%]+$') then
      table.insert(words, a)
    else
      table.insert(words, "'" .. a:gsub("'", [['\'']]) .. "'")
    end
  end
  return table.concat(words, ' ')
end

--- text as a markdown code span, so that the checkhealth buffer shows it as
--- is ("*" and "_" are not emphasis): in backticks, more of them than any
--- run inside it.
function M.code_span(text)
  local longest = 0
  for run in text:gmatch('`+') do
    longest = math.max(longest, #run)
  end
  local fence = string.rep('`', longest + 1)
  local pad = (text:sub(1, 1) == '`' or text:sub(-1) == '`') and ' ' or ''
  return fence .. pad .. text .. pad .. fence
end

local function first_line(s)
  return (tostring(s or ''):match('[^\n]+') or ''):gsub('%s+$', '')
end

--- The JDT LS version from its core bundle's file name
--- (plugins/org.eclipse.jdt.ls.core_1.20.0.202302201439.jar -> 1.20.0), the
--- newest when there are several; nil when none.
function M.jdtls_version(home)
  local best
  for _, f in ipairs(vim.fn.glob(home .. '/plugins/org.eclipse.jdt.ls.core_*.jar', false, true)) do
    local v = f:match('org%.eclipse%.jdt%.ls%.core_(%d+%.%d+%.%d+)')
    if v then
      local a = vim.tbl_map(tonumber, vim.split(v, '.', true))
      local b = best and vim.tbl_map(tonumber, vim.split(best, '.', true))
      if not b or a[1] > b[1] or (a[1] == b[1] and (a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]))) then
        best = v
      end
    end
  end
  return best
end

function M.check()
  local r = reporter()
  local cfg = require('repilot').config
  local env = require('repilot').server_env(cfg)

  local problems = require('repilot').problems or {}
  if #problems > 0 then
    r.start('repilot: setup')
    for _, p in ipairs(problems) do
      if p:find('^unknown option') then
        r.warn(p)
      else
        r.error(p)
      end
    end
  end

  r.start('repilot: server')
  local cmd = cfg.cmd or { cfg.path }
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    r.error(cmd[1] .. ' is not executable', { 'Run scripts/install.sh in the repilot-lsp clone',
      "setup({ path = '/path/to/repilot-lsp/bin/repilot-lsp' })" })
  else
    local out = vim.fn.system({ exe, '--help' })
    if vim.v.shell_error == 0 then
      r.ok('server: ' .. exe)
    else
      r.error(exe .. ' --help failed: ' .. first_line(out))
    end
  end

  r.start('repilot: cache and JDT LS')
  local cache = env.REPILOT_CACHE or os.getenv('REPILOT_CACHE') or (vim.loop.os_homedir() .. '/.cache/repilot-lsp')
  if vim.fn.isdirectory(cache) == 1 then
    if vim.fn.filewritable(cache) == 2 then
      r.ok('cache folder: ' .. cache)
    else
      r.error('cache folder is not writable: ' .. cache)
    end
  else
    r.warn('cache folder does not exist yet: ' .. cache, { 'scripts/install.sh creates it' })
  end
  local home = env.REPILOT_JDTLS_HOME or os.getenv('REPILOT_JDTLS_HOME') or (cache .. '/jdtls-1.20.0')
  local v = M.jdtls_version(home)
  if v then
    r.ok('JDT LS ' .. v .. ' at ' .. home)
  else
    r.error('JDT LS not found at ' .. home .. ' (no plugins/org.eclipse.jdt.ls.core_*.jar)',
      { 'scripts/install-jdtls.sh installs it', "or setup({ jdtls_home = '/path/to/jdtls' })" })
  end
  if vim.fn.executable('java') == 1 then
    local out = vim.fn.system({ 'java', '-version' })
    local major = tonumber(out:match('version "(%d+)'))
    if major and major >= 17 then
      r.ok('Java: ' .. first_line(out))
    else
      r.error('Java 17 or newer is needed by JDT LS; found: ' .. first_line(out))
    end
  else
    r.error('java is not on PATH', { 'Debian: apt-get install -y openjdk-17-jdk' })
  end

  r.start('repilot: model')
  local base = env.REPILOT_MODEL_BASE_URL or os.getenv('REPILOT_MODEL_BASE_URL')
  if not base or base == '' then
    r.ok('no model server set: repairs use the embedded offline n-gram model (model.base_url sets one)')
  elseif vim.fn.executable('curl') ~= 1 then
    r.warn('model server ' .. base .. ' not checked: curl is missing')
  else
    local args = { 'curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', '-m', '5', base .. '/models' }
    local key = env.REPILOT_API_KEY or os.getenv('REPILOT_API_KEY')
    if key and key ~= '' then
      vim.list_extend(args, { '-H', 'Authorization: Bearer ' .. key })
    end
    local code = first_line(vim.fn.system(args))
    if vim.v.shell_error == 0 and code:match('^2') then
      r.ok('model server reachable: ' .. base .. '/models answered ' .. code)
    else
      r.error('model server not reachable: ' .. base .. '/models: ' .. code, { 'start it, or unset model.base_url' })
    end
  end
  if type(cfg.test_command) == 'table' then
    r.ok('test command: ' .. M.code_span(M.shell_join(cfg.test_command)))
  else
    r.info('no test_command: patches are "compiles" at best, never "tests pass"')
  end

  r.start('repilot: clients')
  local n = 0
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'repilot' then
      n = n + 1
      r.ok(string.format('client %d for %s%s', c.id, c.config.root_dir or '?', c.initialized and '' or ' (starting)'))
    end
  end
  if n == 0 then
    r.info('no repilot client running (open a Java file)')
  end
end

return M
