-- glTF files small to write and costly to import (issue 21), and files reached through links:
-- each is imported in a child process of the same interpreter with a time cap (timeout) and a
-- memory cap (ulimit -v; not under the sanitizers or valgrind, whose runtimes reserve address
-- space), so that a hang or a runaway allocation fails the spec instead of the run. The files are
-- made by spec/support/gltf_hostile.lua.
local helper = require "helper"
local sinew = require "sinew"

-- the costly files decode hundreds of megabytes: minutes each under valgrind, whose run checks
-- the C side with the other specs (the links and the budget still run there), and seconds in
-- all that `make test` (SINEW_QUICK) leaves to `make test-all`
local heavy = os.getenv("SINEW_VALGRIND") and function(name) pending(name .. " (not under valgrind)") end
  or os.getenv("SINEW_QUICK") == "1" and function(name) pending(name .. " (in make test: make test-all runs it)") end
  or it
local POSIX = package.config:sub(1, 1) == "/"

-- runs the Lua `code` in a child process under `mb` megabytes of address space and `seconds`;
-- returns its output and exit status (124: out of time)
local function child(code, mb, seconds)
  local file = os.tmpname()
  local f = assert(io.open(file, "w"))
  f:write('local sinew = require "sinew"\nlocal H = require "support.gltf_hostile"\n', code)
  f:close()
  local out, status = helper.lua_child(helper.quote(file), seconds, mb)
  os.remove(file)
  return out, status
end

-- the child's output must end "exit status 0" and hold every pattern
local function expect(out, status, ...)
  assert.are.equal(0, status, out)
  for _, pattern in ipairs { ... } do assert.matches(pattern, out) end
end

