-- The guides' complete examples run as printed: each Lua block of a guide that begins with
-- `local sinew = require "sinew"`, in a fresh environment, and what it prints is what its
-- `--> ...` comments say (the text before two spaces, for the first value printed).
local helper = require "helper"
local read = helper.read_file

-- the complete examples of guide `path`: {code = ..., line = ...}
local function examples(path)
  local text, out = read(path), {}
  for at, code in text:gmatch("()```lua\n(.-)\n```") do
    if code:match('^local sinew = require "sinew"\n') then
      local _, lines = text:sub(1, at):gsub("\n", "")
      out[#out + 1] = { code = code, line = lines + 2 }
    end
  end
  return out
end

-- runs `code` (named `name`); returns the lines it printed (the first value of each, as text) and
-- the `-->` comments of its print calls, in order
local function run(code, name)
  local printed = {}
  local env = setmetatable({ print = function(v) printed[#printed + 1] = tostring(v) end }, { __index = _G })
  helper.load_in(code, name, env)()
  local expected = {}
  for line in code:gmatch("[^\n]+") do
    local comment = line:match("^%s*print%(.-%-%->%s*(.-)%s*$")
    if comment then expected[#expected + 1] = comment:match("^(.-)  ") or comment end
  end
  return printed, expected
end

-- the complete example under `heading` of guide `path` (the `nth`, default the first), run: what
-- it printed and what its comments say
local function run_section(path, heading, nth)
  local text = read(path)
  local section = assert(text:find("\n" .. heading .. "\n", 1, true), "no section " .. heading)
  local found, seen = nil, 0
  for _, ex in ipairs(examples(path)) do
    if text:find(ex.code, section, true) and not found then
      seen = seen + 1
      if seen == (nth or 1) then found = ex end
    end
  end
  assert.is_truthy(found, "no complete example under " .. heading)
  local printed, expected = run(found.code, path .. ":" .. found.line)
  assert.is_true(#expected >= 2, "the example's print calls say what they print")
  return printed, expected
end

describe("manual/animator.md", function()
  it("runs the crowd example of Plans and crowds as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/animator.md", "## Plans and crowds")
    assert.same(expected, printed)
  end)

  it("runs the example of Inverse kinematics as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/animator.md", "### Inverse kinematics")
    assert.same(expected, printed)
  end)

  it("runs the 2-D example of Inverse kinematics as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/animator.md", "### Inverse kinematics", 2)
    assert.same(expected, printed)
  end)

  it("runs the example of Morph targets as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/animator.md", "### Morph targets")
    assert.same(expected, printed)
  end)
end)

describe("manual/bvh.md", function()
  it("runs its example as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/bvh.md", "## Loading")
    assert.same(expected, printed)
  end)
end)

describe("manual/gltf.md", function()
  it("runs the example of Morph targets as printed, printing what its comments say", function()
    local printed, expected = run_section("manual/gltf.md", "## Morph targets")
    assert.same(expected, printed)
  end)
end)
