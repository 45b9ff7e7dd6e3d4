-- Threads (manual/safety.md): sinew keeps no mutable state outside its objects, so Lua states in
-- several threads may use it at once. Checked twice: the object files hold nothing in a writable
-- data section, and four states running the same workload in four threads (spec/threads/threads.c,
-- built here against this interpreter's Lua library) agree with one state alone.
local helper = require "helper"

-- the build folder of the sinew.core in use: build/<interpreter>, or $SINEW_BUILD
local build = (os.getenv("SINEW_CPATH") or ("build/" .. helper.interpreter .. "/?.so")):gsub("/%?%.so$", "")

-- runs `cmd` (at most 300 s: a compiler, objdump, four threads): its output and exit status
local function run(cmd) return helper.shell(cmd, 300) end

describe("threads", function()
  it("sinew.core has no mutable static data", function()
    local out, status = run("objdump -t " .. build .. "/obj/core/*.o " .. build .. "/obj/binding/*.o")
    assert.are.equal(0, status, out)
    local writable = {}
    for line in out:gmatch("[^\n]+") do
      local section, name = line:match("%s(%.[%w.]+)%s+%x+%s+(%S+)$")
      if section and (section == ".data" or section == ".bss" or section:match("^%.data%.") and
        not section:match("^%.data%.rel%.ro")) and not name:match("^%.") and not name:match("__asan")
        and not name:match("__ubsan") and not name:match("^%.?L") then
        writable[#writable + 1] = section .. " " .. name
      end
    end
    assert.are.same({}, writable)
  end)

  it("four Lua states in four threads agree with one", function()
    local pc = helper.interpreter == "luajit" and "luajit" or helper.interpreter
    local exe = build .. "/threads"
    local out, status = run(("cc -std=c99 -O1 -o %s spec/threads/threads.c $(pkg-config --cflags --libs %s) -lpthread")
      :format(exe, pc))
    assert.are.equal(0, status, out)
    out, status = run(("%s '%s' '%s'"):format(exe, package.cpath, "lua/?.lua;lua/?/init.lua;" .. package.path))
    assert.are.equal(0, status, out)
    assert.matches("threads: 4 states agree", out)
  end)
end)
