/***
 * Inverse kinematics: `sinew.ik`, the two-bone solver (a leg, an arm), the aim solver (a head,
 * an eye, a gun arm) and the chain solver (FABRIK or CCD with joint limits: an arm, a tail), in 3-D.
 *
 * A solver is made once from a skeleton and its joints (by name or 1-based index), and solves any
 * pose of that skeleton: it reads the pose's local transforms, works in model space (the space of
 * `pose:to_model`; targets and poles are model-space points), and writes the local rotations of
 * its own joints only. Run it after sampling and blending, before `pose:to_model`. A solve makes
 * no garbage; a refused solve writes nothing; weight 0 leaves the pose bit for bit.
 *
 * `solve` returns whether the target was reached, and the flags of what happened, an integer: a
 * sum of `sinew.ik.REACHED` (1), `DEGENERATE` (2), `TARGET_AT_ROOT` (4), `POLE_ON_LINE` (8),
 * `HINGE_ON_BONE` (16), `SOFTENED` (32), `UNREACHABLE` (64) and `LIMITED` (128); `sinew.ik.has(flags,
 * ik.SOFTENED)` tests one on every Lua. See manual/ik.md.
 *
 * A method raises "sinew.IKTwoBone expected, got <type>" (or "sinew.IKAim ...") when its `self` is
 * something else; the methods' Raises sections leave that out.
 * @module sinew.ik
 */
#include "../core/ik.h"

#include <limits.h>
#include <string.h>

#include "binding.h"

/* The userdata of a solver: the header sn_lua_ik (binding.h), then the core object at
   SOLVER_OFFSET (which keeps the alignment of the userdata block). */
typedef sn_lua_ik ik_header;

#define SOLVER_OFFSET SN_ALIGN16(sizeof(ik_header))

static ik_header *check_two_bone(lua_State *L) { return (ik_header *)sn_lua_checkobject(L, 1, SN_IK_TWO_BONE_MT); }
static ik_header *check_aim(lua_State *L) { return (ik_header *)sn_lua_checkobject(L, 1, SN_IK_AIM_MT); }

/* ---- reading definitions -------------------------------------------------------------------- */

/* the value at `idx` as a table of 3 numbers into v, naming `what` in argument 1's message */
void sn_lua_ik_vec3(lua_State *L, int idx, const char *what, sn_vec3 *v) {
    idx = sn_lua_absindex(L, idx);
    if (!lua_istable(L, idx) || sn_lua_rawlen(L, idx) != 3)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'%s' must be a table of 3 numbers (got %s)", what,
                                              lua_istable(L, idx) ? "a table of another length" : luaL_typename(L, idx)));
    v->x = sn_lua_finite_at(L, idx, 1, 1, what);
    v->y = sn_lua_finite_at(L, idx, 2, 1, what);
    v->z = sn_lua_finite_at(L, idx, 3, 1, what);
}

/* optional vector field `key` of the definition at 1 (left as it is when nil) */
void sn_lua_ik_opt_vec3(lua_State *L, const char *key, sn_vec3 *v) {
    if (sn_lua_field(L, 1, key) != LUA_TNIL) sn_lua_ik_vec3(L, -1, key, v);
    lua_pop(L, 1);
}

/* optional number field `key` of the definition at 1 (NaN passes: the core names it) */
void sn_lua_ik_opt_number(lua_State *L, const char *key, double *v) {
    if (sn_lua_field(L, 1, key) != LUA_TNIL) *v = sn_lua_tonumber(L, -1, 1, key);
    lua_pop(L, 1);
}

/* The skeleton of the definition at 1, pushed at stack index 2 (anchored while the solver is
   built, then kept by it). */
sn_skeleton *sn_lua_ik_skeleton(lua_State *L) {
    sn_skeleton *s;
    sn_lua_field(L, 1, "skeleton"); /* 2 */
    s = (sn_skeleton *)sn_lua_testobject(L, 2, SN_SKELETON_MT);
    if (s == NULL)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'skeleton' must be a %s (got %s)", SN_SKELETON_MT,
                                              sn_lua_typename_of(L, 2)));
    return s;
}

