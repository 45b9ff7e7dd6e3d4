-- The reference documents every public function of the binding (what `make docs` renders with
-- LDoc): each function registered in a binding file has a doc comment (`/***` ... `@function`),
-- lists its parameters one by one (LDoc shows only the first name of "x,y,z"), and says what it
-- returns when it returns something. Every public function of the Lua modules has a `---`
-- comment.

local read = require("helper").read_file

local bindings = { "quat", "blendspace", "skeleton", "pose", "clip", "chain", "module" }

-- the doc blocks of a binding file with the body of the C function after each
local function blocks(source)
  local out = {}
  for block, body in source:gmatch("/%*%*%*(.-)%*/%s*(static int l_[%w_]+%b()%s*%b{})") do
    out[#out + 1] = { block = block, body = body, name = block:match("@function ([%w_.:]+)") }
  end
  return out
end

describe("the reference", function()
  it("documents every function the binding registers", function()
    local missing = {}
    for _, file in ipairs(bindings) do
      local source = read("src/binding/" .. file .. ".c")
      local documented = {}
      for _, b in ipairs(blocks(source)) do
        if b.name then documented[b.body:match("^static int (l_[%w_]+)")] = true end
      end
      for name, fn in source:gmatch('{"([%w_]+)",%s*(l_[%w_]+)}') do
        if not documented[fn] and not name:match("^__") then missing[#missing + 1] = file .. ": " .. name end
      end
    end
    assert.same({}, missing)
  end)

  it("lists parameters one by one and says what functions return", function()
    local faults = {}
    for _, file in ipairs(bindings) do
      for _, b in ipairs(blocks(read("src/binding/" .. file .. ".c"))) do
        if b.name then
          for line in b.block:gmatch("@t?param [^\n]*") do
            local names = line:match("@tparam%s+%S+%s+(%S+)") or line:match("@param%s+(%S+)")
            if names and names:find(",", 1, true) then
              faults[#faults + 1] = ("%s: %s lists several parameters on one line (%s)"):format(file, b.name, names)
            end
          end
          -- a C function that returns values to Lua: "return <n>" with n > 0, or a helper's count
          local returns = b.body:match("return [1-9]") or b.body:match("return push_") or b.body:match("return get_")
            or b.body:match("return sn_lua_push")
          if returns and not (b.block:match("@t?return") or b.block:match("@treturn")) then
            faults[#faults + 1] = ("%s: %s returns values but says none"):format(file, b.name)
          end
        end
      end
    end
    assert.same({}, faults)
  end)

  it("comments every public function of the Lua modules", function()
    local faults = {}
    local modules = { "lua/sinew/init.lua", "lua/sinew/native.lua" }
    for _, dir in ipairs { "gltf", "animator" } do
      for _, name in ipairs { "init", "document", "skeleton", "clips", "meshes", "definition", "motion", "layer",
        "root_motion", "snapshot", "dot" } do
        local path = ("lua/sinew/%s/%s.lua"):format(dir, name)
        local f = io.open(path, "rb")
        if f then
          f:close()
          modules[#modules + 1] = path
        end
      end
    end
    for _, path in ipairs(modules) do
      local previous = ""
      for line in read(path):gmatch("[^\n]*") do
        local name = line:match("^function ([%w_]+[.:][%w_]+)%(")
        if name and not previous:match("^%-%-") then faults[#faults + 1] = path .. ": " .. name end
        if line ~= "" then previous = line end
      end
    end
    assert.same({}, faults)
  end)
end)
