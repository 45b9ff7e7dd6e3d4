/***
 * Quaternions as plain numbers: `sinew.quat`.
 *
 * A quaternion is passed and returned as four numbers `x, y, z, w` (w is the scalar part),
 * never as a table, so per-frame use makes no garbage. Rotations are right-handed, angles in
 * radians. Functions that need a rotation refuse a zero quaternion and normalise their inputs.
 * For finite arguments (subnormal and huge ones too) every function returns finite numbers or
 * raises an error: "result is too large" where the true result exceeds the largest double.
 * @module sinew.quat
 */
#include "../core/quat.h"

#include <string.h>

#include "binding.h"

static sn_quat check_quat(lua_State *L, int arg) {
    sn_quat q;
    q.x = sn_lua_checkfinite(L, arg);
    q.y = sn_lua_checkfinite(L, arg + 1);
    q.z = sn_lua_checkfinite(L, arg + 2);
    q.w = sn_lua_checkfinite(L, arg + 3);
    return q;
}

static sn_vec3 check_vec3(lua_State *L, int arg) {
    sn_vec3 v;
    v.x = sn_lua_checkfinite(L, arg);
    v.y = sn_lua_checkfinite(L, arg + 1);
    v.z = sn_lua_checkfinite(L, arg + 2);
    return v;
}

static int push_quat(lua_State *L, const sn_quat *q) {
    lua_pushnumber(L, q->x);
    lua_pushnumber(L, q->y);
    lua_pushnumber(L, q->z);
    lua_pushnumber(L, q->w);
    return 4;
}

/* Lua arguments of (quaternion, quaternion, number), (quaternion, number or vector) and
   (vector, vector) parameters */
static const int QQN[] = {1, 5, 9}, QX[] = {1, 5}, VV[] = {1, 4};

/***
 * The identity rotation.
 * @function identity
 * @return 0, 0, 0, 1
 * @raise never (it reads no argument)
 */
static int l_identity(lua_State *L) {
    sn_quat q = {0, 0, 0, 1};
    return push_quat(L, &q);
}

/***
 * Hamilton product a * b (b is applied first, then a), of quaternions of any length.
 * @function mul
 * @tparam number ax quaternion a (any length)
 * @tparam number ay
 * @tparam number az
 * @tparam number aw
 * @tparam number bx quaternion b (any length)
 * @tparam number by
 * @tparam number bz
 * @tparam number bw
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "result is too large" when a component of the
 * product exceeds the largest double
 */
