-- The scripts in examples/ run as the README says, each in a child process of the same
-- interpreter, and print what they promise: an example that rots fails here.
local helper = require "helper"

local quote = helper.quote

-- runs examples/<name> with `args` (at most 120 s); returns its output (stdout and stderr) and
-- exit status
local function run(name, args)
  return helper.shell(("LUA_CPATH=%s LUA_PATH=%s %s examples/%s %s"):format(quote(package.cpath),
    quote("lua/?.lua;lua/?/init.lua;;"), helper.interpreter, name, args or ""), 120)
end

-- ---- reading the pictures back (examples/pictures.lua writes and reads them) ----

local pictures = dofile("examples/pictures.lua")

local function picture(path)
  local f = assert(io.open(path, "rb"))
  local img = assert(pictures.read(f:read("*a")))
  f:close()
  return img
end

local function same(col, r, g, b) return r == col[1] and g == col[2] and b == col[3] end

-- the pixels of colour col in rows y0 .. y1 (all columns)
local function count(img, col, y0, y1)
  local k = 0
  for y = y0, y1 do
    for x = 0, img.w - 1 do
      if same(col, img.get(x, y)) then k = k + 1 end
    end
  end
  return k
end

-- the longest horizontal and vertical runs of colour col: the axes of a plot
local function longest_runs(img, col)
  local across, down, column = 0, 0, {}
  for y = 0, img.h - 1 do
    local n = 0
    for x = 0, img.w - 1 do
      if same(col, img.get(x, y)) then
        n, column[x] = n + 1, (column[x] or 0) + 1
        across, down = math.max(across, n), math.max(down, column[x])
      else
        n, column[x] = 0, 0
      end
    end
  end
  return across, down
end

