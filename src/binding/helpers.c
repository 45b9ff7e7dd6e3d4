/*
 * Helpers shared by every file of the binding: numbers and indices, definition tables read
 * once, the core's errors, classes and their `self` checks. See binding.h.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* ---- numbers and indices -------------------------------------------------------------------- */

double sn_lua_checkfinite(lua_State *L, int arg) {
    double x = luaL_checknumber(L, arg);
    if (!sn_isfinite(x)) luaL_argerror(L, arg, "not a finite number");
    return x;
}

double sn_lua_optfinite(lua_State *L, int arg, double def) {
    if (lua_isnoneornil(L, arg)) return def;
    return sn_lua_checkfinite(L, arg);
}

double sn_lua_finite_at(lua_State *L, int t, int i, int arg, const char *what) {
    double x;
    lua_rawgeti(L, t, i);
    if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not a number (got %s)", i, what,
                                              luaL_typename(L, -1)));
    x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!sn_isfinite(x)) luaL_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not finite", i, what));
    return x;
}

const char *sn_lua_numstr(lua_State *L, double v) {
    char buf[32];
    if (v != v)
        return lua_pushstring(L, "nan"), lua_tostring(L, -1); /* the sign of a NaN means nothing */
    snprintf(buf, sizeof buf, "%g", v);
    return lua_pushstring(L, buf), lua_tostring(L, -1);
}

double sn_lua_tonumber(lua_State *L, int idx, int arg, const char *what) {
    if (lua_type(L, idx) != LUA_TNUMBER)
        luaL_argerror(L, arg, lua_pushfstring(L, "'%s' must be a number (got %s)", what, luaL_typename(L, idx)));
    return lua_tonumber(L, idx);
}

int sn_lua_toindex(lua_State *L, int idx, int lo, int hi, int arg, const char *what) {
    double v;
    idx = sn_lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TNUMBER)
        return luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a number (got %s)", what, luaL_typename(L, idx)));
    v = lua_tonumber(L, idx);
    if (v != floor(v)) /* NaN and infinities too */
        return luaL_argerror(L, arg, lua_pushfstring(L, "%s %s is not an integer", what, sn_lua_numstr(L, v)));
    if (!(v >= lo && v <= hi))
        return luaL_argerror(L, arg, lua_pushfstring(L, "%s %s is out of range (%d .. %d)", what, sn_lua_numstr(L, v),
                                                     lo, hi));
    return (int)v; /* in [lo, hi]: a defined conversion */
}

int sn_lua_toint(lua_State *L, int idx, int arg, const char *what) {
    double v = sn_lua_tonumber(L, idx, arg, what);
    if (v != floor(v))
        return luaL_argerror(L, arg, lua_pushfstring(L, "'%s' must be an integer (got %s)", what, sn_lua_numstr(L, v)));
    if (v < (double)INT_MIN) return INT_MIN;
    if (v > (double)INT_MAX) return INT_MAX;
    return (int)v;
}

/* ---- definition tables ---------------------------------------------------------------------- */

int sn_lua_field(lua_State *L, int t, const char *key) {
    lua_getfield(L, t, key);
    return lua_type(L, -1);
}

/* pushes "('a', 'b' or 'c')" */
static const char *push_choices(lua_State *L, const char *const *names) {
    luaL_Buffer b;
    int i, n = 0;
    while (names[n] != NULL) n++;
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '(');
    for (i = 0; i < n; i++) {
        if (i > 0) luaL_addstring(&b, i == n - 1 ? " or " : ", ");
        luaL_addchar(&b, '\'');
        luaL_addstring(&b, names[i]);
        luaL_addchar(&b, '\'');
    }
    luaL_addchar(&b, ')');
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

int sn_lua_tooption(lua_State *L, int idx, int arg, const char *ctx, const char *what,
                    const char *const *names, int dflt) {
    const char *s;
    int i;
    idx = sn_lua_absindex(L, idx);
    if (lua_isnoneornil(L, idx) && dflt >= 0) return dflt;
    if (lua_type(L, idx) != LUA_TSTRING)
        return luaL_argerror(L, arg, lua_pushfstring(L, "%s'%s' must be a string %s (got %s)", ctx, what,
                                                     push_choices(L, names), luaL_typename(L, idx)));
    s = lua_tostring(L, idx);
    for (i = 0; names[i] != NULL; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return luaL_argerror(L, arg, lua_pushfstring(L, "%sunknown %s '%s' %s", ctx, what, s, push_choices(L, names)));
}

void sn_lua_checkfields(lua_State *L, int t, int arg, const char *what, const char *const *known) {
    t = sn_lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        int i, ok = 0;
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING)
            for (i = 0; known[i] != NULL && !ok; i++) ok = strcmp(lua_tostring(L, -1), known[i]) == 0;
        if (!ok) {
            if (lua_type(L, -1) == LUA_TSTRING)
                luaL_argerror(L, arg, lua_pushfstring(L, "unknown field '%s' in %s", lua_tostring(L, -1), what));
            luaL_argerror(L, arg, lua_pushfstring(L, "unknown field (a %s key) in %s", luaL_typename(L, -1), what));
        }
    }
}

/* ---- errors and memory ---------------------------------------------------------------------- */

int sn_lua_raise(lua_State *L, const sn_error *err, int arg_offset) {
    if (err->arg > 0 && arg_offset >= 0) return luaL_argerror(L, err->arg + arg_offset, err->msg);
    return luaL_error(L, "%s", err->msg);
}

int sn_lua_raise_at(lua_State *L, const sn_error *err, const int *args, int n) {
    if (err->arg > 0 && err->arg <= n) return luaL_argerror(L, args[err->arg - 1], err->msg);
    return luaL_error(L, "%s", err->msg);
}

void sn_lua_allocator(lua_State *L, sn_allocator *a) { a->fn = lua_getallocf(L, &a->ud); }

void *sn_lua_newtemp(lua_State *L, size_t size) {
    void *p = lua_newuserdata(L, size > 0 ? size : 1);
    memset(p, 0, size > 0 ? size : 1);
    return p;
}

void *sn_lua_scratch(lua_State *L, int upvalue, size_t size) {
    int idx = lua_upvalueindex(upvalue);
    void *p = lua_touserdata(L, idx);
    if (p == NULL || sn_lua_rawlen(L, idx) < size) {
        size_t grown = size < 256 ? 256 : size + size / 2;
        p = sn_lua_newuserdata(L, grown);
        lua_replace(L, idx);
    }
    return p;
}

/* ---- classes -------------------------------------------------------------------------------- */

void sn_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta) {
    luaL_newmetatable(L, tname);
    if (meta != NULL) {
        lua_pushstring(L, tname);
        sn_lua_setfuncs(L, meta, 1);
    }
    lua_newtable(L);
    lua_pushstring(L, tname);
    sn_lua_setfuncs(L, methods, 1);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, tname);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

void *sn_lua_testobject(lua_State *L, int idx, const char *tname) { return sn_lua_testudata(L, idx, tname); }

void *sn_lua_checkobject(lua_State *L, int arg, const char *tname) {
    void *p = sn_lua_testudata(L, arg, tname);
    if (p == NULL)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, luaL_typename(L, arg)));
    return p;
}

void *sn_lua_checkself(lua_State *L) { return sn_lua_checkobject(L, 1, lua_tostring(L, lua_upvalueindex(1))); }
