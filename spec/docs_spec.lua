-- The reference documents every public function (what `make docs` renders with LDoc): each
-- function registered in a binding file has a doc comment (`/***` ... `@function`; for the
-- internal `sinew.core._gltf`, a plain `/*` comment that LDoc leaves out), lists its parameters one
-- by one (LDoc shows only the first name of "x,y,z") and at least as many as its body reads,
-- says what it returns when it returns something, and says in one `@raise` which errors it raises
-- and when. Every public function of the Lua modules has a `---` comment, and those of the public
-- API (sinew, sinew.native, sinew.gltf, sinew.animator and its Animator methods, sinew.animator.dot,
-- sinew.dragonbones with its Rig and Chain methods, sinew.love2d) name each parameter of their
-- signature and have a `@raise` too.

local read = require("helper").read_file

local bindings = { "quat", "blendspace", "skeleton", "pose", "clip", "chain", "group", "gltf", "ik", "ik_chain",
  "ik_feet", "ik2d", "ik2d_solve", "morph",
  "module" }
-- files whose functions are not for users (all or some): plain `/*` comments, so that LDoc leaves them out
local internal = { gltf = true, morph = true } -- (morph.c: its _morph and _vertex)

-- the public API: every function with a `---` comment here documents each parameter and @raise
-- (every Lua file of config.ld's reference must be here: a case below checks it)
local public_lua = { "lua/sinew/init.lua", "lua/sinew/native.lua", "lua/sinew/gltf/init.lua",
  "lua/sinew/animator/init.lua", "lua/sinew/animator/dot.lua", "lua/sinew/dragonbones/init.lua",
  "lua/sinew/dragonbones/rig.lua", "lua/sinew/dragonbones/chain.lua", "lua/sinew/love2d.lua",
  "lua/sinew/ik/init.lua", "lua/sinew/ik/spread.lua", "lua/sinew/bvh/init.lua" }

-- The doc blocks of a binding file, each with the C function that follows it: name (from
-- @function), fn (the C name), block (the comment's text) and body (the function's text).
local function blocks(source, plain)
  local out = {}
  for text, after in source:gmatch("/%*(.-)%*/()") do
    local body, fn = source:match("^%s*(static int (l_[%w_]+)%b()%s*%b{})", after)
    local doc = text:sub(1, 2) == "**" or (plain and text:find("@function", 1, true))
    if body and doc then
      out[#out + 1] = { block = text, body = body, fn = fn, name = text:match("@function%s+([%w_.:]+)") }
    end
  end
  return out
end

-- the functions a binding file registers, as {name, C function} pairs: from luaL_Reg tables (any
-- spacing) and from `lua_pushcfunction` / `lua_pushcclosure` followed by `lua_setfield`
local function registered(source)
  local out = {}
  local function add(name, fn)
    if not name:match("^__") then out[#out + 1] = { name = name, fn = fn } end -- metamethods: with their type
  end
  for name, fn in source:gmatch('{%s*"([%w_]+)"%s*,%s*(l_[%w_]+)%s*}') do add(name, fn) end
  for fn, name in source:gmatch('lua_pushc%a+%(L,%s*(l_[%w_]+)[^;]*;%s*lua_setfield%(L,%s*[^,]+,%s*"([%w_]+)"%)') do
    add(name, fn)
  end
  return out
end

-- the C function registered as `name` in a binding file
local function registered_as(file, name)
  for _, r in ipairs(registered(read("src/binding/" .. file .. ".c"))) do
    if r.name == name then return r.fn end
  end
end

-- The parameters of a doc block, in order: {name = ..., line = ...} for each @param / @tparam
-- line, modifiers such as [opt] or [opt=0.1] skipped.
local function params_of(block)
  local out = {}
  for line in block:gmatch("[^\n]+") do
    local tag, rest = line:match("@(t?param)(.*)")
    if tag then
      rest = rest:gsub("^%b[]", "")
      local name
      if tag == "tparam" then name = rest:match("^%s+%S+%s+(%S+)") else name = rest:match("^%s+(%S+)") end
      out[#out + 1] = { name = name or "", line = line }
    end
  end
  return out
end

-- the text of the @raise tags of a block, one entry per tag
local function raises_of(block)
  local out = {}
  for text in block:gmatch("@raise([^\n]*)") do out[#out + 1] = text:match("^%s*(.-)%s*$") end
  return out
end

-- Calls that take a stack index but not a Lua argument of the function, or no index at all.
local not_an_argument = { lua_createtable = true, lua_checkstack = true, luaL_checkstack = true, lua_pop = true,
  sn_lua_scratch = true, lua_settop = true }
-- helpers that read several arguments from the one they are given
local width = { check_quat = 4, check_vec3 = 3, check_rotation = 4 }

-- The highest Lua argument a C function's body reads, as far as can be seen: the largest N of
-- calls `f(L, N, ...)` (luaL_checknumber(L, 3), sn_lua_checkpose(L, 2), lua_type(L, 4), ...),
-- widened for the helpers above and for check_floats(L, N, v, count). After `lua_settop(L, K)`
-- an index above K is a slot of the function's own, not an argument.
local function highest_argument(body)
  local top, cap = 0, math.huge
  for f, n, rest in body:gmatch("([%w_]+)%(L,%s*(%d+)([^;]*)") do
    n = tonumber(n)
    if f == "lua_settop" then
      cap = math.min(cap, n)
    elseif not not_an_argument[f] and not (f:match("^lua_push") and f ~= "lua_pushvalue") and n <= cap then
      local last = n + (width[f] or 1) - 1
      if f == "check_floats" then last = n + (tonumber(rest:match("^,[^,]+,%s*(%d+)%)")) or 1) - 1 end
      top = math.max(top, last)
    end
  end
  return top
end

-- The public functions of a Lua file with a `---` comment: name, the parameters of the
-- signature, and the comment's text.
local function lua_functions(source)
  local out, comment, in_doc = {}, {}, false
  for line in (source .. "\n"):gmatch("([^\n]*)\n") do
    local name, args = line:match("^function ([%w_.:]+)%(([^)]*)%)")
    if not name then name, args = line:match("^local function ([%w_]+)%(([^)]*)%)") end
    if name and in_doc then
      local params = {}
      for p in args:gmatch("[^,%s]+") do params[#params + 1] = p end
      out[#out + 1] = { name = name, params = params, block = table.concat(comment, "\n") }
    end
    if line:match("^%-%-%-") then
      comment, in_doc = { line }, true
    elseif line:match("^%-%-") and in_doc then
      comment[#comment + 1] = line
    else
      comment, in_doc = {}, false
    end
  end
  return out
end

-- every documented binding function: f(file, block) for each, the faults it returns gathered
local function documented_faults(check)
  local faults = {}
  for _, file in ipairs(bindings) do
    for _, b in ipairs(blocks(read("src/binding/" .. file .. ".c"), internal[file])) do
      if b.name then
        for _, fault in ipairs(check(file, b)) do faults[#faults + 1] = fault end
      end
    end
  end
  return faults
end

describe("the reference", function()
  it("documents every function the binding registers", function()
    local missing = {}
    for _, file in ipairs(bindings) do
      local source = read("src/binding/" .. file .. ".c")
      local documented = {}
      for _, b in ipairs(blocks(source, internal[file])) do
        if b.name then documented[b.fn] = true end
      end
      for _, r in ipairs(registered(source)) do
        if not documented[r.fn] then missing[#missing + 1] = file .. ": " .. r.name end
      end
    end
    table.sort(missing)
    assert.same({}, missing)
  end)

  it("finds the registrations of every binding file", function()
    -- the patterns above must keep up with the way the files register their functions
    local count = 0
    for _, file in ipairs(bindings) do count = count + #registered(read("src/binding/" .. file .. ".c")) end
    assert.is_true(count >= 90, ("only %d registered functions found"):format(count))
    assert.equal("l_blend", registered_as("group", "blend"))
    assert.equal("l_group", registered_as("group", "group"))
    assert.equal("l_set_param", registered_as("chain", "set_param"))
    assert.equal("l_blend", registered_as("quat", "blend"))
    assert.equal("l_vertices", registered_as("gltf", "vertices"))
  end)

  it("lists parameters one by one and says what functions return", function()
    assert.same({}, documented_faults(function(file, b)
      local faults = {}
      for _, p in ipairs(params_of(b.block)) do
        if p.name == "" then
          faults[#faults + 1] = ("%s: %s has a parameter without a name (%s)"):format(file, b.name, p.line)
        elseif p.name:find(",", 1, true) then
          faults[#faults + 1] = ("%s: %s lists several parameters on one line (%s)"):format(file, b.name, p.name)
        end
      end
      -- a C function that returns values to Lua: "return <n>" with n > 0, or a helper's count
      local returns = b.body:match("return [1-9]") or b.body:match("return push_") or b.body:match("return get_")
        or b.body:match("return sn_lua_push") or b.body:match("return sn_chain_param_arity")
      if returns and not b.block:match("@t?return") then
        faults[#faults + 1] = ("%s: %s returns values but says none"):format(file, b.name)
      end
      return faults
    end))
  end)

  it("documents as many parameters as each binding function reads", function()
    assert.same({}, documented_faults(function(file, b)
      local params, vararg = params_of(b.block), false
      for _, p in ipairs(params) do vararg = vararg or p.name == "..." end
      local self = b.name:find(":", 1, true) and 1 or 0 -- a method's argument 1 is self, not listed
      local reads = highest_argument(b.body) - self
      if not vararg and #params < reads then
        return { ("%s: %s documents %d parameters, its body reads %d"):format(file, b.name, #params, reads) }
      end
      return {}
    end))
  end)

  it("says which errors every binding function raises", function()
    assert.same({}, documented_faults(function(file, b)
      local raises = raises_of(b.block)
      if #raises ~= 1 or raises[1] == "" then
        return { ("%s: %s has %d @raise tags (one with text is needed)"):format(file, b.name, #raises) }
      end
      return {}
    end))
  end)

  it("comments every public function of the Lua modules", function()
    local faults = {}
    local modules, listed = { "lua/sinew/json.lua" }, { ["lua/sinew/json.lua"] = true }
    for _, path in ipairs(public_lua) do
      modules[#modules + 1], listed[path] = path, true
    end
    for _, dir in ipairs { "gltf", "animator", "dragonbones" } do
      for _, name in ipairs { "init", "document", "skeleton", "clips", "meshes", "definition", "motion", "layer",
        "root_motion", "snapshot", "dot", "values", "armature", "animation" } do
        local path = ("lua/sinew/%s/%s.lua"):format(dir, name)
        local f = io.open(path, "rb")
        if f then
          f:close()
          if not listed[path] then modules[#modules + 1], listed[path] = path, true end
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

  it("documents each parameter and the errors of the public Lua functions", function()
    local faults, count = {}, 0
    for _, path in ipairs(public_lua) do
      for _, f in ipairs(lua_functions(read(path))) do
        count = count + 1
        local documented = {}
        for _, p in ipairs(params_of(f.block)) do documented[p.name] = true end
        for _, p in ipairs(f.params) do
          if not documented[p] then faults[#faults + 1] = ("%s: %s does not document '%s'"):format(path, f.name, p) end
        end
        local raises = raises_of(f.block)
        if #raises ~= 1 or raises[1] == "" then
          faults[#faults + 1] = ("%s: %s has %d @raise tags (one with text is needed)"):format(path, f.name, #raises)
        end
      end
    end
    assert.is_true(count >= 60, ("only %d documented public Lua functions found"):format(count))
    assert.same({}, faults)
  end)

  it("holds every Lua file of the reference to the public API's rules", function()
    -- config.ld's `file` list is what the reference shows; a public module added there (as the
    -- 2-D modules were) without being added to public_lua would escape the case above
    local listed, missing = {}, {}
    for _, path in ipairs(public_lua) do listed[path] = true end
    local files = read("config.ld"):match("\nfile%s*=%s*(%b{})")
    assert.truthy(files, "config.ld has no file list")
    local count = 0
    for path in files:gmatch('"(lua/[^"]+%.lua)"') do
      count = count + 1
      if not listed[path] then missing[#missing + 1] = path end
    end
    assert.is_true(count >= 8, ("only %d Lua files found in config.ld"):format(count))
    assert.same({}, missing)
  end)
end)
