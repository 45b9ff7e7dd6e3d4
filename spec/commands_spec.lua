-- Every shell command the docs print runs as printed on a fresh copy of the clone: the fenced
-- blocks marked sh (or bash, shell, console) of README.md, manual/*.md and examples/README.md,
-- each block in a copy of its own, in a clean shell (no LUA_PATH, LUA_CPATH, LD_PRELOAD or
-- SINEW_*) with a time cap; the example commands printed inline (`lua5.4 examples/...`, optional
-- [ARGS] left out) after `make`; and the commands the docs describe in words. What cannot run in
-- a spec is in SKIP below, each with its reason, and each must still be printed somewhere.
-- The copy takes the clone's files (git ls-files: tracked and new, not ignored) and its builds in
-- build/<lua>/ with their times, so that `make` only rebuilds what changed.
local helper = require "helper"

local quote = helper.quote

-- commands that are not run here, and why (the exact text as printed, comments dropped)
local SKIP = {
  ["make test"] = "it is the command that runs this spec",
  ["apt-get install luarocks make gcc liblua5.4-dev lua-dkjson"] =
    "installs system packages as root, from the network; tools/deps.sh installs what each make target needs",
  ["luarocks --lua-version 5.4 make"] =
    "installs into the system's rock tree; `make rock` (CI) runs it as printed into build/rocktree (--tree), "
    .. "offline, and checks that it leaves nothing in the source tree",
  ["love mygame"] =
    "opens a window (`make test-love` runs LÖVE under xvfb); instead the spec checks that "
    .. "mygame/ holds sinew/init.lua and sinew/core.so, what `require \"sinew\"` loads there",
  ["git clone https://github.com/guillaumeblanc/ozz-animation /tmp/ozz-animation"] =
    "needs the network: a clone of ozz-animation from GitHub",
  ["make bench-ozz OZZ_SRC=/tmp/ozz-animation"] = "a benchmark: minutes, and the ozz checkout above",
  ["make bench-ozz OZZ_SRC=/tmp/ozz-animation OZZ_CASES=masked"] = "a benchmark, and the ozz checkout above",
}

-- what a skipped command would have needed, checked in the copy after its block ran
local CHECK_INSTEAD = {
  ["love mygame"] = { "mygame/sinew/init.lua", "mygame/sinew/animator/init.lua", "mygame/sinew/core.so" },
}

-- commands the docs describe in words rather than print, run like the inline ones
local DESCRIBED = {
  -- examples/README.md: "`all DIR` writes one per 2-D mode" (DIR need not exist)
  { "lua5.4 examples/weightmap.lua all wm", files = { "wm/weightmap_freeform_cartesian.png" } },
}

local DOCS = { "README.md", "examples/README.md" }
for _, f in ipairs((function()
  local out, p = {}, assert(io.popen("ls manual/*.md"))
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end)()) do DOCS[#DOCS + 1] = f end

local SHELL = { sh = true, bash = true, shell = true, console = true }

-- the fenced blocks of `text`: { lang, first line number, { lines } }
local function blocks(text)
  local out, current, n = {}, nil, 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local fence, lang = line:match("^%s*(```+)%s*([%w_-]*)")
    if fence and not current then
      current = { lang = lang, line = n, lines = {} }
    elseif fence and current then
      out[#out + 1] = current
      current = nil
    elseif current then
      current.lines[#current.lines + 1] = line:gsub("^%s%s%s?%s?", "") -- a block inside a list item
    end
  end
  return out
end

-- the commands of a shell block: continuation lines joined, comments and blanks dropped
local function commands(lines)
  local out, pending = {}, ""
  for _, line in ipairs(lines) do
    line = pending .. line:gsub("^%$%s+", "")
    if line:match("\\$") then
      pending = line:sub(1, -2)
    else
      pending = ""
      line = line:gsub("%s+#%s.*$", ""):gsub("^#.*$", ""):gsub("%s+$", "")
      if line ~= "" then out[#out + 1] = line end
    end
  end
  return out
end

local function shell_blocks()
  local out = {}
  for _, doc in ipairs(DOCS) do
    for _, b in ipairs(blocks(helper.read_file(doc))) do
      if SHELL[b.lang] then out[#out + 1] = { where = ("%s:%d"):format(doc, b.line), commands = commands(b.lines) } end
    end
  end
  return out
end

-- inline example commands: `lua5.4 examples/x.lua args`, optional [ARGS] left out
local function inline_examples()
  local out, seen = {}, {}
  for _, doc in ipairs(DOCS) do
    for span in helper.read_file(doc):gmatch("`([^`\n]+)`") do
      if span:match("^lua5%.%d examples/%S+%.lua") or span:match("^luajit examples/%S+%.lua") then
        local cmd = span:gsub("%s*%[[^%]]*%]", "")
        if not seen[cmd] then
          seen[cmd] = true
          out[#out + 1] = { cmd, where = doc }
        end
      end
    end
  end
  return out
end

-- os.execute's success: true on 5.2+, 0 on 5.1 and LuaJIT without 5.2 compatibility
local function succeeded(...)
  local first = ...
  return first == true or first == 0
end

-- a fresh copy of the clone in a new temporary folder, with its builds; returns the folder
local function fresh_copy()
  local dir = os.tmpname()
  os.remove(dir)
  local builds = {}
  for _, lua in ipairs { "lua5.4", "lua5.3", "lua5.1", "luajit" } do
    local f = io.open("build/" .. lua .. "/sinew/core.so", "rb")
    if f then
      f:close()
      builds[#builds + 1] = "build/" .. lua
    end
  end
  local files = "git ls-files -z --cached --others --exclude-standard 2>/dev/null | tar --null -T - -cf -"
  if not succeeded(os.execute("git rev-parse --is-inside-work-tree >/dev/null 2>&1")) then
    files = "tar --exclude=./build --exclude=./doc -cf - ."
  end
  local cmd = ("mkdir -p %s && (%s) | (cd %s && tar -xf -)%s"):format(quote(dir), files, quote(dir),
    #builds > 0 and (" && tar -cf - %s | (cd %s && tar -xf -)"):format(table.concat(builds, " "), quote(dir)) or "")
  assert(succeeded(os.execute(cmd)), "cannot copy the clone into " .. dir)
  return dir
end

-- runs `script` with sh in `dir`, in a clean environment, at most `seconds` and 4 GB (helper.shell);
-- output and status
local function run_in(dir, script, seconds)
  return helper.shell(("cd %s && env -u LUA_PATH -u LUA_CPATH -u LUA_INIT -u LD_PRELOAD -u SINEW_CPATH -u SINEW_FFI "
    .. "-u SINEW_BUILD -u SINEW_SANITIZE -u SINEW_VALGRIND -u SINEW_VERBOSE sh -e -c %s"):format(quote(dir),
    quote(script)), seconds, 4000)
end

local exists = helper.exists

-- the Luas `commands` build for or run (make's LUA=, lua5.4 by default; an interpreter as the
-- command) that are not installed with their headers: the Makefile would install them with
-- apt-get, which a spec must not do (`make test-all` installs them all)
local function missing_luas(list)
  local want, out = {}, {}
  for _, c in ipairs(list) do
    local lua = c:match("^make%f[%s%z]") and (c:match("LUA=(%S+)") or "lua5.4") or c:match("^(luajit)%s")
      or c:match("^(lua5%.%d)%s") or c:match("%s(lua5%.%d)%s") or c:match("%s(luajit)%s")
    if lua then want[lua] = true end
  end
  for lua in pairs(want) do
    local headers = "/usr/include/" .. (lua == "luajit" and "luajit-2.1" or lua) .. "/lua.h"
    if not (succeeded(os.execute("command -v " .. lua .. " >/dev/null 2>&1")) and exists(headers)) then
      out[#out + 1] = lua
    end
  end
  table.sort(out)
  return out
end

-- The commands run in shells of their own, with their own builds and interpreters: one run of them
-- per suite is enough. They run in the plain Lua 5.4 step of `make test-all` (CI), which sets
-- SINEW_COMMANDS=1; `make test` stays quick (they build the demos, the rock and the docs again in a
-- copy, installing what those need); under another interpreter, a sanitizer or valgrind (whose
-- tracing would follow them into make and the examples) they are pending, with the reason.
local elsewhere = (os.getenv("SINEW_COMMANDS") ~= "1" and "in make test (make test-all runs them)")
  or (os.getenv("SINEW_VALGRIND") and "under valgrind")
  or (os.getenv("SINEW_SANITIZE") and "under the sanitizers")
  or (helper.interpreter ~= "lua5.4" and "under " .. helper.interpreter)
if elsewhere then
  describe("the commands the docs print", function()
    it("run in the plain Lua 5.4 step of make test-all, not " .. elsewhere, function()
      pending("they run in shells of their own: make test-all's Lua 5.4 step runs them once")
    end)
  end)
  return
end

describe("the commands the docs print", function()
  local all = shell_blocks()

  it("are found: the blocks of README.md's quick start and install, and manual/love.md's", function()
    local found = {}
    for _, b in ipairs(all) do
      for _, c in ipairs(b.commands) do found[c] = b.where end
    end
    for _, c in ipairs { "make demo", "make test", "make LUA=lua5.4", "mkdir -p mygame", "cp -r lua/sinew mygame/" } do
      assert.is_truthy(found[c], c)
    end
    assert.is_truthy(#inline_examples() >= 5)
  end)

  it("skip only what the docs still print, each for a reason", function()
    local printed = {}
    for _, b in ipairs(all) do
      for _, c in ipairs(b.commands) do printed[c] = true end
    end
    for c, why in pairs(SKIP) do
      assert.is_truthy(printed[c], "SKIP lists a command no doc prints: " .. c)
      assert.is_true(#why > 20, c)
    end
  end)

  it("are in blocks marked sh: no unmarked block holds a command", function()
    for _, doc in ipairs(DOCS) do
      for _, b in ipairs(blocks(helper.read_file(doc))) do
        if b.lang == "" then
          for _, line in ipairs(b.lines) do
            local word = line:match("^%$?%s*([%w_.-]+)")
            local command = word and (word == "make" or word == "git" or word == "cp" or word == "mkdir"
              or word == "luarocks" or word == "love" or word == "luajit" or word:match("^lua5%.%d$"))
            assert.is_falsy(command, ("%s:%d: a shell command in a block not marked sh: %s"):format(doc, b.line, line))
          end
        end
      end
    end
  end)

  for _, b in ipairs(all) do
    local run, skipped = {}, {}
    for _, c in ipairs(b.commands) do
      if SKIP[c] then skipped[#skipped + 1] = c else run[#run + 1] = c end
    end
    if #run > 0 then
      it(("run as printed: %s (%s)"):format(b.where, table.concat(run, "; ")), function()
        local absent = missing_luas(run)
        if #absent > 0 then
          return pending("not installed with its headers: " .. table.concat(absent, ", ") .. " (make test-all installs it)")
        end
        local dir = fresh_copy()
        local out, status = run_in(dir, table.concat(run, "\n"), 150)
        local missing = {}
        for _, c in ipairs(skipped) do
          for _, file in ipairs(CHECK_INSTEAD[c] or {}) do
            if not exists(dir .. "/" .. file) then missing[#missing + 1] = file end
          end
        end
        os.execute("rm -rf " .. quote(dir))
        assert.equal(0, status, out)
        assert.same({}, missing, "not made by " .. b.where .. ":\n" .. out)
      end)
    end
  end

  -- runs each of `list` ({ command, where =, files = }) in one fresh copy after `make`; what failed
  local function run_after_make(list)
    local dir = fresh_copy()
    local failed = {}
    local out, status = run_in(dir, "make -s LUA=lua5.4 >/dev/null", 150)
    assert.equal(0, status, out)
    for _, c in ipairs(list) do
      out, status = run_in(dir, c[1] .. " >/dev/null", 60)
      if status ~= 0 then failed[#failed + 1] = ("%s (%s): %s"):format(c[1], c.where or "described", out) end
      for _, file in ipairs(c.files or {}) do
        if not exists(dir .. "/" .. file) then failed[#failed + 1] = c[1] .. ": no " .. file end
      end
    end
    os.execute("rm -rf " .. quote(dir))
    return failed
  end

  it("run as printed: the inline example commands (`lua5.4 examples/...`), after make", function()
    if #missing_luas({ "make" }) > 0 then return pending("lua5.4 is not installed with its headers") end
    assert.same({}, run_after_make(inline_examples()))
  end)

  it("run as described: " .. DESCRIBED[1][1] .. " (its folder need not exist)", function()
    if #missing_luas({ "make" }) > 0 then return pending("lua5.4 is not installed with its headers") end
    assert.same({}, run_after_make(DESCRIBED))
  end)
end)
