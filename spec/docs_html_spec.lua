-- The docs as a reader meets them: every link of the README and the guides resolves on GitHub (to
-- a file, and to a heading by GitHub's anchor), each guide has the one-line summary the
-- reference's index shows, and config.ld gives LDoc every public module and no internal one
-- (tools/docs.lua holds the rule). With ldoc installed (`make docs` installs Debian's lua-ldoc),
-- the reference is built into a temporary folder and tools/docs.lua finishes and checks its HTML,
-- as `make docs` does; without it, that case is pending and says why.
local helper = require "helper"
local docs = dofile("tools/docs.lua")

local tmpdir, write = helper.tmpdir, helper.write_file

local function contains(list, item)
  for _, v in ipairs(list) do
    if v == item then return true end
  end
  return false
end

describe("the README and the guides", function()
  it("link only to files and headings that exist", function()
    local faults, links, files = {}, 0, docs.markdown_files()
    for _, file in ipairs(files) do
      links = links + #docs.links(helper.read_file(file))
      for _, f in ipairs(docs.markdown_faults(file)) do faults[#faults + 1] = f end
    end
    assert.is_true(contains(files, "manual/poses.md") and contains(files, "README.md"))
    assert.is_true(links >= 40, ("only %d links found"):format(links))
    assert.same({}, faults)
  end)

  it("each have a one-line summary under their title", function()
    local missing = {}
    for _, file in ipairs(docs.markdown_files()) do
      local text = helper.read_file(file)
      if file:match("^manual/") then
        local summary = docs.guide_summary(text)
        if not summary or summary == "" or summary:find("\n") then missing[#missing + 1] = file end
        assert.truthy(text:match("^# [^\n]+\n<!%-%- summary: "), file .. ": the summary comes right under the title")
      end
    end
    assert.same({}, missing)
  end)
end)

describe("the link check", function()
  it("names the anchors as GitHub does", function()
    assert.equal("a-packed-game-love-and-fused-executables", docs.slug("A packed game: `.love` and fused executables"))
    assert.equal("speed-the-ffi-path", docs.slug("Speed: the FFI path"))
    assert.equal("löve", docs.slug("LÖVE"))
    assert.equal("2-d-rigs-dragonbones", docs.slug("2-D rigs: DragonBones"))
    assert.equal("solver--coupled-the-default", docs.slug('`solver = "coupled"` (the default)'))
    local heads = docs.headings("# Title\n\n## Errors\n\n```lua\n# not a heading\n```\n\n## Errors\n### Errors\n")
    assert.same({ "title", "errors", "errors-1", "errors-2" },
      { heads[1].slug, heads[2].slug, heads[3].slug, heads[4].slug })
  end)

  it("reports a link to a missing file or heading, and passes the others", function()
    local dir = tmpdir()
    write(dir .. "/b.md", "# B\n\n## Heading one\n")
    write(dir .. "/a.md", table.concat({
      "# A", "", "[b](b.md) [one](b.md#heading-one) [self](#a) [web](https://example.org/x.md)",
      "[gone](c.md) [no heading](b.md#heading-two) ![picture](images/p.png)",
      "`[in code](nowhere.md)`", "```", "[in a block](nowhere.md)", "```", "" }, "\n"))
    local faults = docs.markdown_faults(dir .. "/a.md")
    os.execute(("rm -rf '%s'"):format(dir))
    assert.equal(3, #faults, table.concat(faults, "\n"))
    assert.truthy(faults[1]:find(":4: 'c.md': no file", 1, true))
    assert.truthy(faults[2]:find(":4: 'b.md#heading-two':", 1, true))
    assert.truthy(faults[3]:find(":4: 'images/p.png': no file", 1, true))
  end)

  it("points a guide's links to other guides at their pages and anchors its headings", function()
    local dir = tmpdir()
    write(dir .. "/a.md", "# Guide A\n<!-- summary: what A is -->\n\n## Limits: the `max`\n")
    write(dir .. "/b.md", "# Guide B\n")
    local page = '<div id="content">\n<h1>Guide A</h1>\n<p><a href="b.md">B</a>, <a href="b.md#x">x</a>, '
      .. '<a href="../modules/m.html#f">f</a></p>\n<h2>Limits: the <code>max</code></h2>\n</div>'
    local html = assert(docs.finish_topic(page, "a.md", dir))
    assert.truthy(html:find('href="b.md.html"', 1, true))
    assert.truthy(html:find('href="b.md.html#x"', 1, true))
    assert.truthy(html:find('href="../modules/m.html#f"', 1, true))
    assert.truthy(html:find('<h1 id="guide-a">', 1, true))
    assert.truthy(html:find('<h2 id="limits-the-max">', 1, true))
    assert.equal(html, docs.finish_topic(html, "a.md", dir)) -- a second run changes nothing
    local index = '<td class="name"  nowrap><a href="topics/a.md.html">a.md</a></td>\n\t\t<td class="summary"></td>'
    local finished, faults = docs.finish_index(index, dir)
    assert.same({}, faults)
    assert.truthy(finished:find('>Guide A</a></td>\n\t\t<td class="summary">what A is</td>', 1, true))
    local _, missing = docs.finish_index(index:gsub("a%.md", "b.md"), dir)
    assert.equal(1, #missing)
    os.execute(("rm -rf '%s'"):format(dir))
  end)

  it("links sinew's functions from the C binding to their entries", function()
    local functions = { blend = "sinew.pose.html#blend" }
    local page = '<h1>sinew</h1><div id="content"><h1>Module <code>sinew.blend</code></h1>'
      .. '<p><code>sinew.blend</code>, <code>sinew.nothing</code></p></div>'
    local html = docs.link_core_functions(page, functions)
    assert.truthy(html:find('<h1>Module <code>sinew.blend</code></h1>', 1, true)) -- the title stays
    assert.truthy(html:find('<p><a href="../modules/sinew.pose.html#blend">sinew.blend</a>, <code>sinew.nothing</code>',
      1, true))
  end)

  it("tells a summary LDoc cut short from a whole one", function()
    for _, cut in ipairs { "The transition's progress (0 ..", "Works on many types, e.g.", "Into out[1 ..",
      "Sets `x (the first" } do
      assert.is_true(docs.cut_summary(cut), cut)
    end
    for _, whole in ipairs { "The weight of a layer; the first layer's is always 1.", "Inverse conj(q) / |q|^2.",
      "Iterates: `for k, v in rig:events() do`." } do
      assert.is_false(docs.cut_summary(whole), whole)
    end
  end)
end)

describe("the reference's modules", function()
  it("are the public ones: config.ld gives LDoc each, and no internal one", function()
    local faults, declared = docs.source_module_faults()
    assert.same({}, faults)
    for _, name in ipairs { "sinew", "sinew.gltf", "sinew.animator", "sinew.animator.dot", "sinew.dragonbones",
      "sinew.dragonbones.Rig", "sinew.dragonbones.Chain", "sinew.love2d", "sinew.quat", "sinew.blendspace",
      "sinew.skeleton", "sinew.pose", "sinew.clip", "sinew.chain", "sinew.group", "sinew.core.rig2d" } do
      assert.truthy(declared[name], name .. " is declared")
      assert.is_false(docs.is_internal(name), name .. " is public")
    end
    for _, name in ipairs { "sinew.animator.definition", "sinew.animator.layer", "sinew.animator.motion",
      "sinew.gltf.document", "sinew.native", "sinew.json", "sinew.fault", "sinew.dragonbones.compile",
      "sinew.dragonbones.playhead", "sinew.dragonbones.values", "sinew.dragonbones.armature",
      "sinew.dragonbones.animation" } do
      assert.truthy(declared[name], name .. " is declared")
      assert.is_true(docs.is_internal(name), name .. " is internal")
    end
    -- whatever lies under sinew.ffi is internal, files added there included
    assert.is_true(docs.is_internal("sinew.ffi"))
    assert.is_true(docs.is_internal("sinew.ffi.quat"))
    assert.is_false(docs.is_internal("sinew.ffix"))
  end)
end)

-- the HTML itself needs LDoc: Debian's lua-ldoc and lua-discount, which `make docs` installs
local function has(command) return os.execute(("command -v %s >/dev/null 2>&1"):format(command)) end
local ldoc = has("ldoc") == true or has("ldoc") == 0

describe("the reference as LDoc writes it", function()
  if not ldoc then
    pending("ldoc is not installed (Debian's lua-ldoc, which `make docs` installs): the HTML is checked by `make docs`")
    return
  end
  it("has every link resolving and every public module with its page, once tools/docs.lua finishes it", function()
    local dir = tmpdir()
    local out, status = helper.shell(("ldoc -q -d '%s/doc' . >/dev/null && %s tools/docs.lua '%s/doc'"):format(dir,
      helper.interpreter, dir), 120)
    local function read(path)
      local f = io.open(dir .. "/doc/" .. path, "rb")
      local text = f and f:read("*a") or ""
      if f then f:close() end
      return text
    end
    local html, poses = read("index.html"), read("topics/poses.md.html")
    os.execute(("rm -rf '%s'"):format(dir))
    assert.equal(0, status, out)
    assert.truthy(out:find("every link resolves", 1, true), out)
    assert.truthy(html:find("topics/poses.md.html", 1, true))
    assert.falsy(html:find("sinew.animator.definition", 1, true))
    assert.truthy(poses:find('href="performance.md.html"', 1, true))
    assert.truthy(poses:find('href="../modules/sinew.pose.html#blend"', 1, true))
  end)
end)