-- a picture that says what it shows: a title in ink at the top, axes `side` pixels long or
-- more, and numbers or names in ink under the horizontal axis
local function assert_titled_axes(img, side, name)
  assert.is_true(count(img, pictures.INK, 0, pictures.TITLE_HEIGHT - 1) > 100, name .. ": no title")
  local across, down = longest_runs(img, pictures.INK)
  assert.is_true(across >= side and down >= side, ("%s: axes of %d and %d pixels"):format(name, across, down))
  local axis_y -- the row of the horizontal axis: the first with a run that long
  for y = pictures.TITLE_HEIGHT, img.h - 1 do
    local n, best = 0, 0
    for x = 0, img.w - 1 do
      n = same(pictures.INK, img.get(x, y)) and n + 1 or 0
      best = math.max(best, n)
    end
    if best >= side then axis_y = y break end
  end
  assert.is_truthy(axis_y, name)
  assert.is_true(count(img, pictures.INK, axis_y + 5, math.min(img.h - 1, axis_y + pictures.AXIS_BELOW)) > 50,
    name .. ": no numbers or name under the axis")
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

  it("gltf_info.lua lists morph targets and what it skipped, and reports a file it cannot load", function()
    local out, status = run("gltf_info.lua", "spec/gltf-corpus/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb")
    assert.equal(0, status, out)
    assert.matches("2 morph targets: Cube.0 Cube.1\n  Square drives them with 2 weight tracks\n", out, 1, true)
    out, status = run("gltf_info.lua", "spec/gltf-corpus/InterpolationTest/glTF-Binary/InterpolationTest.glb")
    assert.equal(0, status, out)
    assert.matches("skipped images%[0%]: cannot read '[^']*l%.jpg'", out)
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

  -- demo.lua, run once for the two cases below, into a folder that does not exist yet
  local demo_dir, demo_written = "build/spec-demo/made/here", { "poses.png", "weightmap_walk_run.png", "weightmap_look.png" }
  local demo_out, demo_status
  local function demo()
    if not demo_out then
      for _, name in ipairs(demo_written) do os.remove(demo_dir .. "/" .. name) end
      os.remove(demo_dir)
      assert(io.open(demo_dir) == nil, demo_dir .. " is still there")
      demo_out, demo_status = run("demo.lua", demo_dir)
    end
    return demo_out, demo_status
  end

  it("demo.lua runs the Fox through the whole pipeline without garbage, and draws it", function()
    local dir, written = demo_dir, demo_written
    local out, status = demo()
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
    for _, name in ipairs(written) do
      local f = assert(io.open(dir .. "/" .. name, "rb"))
      assert.equal("\137PNG\r\n\26\n", f:read(8))
      f:close()
    end
  end)

  it("demo.lua titles its pictures, labels its axes and keeps the Fox inside every panel", function()
    local dir = demo_dir
    local out, status = demo()
    assert.equal(0, status, out)
    assert_titled_axes(picture(dir .. "/weightmap_walk_run.png"), 200, "weightmap_walk_run.png")
    assert_titled_axes(picture(dir .. "/weightmap_look.png"), 272, "weightmap_look.png")
    -- the strip: panels framed in pictures.FRAME, a band of ink (the time and state) at the top of
    -- each, and every pixel of the skeleton (bones, joints, the tail) at least 4 pixels from the
    -- panel's sides and under its band
    local img = picture(dir .. "/poses.png")
    assert.is_true(count(img, pictures.INK, 0, pictures.TITLE_HEIGHT - 1) > 100, "no title")
    local band, figure = { 215, 215, 206 }, { { 60, 60, 70 }, { 200, 90, 30 }, { 40, 110, 220 } }
    local panels = {}
    for y = 0, img.h - 2 do
      for x = 0, img.w - 2 do
        if same(pictures.FRAME, img.get(x, y)) and same(band, img.get(x + 1, y + 1))
          and not same(band, img.get(x + 1, y)) and same(pictures.FRAME, img.get(x, y + 1)) then
          local x1, y1 = x + 1, y + 1 -- the panel's far corner: where its frame is again
          while not same(pictures.FRAME, img.get(x1, y + 1)) do x1 = x1 + 1 end
          while not same(pictures.FRAME, img.get(x + 1, y1)) do y1 = y1 + 1 end
          panels[#panels + 1] = { x + 1, y + 1, x1 - 1, y1 - 1 }
        end
      end
    end
    assert.equal(8, #panels)
    for i, p in ipairs(panels) do
      local band_end, ink, lo, hi = p[2], 0, { math.huge, math.huge }, { -math.huge, -math.huge }
      while same(band, img.get(p[1], band_end + 1)) do band_end = band_end + 1 end
      for y = p[2], p[4] do
        for x = p[1], p[3] do
          local r, g, b = img.get(x, y)
          if y <= band_end and same(pictures.INK, r, g, b) then ink = ink + 1 end
          for _, col in ipairs(figure) do
            if same(col, r, g, b) then
              lo[1], lo[2], hi[1], hi[2] = math.min(lo[1], x), math.min(lo[2], y), math.max(hi[1], x), math.max(hi[2], y)
            end
          end
        end
      end
      assert.is_true(ink > 40, "panel " .. i .. " has no time and state")
      assert.is_true(lo[1] >= p[1] + 4 and hi[1] <= p[3] - 4 and lo[2] >= band_end + 4 and hi[2] <= p[4] - 4,
        ("panel %d (%d..%d, %d..%d under its band at %d): the skeleton spans %d..%d, %d..%d"):format(
          i, p[1], p[3], p[2], p[4], band_end, lo[1], hi[1], lo[2], hi[2]))
    end
  end)

  it("dynamic_bones.lua draws the tail, and animator.lua prints its state machine as DOT", function()
    local file = os.tmpname()
    local out, status = run("dynamic_bones.lua", quote(file))
    assert.equal(0, status, out)
    local f = assert(io.open(file, "rb"))
    assert.equal("\137PNG\r\n\26\n", f:read(8))
    f:close()
    assert_titled_axes(picture(file), 150, "the tail")
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
    local out = helper.shell(("cd examples && LUA_CPATH=%s LUA_PATH= %s gltf_info.lua"):format(
      quote(cpath), helper.interpreter), 120)
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

  it("weightmap.lua makes its folder, and titles and labels every map", function()
    local dir = "build/spec-weightmap/not/yet"
    local modes = { "simple_directional", "freeform_cartesian", "freeform_directional", "triangulated", "grid", "idw" }
    for _, mode in ipairs(modes) do os.remove(dir .. "/weightmap_" .. mode .. ".png") end
    os.remove(dir .. "/one.png")
    os.remove(dir)
    assert.is_nil(io.open(dir)) -- gone: weightmap.lua makes it
    local out, status = run("weightmap.lua", "all " .. dir .. " 128")
    assert.equal(0, status, out)
    for _, mode in ipairs(modes) do
      local img = picture(dir .. "/weightmap_" .. mode .. ".png")
      assert_titled_axes(img, 128, mode)
      -- each sample's panel is labelled in the sample's own colour on black: pixels of that colour
      -- right of a black one (the weight panels fade to black; they have no such edge)
      for i = 1, 9 do
        local col, text = pictures.hue(i, 9), 0
        for y = pictures.TITLE_HEIGHT, img.h - 1 do
          for x = 1, img.w - 1 do
            if same(col, img.get(x, y)) and same(pictures.BLACK, img.get(x - 1, y)) then text = text + 1 end
          end
        end
        assert.is_true(text >= 3, mode .. ": sample " .. i .. " has no label")
      end
    end
    out, status = run("weightmap.lua", "1d " .. dir .. "/one.png 100")
    assert.equal(0, status, out)
    assert_titled_axes(picture(dir .. "/one.png"), 100, "1d")
  end)

  local has_cmu = helper.exists("/usr/share/assimp/models/BVH/01_01.bvh")
  ;(has_cmu and it or pending)("mocap.lua plays a CMU recording from sinew.bvh and draws eight poses", function()
    local dir = "build/spec-demo/mocap"
    os.remove(dir .. "/mocap.png")
    local out, status = run("mocap.lua", dir)
    assert.equal(0, status, out)
    assert.matches("01_01.bvh: 38 joints, 2752 frames of 0.0083 s (22.9 s), 96 channels a frame", out, 1, true)
    assert.matches("the root from 0.50 m to 1.49 m forward over 1.75 s", out, 1, true)
    local img = picture(dir .. "/mocap.png")
    assert.is_true(count(img, pictures.INK, 0, pictures.TITLE_HEIGHT - 1) > 100, "no title")
    -- eight panels, each with its joints (orange dots) inside it
    local joint, panels = { 200, 90, 30 }, 0
    local band = { 215, 215, 206 }
    for y = pictures.TITLE_HEIGHT, img.h - 1 do -- the most left edges of a band along a row
      local edges = 0
      for x = 0, img.w - 2 do
        if same(pictures.FRAME, img.get(x, y)) and same(band, img.get(x + 1, y)) then edges = edges + 1 end
      end
      panels = math.max(panels, edges)
    end
    assert.equal(8, panels)
    assert.is_true(count(img, joint, pictures.TITLE_HEIGHT, img.h - 1) > 8 * 30, "joints drawn")
  end)
  if not has_cmu then pending("install Debian's assimp-testmodels (make test-all and make demo do) for mocap.lua") end

  it("pictures.lua writes text in its own font, and reads back what it wrote", function()
    local img = pictures.canvas(40, 12)
    assert.equal(pictures.text_width("Hi"), img.text(1, 1, "Hi", pictures.INK))
    local back = assert(pictures.read(img.png()))
    assert.equal(40, back.w)
    assert.equal(12, back.h)
    -- 'H' is two columns of 7 pixels and a bar of 3 between them (17), 'i' a dot, a stem and a foot (9)
    local function ink(x, y) return same(pictures.INK, back.get(x, y)) end
    for y = 1, 7 do
      assert.is_true(ink(1, y) and ink(5, y))
      assert.equal(y == 4, ink(3, y))
    end
    assert.equal(17 + 9, count(back, pictures.INK, 0, 11))
    assert.same({ nil, "not a PNG" }, { pictures.read("GIF89a") })
  end)
end)