/* The joint at `idx` of skeleton s, 0-based, for the core to range-check; `what` names the place
   in the definition ("joints[2]", "joint"). */
int sn_lua_ik_joint(lua_State *L, int idx, const sn_skeleton *s, const char *what) {
    int t = lua_type(L, idx), j;
    if (t == LUA_TNUMBER) {
        j = sn_lua_toint(L, idx, 1, what);
        return j > INT_MIN ? j - 1 : j;
    }
    if (t == LUA_TSTRING) {
        size_t len;
        const char *name = lua_tolstring(L, idx, &len);
        j = strlen(name) == len ? sn_skeleton_find(s, name) : -1;
        if (j < 0) sn_lua_argerror(L, 1, lua_pushfstring(L, "%s: unknown joint '%s'", what, name));
        return j;
    }
    return sn_lua_argerror(L, 1, lua_pushfstring(L, "%s must be a joint index or name (got %s)", what,
                                                 luaL_typename(L, idx)));
}

/* a new solver userdata of `size` core bytes with metatable `tname`, kept skeleton at 2 */
sn_lua_ik *sn_lua_ik_new(lua_State *L, size_t size, const char *tname) {
    ik_header *h = (ik_header *)sn_lua_newuserdata(L, SOLVER_OFFSET + size);
    memset(h, 0, SOLVER_OFFSET + size);
    h->solver = (char *)h + SOLVER_OFFSET;
    sn_lua_setmetatable(L, tname);
    return h;
}

/* ---- two-bone ---------------------------------------------------------------------------------- */

static const char *const two_bone_fields[] = {"skeleton", "joints", "mid_axis", "soften", "twist", NULL};

/***
 * Builds a two-bone solver: `skeleton` (a Skeleton), `joints` (three joints, root, mid and tip,
 * each the parent of the next: names or 1-based indices), `mid_axis` [{0, 0, 1}] (the knee's
 * hinge in the mid joint's frame, non-zero), `soften` [1] (in (0, 1]: beyond this fraction of the
 * reach the tip falls behind the target, so the knee never pops straight; 1 never softens) and
 * `twist` [0] (radians: a turn of the chain about the root-target axis). The solver keeps its
 * skeleton alive.
 * @function two_bone
 * @tparam table def
 * @treturn IKTwoBone
 * @raise when `def` is not a table; "unknown field 'x' in the two-bone definition"; "'skeleton'
 * must be a sinew.Skeleton (got nil)"; "'joints' must be a table of 3 joints (got string)";
 * "joints[2]: unknown joint 'x'", "joints[2] must be a joint index or name (got table)",
 * "'joints[2]' must be an integer (got 1.5)"; "mid joint 9 is out of range (1 .. 8)", "root and
 * tip are the same joint 'a'", "joints do not form a chain: mid 'b' is not a child of root 'a'";
 * "'mid_axis' must be a table of 3 numbers (got number)", "element 2 of 'mid_axis' is not
 * finite", "'mid_axis' is a zero vector"; "'soften' must be a number (got string)", "'soften' 2 is
 * out of range (0 .. 1)", "'twist' is not finite"
 */
