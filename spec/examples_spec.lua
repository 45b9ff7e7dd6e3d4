-- The scripts in examples/ run as the README says, each in a child process of the same
-- interpreter, and print what they promise: an example that rots fails here.
local helper = require "helper"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- runs examples/<name> with `args`; returns its output (stdout and stderr) and exit status
local function run(name, args)
  local cmd = ("LUA_CPATH=%s LUA_PATH=%s %s examples/%s %s 2>&1; echo \"exit status $?\""):format(
    quote(package.cpath), quote("lua/?.lua;lua/?/init.lua;;"), helper.interpreter, name, args or "")
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  return out, tonumber(out:match("exit status (%d+)%s*$"))
end

describe("examples/", function()
  it("gltf_info.lua prints the Fox's joints, clips and mesh", function()
    local out, status = run("gltf_info.lua")
    assert.equal(0, status, out)
    assert.matches("Fox.glb: 24 joints", out, 1, true)
    assert.matches("\n%s+16%s+b_Tail03_014  %(node 17%)", out)
    assert.matches("3 clips\n  Survey +3%.417 s\n  Walk +0%.708 s\n  Run +1%.158 s\n", out)
    assert.matches("mesh 1: fox1, 1728 vertices, triangles, VertexPosition VertexTexCoord VertexJoints VertexWeights",
      out, 1, true)
    assert.matches("Walk: joint '[^']+' travels farthest", out)
  end)

  it("gltf_info.lua lists what it skipped, and reports a file it cannot load", function()
    local out, status = run("gltf_info.lua", "spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb")
    assert.equal(0, status, out)
    assert.matches("skipped animations[0].channels[0]: morph target weights", out, 1, true)
    out, status = run("gltf_info.lua", "no/such.glb")
    assert.equal(1, status, out)
    assert.matches("^such.glb: cannot read the file", out)
  end)

  it("animator.lua plays the Fox through its states, with events", function()
    local out, status = run("animator.lua")
    assert.equal(0, status, out)
    assert.matches("\n 1%.50 +[%d.]+ +move +Walk", out)
    assert.matches("\n 3%.75 +[%d.]+ +jump +Run 1%.00 +takeoff", out)
    assert.matches("LAND! land", out, 1, true)
    assert.matches("\n 6%.00 +[%d.]+ +move %-> idle", out)
  end)

  it("demo.lua runs the Fox through the whole pipeline without garbage, and draws it", function()
    local dir = "build/spec-demo"
    local pictures = { "poses.png", "weightmap_walk_run.png", "weightmap_look.png" }
    for _, name in ipairs(pictures) do os.remove(dir .. "/" .. name) end
    local out, status = run("demo.lua", dir)
    assert.equal(0, status, out)
    assert.matches("600 more frames made 0 bytes of garbage", out, 1, true)
    assert.matches("\n 3%.75 +[%d.]+ +jump +[%d.]+ +[%d.]+ +1%.00 .* takeoff", out)
    assert.matches("\n 1%.50 +[%d.]+ +move ", out)
    -- the look layer: down while idle, left in the left turn, up in the jump, right in the right turn
    assert.matches("\n 0%.75 [^\n]* %(%+0%.00, %-0%.[67]%d%) down ", out)
    assert.matches("\n 3%.25 [^\n]* %(%-0%.9%d, %+0%.00%) left ", out)
    assert.matches("\n 4%.00 [^\n]* %([+-]0%.%d%d, %+0%.[78]%d%) up ", out)
    assert.matches("\n 4%.50 [^\n]* %(%+0%.9%d, [+-]0%.%d%d%) right ", out)
    assert.matches("weightmap_look.png (the look blend space, triangulated", out, 1, true)
    for _, name in ipairs(pictures) do
      local f = assert(io.open(dir .. "/" .. name, "rb"))
      assert.equal("\137PNG\r\n\26\n", f:read(8))
      f:close()
    end
  end)

  it("dynamic_bones.lua draws the tail, and animator.lua prints its state machine as DOT", function()
    local file = os.tmpname()
    local out, status = run("dynamic_bones.lua", quote(file))
    assert.equal(0, status, out)
    local f = assert(io.open(file, "rb"))
    assert.equal("\137PNG\r\n\26\n", f:read(8))
    f:close()
    os.remove(file)
    out, status = run("animator.lua", "--dot")
    assert.equal(0, status, out)
    assert.matches("^digraph animator {", out)
    assert.is_truthy(out:find('"1:idle" -> "1:move"', 1, true))
  end)

  -- crowd.lua with 20 foxes, run once for the two cases below
  local crowd_out, crowd_status
  local function crowd()
    if not crowd_out then crowd_out, crowd_status = run("crowd.lua", "20") end
    return crowd_out, crowd_status
  end

  it("crowd.lua runs a crowd of Foxes in one group call, as one call per object does", function()
    local out, status = crowd()
    assert.equal(0, status, out)
    assert.matches("20 foxes (24 joints each)", out, 1, true)
    assert.matches("the same matrices both ways: yes", out, 1, true)
    assert.matches("\n120 more frames made 0 bytes of garbage", out, 1, true)
  end)

  it("crowd.lua runs the crowd through animators of one plan, small, without garbage", function()
    local out, status = crowd()
    assert.equal(0, status, out)
    assert.matches("animators of one plan: [%d.]+ ms per frame %(update %+ evaluate each, then one group call of 40 "
      .. "operations%)", out)
    assert.matches("the same matrices as animators compiled one by one: yes", out, 1, true)
    assert.matches("animators: 120 more frames made 0 bytes of garbage", out, 1, true)
    -- the animators of one plan share it: each holds a few KB, one compiled on its own far more
    local own_plan, per_instance, per_own = out:match("heap: the plan ([%d.]+) KB once, ([%d.]+) KB per animator of "
      .. "it; ([%d.]+) KB per animator compiled on its own")
    assert.is_truthy(own_plan, out)
    assert.is_true(tonumber(per_instance) < 8, out)
    assert.is_true(tonumber(per_own) > tonumber(per_instance) + tonumber(own_plan) / 2, out)
  end)

  it("quat_blend.lua and dynamic_bones.lua run", function()
    local out, status = run("quat_blend.lua")
    assert.equal(0, status, out)
    assert.matches("10000 blends made 0 bytes of garbage", out, 1, true)
    out, status = run("dynamic_bones.lua")
    assert.equal(0, status, out)
    assert.matches("144 fps: tip", out, 1, true)
  end)

  it("find the clone's modules themselves, run from any folder (examples/clone.lua)", function()
    -- the build under test, by absolute paths (LUA_PATH empty: lua/ is found by clone.lua)
    local here = assert(os.getenv("PWD"))
    local cpath = package.cpath:gsub("([^;]+)", function(e) return e:sub(1, 1) == "/" and e or here .. "/" .. e end)
    local cmd = ("cd examples && LUA_CPATH=%s LUA_PATH= %s gltf_info.lua 2>&1; echo \"exit status $?\""):format(
      quote(cpath), helper.interpreter)
    local p = assert(io.popen(cmd))
    local out = p:read("*a")
    p:close()
    assert.matches("exit status 0%s*$", out)
    assert.matches("Fox.glb: 24 joints", out, 1, true)
  end)

  it("weightmap.lua writes a PNG", function()
    local file = os.tmpname()
    local out, status = run("weightmap.lua", "freeform_directional " .. quote(file))
    assert.equal(0, status, out)
    local f = assert(io.open(file, "rb"))
    local head = f:read(8)
    f:close()
    os.remove(file)
    assert.equal("\137PNG\r\n\26\n", head)
  end)
end)
