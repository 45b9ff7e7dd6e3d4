local helper = require "helper"
local sinew = require "sinew"

local near_abs = helper.near_abs

describe("sinew.skeleton", function()
  local err = helper.error_of

  describe("construction", function()
    it("builds the skeleton of the issue and answers find, #, parent and name", function()
      local skel = sinew.skeleton { names = { "hips", "spine", "head" }, parents = { 0, 1, 2 } }
      assert.equal(2, skel:find("spine"))
      assert.equal(3, #skel)
      assert.equal(2, skel:parent(3))
      assert.equal(0, skel:parent(1))
      assert.equal(1, skel:parent("spine"))
      assert.equal("head", skel:name(3))
      assert.is_nil(skel:find("tail"))
      assert.matches("^sinew.Skeleton %(3 joints%)", tostring(skel))
    end)

    it("finds every joint of large random hierarchies by name", function()
      local rng = helper.rng(11)
      for _, n in ipairs { 1, 2, 7, 8, 9, 64, 300 } do
        local def = helper.random_skeleton_def(rng, n)
        local skel = sinew.skeleton(def)
        assert.equal(n, #skel)
        for j = 1, n do
          assert.equal(j, skel:find(def.names[j]))
          assert.equal(def.parents[j], skel:parent(j))
          assert.equal(def.names[j], skel:name(j))
        end
      end
    end)

    it("has identity rest transforms by default and normalises given rest rotations", function()
      local skel = sinew.skeleton { names = { "a" }, parents = { 0 } }
      assert.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { skel:rest(1) })
      skel = sinew.skeleton { names = { "a", "b" }, parents = { 0, 1 },
        rest = { { 1, 2, 3, 0, 0, 0, 2, 1, 1, 1 }, { 0, 0.5, 0, 0, 3, 0, 4, 2, 2, 2 } } }
      local v = { skel:rest(2) }
      local want = { 0, 0.5, 0, 0, 0.6, 0, 0.8, 2, 2, 2 }
      for c = 1, 10 do assert.is_true(near_abs(v[c], want[c], 1e-7), c) end
      assert.same({ 1, 2, 3, 0, 0, 0, 1, 1, 1, 1 }, { skel:rest("a") })
    end)

    it("accepts several roots", function()
      local skel = sinew.skeleton { names = { "a", "b", "c" }, parents = { 0, 0, 2 } }
      assert.same({ 0, 0, 2 }, { skel:parent(1), skel:parent(2), skel:parent(3) })
    end)
  end)

  describe("bad input", function()
    local function build(names, parents, rest)
      return sinew.skeleton { names = names, parents = parents, rest = rest }
    end

    it("refuses parents out of range, not integers or after their child", function()
      assert.matches("parent 3 of joint 'b' is out of range %(0 .. 2%)", err(build, { "a", "b" }, { 0, 3 }))
      assert.matches("parent %-1 of joint 'a' is out of range %(0 .. 2%)", err(build, { "a", "b" }, { -1, 1 }))
      assert.matches("parent 0.5 of joint 2 is not an integer", err(build, { "a", "b" }, { 0, 0.5 }))
      assert.matches("parent of joint 2 is not a number", err(build, { "a", "b" }, { 0, "a" }))
      assert.matches("parent 'c' comes after its child 'b'", err(build, { "a", "b", "c" }, { 0, 3, 1 }))
    end)

    it("refuses cycles", function()
      assert.matches("joint 'a' is its own parent", err(build, { "a" }, { 1 }))
      assert.matches("cycle through joint 'a'", err(build, { "a", "b" }, { 2, 1 }))
      assert.matches("cycle through joint 'b'", err(build, { "a", "b", "c" }, { 0, 3, 2 }))
    end)

    it("refuses names duplicated, missing, empty, too long or not strings", function()
      assert.matches("joints 1 and 3 are both named 'a'", err(build, { "a", "b", "a" }, { 0, 1, 1 }))
      assert.matches("joint 3 has no name", err(build, { "a", "b" }, { 0, 1, 1 }))
      assert.matches("joint 2 has no name", err(build, { "a", "" }, { 0, 1 }))
      assert.matches("name of joint 1 is longer than 255 bytes", err(build, { ("x"):rep(256) }, { 0 }))
      assert.matches("name of joint 2 is not a string", err(build, { "a", 7 }, { 0, 1 }))
      assert.matches("'names' has 3 entries, 'parents' 2", err(build, { "a", "b", "c" }, { 0, 1 }))
    end)

    it("refuses bad rest transforms", function()
      local id = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }
      assert.matches("'rest' has 1 entries, 'parents' 2", err(build, { "a", "b" }, { 0, 1 }, { id }))
      assert.matches("rest of joint 1 must be a table of 10 numbers", err(build, { "a" }, { 0 }, { { 0, 0, 0 } }))
      assert.matches("rest value 3 of joint 1 is not finite",
        err(build, { "a" }, { 0 }, { { 0, 0, 0 / 0, 0, 0, 0, 1, 1, 1, 1 } }))
      assert.matches("rest value 2 of joint 1 is not a number",
        err(build, { "a" }, { 0 }, { { 0, "y", 0, 0, 0, 0, 1, 1, 1, 1 } }))
      assert.matches("rest rotation of joint 'a' is zero", err(build, { "a" }, { 0 }, { { 0, 0, 0, 0, 0, 0, 0, 1, 1, 1 } }))
    end)

    it("refuses a missing or empty definition", function()
      assert.matches("bad argument #1 .*table expected", err(sinew.skeleton, nil))
      assert.matches("'parents' must be a table", err(sinew.skeleton, { names = { "a" } }))
      assert.matches("'names' must be a table", err(sinew.skeleton, { parents = { 0 } }))
      assert.matches("at least one joint", err(build, {}, {}))
      assert.matches("'rest' must be a table", err(build, { "a" }, { 0 }, 5))
    end)

    it("refuses joint arguments out of range, not integers or unknown", function()
      local skel = build({ "a", "b" }, { 0, 1 })
      assert.matches("bad argument #2 .*joint 3 is out of range %(1 .. 2%)", err(skel.parent, skel, 3))
      assert.matches("joint 0 is out of range", err(skel.name, skel, 0))
      assert.matches("joint 1.5 is not an integer", err(skel.rest, skel, 1.5))
      assert.matches("unknown joint 'c'", err(skel.parent, skel, "c"))
      assert.matches("joint index or name expected, got no value", err(skel.parent, skel))
      assert.matches("sinew.Skeleton expected, got number", err(skel.parent, 5, 1))
    end)
  end)

  describe("definition tables with metatables (see manual/safety.md)", function()
    it("reads each field once, through __index, and keeps what it read", function()
      local reads = {}
      local def = setmetatable({}, { __index = function(_, k)
        reads[k] = (reads[k] or 0) + 1
        if k == "names" then return { "a", "b" } end
        if k == "parents" then return reads[k] == 1 and { 0, 1 } or { 0, 1, 2, 3 } end
      end })
      local skel = sinew.skeleton(def)
      assert.equal(2, #skel)
      assert.same({ names = 1, parents = 1, rest = 1, morphs = 1, morph_defaults = 1 }, reads)
    end)

    it("reads arrays raw, ignoring their metatables", function()
      local names = setmetatable({ "a" }, { __index = function(_, i) return "n" .. i end, __len = function() return 9 end })
      assert.equal(1, #sinew.skeleton { names = names, parents = { 0 } })
    end)

    it("refuses unknown fields and names with a zero byte", function()
      assert.matches("unknown field 'parent' in the skeleton definition",
        err(sinew.skeleton, { names = { "a" }, parents = { 0 }, parent = { 0 } }))
      assert.matches("name of joint 1 has a zero byte", err(sinew.skeleton, { names = { "a\0b" }, parents = { 0 } }))
    end)

    it("passes on an error raised by __index", function()
      assert.matches("boom", err(sinew.skeleton, setmetatable({}, { __index = function() error("boom") end })))
    end)
  end)
end)
