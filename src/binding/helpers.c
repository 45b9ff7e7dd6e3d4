/*
 * Helpers shared by every file of the binding: numbers and indices, definition tables read
 * once, the core's errors, classes and their `self` checks. See binding.h.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* ---- numbers and indices -------------------------------------------------------------------- */

double sn_lua_checkfinite(lua_State *L, int arg) {
    double x = sn_lua_checknumber(L, arg);
    if (!sn_isfinite(x)) sn_lua_argerror(L, arg, "not a finite number");
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
        sn_lua_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not a number (got %s)", i, what,
                                              luaL_typename(L, -1)));
    x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!sn_isfinite(x)) sn_lua_argerror(L, arg, lua_pushfstring(L, "element %d of '%s' is not finite", i, what));
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
        sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' must be a number (got %s)", what, luaL_typename(L, idx)));
    return lua_tonumber(L, idx);
}

int sn_lua_toindex(lua_State *L, int idx, int lo, int hi, int arg, const char *what) {
    double v;
    idx = sn_lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TNUMBER)
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s must be a number (got %s)", what, luaL_typename(L, idx)));
    v = lua_tonumber(L, idx);
    if (v != floor(v)) /* NaN and infinities too */
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s %s is not an integer", what, sn_lua_numstr(L, v)));
    if (!(v >= lo && v <= hi))
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s %s is out of range (%d .. %d)", what, sn_lua_numstr(L, v),
                                                     lo, hi));
    return (int)v; /* in [lo, hi]: a defined conversion */
}

int sn_lua_toint(lua_State *L, int idx, int arg, const char *what) {
    double v = sn_lua_tonumber(L, idx, arg, what);
    if (v != floor(v))
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "'%s' must be an integer (got %s)", what, sn_lua_numstr(L, v)));
    if (v < (double)INT_MIN) return INT_MIN;
    if (v > (double)INT_MAX) return INT_MAX;
    return (int)v;
}

/* ---- Lua types: lauxlib's checks, raising through sn_lua_argerror ------------------------- */

const char *sn_lua_typename_of(lua_State *L, int idx) {
    int t;
    idx = sn_lua_absindex(L, idx);
    t = lua_type(L, idx);
    if (t == LUA_TLIGHTUSERDATA) return "light userdata";
    if (lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__name");
        lua_rawget(L, -2); /* raw: a metatable's own __index runs nothing here */
        if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1); /* stays on the stack */
        lua_pop(L, 2);
    }
    return luaL_typename(L, idx);
}

int sn_lua_typeerror(lua_State *L, int arg, const char *tname) {
    return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, sn_lua_typename_of(L, arg)));
}

void sn_lua_checktype(lua_State *L, int arg, int t) {
    if (lua_type(L, arg) != t) sn_lua_typeerror(L, arg, lua_typename(L, t));
}

double sn_lua_checknumber(lua_State *L, int arg) {
    if (!lua_isnumber(L, arg)) sn_lua_typeerror(L, arg, "number");
    return lua_tonumber(L, arg);
}

const char *sn_lua_checklstring(lua_State *L, int arg, size_t *len) {
    const char *s = lua_tolstring(L, arg, len);
    if (s == NULL) sn_lua_typeerror(L, arg, "string");
    return s;
}

const char *sn_lua_optstring(lua_State *L, int arg, const char *def) {
    if (lua_isnoneornil(L, arg)) return def;
    return sn_lua_checklstring(L, arg, NULL);
}

int sn_lua_checkoption(lua_State *L, int arg, const char *def, const char *const *names) {
    const char *s = def != NULL ? sn_lua_optstring(L, arg, def) : sn_lua_checklstring(L, arg, NULL);
    int i;
    for (i = 0; names[i] != NULL; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return sn_lua_argerror(L, arg, lua_pushfstring(L, "invalid option '%s'", s));
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
        return sn_lua_argerror(L, arg, lua_pushfstring(L, "%s'%s' must be a string %s (got %s)", ctx, what,
                                                     push_choices(L, names), luaL_typename(L, idx)));
    s = lua_tostring(L, idx);
    for (i = 0; names[i] != NULL; i++)
        if (s[0] == names[i][0] && strcmp(s, names[i]) == 0) return i; /* (most differ at once) */
    return sn_lua_argerror(L, arg, lua_pushfstring(L, "%sunknown %s '%s' %s", ctx, what, s, push_choices(L, names)));
}

void sn_lua_checkfields(lua_State *L, int t, int arg, const char *what, const char *const *known) {
    t = sn_lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        int i, ok = 0;
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *key = lua_tostring(L, -1);
            for (i = 0; known[i] != NULL && !ok; i++) ok = key[0] == known[i][0] && strcmp(key, known[i]) == 0;
        }
        if (!ok) {
            if (lua_type(L, -1) == LUA_TSTRING)
                sn_lua_argerror(L, arg, lua_pushfstring(L, "unknown field '%s' in %s", lua_tostring(L, -1), what));
            sn_lua_argerror(L, arg, lua_pushfstring(L, "unknown field (a %s key) in %s", luaL_typename(L, -1), what));
        }
    }
}

