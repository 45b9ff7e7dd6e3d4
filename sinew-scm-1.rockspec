rockspec_format = "3.0"
package = "sinew"
version = "scm-1"
source = {
  url = "git+https://example.invalid/sinew.git",
}
description = {
  summary = "Animation blending for Lua: blend spaces, quaternions, poses, clips, dynamic bones and glTF import",
  detailed = [[
sinew is a Lua-scriptable animation-blending module with a C core: quaternion and pose blending,
every common blend-space weighting scheme, keyframed clips, frame-rate-independent dynamic
bones and glTF 2.0 import (skeletons, clips, skinned meshes), for LÖVE, plain Lua 5.1-5.4 and LuaJIT.
]],
  license = "MIT",
}
-- Only Lua. The importers (sinew.gltf, sinew.dragonbones) need a JSON decoder, lua-cjson or
-- dkjson, whichever is installed (lua/sinew/json.lua), or one passed as options.json; a rockspec
-- cannot say "one of two", and a hard dependency on dkjson made `luarocks make` fail offline even
-- where Debian's lua-dkjson is installed (LuaRocks does not see Debian's packages). Without a
-- decoder the importers return nil and a message that names what to install; nothing else in
-- sinew reads JSON. README.md, "Install", says to add one: `luarocks install dkjson`.
dependencies = {
  "lua >= 5.1, < 5.5",
}
-- sinew.core is built by the Makefile (`make rock-core`) out of the source tree, into build/rock/,
-- with LuaRocks' compiler, flags and the Lua headers of the Lua it installs for: the built-in
-- build type compiles beside the sources and leaves ./sinew/core.so in the clone, where the
-- default package.cpath (./?.so) finds it first from every other Lua. The Makefile builds every
-- src/core/*.c and src/binding/*.c, so no list of C sources is kept here.
build = {
  type = "make",
  build_target = "rock-core",
  build_variables = {
    CC = "$(CC)",
    CFLAGS = "$(CFLAGS)",
    LIBFLAG = "$(LIBFLAG)",
    LUA_INCDIR = "$(LUA_INCDIR)",
  },
  install_pass = false,
  install = {
    lib = { ["sinew.core"] = "build/rock/sinew/core.so" },
    -- every Lua module of lua/ (spec/rockspec_spec.lua checks the list against the tree)
    lua = {
    ["sinew"] = "lua/sinew/init.lua",
    ["sinew.native"] = "lua/sinew/native.lua",
    ["sinew.ffi"] = "lua/sinew/ffi/init.lua",
    ["sinew.ffi.cdef"] = "lua/sinew/ffi/cdef.lua",
    ["sinew.ffi.errors"] = "lua/sinew/ffi/errors.lua",
    ["sinew.ffi.args"] = "lua/sinew/ffi/args.lua",
    ["sinew.ffi.quat"] = "lua/sinew/ffi/quat.lua",
    ["sinew.ffi.pose"] = "lua/sinew/ffi/pose.lua",
    ["sinew.ffi.clip"] = "lua/sinew/ffi/clip.lua",
    ["sinew.ffi.chain"] = "lua/sinew/ffi/chain.lua",
    ["sinew.ffi.blendspace"] = "lua/sinew/ffi/blendspace.lua",
    ["sinew.ffi.ik"] = "lua/sinew/ffi/ik.lua",
    ["sinew.fault"] = "lua/sinew/fault.lua",
    ["sinew.json"] = "lua/sinew/json.lua",
    ["sinew.dragonbones"] = "lua/sinew/dragonbones/init.lua",
    ["sinew.dragonbones.values"] = "lua/sinew/dragonbones/values.lua",
    ["sinew.dragonbones.armature"] = "lua/sinew/dragonbones/armature.lua",
    ["sinew.dragonbones.animation"] = "lua/sinew/dragonbones/animation.lua",
    ["sinew.dragonbones.compile"] = "lua/sinew/dragonbones/compile.lua",
    ["sinew.dragonbones.kind"] = "lua/sinew/dragonbones/kind.lua",
    ["sinew.dragonbones.playhead"] = "lua/sinew/dragonbones/playhead.lua",
    ["sinew.dragonbones.rig"] = "lua/sinew/dragonbones/rig.lua",
    ["sinew.love2d"] = "lua/sinew/love2d.lua",
    ["sinew.dragonbones.chain"] = "lua/sinew/dragonbones/chain.lua",
    ["sinew.gltf"] = "lua/sinew/gltf/init.lua",
    ["sinew.gltf.document"] = "lua/sinew/gltf/document.lua",
    ["sinew.gltf.skeleton"] = "lua/sinew/gltf/skeleton.lua",
    ["sinew.gltf.clips"] = "lua/sinew/gltf/clips.lua",
    ["sinew.gltf.meshes"] = "lua/sinew/gltf/meshes.lua",
    ["sinew.gltf.morphs"] = "lua/sinew/gltf/morphs.lua",
    ["sinew.animator"] = "lua/sinew/animator/init.lua",
    ["sinew.animator.definition"] = "lua/sinew/animator/definition.lua",
    ["sinew.animator.layer"] = "lua/sinew/animator/layer.lua",
    ["sinew.animator.motion"] = "lua/sinew/animator/motion.lua",
    ["sinew.animator.snapshot"] = "lua/sinew/animator/snapshot.lua",
    ["sinew.animator.dot"] = "lua/sinew/animator/dot.lua",
    ["sinew.animator.root_motion"] = "lua/sinew/animator/root_motion.lua",
    ["sinew.animator.plan"] = "lua/sinew/animator/plan.lua",
    ["sinew.animator.pose_kind"] = "lua/sinew/animator/pose_kind.lua",
    ["sinew.animator.events"] = "lua/sinew/animator/events.lua",
    ["sinew.animator.morphs"] = "lua/sinew/animator/morphs.lua",
    ["sinew.animator.ik"] = "lua/sinew/animator/ik.lua",
    ["sinew.animator.spring"] = "lua/sinew/animator/spring.lua",
    ["sinew.ik"] = "lua/sinew/ik/init.lua",
    ["sinew.ik.spread"] = "lua/sinew/ik/spread.lua",
    ["sinew.bvh"] = "lua/sinew/bvh/init.lua",
    ["sinew.bvh.read"] = "lua/sinew/bvh/read.lua",
    },
  },
}
test = {
  type = "command",
  command = "make test",
}
