/***
 * The `solve` methods of the 2-D IK solvers (`sinew.ik` given a `rig`; their definitions and other
 * methods are in ik2d.c): each reads the rig's world matrices, calls the core's 2-D solver, turns
 * the bones through their inherit flags in the pose and shows the result on the rig.
 * @module sinew.ik
 */
#include <math.h>

#include "ik2d_solver.h"

/// Most solves of one call (see IK2DTwoBone:solve: under uneven parent scales each pass closes
/// about half the gap; 8 passes end within 1e-3 of the reach on parents scaled 0.7 .. 1.4), and the
/// relative miss that ends them.
#define PASSES 8
#define CLOSE 1e-9

static ik2d *check_two_bone(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_TWO_BONE_MT); }
static ik2d *check_aim(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_AIM_MT); }
static ik2d *check_chain(lua_State *L) { return (ik2d *)sn_lua_checkobject(L, 1, SN_IK2D_CHAIN_MT); }

/* The pose a solve writes: the 2-D pose at 2 (of the rig's armature), or the rig's own when nil. */
static double *solve_pose(lua_State *L, const ik2d *k, int *own) {
    const sn_rig2d_data *d = NULL;
    double *v;
    if (lua_isnoneornil(L, 2)) {
        *own = 1;
        return sn_rig2d_pose(k->rig);
    }
    *own = 0;
    v = sn_lua_testpose2d(L, 2, &d);
    if (v == NULL)
        sn_lua_argerror(L, 2, lua_pushfstring(L, "a 2-D pose of the solver's armature or nil expected, got %s",
                                              sn_lua_typename_of(L, 2)));
    if (d != k->data) sn_lua_argerror(L, 2, "a 2-D pose of another armature");
    return v;
}

static double opt_weight(lua_State *L, int arg) { return lua_isnoneornil(L, arg) ? 1.0 : sn_lua_checknumber(L, arg); }

/* after turning: the rig shows the written pose (the bones it changed, and those below them,
   redone; the solve read the rest as current) */
static void show(const ik2d *k, const double *pose, int own) {
    sn_rig2d_world_changed(k->rig, own ? NULL : pose, k->bone[0]);
}

