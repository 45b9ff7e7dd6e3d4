-- bench/ik.lua (and bench/ik_feet.lua, below) times sinew's IK solvers against the same work written in plain Lua; the
-- comparison holds only while the plain versions do sinew's work. `bench/ik.lua check n` runs
-- each solver (two-bone, aim, FABRIK chain) beside its plain version on the bench's targets and
-- on n random ones each, on bench_ik.c's skeleton and on the Fox, and stops with an error at the
-- first rotation that differs by more than 1e-5 or tip by more than 1e-4 (of the rig's scale):
-- run here in a child process of this interpreter and path, so that a change of a solver's
-- semantics shows in the suite, not first in `make bench`.
local helper = require "helper"

describe("bench/ik.lua's plain-Lua solvers", function()
  it("write the same rotations as sinew's on random targets, reached or not, limited or not", function()
    -- (300 random targets; 40 under the sanitizers and valgrind, where the plain Lua costs minutes)
    local n = helper.instrumented and 40 or 300
    local out, status = helper.shell(("LUA_CPATH=%s LUA_PATH=%s %s bench/ik.lua check %d"):format(
      helper.quote(package.cpath), helper.quote("lua/?.lua;lua/?/init.lua;bench/?.lua;spec/?.lua;;"),
      helper.interpreter, n), 60)
    assert.are.equal(0, status, out)
    local two, soft, aim, limited, chain = out:match("checked: the same rotations as plain Lua on (%d+) two%-bone "
      .. "%((%d+) not reached%), (%d+) aim %((%d+) limited%), (%d+) chain")
    assert.is_truthy(two, out)
    -- two rigs (bench_ik.c's skeleton and the Fox), 16 + n targets a solver on each
    local total = 2 * (16 + n)
    assert.are.equal(total, tonumber(two))
    assert.are.equal(total, tonumber(aim))
    assert.are.equal(total, tonumber(chain))
    -- both branches of the two-bone (reached; softened or out of reach) and of the aim's limit
    assert.is_true(tonumber(soft) > total / 10 and tonumber(soft) < total * 9 / 10, out)
    assert.is_true(tonumber(limited) > total / 10 and tonumber(limited) < total * 9 / 10, out)
  end)

  -- bench/ik_feet.lua's plain foot placement beside sinew's on the Fox's Walk (five grounds, three
  -- settings, random steps and weights): `check n` stops with an error where the pose differs
  -- (rotations 1e-4; the roots and feet, whose roll is ill-conditioned, 1e-3 and at most 5% beyond
  -- 1e-4; the pelvis and the offset 1e-5 of the shortest leg), and says what it compared
  it("bench/ik_feet.lua's plain foot placement writes the pose sinew's writes", function()
    local n = helper.instrumented and 4 or 40
    local out, status = helper.shell(("LUA_CPATH=%s LUA_PATH=%s %s bench/ik_feet.lua check %d"):format(
      helper.quote(package.cpath), helper.quote("lua/?.lua;lua/?/init.lua;bench/?.lua;spec/?.lua;;"),
      helper.interpreter, n), 60)
    assert.are.equal(0, status, out)
    local solves, skipped = out:match("checked: the same pose as plain Lua on (%d+) foot placements %((%d+) legs not compared")
    local loose, rolls = out:match("(%d+) of (%d+) beyond 1e%-4")
    assert.is_truthy(solves and loose, out)
    assert.are.equal(15 * n, tonumber(solves))
    -- four legs a solve, each either compared (its root and foot among `rolls`) or counted skipped
    assert.is_true(tonumber(rolls) >= 15 * n / 2, out)
    assert.is_true(tonumber(skipped) < 4 * 15 * n, out)
    assert.is_true(tonumber(loose) <= tonumber(rolls) / 20, out)
  end)
end)
