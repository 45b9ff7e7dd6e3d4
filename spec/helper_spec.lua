-- The shared comparisons and generators of spec/helper.lua, which every spec's tolerances rest on.
local helper = require "helper"

describe("spec/helper.lua", function()
  describe("near_abs()", function()
    it("compares with an absolute tolerance, whatever the size of the numbers", function()
      assert.is_true(helper.near_abs(1e6 + 0.5, 1e6, 0.5))
      assert.is_false(helper.near_abs(1e6 + 0.75, 1e6, 0.5))
      assert.is_false(helper.near_abs(0 / 0, 0, 1))
    end)

    it("refuses a missing tolerance rather than comparing loosely", function()
      assert.matches("helper.near_abs: no tolerance given", helper.error_of(helper.near_abs, 1, 1), 1, true)
    end)
  end)

  describe("near_rel()", function()
    it("is absolute while the expected value is within 1, relative to it beyond", function()
      assert.is_true(helper.near_rel(0.75, 0.5, 0.25))
      assert.is_false(helper.near_rel(0.875, 0.5, 0.25))
      assert.is_true(helper.near_rel(1250, 1000, 0.25))
      assert.is_false(helper.near_rel(1251, 1000, 0.25))
      assert.is_false(helper.near_abs(1250, 1000, 0.25))
    end)

    it("refuses a missing tolerance rather than comparing loosely", function()
      assert.matches("helper.near_rel: no tolerance given", helper.error_of(helper.near_rel, 1, 1), 1, true)
    end)
  end)

  describe("random generators", function()
    it("give the same skeletons and clips for the same seed", function()
      local function make(seed)
        local rng = helper.rng(seed)
        local skel = helper.random_skeleton(rng, 6, 0.5, 2)
        return skel, helper.random_clip_def(rng, skel, false), helper.random_skeleton_def(rng, 40)
      end
      local s1, c1, d1 = make(5)
      local s2, c2, d2 = make(5)
      assert.equal(6, #s1)
      assert.same({ s1:rest(6) }, { s2:rest(6) })
      c1.skeleton, c2.skeleton = nil, nil
      assert.same(c1, c2)
      assert.same(d1, d2)
      for j = 1, 40 do assert.is_true(d1.parents[j] < j) end
    end)
  end)
end)
