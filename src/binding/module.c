/***
 * The C module `sinew.core`. Use it through `require "sinew"`, which re-exports everything here.
 * @module sinew.core
 */
#include "binding.h"

#include <math.h>

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
    if (lua_type(L, -1) != LUA_TNUMBER) {
        const char *msg = lua_pushfstring(L, "element %d of '%s' is not a number (got %s)", i, what,
                                          luaL_typename(L, -1));
        luaL_argerror(L, arg, msg);
    }
    x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!sn_isfinite(x))
        luaL_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not finite", i, what));
    return x;
}

int sn_lua_raise(lua_State *L, const sn_error *err, int arg_offset) {
    if (err->arg > 0 && arg_offset >= 0) return luaL_argerror(L, err->arg + arg_offset, err->msg);
    return luaL_error(L, "%s", err->msg);
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

void sn_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta) {
    luaL_newmetatable(L, tname);
    if (meta != NULL) sn_lua_setfuncs(L, meta, 0);
    lua_newtable(L);
    sn_lua_setfuncs(L, methods, 0);
    lua_getfield(L, -2, "__index");
    if (lua_isnil(L, -1)) {  /* a metamethod __index of `meta` wins; it finds methods itself */
        lua_pop(L, 1);
        lua_setfield(L, -2, "__index");
    } else {
        lua_pop(L, 2);
    }
    lua_pushstring(L, tname);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

int luaopen_sinew_core(lua_State *L);

int luaopen_sinew_core(lua_State *L) {
    int module;
    lua_newtable(L);
    module = lua_gettop(L);
    sn_open_quat(L, module);
    sn_open_blendspace(L, module);
    sn_open_anim(L, module);
    sn_open_chain(L, module);
    return 1;
}
