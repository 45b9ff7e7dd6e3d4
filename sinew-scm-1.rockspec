rockspec_format = "3.0"
package = "sinew"
version = "scm-1"
source = {
  url = "git+https://example.invalid/sinew.git",
}
description = {
  summary = "Animation blending for Lua: blend spaces, quaternions, poses, clips and dynamic bones",
  detailed = [[
sinew is a Lua-scriptable animation-blending module with a C core: quaternion and pose blending,
every common blend-space weighting scheme, keyframed clips, and frame-rate-independent dynamic
bones, for LÖVE, plain Lua 5.1-5.4 and LuaJIT.
]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.1, < 5.5",
}
build = {
  type = "builtin",
  modules = {
    ["sinew.core"] = {
      sources = {
        "src/core/common.c",
        "src/core/quat.c",
        "src/core/chain.c",
        "src/core/chain_broadphase.c",
        "src/core/chain_collider.c",
        "src/core/chain_coupled.c",
        "src/core/chain_skeleton.c",
        "src/core/chain_step.c",
        "src/core/chain_sweep.c",
        "src/core/blendspace.c",
        "src/core/delaunay.c",
        "src/core/skeleton.c",
        "src/core/pose.c",
        "src/core/blend.c",
        "src/core/clip_build.c",
        "src/core/clip_sample.c",
        "src/binding/helpers.c",
        "src/binding/module.c",
        "src/binding/quat.c",
        "src/binding/blendspace.c",
        "src/binding/skeleton.c",
        "src/binding/pose.c",
        "src/binding/clip.c",
        "src/binding/chain.c",
      },
      libraries = { "m" },
    },
    ["sinew"] = "lua/sinew/init.lua",
  },
}
test = {
  type = "command",
  command = "make test",
}
