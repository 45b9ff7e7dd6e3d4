/*
 * Lua 5.1 / LuaJIT / 5.2+ compatibility for the binding. Only this file looks at
 * LUA_VERSION_NUM. The helpers carry our own sn_lua_ prefix so that nothing clashes with the
 * partial 5.2 API that LuaJIT 2.1 ships.
 */
#ifndef SN_COMPAT_H
#define SN_COMPAT_H

#include <lauxlib.h>
#include <lua.h>

#if LUA_VERSION_NUM >= 502
#define sn_lua_rawlen(L, i) lua_rawlen((L), (i))
#define sn_lua_absindex(L, i) lua_absindex((L), (i))
#define sn_lua_setfuncs(L, l, nup) luaL_setfuncs((L), (l), (nup))
#define sn_lua_testudata(L, i, tname) luaL_testudata((L), (i), (tname))
#define sn_lua_setmetatable(L, tname) luaL_setmetatable((L), (tname))
#else
#define sn_lua_rawlen(L, i) lua_objlen((L), (i))
#define sn_lua_absindex(L, i) \
    (((i) > 0 || (i) <= LUA_REGISTRYINDEX) ? (i) : lua_gettop(L) + (i) + 1)

/* luaL_setfuncs of 5.2: every function of l gets the nup values below it as upvalues */
static inline void sn_lua_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
    for (; l->name != NULL; l++) {
        int i;
        for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
        lua_pushcclosure(L, l->func, nup);
        lua_setfield(L, -(nup + 2), l->name);
    }
    lua_pop(L, nup);
}

static inline void *sn_lua_testudata(lua_State *L, int i, const char *tname) {
    void *p = lua_touserdata(L, i);
    if (p == NULL || !lua_getmetatable(L, i)) return NULL;
    luaL_getmetatable(L, tname);
    if (!lua_rawequal(L, -1, -2)) p = NULL;
    lua_pop(L, 2);
    return p;
}

#define sn_lua_setmetatable(L, tname) (luaL_getmetatable((L), (tname)), lua_setmetatable((L), -2))
#endif

#if LUA_VERSION_NUM >= 504
#define sn_lua_newuserdata(L, size) lua_newuserdatauv((L), (size), 1)
#else
#define sn_lua_newuserdata(L, size) lua_newuserdata((L), (size))
#endif

/* The value associated with a userdata (its uservalue / environment): one Lua value per object,
   used to keep alive the objects it refers to. Pops the value (set) or pushes it (get). */
#if LUA_VERSION_NUM >= 504
#define sn_lua_setuservalue(L, i) lua_setiuservalue((L), (i), 1)
#define sn_lua_getuservalue(L, i) ((void)lua_getiuservalue((L), (i), 1))
#elif LUA_VERSION_NUM >= 502
#define sn_lua_setuservalue(L, i) lua_setuservalue((L), (i))
#define sn_lua_getuservalue(L, i) ((void)lua_getuservalue((L), (i)))
#else
#define sn_lua_setuservalue(L, i) lua_setfenv((L), (i))
#define sn_lua_getuservalue(L, i) lua_getfenv((L), (i))
#endif

#endif
