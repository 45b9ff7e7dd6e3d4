/*
 * Shared helpers of the Lua binding (the only C that includes lua.h).
 *
 * Conventions: misuse raises a Lua error with a lowercase message, names in single quotes, no
 * final period; per-frame functions return plain numbers or fill a table or userdata the caller
 * passed, so they make no garbage; module state lives in upvalues or the registry.
 */
#ifndef SN_BINDING_H
#define SN_BINDING_H

#include "../core/common.h"
#include "compat.h"

/// Every area's opener sets its entries into the module table at stack index `module`.
void sn_open_quat(lua_State *L, int module);
void sn_open_blendspace(lua_State *L, int module);
void sn_open_anim(lua_State *L, int module);
void sn_open_chain(lua_State *L, int module);

/// luaL_checknumber that also refuses NaN and infinities ("not a finite number").
double sn_lua_checkfinite(lua_State *L, int arg);
/// Optional finite number: `def` when the argument is none or nil.
double sn_lua_optfinite(lua_State *L, int arg, double def);
/// Reads element i (1-based) of the table at `t` as a finite number; otherwise raises an
/// argument error on `arg` naming `what` and the element, e.g. "element 3 of 'qs' is not a number".
double sn_lua_finite_at(lua_State *L, int t, int i, int arg, const char *what);
/// Raises the core's failure as a Lua error: an argument error when err->arg > 0 and
/// `arg_offset` >= 0 (Lua argument = err->arg + arg_offset), a plain error otherwise.
int sn_lua_raise(lua_State *L, const sn_error *err, int arg_offset);
/// Returns a block of at least `size` bytes owned by the userdata in upvalue `upvalue` of the
/// running C function; grows it (a new userdata) only when it is too small, so steady-state calls
/// allocate nothing.
void *sn_lua_scratch(lua_State *L, int upvalue, size_t size);
/// Creates the metatable `tname` with __index = methods and the given metamethods; pops it.
void sn_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta);

#endif