/* ---- errors and memory ---------------------------------------------------------------------- */

/* Whether the running C function was called by sinew.core.try itself (its lua_pcall): only then
   is a refusal returned as a value. A function called from anywhere else (Lua code that try
   called, a metamethod, a finaliser, another coroutine) raises as always; there is no flag to
   set and clear, so nothing an error or a finaliser does in between can leave one behind. (A Lua
   function that try called and that ends in a tail call of a binding function is replaced by it
   on LuaJIT: that call counts as try's own.) Looked up on the error path only. */
static int called_by_try(lua_State *L) {
    lua_Debug ar;
    int yes;
    if (!lua_checkstack(L, 2) || !lua_getstack(L, 1, &ar) || !lua_getinfo(L, "f", &ar)) return 0;
    yes = lua_tocfunction(L, -1) == sn_lua_try;
    lua_pop(L, 1);
    return yes;
}

int sn_lua_refuse(lua_State *L, int arg, const char *msg) {
    if (!called_by_try(L)) {
        if (arg > 0) return luaL_argerror(L, arg, msg);
        luaL_where(L, 1);
        lua_pushstring(L, msg);
        lua_concat(L, 2);
        return lua_error(L);
    }
    luaL_checkstack(L, 4, "refusal");
    lua_createtable(L, 2, 0);
    lua_pushstring(L, msg);
    lua_rawseti(L, -2, 1);
    if (arg > 0) {
        lua_pushinteger(L, arg);
        lua_rawseti(L, -2, 2);
    }
    sn_lua_setmetatable(L, SN_REFUSAL_MT);
    return lua_error(L);
}

int sn_lua_argerror(lua_State *L, int arg, const char *msg) { return sn_lua_refuse(L, arg, msg); }

int sn_lua_errorf(lua_State *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return sn_lua_refuse(L, 0, lua_tostring(L, -1));
}

int sn_lua_try(lua_State *L) {
    if (lua_type(L, 1) != LUA_TFUNCTION) sn_lua_typeerror(L, 1, "function");
    if (lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0) == 0) return lua_gettop(L);
    /* a refusal: a table with the registry's SN_REFUSAL_MT, which no Lua code can reach */
    if (lua_type(L, -1) != LUA_TTABLE || !lua_getmetatable(L, -1)) return lua_error(L);
    luaL_getmetatable(L, SN_REFUSAL_MT);
    if (!lua_rawequal(L, -1, -2)) {
        lua_pop(L, 2);
        return lua_error(L); /* anything else (memory, Lua code's own error) as it came */
    }
    lua_pop(L, 2);
    lua_pushnil(L);
    lua_rawgeti(L, -2, 1);
    lua_rawgeti(L, -3, 2);
    return 3;
}

int sn_lua_raise(lua_State *L, const sn_error *err, int arg_offset) {
    if (err->arg > 0 && arg_offset >= 0) return sn_lua_argerror(L, err->arg + arg_offset, err->msg);
    return sn_lua_refuse(L, 0, err->msg);
}

int sn_lua_raise_at(lua_State *L, const sn_error *err, const int *args, int n) {
    if (err->arg > 0 && err->arg <= n) return sn_lua_argerror(L, args[err->arg - 1], err->msg);
    return sn_lua_refuse(L, 0, err->msg);
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
        sn_lua_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, sn_lua_typename_of(L, arg)));
    return p;
}

void *sn_lua_checkself(lua_State *L) { return sn_lua_checkobject(L, 1, lua_tostring(L, lua_upvalueindex(1))); }
