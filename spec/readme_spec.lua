-- The Lua code of the README runs as printed: the short example and the API tour.
local helper = require "helper"
local read = helper.read_file

local readme = read("README.md")

local function block_after(heading)
  local at = assert(readme:find("\n## " .. heading .. "\n", 1, true), "no section " .. heading)
  return assert(readme:match("```lua\n(.-)\n```", at), "no Lua block under " .. heading)
end

describe("README.md", function()
  local function run(heading)
    local printed = {}
    local env = setmetatable({ print = function(...) printed[#printed + 1] = { ... } end }, { __index = _G })
    local code = block_after(heading)
    assert.has_no.errors(helper.load_in(code, "README " .. heading, env))
    return printed
  end

  it("runs the short example: the Fox walks, runs and stops in idle", function()
    local printed = run("A short example")
    assert.equal(1, #printed)
    assert.equal("idle", printed[1][1])
  end)

  it("runs the 2-D example: a DragonBones rig through an animator, then as the file plays it", function()
    local printed = run("2-D: DragonBones rigs")
    assert.equal(1, #printed)
    assert.equal(6, #printed[1])
    for k = 1, 6 do assert.equal("number", type(printed[1][k])) end
  end)

  it("runs the API tour", function()
    local printed = run("API tour")
    for _, line in ipairs(printed) do assert.equal("step", line[1]) end -- only the Fox's step events
  end)
end)