static int l_mul(lua_State *L) {
    sn_quat a = check_quat(L, 1), b = check_quat(L, 5), r;
    sn_error err;
    if (sn_quat_mul(&a, &b, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * Conjugate (-x, -y, -z, w): the inverse of a unit quaternion.
 * @function conj
 * @tparam number x the quaternion (any length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return x, y, z, w
 * @raise for an argument that is not a finite number
 */
static int l_conj(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_quat_conj(&q, &r);
    return push_quat(L, &r);
}

/***
 * Inverse conj(q) / |q|^2.
 * @function inverse
 * @tparam number x the quaternion (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "zero quaternion"; "result is too large:
 * 1/|q| overflows" when |q| is below about 5.6e-309
 */
static int l_inverse(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_error err;
    if (sn_quat_inverse(&q, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * q / |q| for any non-zero q (tiny and huge components too).
 * @function normalize
 * @tparam number x the quaternion (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return x, y, z, w: unit length
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_normalize(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_error err;
    if (sn_quat_normalize(&q, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * 4-D dot product.
 * @function dot
 * @tparam number ax quaternion a (any length)
 * @tparam number ay
 * @tparam number az
 * @tparam number aw
 * @tparam number bx quaternion b (any length)
 * @tparam number by
 * @tparam number bz
 * @tparam number bw
 * @return number
 * @raise for an argument that is not a finite number; "result is too large" when the product
 * exceeds the largest double
 */
static int l_dot(lua_State *L) {
    sn_quat a = check_quat(L, 1), b = check_quat(L, 5);
    double r;
    sn_error err;
    if (sn_quat_dot(&a, &b, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    lua_pushnumber(L, r);
    return 1;
}

/***
 * Length |q|.
 * @function length
 * @tparam number x the quaternion (any length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return number
 * @raise for an argument that is not a finite number; "result is too large" when |q| exceeds the
 * largest double
 */
static int l_length(lua_State *L) {
    sn_quat q = check_quat(L, 1);
    double r;
    sn_error err;
    if (sn_quat_length(&q, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    lua_pushnumber(L, r);
    return 1;
}

/***
 * Rotates the vector (vx, vy, vz) by q (normalised first).
 * @function rotate
 * @tparam number x the rotation (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @tparam number vx the vector (any unit: the result is in the same)
 * @tparam number vy
 * @tparam number vz
 * @return x, y, z
 * @raise for an argument that is not a finite number; "zero quaternion"; "result is too large"
 * (argument 5) when a component of the result exceeds the largest double
 */
static int l_rotate(lua_State *L) {
    sn_quat q = check_quat(L, 1);
    sn_vec3 v = check_vec3(L, 5), r;
    sn_error err;
    if (sn_quat_rotate(&q, &v, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QX);
    lua_pushnumber(L, r.x);
    lua_pushnumber(L, r.y);
    lua_pushnumber(L, r.z);
    return 3;
}

/***
 * Rotation of `angle` radians about an axis of any non-zero length (right-handed).
 * @function from_axis_angle
 * @tparam number ax the axis (any non-zero length)
 * @tparam number ay
 * @tparam number az
 * @tparam number angle radians (any finite value)
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "zero axis"
 */
static int l_from_axis_angle(lua_State *L) {
    static const int args[] = {1, 4};
    sn_vec3 a = check_vec3(L, 1);
    sn_quat r;
    sn_error err;
    if (sn_quat_from_axis_angle(&a, sn_lua_checkfinite(L, 4), &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, args);
    return push_quat(L, &r);
}

/***
 * Unit axis and angle of a rotation; the identity gives the axis (1, 0, 0).
 * @function to_axis_angle
 * @tparam number x the rotation (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return ax, ay, az, angle: a unit axis and radians in [0, pi]
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_to_axis_angle(lua_State *L) {
    sn_quat q = check_quat(L, 1);
    sn_vec3 a;
    double angle;
    sn_error err;
    if (sn_quat_to_axis_angle(&q, &a, &angle, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    lua_pushnumber(L, a.x);
    lua_pushnumber(L, a.y);
    lua_pushnumber(L, a.z);
    lua_pushnumber(L, angle);
    return 4;
}

/***
 * Rotation from Tait-Bryan angles. `x`, `y`, `z` are the angles about the X, Y and Z axes;
 * `order` (default "XYZ") is the order in which these rotations are applied about the fixed
 * (extrinsic, world) axes: "XYZ" rotates about X first, then Y, then Z, so q = qz * qy * qx.
 * The same rotation read as intrinsic (body-axis) rotations goes in reverse order: Z, Y', X''.
 * @function from_euler
 * @tparam number x radians about X
 * @tparam number y radians about Y
 * @tparam number z radians about Z
 * @tparam[opt="XYZ"] string order one of XYZ, XZY, YXZ, YZX, ZXY, ZYX
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "unknown order 'x'" for another order
 */
static int l_from_euler(lua_State *L) {
    static const char *const orders[] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    double x = sn_lua_checkfinite(L, 1), y = sn_lua_checkfinite(L, 2), z = sn_lua_checkfinite(L, 3);
    const char *o = sn_lua_optstring(L, 4, "XYZ");
    int i;
    sn_quat r;
    for (i = 0; i < 6; i++)
        if (strcmp(o, orders[i]) == 0) break;
    if (i == 6) return sn_lua_argerror(L, 4, lua_pushfstring(L, "unknown order '%s'", o));
    sn_quat_from_euler(x, y, z, (sn_euler_order)i, &r);
    return push_quat(L, &r);
}

/***
 * Shortest-arc rotation turning the direction u onto v; antiparallel vectors give a half turn
 * about an axis perpendicular to u.
 * @function from_to
 * @tparam number ux the first direction (any non-zero length)
 * @tparam number uy
 * @tparam number uz
 * @tparam number vx the second direction (any non-zero length)
 * @tparam number vy
 * @tparam number vz
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "zero vector"
 */
static int l_from_to(lua_State *L) {
    sn_vec3 u = check_vec3(L, 1), v = check_vec3(L, 4);
    sn_quat r;
    sn_error err;
    if (sn_quat_from_to(&u, &v, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, VV);
    return push_quat(L, &r);
}

/***
 * Rotation angle between two orientations (q and -q are the same orientation).
 * @function angle
 * @tparam number ax orientation a (any non-zero length)
 * @tparam number ay
 * @tparam number az
 * @tparam number aw
 * @tparam number bx orientation b (any non-zero length)
 * @tparam number by
 * @tparam number bz
 * @tparam number bw
 * @return number radians in [0, pi]
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_angle(lua_State *L) {
    sn_quat a = check_quat(L, 1), b = check_quat(L, 5);
    double r;
    sn_error err;
    if (sn_quat_angle(&a, &b, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    lua_pushnumber(L, r);
    return 1;
}

/***
 * q^e = |q|^e (cos(e t), n sin(e t)) for q = |q| (cos t, n sin t). For a unit quaternion this is
 * the rotation about the same axis by e times the angle (q^0.5 is half of the rotation).
 * @function pow
 * @tparam number x the quaternion (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @tparam number e exponent (any finite value)
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "zero quaternion"; "result is too large:
 * |q|^e overflows" (argument 5)
 */
static int l_pow(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_error err;
    if (sn_quat_pow(&q, sn_lua_checkfinite(L, 5), &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QX);
    return push_quat(L, &r);
}

/***
 * Natural logarithm: vector part n * t in x, y, z (t in radians, [0, pi]) and ln |q| in w.
 * @function log
 * @tparam number x the quaternion (any non-zero length)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_log(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_error err;
    if (sn_quat_log(&q, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * Exponential of any quaternion (vector part x, y, z; scalar part w).
 * @function exp
 * @tparam number x the quaternion (any value)
 * @tparam number y
 * @tparam number z
 * @tparam number w
 * @return x, y, z, w
 * @raise for an argument that is not a finite number; "result is too large: e^w overflows for 'w' =
 * ..." when w is above about 709.78
 */
static int l_exp(lua_State *L) {
    sn_quat q = check_quat(L, 1), r;
    sn_error err;
    if (sn_quat_exp(&q, &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * Spherical linear interpolation along the shortest path, within 3e-14 rad of the exact slerp
 * and exact for nearly equal inputs. Inputs are normalised first.
 * @function slerp
 * @tparam number ax rotation a (any non-zero length)
 * @tparam number ay
 * @tparam number az
 * @tparam number aw
 * @tparam number bx rotation b (any non-zero length)
 * @tparam number by
 * @tparam number bz
 * @tparam number bw
 * @tparam number t interpolation fraction (0 gives a, 1 gives b; outside 0 .. 1 extrapolates along
 * the same arc at constant speed)
 * @return x, y, z, w: unit length
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_slerp(lua_State *L) {
    sn_quat a = check_quat(L, 1), b = check_quat(L, 5), r;
    sn_error err;
    if (sn_quat_slerp(&a, &b, sn_lua_checkfinite(L, 9), &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * Normalised linear interpolation along the shortest path: cheaper than slerp, not constant speed.
 * Inputs are normalised first.
 * @function nlerp
 * @tparam number ax rotation a (any non-zero length)
 * @tparam number ay
 * @tparam number az
 * @tparam number aw
 * @tparam number bx rotation b (any non-zero length)
 * @tparam number by
 * @tparam number bz
 * @tparam number bw
 * @tparam number t interpolation fraction (0 gives a, 1 gives b; outside 0 .. 1 extrapolates along
 * the line through a and b, then normalises)
 * @return x, y, z, w: unit length
 * @raise for an argument that is not a finite number; "zero quaternion"
 */
static int l_nlerp(lua_State *L) {
    sn_quat a = check_quat(L, 1), b = check_quat(L, 5), r;
    sn_error err;
    if (sn_quat_nlerp(&a, &b, sn_lua_checkfinite(L, 9), &r, &err) != SN_OK) return sn_lua_raise_args(L, &err, QQN);
    return push_quat(L, &r);
}

/***
 * Weighted blend of n rotations.
 *
 * `qs` is a flat array `{x1,y1,z1,w1, x2,...}` of n quaternions, `ws` n weights, non-negative and
 * not all zero (normalised internally). The result is unit length. Methods:
 *
 * - "nlerp" (default): align every input to the hemisphere of the highest-weight one, weighted
 *   sum, normalise. Fast; close to the geodesic mean for nearby inputs.
 * - "karcher": the weighted geodesic (Karcher) mean, iterated until the step is below 1e-12 rad;
 *   does not depend on input order.
 * - "markley": eigenvector of the largest eigenvalue of sum(w_i q_i q_i^T) (Markley et al. 2007);
 *   the sign chosen on the side of the highest-weight input.
 * - "power": the product q1^w1 * q2^w2 * ... in the given order, each input first taken on its
 *   shortest arc (w >= 0). Order dependent, and it drifts from the mean for wide spreads.
 * @function blend
 * @tparam table qs 4n finite numbers: n quaternions of any non-zero length
 * @tparam table ws n finite weights, >= 0 and not all zero (relative: only their ratios count)
 * @tparam[opt="nlerp"] string method "nlerp", "karcher", "markley" or "power"
 * @return x, y, z, w
 * @raise when `qs` or `ws` is not a table; "unknown method 'x'"; "no weights" for an empty `ws`;
 * "'qs' has 7 numbers, expected 4 per weight (8)"; "element 3 of 'qs' is not a number (got string)"
 * or "... is not finite" (the same for 'ws'); "quaternion 2 is zero"; "weight 2 is negative";
 * "weights are all zero"
 */
static int l_blend(lua_State *L) {
    static const char *const methods[] = {"nlerp", "karcher", "markley", "power"};
    size_t nq, nw, i;
    int m;
    const char *mname;
    sn_quat *qs, r;
    double *ws;
    sn_error err;
    sn_lua_checktype(L, 1, LUA_TTABLE);
    sn_lua_checktype(L, 2, LUA_TTABLE);
    mname = sn_lua_optstring(L, 3, "nlerp");
    for (m = 0; m < 4; m++)
        if (strcmp(mname, methods[m]) == 0) break;
    if (m == 4) return sn_lua_argerror(L, 3, lua_pushfstring(L, "unknown method '%s'", mname));
    nq = sn_lua_rawlen(L, 1);
    nw = sn_lua_rawlen(L, 2);
    if (nw == 0) return sn_lua_argerror(L, 2, "no weights");
    if (nq != 4 * nw)
        return sn_lua_argerror(L, 1, lua_pushfstring(L, "'qs' has %d numbers, expected 4 per weight (%d)",
                                                   (int)nq, (int)(4 * nw)));
    if (nw > ((size_t)-1) / (sizeof(sn_quat) + sizeof(double)) / 2) return sn_lua_argerror(L, 2, "too many weights");
    qs = (sn_quat *)sn_lua_scratch(L, 1, nw * (sizeof(sn_quat) + sizeof(double)));
    ws = (double *)(qs + nw);
    for (i = 0; i < nw; i++) {
        int b = (int)(4 * i);
        qs[i].x = sn_lua_finite_at(L, 1, b + 1, 1, "qs");
        qs[i].y = sn_lua_finite_at(L, 1, b + 2, 1, "qs");
        qs[i].z = sn_lua_finite_at(L, 1, b + 3, 1, "qs");
        qs[i].w = sn_lua_finite_at(L, 1, b + 4, 1, "qs");
        ws[i] = sn_lua_finite_at(L, 2, (int)i + 1, 2, "ws");
    }
    if (sn_quat_blend(qs, ws, nw, (sn_blend_method)m, &r, &err) != SN_OK) return sn_lua_raise(L, &err, 0);
    return push_quat(L, &r);
}

void sn_open_quat(lua_State *L, int module) {
    static const luaL_Reg fns[] = {
        {"identity", l_identity},   {"mul", l_mul},
        {"conj", l_conj},           {"inverse", l_inverse},
        {"normalize", l_normalize}, {"dot", l_dot},
        {"length", l_length},       {"rotate", l_rotate},
        {"from_axis_angle", l_from_axis_angle}, {"to_axis_angle", l_to_axis_angle},
        {"from_euler", l_from_euler}, {"from_to", l_from_to},
        {"angle", l_angle},         {"pow", l_pow},
        {"log", l_log},             {"exp", l_exp},
        {"slerp", l_slerp},         {"nlerp", l_nlerp},
        {NULL, NULL}};
    lua_newtable(L);
    sn_lua_setfuncs(L, fns, 0);
    lua_pushboolean(L, 0); /* upvalue 1 of blend: its scratch block, made on first use */
    lua_pushcclosure(L, l_blend, 1);
    lua_setfield(L, -2, "blend");
    lua_setfield(L, module, "quat");
}