static int l_two_bone(lua_State *L) {
    sn_ik_two_bone_def def;
    sn_error err;
    ik_header *h;
    size_t size;
    int i;
    lua_settop(L, 1);
    sn_ik_two_bone_def_init(&def);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the two-bone definition", two_bone_fields);
    def.skeleton = sn_lua_ik_skeleton(L); /* 2 */
    if (sn_lua_field(L, 1, "joints") != LUA_TTABLE || sn_lua_rawlen(L, -1) != 3)
        sn_lua_argerror(L, 1, lua_pushfstring(L, "'joints' must be a table of 3 joints (got %s)",
                                              lua_istable(L, -1) ? "a table of another length" : luaL_typename(L, -1)));
    for (i = 0; i < 3; i++) {
        static const char *const what[3] = {"joints[1]", "joints[2]", "joints[3]"};
        lua_rawgeti(L, -1, i + 1);
        def.joints[i] = sn_lua_ik_joint(L, -1, def.skeleton, what[i]);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    sn_lua_ik_opt_vec3(L, "mid_axis", &def.mid_axis);
    sn_lua_ik_opt_number(L, "soften", &def.soften);
    sn_lua_ik_opt_number(L, "twist", &def.twist);
    size = sn_ik_two_bone_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    h = sn_lua_ik_new(L, size, SN_IK_TWO_BONE_MT);
    if (sn_ik_two_bone_init(h->solver, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_keepskeleton(L, -1, 2);
    return 1;
}

/* the optional weight at `arg`: 1 when none or nil */
double sn_lua_ik_weight(lua_State *L, int arg) { return lua_isnoneornil(L, arg) ? 1.0 : sn_lua_checknumber(L, arg); }

/* pushes reached and the flags */
static int push_result(lua_State *L, unsigned flags) {
    lua_pushboolean(L, (flags & SN_IK_REACHED) != 0);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

/***
 * Turns the root and mid joints of `pose` so that the tip reaches the target: the knee bends about
 * `mid_axis` only, toward the pole (the mid joint lies in the plane of root, target and pole, on
 * the pole's side), then the twist turns the chain about the root-target axis. An unreachable
 * target leaves the chain straight toward it. Target and pole are model-space points. A refused
 * call writes nothing; weight 0 writes nothing; a weight in (0, 1) turns each joint that fraction
 * of the way (the shorter arc).
 * @function IKTwoBone:solve
 * @tparam Pose pose a pose of the solver's skeleton
 * @tparam number tx the target, model units
 * @tparam number ty
 * @tparam number tz
 * @tparam number px the pole, a model-space point (not on the root-target line)
 * @tparam number py
 * @tparam number pz
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean reached: the tip is on the target (reachable, not softened, weight 1)
 * @treturn int flags: a sum of the `sinew.ik` flags (see the module)
 * @raise "sinew.Pose expected, got nil" for `pose`, "number expected, got nil" for a coordinate or
 * the weight; "pose of another skeleton", "joint 'a' of the pose is not finite", "joint 'a' of the
 * pose has a zero rotation", "joint 'a' of the pose is placed out of range (-1e+12 .. 1e+12)";
 * "target x is not finite", "target y 1e+13 is out of range (-1e+12 .. 1e+12)"; "pole z is not
 * finite" (and out of range); "weight is not finite", "weight 2 is out of range (0 .. 1)"
 */
static int l_two_bone_solve(lua_State *L) {
    static const int args[] = {2, 3, 6, 9}; /* pose, target, pole, weight */
    ik_header *h = check_two_bone(L);
    sn_pose *pose = sn_lua_checkpose(L, 2);
    sn_vec3 target, pole;
    sn_error err;
    unsigned flags = 0;
    double weight;
    target.x = sn_lua_checknumber(L, 3);
    target.y = sn_lua_checknumber(L, 4);
    target.z = sn_lua_checknumber(L, 5);
    pole.x = sn_lua_checknumber(L, 6);
    pole.y = sn_lua_checknumber(L, 7);
    pole.z = sn_lua_checknumber(L, 8);
    weight = sn_lua_ik_weight(L, 9);
    if (sn_ik_two_bone_solve((const sn_ik_two_bone *)h->solver, pose, &target, &pole, weight, &flags, &err) != SN_OK)
        return sn_lua_raise_args(L, &err, args);
    return push_result(L, flags);
}

/***
 * The softening start, in (0, 1].
 * @function IKTwoBone:soften
 * @treturn number
 * @raise never
 */
static int l_two_bone_soften(lua_State *L) {
    lua_pushnumber(L, sn_ik_two_bone_soften((const sn_ik_two_bone *)check_two_bone(L)->solver));
    return 1;
}

/***
 * Sets the softening start: beyond this fraction of the reach the tip falls behind the target.
 * @function IKTwoBone:set_soften
 * @tparam number soften in (0, 1]; 1 never softens
 * @raise "number expected, got nil"; "'soften' is not finite", "'soften' 2 is out of range (0 .. 1)"
 */
static int l_two_bone_set_soften(lua_State *L) {
    ik_header *h = check_two_bone(L);
    double v = sn_lua_checknumber(L, 2);
    sn_error err;
    if (sn_ik_two_bone_set_soften((sn_ik_two_bone *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The twist, radians.
 * @function IKTwoBone:twist
 * @treturn number
 * @raise never
 */
static int l_two_bone_twist(lua_State *L) {
    lua_pushnumber(L, sn_ik_two_bone_twist((const sn_ik_two_bone *)check_two_bone(L)->solver));
    return 1;
}

/***
 * Sets the twist: a turn of the solved chain about the root-target axis.
 * @function IKTwoBone:set_twist
 * @tparam number twist radians, finite
 * @raise "number expected, got nil"; "'twist' is not finite"
 */
static int l_two_bone_set_twist(lua_State *L) {
    ik_header *h = check_two_bone(L);
    double v = sn_lua_checknumber(L, 2);
    sn_error err;
    if (sn_ik_two_bone_set_twist((sn_ik_two_bone *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The solver's joints: root, mid and tip.
 * @function IKTwoBone:joints
 * @treturn int root (1 .. #skeleton)
 * @treturn int mid
 * @treturn int tip
 * @raise never
 */
static int l_two_bone_joints(lua_State *L) {
    const sn_ik_two_bone *ik = (const sn_ik_two_bone *)check_two_bone(L)->solver;
    int i;
    for (i = 0; i < 3; i++) lua_pushinteger(L, sn_ik_two_bone_joint(ik, i) + 1);
    return 3;
}

/***
 * The solver's skeleton.
 * @function IKTwoBone:skeleton
 * @treturn Skeleton
 * @raise never
 */
static int l_two_bone_skeleton(lua_State *L) {
    check_two_bone(L);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_two_bone_tostring(lua_State *L) {
    ik_header *h = check_two_bone(L);
    const sn_ik_two_bone *ik = (const sn_ik_two_bone *)h->solver;
    const sn_skeleton *s = sn_ik_two_bone_skeleton(ik);
    lua_pushfstring(L, "%s ('%s', '%s', '%s'): %p", SN_IK_TWO_BONE_MT, sn_skeleton_name(s, sn_ik_two_bone_joint(ik, 0)),
                    sn_skeleton_name(s, sn_ik_two_bone_joint(ik, 1)), sn_skeleton_name(s, sn_ik_two_bone_joint(ik, 2)),
                    (void *)h);
    return 1;
}

/* ---- aim ------------------------------------------------------------------------------------------ */

static const char *const aim_fields[] = {"skeleton", "joint", "forward", "up", "offset", "limit", "twist", "effector",
                                         NULL};

/***
 * Builds an aim solver: `skeleton` (a Skeleton), `joint` (the joint turned: a name or 1-based
 * index), `forward` [{0, 0, 1}] (the joint's axis aimed at the target, in its frame), `up` [{0, 1,
 * 0}] (the joint's up axis, kept as near its model-space reference as the aim allows; not parallel
 * to `forward`), `offset` [{0, 0, 0}] (where the forward line starts, the eyes, in the joint's
 * frame), `limit` [math.pi] (radians, in (0, pi]: the most the forward axis turns from the input
 * pose; past it the turn eases back to the input as the target goes behind, never flipping) and
 * `twist` [0] (radians, about the joint-target axis after aiming) and `effector` [the joint] (a
 * descendant of the joint, name or index, whose frame holds `forward`, `up` and `offset`: the
 * joint turns so that the effector looks at the target, as a spine or neck turns the head; see
 * manual/ik.md, Spreading an aim). The solver keeps its skeleton alive.
 * @function aim
 * @tparam table def
 * @treturn IKAim
 * @raise when `def` is not a table; "unknown field 'x' in the aim definition"; "'skeleton' must be
 * a sinew.Skeleton (got nil)"; "'joint' is needed", "joint: unknown joint 'x'", "joint must be a
 * joint index or name (got table)", "'joint' must be an integer (got 1.5)", "joint 9 is out of
 * range (1 .. 8)"; "'forward' must be a table of 3 numbers (got number)", "element 2 of 'up' is not
 * finite", "'forward' is a zero vector", "'up' is parallel to 'forward'", "'offset' is out of range
 * (-1e+12 .. 1e+12)"; "'limit' must be a number (got string)", "'limit' 4 is out of range (0 ..
 * 3.14159)", "'twist' is not finite"; "effector 3 is not a descendant of joint 5 within 32 joints"
 */
static int l_aim(lua_State *L) {
    sn_ik_aim_def def;
    sn_error err;
    ik_header *h;
    size_t size;
    lua_settop(L, 1);
    sn_ik_aim_def_init(&def);
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checkfields(L, 1, 1, "the aim definition", aim_fields);
    def.skeleton = sn_lua_ik_skeleton(L); /* 2 */
    if (sn_lua_field(L, 1, "joint") == LUA_TNIL) sn_lua_argerror(L, 1, "'joint' is needed");
    def.joint = sn_lua_ik_joint(L, -1, def.skeleton, "joint");
    lua_pop(L, 1);
    sn_lua_ik_opt_vec3(L, "forward", &def.forward);
    sn_lua_ik_opt_vec3(L, "up", &def.up);
    sn_lua_ik_opt_vec3(L, "offset", &def.offset);
    sn_lua_ik_opt_number(L, "limit", &def.limit);
    sn_lua_ik_opt_number(L, "twist", &def.twist);
    if (sn_lua_field(L, 1, "effector") != LUA_TNIL) def.effector = sn_lua_ik_joint(L, -1, def.skeleton, "effector");
    lua_pop(L, 1);
    size = sn_ik_aim_size(&def, &err);
    if (size == 0) return sn_lua_raise(L, &err, 0);
    h = sn_lua_ik_new(L, size, SN_IK_AIM_MT);
    if (sn_ik_aim_init(h->solver, size, &def, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    sn_lua_keepskeleton(L, -1, 2);
    return 1;
}

/***
 * Turns the joint of `pose` about its own position so that its forward axis, drawn from the
 * offset, passes through the target (a model-space point), with the up axis as near the up
 * reference as that allows (by default the up axis's own direction in the input pose: the least
 * roll), then the twist; within the limit (see `sinew.ik.aim`). A target the forward line cannot
 * pass through (nearer the joint than the offset's line) leaves the pose unchanged and sets
 * `DEGENERATE`. A refused call writes nothing; weight 0 writes nothing.
 * @function IKAim:solve
 * @tparam Pose pose a pose of the solver's skeleton
 * @tparam number tx the target, model units
 * @tparam number ty
 * @tparam number tz
 * @tparam[opt=1] number weight in [0, 1]
 * @tparam[opt] number ux the up reference, a model-space direction (all three or none)
 * @tparam[opt] number uy
 * @tparam[opt] number uz
 * @treturn boolean reached: the forward axis is on the target (not limited, weight 1)
 * @treturn int flags: a sum of the `sinew.ik` flags (see the module)
 * @raise "sinew.Pose expected, got nil" for `pose`, "number expected, got nil" for a coordinate or
 * the weight (and for `uy`, `uz` when `ux` is given); "pose of another skeleton", "joint 'a' of the
 * pose is not finite", "joint 'a' of the pose has a zero rotation", "joint 'a' of the pose is
 * placed out of range (-1e+12 .. 1e+12)"; "target x is not finite", "target y 1e+13 is out of
 * range (-1e+12 .. 1e+12)"; "up x is not finite", "up is a zero vector"; "weight is not finite",
 * "weight 2 is out of range (0 .. 1)"
 */
static int l_aim_solve(lua_State *L) {
    static const int args[] = {2, 3, 7, 6}; /* pose, target, up, weight */
    ik_header *h = check_aim(L);
    sn_pose *pose = sn_lua_checkpose(L, 2);
    sn_vec3 target, up;
    sn_error err;
    unsigned flags = 0;
    double weight;
    int has_up = !lua_isnoneornil(L, 7);
    target.x = sn_lua_checknumber(L, 3);
    target.y = sn_lua_checknumber(L, 4);
    target.z = sn_lua_checknumber(L, 5);
    weight = sn_lua_ik_weight(L, 6);
    if (has_up) {
        up.x = sn_lua_checknumber(L, 7);
        up.y = sn_lua_checknumber(L, 8);
        up.z = sn_lua_checknumber(L, 9);
    }
    if (sn_ik_aim_solve((const sn_ik_aim *)h->solver, pose, &target, has_up ? &up : NULL, weight, &flags, &err) != SN_OK)
        return sn_lua_raise_args(L, &err, args);
    return push_result(L, flags);
}

/***
 * The limit, radians.
 * @function IKAim:limit
 * @treturn number
 * @raise never
 */
static int l_aim_limit(lua_State *L) {
    lua_pushnumber(L, sn_ik_aim_limit((const sn_ik_aim *)check_aim(L)->solver));
    return 1;
}

/***
 * Sets the limit: the most the forward axis turns from the input pose.
 * @function IKAim:set_limit
 * @tparam number limit radians, in (0, pi]; pi limits nothing
 * @raise "number expected, got nil"; "'limit' is not finite", "'limit' 4 is out of range (0 ..
 * 3.14159)"
 */
static int l_aim_set_limit(lua_State *L) {
    ik_header *h = check_aim(L);
    double v = sn_lua_checknumber(L, 2);
    sn_error err;
    if (sn_ik_aim_set_limit((sn_ik_aim *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The twist, radians.
 * @function IKAim:twist
 * @treturn number
 * @raise never
 */
static int l_aim_twist(lua_State *L) {
    lua_pushnumber(L, sn_ik_aim_twist((const sn_ik_aim *)check_aim(L)->solver));
    return 1;
}

/***
 * Sets the twist: a turn about the joint-target axis after aiming.
 * @function IKAim:set_twist
 * @tparam number twist radians, finite
 * @raise "number expected, got nil"; "'twist' is not finite"
 */
static int l_aim_set_twist(lua_State *L) {
    ik_header *h = check_aim(L);
    double v = sn_lua_checknumber(L, 2);
    sn_error err;
    if (sn_ik_aim_set_twist((sn_ik_aim *)h->solver, v, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    return 0;
}

/***
 * The joint the solver turns.
 * @function IKAim:joint
 * @treturn int (1 .. #skeleton)
 * @raise never
 */
static int l_aim_joint(lua_State *L) {
    lua_pushinteger(L, sn_ik_aim_joint((const sn_ik_aim *)check_aim(L)->solver) + 1);
    return 1;
}

/***
 * The solver's effector, a 1-based index (the joint itself when the definition gave none).
 * @function IKAim:effector
 * @treturn int (1 .. #skeleton)
 * @raise never
 */
static int l_aim_effector(lua_State *L) {
    lua_pushinteger(L, sn_ik_aim_effector((const sn_ik_aim *)check_aim(L)->solver) + 1);
    return 1;
}

/***
 * The solver's skeleton.
 * @function IKAim:skeleton
 * @treturn Skeleton
 * @raise never
 */
static int l_aim_skeleton(lua_State *L) {
    check_aim(L);
    sn_lua_pushskeleton(L, 1);
    return 1;
}

static int l_aim_tostring(lua_State *L) {
    ik_header *h = check_aim(L);
    const sn_ik_aim *ik = (const sn_ik_aim *)h->solver;
    lua_pushfstring(L, "%s ('%s'): %p", SN_IK_AIM_MT, sn_skeleton_name(sn_ik_aim_skeleton(ik), sn_ik_aim_joint(ik)),
                    (void *)h);
    return 1;
}

/* ---- flags -------------------------------------------------------------------------------------- */

/***
 * Whether `flags` (as `solve` returns them) holds `flag` (one of the `sinew.ik` flags): a test
 * that works on every Lua (5.1 and LuaJIT have no `&` operator).
 * @function has
 * @tparam int flags
 * @tparam int flag
 * @treturn boolean
 * @raise "'flags' must be a number (got nil)", "'flags' must be an integer (got 1.5)" (and so for
 * `flag`)
 */
static int l_has(lua_State *L) {
    int fi = sn_lua_toint(L, 1, 1, "flags"), bi = sn_lua_toint(L, 2, 2, "flag");
    lua_pushboolean(L, ((unsigned)fi & (unsigned)bi) != 0);
    return 1;
}

/***
 * The kind of an IK solver and its dimensions: "two_bone", "aim", "chain" or "feet" and 3 for the
 * solvers of 3-D skeletons, "two_bone", "aim" or "chain" and 2 for those of 2-D rigs (what made
 * it; `sinew.ik.kind` also knows "spread"); nil for anything else (the animator's `ik` lists call
 * each kind's `solve` with its own arguments).
 * @function kind
 * @param v any value
 * @treturn ?string the kind
 * @treturn ?int 3 or 2
 * @raise never
 */
static int l_kind(lua_State *L) {
    static const struct {
        const char *mt, *name;
        int dims;
    } kinds[] = {{SN_IK_TWO_BONE_MT, "two_bone", 3}, {SN_IK_AIM_MT, "aim", 3},           {SN_IK_CHAIN_MT, "chain", 3},
                 {SN_IK_FEET_MT, "feet", 3},         {SN_IK2D_TWO_BONE_MT, "two_bone", 2}, {SN_IK2D_AIM_MT, "aim", 2},
                 {SN_IK2D_CHAIN_MT, "chain", 2}};
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (sn_lua_testobject(L, 1, kinds[i].mt) != NULL) {
            lua_pushstring(L, kinds[i].name);
            lua_pushinteger(L, kinds[i].dims);
            return 2;
        }
    }
    lua_pushnil(L);
    return 1;
}

void sn_open_ik(lua_State *L, int module) {
    static const luaL_Reg two_bone_methods[] = {
        {"solve", l_two_bone_solve}, {"soften", l_two_bone_soften}, {"set_soften", l_two_bone_set_soften},
        {"twist", l_two_bone_twist}, {"set_twist", l_two_bone_set_twist}, {"joints", l_two_bone_joints},
        {"skeleton", l_two_bone_skeleton}, {NULL, NULL}};
    static const luaL_Reg two_bone_meta[] = {{"__tostring", l_two_bone_tostring}, {NULL, NULL}};
    static const luaL_Reg aim_methods[] = {
        {"solve", l_aim_solve}, {"limit", l_aim_limit}, {"set_limit", l_aim_set_limit}, {"twist", l_aim_twist},
        {"set_twist", l_aim_set_twist}, {"joint", l_aim_joint}, {"effector", l_aim_effector},
        {"skeleton", l_aim_skeleton}, {NULL, NULL}};
    static const luaL_Reg aim_meta[] = {{"__tostring", l_aim_tostring}, {NULL, NULL}};
    static const struct {
        const char *name;
        int value;
    } flags[] = {{"REACHED", SN_IK_REACHED},           {"DEGENERATE", SN_IK_DEGENERATE},
                 {"TARGET_AT_ROOT", SN_IK_TARGET_AT_ROOT}, {"POLE_ON_LINE", SN_IK_POLE_ON_LINE},
                 {"HINGE_ON_BONE", SN_IK_HINGE_ON_BONE}, {"SOFTENED", SN_IK_SOFTENED},
                 {"UNREACHABLE", SN_IK_UNREACHABLE},   {"LIMITED", SN_IK_LIMITED}};
    size_t i;
    sn_lua_newclass(L, SN_IK_TWO_BONE_MT, two_bone_methods, two_bone_meta);
    sn_lua_newclass(L, SN_IK_AIM_MT, aim_methods, aim_meta);
    lua_createtable(L, 0, 12);
    lua_pushcfunction(L, l_two_bone);
    lua_setfield(L, -2, "two_bone");
    lua_pushcfunction(L, l_aim);
    lua_setfield(L, -2, "aim");
    sn_open_ik_chain(L, lua_gettop(L));
    lua_pushcfunction(L, l_has);
    lua_setfield(L, -2, "has");
    lua_pushcfunction(L, l_kind);
    lua_setfield(L, -2, "kind");
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        lua_pushinteger(L, flags[i].value);
        lua_setfield(L, -2, flags[i].name);
    }
    sn_open_ik2d(L, lua_gettop(L));
    sn_open_ik_feet(L, -1);
    lua_setfield(L, module, "ik");
}
