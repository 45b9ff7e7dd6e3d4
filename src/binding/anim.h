/*
 * The animation binding shared between files: skeletons, poses, masks, matrices and clips.
 *
 * A Pose, Mask, Matrices or Clip userdata keeps its Skeleton userdata alive through its
 * uservalue (the skeleton's own uservalue table, whose element 1 is the skeleton), so the
 * skeleton a core object points to never goes away first.
 */
#ifndef SN_ANIM_H
#define SN_ANIM_H

#include "../core/pose.h"
#include "../core/skeleton.h"
#include "binding.h"

#define SN_SKELETON_MT "sinew.Skeleton"
#define SN_POSE_MT "sinew.Pose"
#define SN_MASK_MT "sinew.Mask"
#define SN_MATRICES_MT "sinew.Matrices"
#define SN_CLIP_MT "sinew.Clip"

/// The userdata at argument `arg` if its metatable is `tname`; otherwise an argument error
/// "<tname> expected, got <type>".
void *sn_lua_checkobject(lua_State *L, int arg, const char *tname);
/// The Skeleton at argument `arg`; otherwise an argument error "sinew.Skeleton expected, got ...".
sn_skeleton *sn_lua_checkskeleton(lua_State *L, int arg);
/// The Pose at argument `arg`; otherwise an argument error "sinew.Pose expected, got ...".
sn_pose *sn_lua_checkpose(lua_State *L, int arg);
/// The Mask at argument `arg`; otherwise an argument error "sinew.Mask expected, got ...".
sn_mask *sn_lua_checkmask(lua_State *L, int arg);

/// Sets the uservalue of the userdata at `ud` to that of the Skeleton userdata at `skel`,
/// which keeps the skeleton alive as long as the userdata.
void sn_lua_keepskeleton(lua_State *L, int ud, int skel);
/// Pushes the Skeleton userdata kept by the userdata at `ud` (see sn_lua_keepskeleton), or nil.
void sn_lua_pushskeleton(lua_State *L, int ud);
/// Reads argument `arg` as a joint of `s`: a 1-based index (integer in range) or a joint name;
/// returns it 0-based, or raises an argument error.
int sn_lua_checkjoint(lua_State *L, int arg, const sn_skeleton *s);
/// Like sn_lua_checkjoint for the value at stack index `idx`, blaming argument `arg`.
int sn_lua_tojoint(lua_State *L, int idx, const sn_skeleton *s, int arg);

/// Pushes and returns `v` as a short string for messages: "4" rather than "4.0".
const char *sn_lua_numstr(lua_State *L, lua_Number v);

/// Openers of each part; sn_open_anim calls them all.
void sn_open_skeleton(lua_State *L, int module);
void sn_open_pose(lua_State *L, int module);
void sn_open_clip(lua_State *L, int module);

#endif
