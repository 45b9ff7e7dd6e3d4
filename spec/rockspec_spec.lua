-- The rockspec lists its sources by hand (builtin build type): keep it in step with the tree.
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
  local f = assert(io.open("sinew-scm-1.rockspec"))
  local text = f:read("*a")
  f:close()
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

  it("builds every C source of src/core and src/binding into sinew.core", function()
    local sources = {}
    for _, s in ipairs(spec.build.modules["sinew.core"].sources) do sources[#sources + 1] = s end
    table.sort(sources)
    assert.same(list("find src/core src/binding -name '*.c'"), sources)
  end)

  it("installs every Lua module of lua/", function()
    local files = {}
    for name, file in pairs(spec.build.modules) do
      if name ~= "sinew.core" then
        files[#files + 1] = file
        local want = "lua/" .. name:gsub("%.", "/") .. ".lua"
        if file:match("init%.lua$") then want = "lua/" .. name:gsub("%.", "/") .. "/init.lua" end
        assert.equal(want, file)
      end
    end
    table.sort(files)
    assert.same(list("find lua -name '*.lua'"), files)
  end)
end)
