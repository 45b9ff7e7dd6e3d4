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
dependencies = {
  "lua >= 5.1, < 5.5",
  "dkjson >= 2.5", -- the JSON of glTF files (lua-cjson is used instead when installed)
}
build = {
  type = "builtin",
  modules = {
    ["sinew.core"] = {
      sources = {
        "src/core/common.c",
        "src/core/pose2d.c",
        "src/core/quat.c",
        "src/core/rig2d_anim.c",
        "src/core/rig2d_data.c",
        "src/core/rig2d_reader.c",
        "src/core/rig2d_rig.c",
        "src/core/rig2d_world.c",
        "src/core/chain.c",
        "src/core/chain_broadphase.c",
        "src/core/chain_collider.c",
        "src/core/chain_coupled.c",
        "src/core/chain_skeleton.c",
        "src/core/chain_step.c",
        "src/core/chain_sweep.c",
        "src/core/blendspace.c",
        "src/core/blendspace_freeform.c",
        "src/core/blendspace_simple.c",
        "src/core/blendspace_triangulated.c",
        "src/core/delaunay.c",
        "src/core/skeleton.c",
        "src/core/pose.c",
        "src/core/blend.c",
        "src/core/clip_build.c",
        "src/core/clip_cursor.c",
        "src/core/clip_sample.c",
        "src/core/gltf.c",
        "src/core/group.c",
        "src/binding/helpers.c",
        "src/binding/module.c",
        "src/binding/quat.c",
        "src/binding/rig2d.c",
        "src/binding/blendspace.c",
        "src/binding/skeleton.c",
        "src/binding/pose.c",
        "src/binding/clip.c",
        "src/binding/chain.c",
        "src/binding/ffi.c",
        "src/binding/gltf.c",
        "src/binding/group.c",
      },
      libraries = { "m" },
    },
    ["sinew"] = "lua/sinew/init.lua",
    ["sinew.native"] = "lua/sinew/native.lua",
    ["sinew.ffi"] = "lua/sinew/ffi.lua",
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
  },
}
test = {
  type = "command",
  command = "make test",
}
