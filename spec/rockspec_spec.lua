-- The rock (sinew-scm-1.rockspec) and what is left of it in a clone: the rockspec installs every
-- Lua module and builds sinew.core with the Makefile out of the source tree; a library built for
-- another Lua in the way (what `luarocks make` used to leave as ./sinew/core.so) is named, with
-- what to do about it.
local helper = require "helper"
local native = require "sinew.native"

local quote = helper.quote

local function list(cmd)
  local out, p = {}, assert(io.popen(cmd))
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  table.sort(out)
  return out
end

local function load_rockspec()
  local env = {}
  local chunk
  local text = helper.read_file("sinew-scm-1.rockspec")
  if setfenv then
    chunk = assert(loadstring(text))
    setfenv(chunk, env)
  else
    chunk = assert(load(text, "rockspec", "t", env))
  end
  chunk()
  return env
end

describe("sinew-scm-1.rockspec", function()
  local spec = load_rockspec()

  it("depends on Lua alone, so that `luarocks make` works offline", function()
    assert.same({ "lua >= 5.1, < 5.5" }, spec.dependencies)
  end)

  it("builds sinew.core with the Makefile's rock-core target into build/rock/, and installs it from there", function()
    assert.equal("make", spec.build.type)
    assert.equal("rock-core", spec.build.build_target)
    assert.is_false(spec.build.install_pass)
    assert.equal("build/rock/sinew/core.so", spec.build.install.lib["sinew.core"])
    local makefile = helper.read_file("Makefile")
    assert.is_truthy(makefile:find("\nrock-core:", 1, true))
    assert.is_truthy(makefile:find("\nROCK_BUILD := build/rock\n", 1, true))
    for name, value in pairs(spec.build.build_variables) do
      assert.equal("$(" .. name .. ")", value) -- LuaRocks' own values, passed through
    end
  end)

  it("installs every Lua module of lua/", function()
    local files = {}
    for name, file in pairs(spec.build.install.lua) do
      files[#files + 1] = file
      local want = "lua/" .. name:gsub("%.", "/") .. ".lua"
      if file:match("init%.lua$") then want = "lua/" .. name:gsub("%.", "/") .. "/init.lua" end
      assert.equal(want, file)
    end
    table.sort(files)
    assert.same(list("find lua -name '*.lua'"), files)
  end)
end)

describe("sinew.native.hint()", function()
  local name = helper.interpreter
  local lua_name = rawget(_G, "jit") and "LuaJIT" or _VERSION

  it("names a library in the way, why it does not load, and what to do", function()
    local hint = native.hint("error loading module 'sinew.core' from file './sinew/core.so':\n\t"
      .. "./sinew/core.so: undefined symbol: lua_absindex")
    assert.equal("./sinew/core.so is in the way: it was built for another Lua (" .. lua_name .. " has no "
      .. "lua_absindex).\n  Remove it (`luarocks make` of older sinew left one in the clone), or put a build for "
      .. "this Lua ahead of it:\n  `make LUA=" .. name .. "`, then LUA_CPATH=\"build/" .. name .. "/?.so;;\" "
      .. "(see README.md, Install)", hint)
    hint = native.hint("error loading module 'sinew.core' from file '/x/sinew/core.so':\n\t/x/sinew/core.so: "
      .. "file too short")
    assert.matches("^/x/sinew/core.so is in the way: it is there but does not load%.\n", hint)
  end)

  it("says how to build one when there is none", function()
    assert.equal("build it for this Lua: `make LUA=" .. name .. "`, then LUA_CPATH=\"build/" .. name .. "/?.so;;\" "
      .. "(see README.md, Install)", native.hint("module 'sinew.core' not found:\n\tno file './sinew/core.so'"))
  end)
end)

describe("require 'sinew' with a library built for another Lua in the way (child process)", function()
  -- a real build of another Lua when there is one (5.2+ and 5.1/LuaJIT differ in their C API),
  -- else a one-function library that calls what only the other family exports
  local function wrong_library(dir)
    local others = rawget(_G, "jit") and { "lua5.4", "lua5.3" }
      or _VERSION == "Lua 5.1" and { "lua5.4", "lua5.3" } or { "lua5.1", "luajit" }
    for _, other in ipairs(others) do
      local f = io.open("build/" .. other .. "/sinew/core.so", "rb")
      if f then
        f:close()
        assert(os.execute(("cp build/%s/sinew/core.so %s/sinew/core.so"):format(other, quote(dir))))
        return other
      end
    end
    local missing = (rawget(_G, "jit") or _VERSION == "Lua 5.1") and "lua_absindex" or "lua_pcall"
    local c = dir .. "/stub.c"
    local f = assert(io.open(c, "w"))
    f:write(("extern int %s(void *L);\nint luaopen_sinew_core(void *L) { return %s(L); }\n"):format(missing,
      missing))
    f:close()
    local cc = os.getenv("CC") or "cc"
    -- without the sanitizers' LD_PRELOAD of `make sanitize`: the compiler is not under test
    local status = os.execute(("env -u LD_PRELOAD %s -shared -fPIC -o %s/sinew/core.so %s 2>&1"):format(cc,
      quote(dir), quote(c)))
    assert(status == true or status == 0, "cannot compile the stub library with " .. cc)
    return "a stub referring to " .. missing
  end

  it("names it, says it was built for another Lua, and what to do", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. quote(dir .. "/sinew")))
    local what = wrong_library(dir)
    local here = assert(os.getenv("PWD"))
    local out = helper.shell(("cd %s && LUA_CPATH='./?.so' LUA_PATH=%s %s -e 'require \"sinew\"'"):format(quote(dir),
      quote(here .. "/lua/?.lua;" .. here .. "/lua/?/init.lua;;"), helper.interpreter), 20)
    os.execute("rm -rf " .. quote(dir))
    assert.matches("exit status 1%s*$", out)
    local lua_name = (rawget(_G, "jit") and "LuaJIT" or _VERSION):gsub("%p", "%%%0")
    assert.matches("from file '%./sinew/core%.so'", out, nil, false, what .. ":\n" .. out)
    assert.matches("\n  %./sinew/core%.so is in the way: it was built for another Lua %(" .. lua_name
      .. " has no luaL?_[%w_]+%)%.\n  Remove it", out)
    assert.is_truthy(out:find("`make LUA=" .. helper.interpreter .. "`, then LUA_CPATH=\"build/"
      .. helper.interpreter .. "/?.so;;\"", 1, true), out)
  end)
end)