static int push_result(lua_State *L, unsigned flags) {
    lua_pushboolean(L, (flags & SN_IK_REACHED) != 0);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

/***
 * Turns the two bones so that the end of the second reaches the target (armature space, the
 * rig's y-down plane): the knee on the side `bend` picks (1: as DragonBones' bendPositive in an
 * unmirrored armature, counterclockwise on screen from the root-target line; -1: the other side).
 * An unreachable target leaves the arm straight toward it. Reads the rig's world matrices; writes
 * the two rotations into `pose` (nil: the rig's own pose) and updates the rig's world matrices.
 * @function IK2DTwoBone:solve
 * @param pose a 2-D pose of the rig's armature (`rig:pose()`), or nil for the rig's own
 * @tparam number tx target x
 * @tparam number ty target y
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean whether the tip is on the target
 * @treturn int the flags (sinew.ik.REACHED, UNREACHABLE, SOFTENED, TARGET_AT_ROOT, DEGENERATE)
 * @raise "a 2-D pose of the solver's armature or nil expected, got number", "a 2-D pose of another
 * armature"; "number expected, got nil" (tx, ty, weight); "the target is not finite or beyond 1e+12";
 * "'weight' 2 is out of range (0 .. 1)"; "a point of the chain is not finite ..." (argument 2) when
 * the rig's bones are placed so
 */
static int l_two_bone_solve(lua_State *L) {
    ik2d *k = check_two_bone(L);
    int own;
    double *pose = solve_pose(L, k, &own);
    double t[2], p[6], turn[2], seg[4], world[2];
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    /* one solve is exact where the chain's parents are similarities (uniform scale, no skew, any
       mirroring); under others the bones' world lengths change as they turn: a few more passes
       from the updated world close the gap */
    for (int pass = 0; pass < PASSES; pass++) {
        unsigned f = 0;
        sn_rig2d_bone_points(k->rig, k->bone[0], p, NULL);
        sn_rig2d_bone_points(k->rig, k->bone[1], p + 2, p + 4);
        if (sn_ik2d_two_bone(p, t, k->bend, k->soften, w, turn, &f, &err) != SN_OK) {
            if (pass == 0) return sn_lua_raise(L, &err, 1);
            break;
        }
        if (pass == 0) flags = f;
        if (turn[0] == 0.0 && turn[1] == 0.0) break;
        seg[0] = p[2] - p[0], seg[1] = p[3] - p[1], seg[2] = p[4] - p[2], seg[3] = p[5] - p[3];
        world[0] = turn[0];
        world[1] = turn[0] + turn[1];
        sn_rig2d_turn(k->rig, k->bone, 2, seg, world, pose);
        show(k, pose, own);
        if (!(flags & SN_IK_REACHED)) break;
        sn_rig2d_bone_points(k->rig, k->bone[1], p + 2, p + 4);
        double reach = hypot(p[2] - p[0], p[3] - p[1]) + hypot(p[4] - p[2], p[5] - p[3]);
        if (hypot(p[4] - t[0], p[5] - t[1]) <= CLOSE * reach) break;
        if (pass == PASSES - 1) flags &= ~(unsigned)SN_IK_REACHED;
    }
    return push_result(L, flags);
}

/***
 * Turns the bone so that its forward axis, drawn from the offset, passes through the target
 * (armature space); `limit` caps the turn softly. Reads the rig's world matrices; writes the
 * rotation into `pose` (nil: the rig's own) and updates the rig's world matrices.
 * @function IK2DAim:solve
 * @param pose a 2-D pose of the rig's armature, or nil
 * @tparam number tx
 * @tparam number ty
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn boolean whether the axis passes through the target
 * @treturn int the flags (REACHED, LIMITED, DEGENERATE)
 * @raise as IK2DTwoBone:solve
 */
static int l_aim_solve(lua_State *L) {
    ik2d *k = check_aim(L);
    int own;
    double *pose = solve_pose(L, k, &own);
    double t[2], o[2], from[2], dir[2], turn;
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    int b = k->bone[0];
    const double *m = sn_rig2d_bone_matrix(k->rig, b);
    double fx = cos(k->forward), fy = sin(k->forward);
    sn_rig2d_bone_points(k->rig, b, o, NULL);
    dir[0] = m[0] * fx + m[2] * fy;
    dir[1] = m[1] * fx + m[3] * fy;
    from[0] = o[0] + m[0] * k->offset[0] + m[2] * k->offset[1];
    from[1] = o[1] + m[1] * k->offset[0] + m[3] * k->offset[1];
    if (sn_ik2d_aim(o, from, dir, t, k->limit, w, &turn, &flags, &err) != SN_OK) return sn_lua_raise(L, &err, 1);
    if (turn != 0.0) {
        sn_rig2d_turn(k->rig, k->bone, 1, dir, &turn, pose);
        show(k, pose, own);
    }
    return push_result(L, flags);
}

/***
 * Turns the chain's bones (CCD or FABRIK in the plane) so that the end of the last bone reaches
 * the target (armature space), each limited bone's rotation (its local rotation as the rig composes
 * it: setup plus pose) kept between its min and max. Reads the rig's world matrices; writes the
 * rotations into `pose` (nil: the rig's own) and updates the rig's world matrices.
 * @function IK2DChain:solve
 * @param pose a 2-D pose of the rig's armature, or nil
 * @tparam number tx
 * @tparam number ty
 * @tparam[opt=1] number weight in [0, 1]
 * @treturn number the distance left from the tip to the target
 * @treturn int the flags (REACHED, LIMITED, UNREACHABLE, DEGENERATE)
 * @raise as IK2DTwoBone:solve
 */
static int l_chain_solve(lua_State *L) {
    ik2d *k = check_chain(L);
    int own, n = k->n;
    double *pose = solve_pose(L, k, &own);
    double t[2], p[2 * (SN_IK2D_CHAIN_MAX + 1)], turn[SN_IK2D_CHAIN_MAX], lo[SN_IK2D_CHAIN_MAX], hi[SN_IK2D_CHAIN_MAX];
    double seg[2 * SN_IK2D_CHAIN_MAX], world[SN_IK2D_CHAIN_MAX], left = 0.0;
    unsigned flags = 0;
    sn_error err;
    t[0] = sn_lua_checknumber(L, 3);
    t[1] = sn_lua_checknumber(L, 4);
    double w = opt_weight(L, 5);
    for (int i = 0; i < n; i++) sn_rig2d_bone_points(k->rig, k->bone[i], p + 2 * i, i == n - 1 ? p + 2 * n : NULL);
    if (k->limited) {
        /* local rotation limits as bounds on the turns: a turn d changes the rotation by s d */
        for (int i = 0; i < n; i++) {
            if (!(k->min[i] > -HUGE_VAL)) {
                lo[i] = -HUGE_VAL, hi[i] = HUGE_VAL;
                continue;
            }
            double c = 0.5 * (k->min[i] + k->max[i]), r = sn_rig2d_local_rotation(k->rig, k->bone[i], pose);
            double v = r - c;
            if (!sn_isfinite(v)) v = 0.0; /* the core refuses the points then */
            v = c + (v - 6.283185307179586 * floor((v + 3.141592653589793) / 6.283185307179586));
            double a = k->min[i] - v, b = k->max[i] - v;
            if (sn_rig2d_turn_sign(k->rig, k->bone[i]) < 0.0)
                lo[i] = -b, hi[i] = -a;
            else
                lo[i] = a, hi[i] = b;
        }
    }
    if (sn_ik2d_chain(p, n, t, (sn_ik_method)k->method, k->iterations, k->tolerance, k->limited ? lo : NULL,
                      k->limited ? hi : NULL, w, turn, &left, &flags, &err) != SN_OK)
        return sn_lua_raise(L, &err, 1);
    double acc = 0.0;
    int moved = 0;
    for (int i = 0; i < n; i++) {
        acc += turn[i];
        world[i] = acc;
        seg[2 * i] = p[2 * i + 2] - p[2 * i];
        seg[2 * i + 1] = p[2 * i + 3] - p[2 * i + 1];
        moved |= turn[i] != 0.0;
    }
    if (moved) {
        sn_rig2d_turn(k->rig, k->bone, n, seg, world, pose);
        show(k, pose, own);
        /* the distance as the rig now has it (under uneven parent scales a turn is approximate) */
        double tip[2], o[2];
        sn_rig2d_bone_points(k->rig, k->bone[n - 1], o, tip);
        left = hypot(tip[0] - t[0], tip[1] - t[1]);
        if (left > k->tolerance) flags &= ~(unsigned)SN_IK_REACHED;
    }
    lua_pushnumber(L, left);
    lua_pushinteger(L, (lua_Integer)flags);
    return 2;
}

void sn_open_ik2d_solve(lua_State *L) {
    static const struct {
        const char *tname;
        luaL_Reg solve[2];
    } classes[] = {{SN_IK2D_TWO_BONE_MT, {{"solve", l_two_bone_solve}, {NULL, NULL}}},
                   {SN_IK2D_AIM_MT, {{"solve", l_aim_solve}, {NULL, NULL}}},
                   {SN_IK2D_CHAIN_MT, {{"solve", l_chain_solve}, {NULL, NULL}}}};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        luaL_getmetatable(L, classes[i].tname);
        lua_getfield(L, -1, "__index");
        lua_pushstring(L, classes[i].tname); /* the methods' upvalue: their class (sn_lua_checkself) */
        sn_lua_setfuncs(L, classes[i].solve, 1);
        lua_pop(L, 2);
    }
}