describe("sinew.gltf limits (in a child process, capped)", function()
  if not POSIX then
    pending("needs a POSIX shell (timeout, ulimit)")
    return
  end

  describe("shared data is made once", function()
    heavy("imports 50 primitives on one 5.6 M-vertex accessor without a buffer view into one string", function()
      -- 1,668 bytes of JSON; decoded per primitive it took 3.8 GB
      local out, status = child([==[
        local bytes = H.shared_positions(50, 5592405)
        assert(#bytes < 2000, #bytes)
        local a = assert(sinew.gltf.parse(bytes, { name = "case.gltf" }))
        assert(#a.meshes == 50)
        local v = a.meshes[1].vertices
        assert(#v == 5592405 * 12 and a.meshes[1].vertex_count == 5592405)
        assert(v:sub(1, 64) == ("\0"):rep(64) and v:sub(-64) == ("\0"):rep(64)) -- no buffer view: zeros
        for i = 2, 50 do assert(rawequal(a.meshes[i].vertices, v) or a.meshes[i].vertices == v) end
        collectgarbage()
        print(("lua memory %.0f MB"):format(collectgarbage("count") / 1024))
      ]==], 900, 60)
      expect(out, status, "lua memory (%d+) MB")
      assert.is_true(tonumber(out:match("lua memory (%d+) MB")) < 150, out)
    end)

    heavy("refuses 50 such accessors of their own by the budget, with the path", function()
      local out, status = child([==[
        local a, err = sinew.gltf.parse(H.shared_positions(50, 5592405, true), { name = "case.gltf" })
        print(a, err)
      ]==], 900, 60)
      expect(out, status, "nil\tcase%.gltf: meshes%[0%]%.primitives%[%d+%]%.attributes: the import needs more than " ..
        "268435456 bytes of data %(options%.max_bytes%)")
    end)

    heavy("shares the bytes of 5,000 images on one 4 MB buffer view", function()
      local out, status = child([==[
        local a = assert(sinew.gltf.parse(H.shared_image_view(5000, 4 * 2 ^ 20), { name = "case.glb" }))
        assert(#a.images == 5000 and #a.images[5000].bytes == 4 * 2 ^ 20 and a.images[1].bytes:sub(1, 4) == "\137PNG")
        collectgarbage()
        print(("lua memory %.0f MB"):format(collectgarbage("count") / 1024))
      ]==], 900, 60)
      expect(out, status)
      assert.is_true(tonumber(out:match("lua memory (%d+) MB")) < 40, out)
    end)

    heavy("refuses 5,000 images on views of their own by the budget (not 'not enough memory')", function()
      local out, status = child([==[
        print(sinew.gltf.parse(H.shared_image_view(5000, 4 * 2 ^ 20, true), { name = "case.glb" }))
      ]==], 900, 60)
      expect(out, status, "nil\tcase%.glb: images%[%d+%]%.bufferView: the import needs more than 268435456 bytes")
    end)

    heavy("makes one clip of 100 animations sharing one 100k-key sampler", function()
      local out, status = child([==[
        local a = assert(sinew.gltf.parse(H.shared_sampler(100, 100000), { name = "case.glb" }))
        assert(#a.clip_names == 100)
        local first = a.clips[a.clip_names[1]]
        for _, name in ipairs(a.clip_names) do assert(rawequal(a.clips[name], first)) end
        local pose = sinew.pose(a.skeleton)
        first:sample(100, pose)
        collectgarbage()
        print(("lua memory %.0f MB"):format(collectgarbage("count") / 1024))
      ]==], 900, 60)
      expect(out, status)
      assert.is_true(tonumber(out:match("lua memory (%d+) MB")) < 120, out)
    end)

    heavy("refuses 100 animations of that sampler on 100 joints by the budget", function()
      local out, status = child([==[
        print(sinew.gltf.parse(H.shared_sampler(100, 100000, true), { name = "case.glb" }))
      ]==], 1200, 60)
      expect(out, status, "nil\tcase%.glb: animations%[%d+%]: the import needs more than 268435456 bytes")
    end)
  end)

  describe("nodes that show the same mesh", function()
    heavy("share its strings, and 1 M entries (20,000 nodes x 50 primitives) pass the budget", function()
      local out, status = child([==[
        local a = assert(sinew.gltf.parse(H.many_nodes(100, 50), { name = "nodes.gltf" }))
        assert(#a.meshes == 5000 and a.meshes[1].vertices == a.meshes[5000].vertices)
        assert(a.meshes[1].format == a.meshes[51].format and a.meshes[1].node == 0 and a.meshes[5000].node == 99)
        print(sinew.gltf.parse(H.many_nodes(20000, 50), { name = "nodes.gltf" }))
      ]==], 1200, 60)
      expect(out, status, "nil\tnodes%.gltf: nodes%[%d+%]%.mesh: the import needs more than 268435456 bytes")
    end)
  end)

  describe("node trees", function()
    heavy("refuses a chain of 100,000 nodes for its joints, in linear time", function()
      local out, status = child([==[
        local t = os.clock()
        print(sinew.gltf.parse(H.node_chain(100000), { name = "chain.gltf" }))
        print(("%.1f s"):format(os.clock() - t))
      ]==], 900, 60)
      expect(out, status, "nil\tchain%.gltf: nodes: 100000 joints, more than the 65535 allowed")
    end)

    heavy("imports a chain of 20,000 nodes without recursion (LuaJIT overflowed its stack at 10,000)", function()
      local out, status = child([==[
        local a = assert(sinew.gltf.parse(H.node_chain(20000), { name = "chain.gltf" }))
        assert(#a.skeleton == 20000 and a.skeleton:parent(20000) == 19999)
        print("ok")
      ]==], 900, 60)
      expect(out, status, "ok")
    end)
  end)

  describe("files outside the model's folder", function()
    it("refuses links that lead outside the folder, devices and pipes; reads links within it", function()
      -- in a temp folder: top/secret.txt, top/model/{ok.png, in.png -> ok.png, tex.png ->
      -- ../secret.txt, zero.png -> /dev/zero, pipe.png (a fifo), out.bin -> ../secret.txt}, and
      -- top/alias -> model (the folder reached through a link)
      local out, status = child([==[
        local top = os.tmpname()
        os.remove(top)
        assert(os.execute("mkdir -p '" .. top .. "/model'"))
        local function sh(cmd) assert(os.execute("cd '" .. top .. "' && " .. cmd)) end
        local function write(path, bytes) local f = assert(io.open(top .. "/" .. path, "wb")) f:write(bytes) f:close() end
        local ok, err = pcall(function()
          write("secret.txt", "the secret")
          write("model/ok.png", "\137PNG ok")
          sh("ln -s ok.png model/in.png && ln -s ../secret.txt model/tex.png && ln -s /dev/zero model/zero.png")
          sh("mkfifo model/pipe.png && ln -s ../secret.txt model/out.bin && ln -s model alias")
          local json = require "dkjson"
          local function model(images, buffer)
            local list = {}
            for i, uri in ipairs(images) do list[i] = { uri = uri } end
            local doc = { asset = { version = "2.0" }, nodes = { {} }, images = list }
            if buffer then
              doc.buffers = { { uri = buffer, byteLength = 4 } }
              doc.bufferViews = { { buffer = 0, byteLength = 4 } }
              doc.images[#list + 1] = { bufferView = 0 }
            end
            return json.encode(doc)
          end
          write("model/m.gltf", model { "ok.png", "in.png", "tex.png", "zero.png", "pipe.png" })
          for _, dir in ipairs { "/model/", "/alias/" } do
            local a = assert(sinew.gltf.load(top .. dir .. "m.gltf"))
            assert(a.images[1].bytes == "\137PNG ok" and a.images[2].bytes == "\137PNG ok")
            for i = 3, 5 do assert(a.images[i].bytes == nil) end
            local why = {}
            for _, s in ipairs(a.skipped) do why[s.path] = s.why end
            print(dir, why["images[2]"], why["images[3]"], why["images[4]"])
          end
          write("model/b.gltf", model({}, "out.bin"))
          print(sinew.gltf.load(top .. "/model/b.gltf"))
          print(sinew.gltf.load(top .. "/model/zero.png"))
          print(sinew.gltf.load(top .. "/model/pipe.png"))
          print(sinew.gltf.load(top .. "/model/m.gltf", { max_bytes = 50 }))
        end)
        os.execute("rm -rf '" .. top .. "'")
        assert(ok, err)
      ]==], 400, 30)
      expect(out, status,
        "/model/\tcannot read '[^']*/model/tex%.png': it leads outside the folder of the glTF file\tcannot read " ..
          "'[^']*/model/zero%.png': it leads outside the folder of the glTF file\tcannot read '[^']*/model/pipe%.png': " ..
          "it is not a regular file",
        "/alias/\tcannot read '[^']*/alias/tex%.png': it leads outside",
        "nil\tb%.gltf: buffers%[0%]%.uri: cannot read '[^']*/model/out%.bin': it leads outside the folder of the glTF file",
        "nil\tzero%.png: cannot read the file: it is not a regular file",
        "nil\tpipe%.png: cannot read the file: it is not a regular file",
        "nil\tm%.gltf: cannot read the file: it is larger than 50 bytes %(options%.max_bytes%)")
    end)
  end)

  describe("the budget (options.max_bytes)", function()
    local fox = helper.read_file("assets/fox/glTF-Binary/Fox.glb")

    it("imports the Fox within the default and refuses it within 100,000 bytes, with the path", function()
      assert.is_table(sinew.gltf.parse(fox, { name = "Fox.glb" }))
      local a, err = sinew.gltf.parse(fox, { name = "Fox.glb", max_bytes = 100000 })
      assert.is_nil(a)
      assert.matches("^Fox%.glb: [%w%[%]%._]+: the import needs more than 100000 bytes of data %(options%.max_bytes%)$", err)
    end)

    it("refuses a bad max_bytes", function()
      for _, bad in ipairs { -1, 0.5, 0 / 0, 2 ^ 60, "1", true } do
        assert.matches("option 'max_bytes' must be a count of bytes %(0 %.%. 2%^53%)",
          helper.error_of(sinew.gltf.parse, fox, { max_bytes = bad }))
      end
    end)

    it("asks a reader of its own for no more than the budget allows, as love.filesystem.read(name, size)", function()
      local text = helper.read_file("assets/fox/glTF/Fox.gltf")
      local asked = {}
      local function read(path, size)
        asked[#asked + 1] = size
        local bytes = helper.read_file(path)
        return bytes:sub(1, size), #bytes
      end
      assert.is_table(sinew.gltf.parse(text, "assets/fox/glTF", { read = read }))
      assert.is_true(#asked >= 1)
      for _, size in ipairs(asked) do assert.is_true(size <= 256 * 2 ^ 20 + 1) end
      -- a reader that gives more than it was asked for is cut to the declared byteLength
      local a = sinew.gltf.parse(text, "assets/fox/glTF", { read = function(path) return helper.read_file(path) .. "extra" end })
      assert.is_table(a)
      assert.is_nil(sinew.gltf.load("assets/fox/glTF/Fox.gltf", { read = read, max_bytes = 1000 }))
    end)

    it("gives nil and a message when memory runs out before the budget does", function()
      if helper.instrumented then return pending("the memory cap runs memory out, and a checked run has none") end
      local out, status = child([==[
        print(sinew.gltf.parse(H.shared_positions(50, 5592405, true), { name = "case.gltf", max_bytes = 2 ^ 40 }))
      ]==], 300, 60)
      expect(out, status, "nil\tcase%.gltf: [%w%[%]%.]*:? ?not enough memory")
    end)
  end)
end)
