/***
 * The C module `sinew.core`: it opens every type of the binding. `require "sinew"` re-exports
 * its entries, so its one function of its own is `sinew.try`, documented with `sinew` (config.ld
 * merges this file into that module).
 * @module sinew
 */
#include "binding.h"

int luaopen_sinew_core(lua_State *L);

int luaopen_sinew_core(lua_State *L) {
    int module;
    luaL_newmetatable(L, SN_REFUSAL_MT); /* what sinew.core.try recognises (see sn_lua_refuse) */
    lua_pop(L, 1);
    lua_newtable(L);
    module = lua_gettop(L);
    sn_open_quat(L, module);
    sn_open_blendspace(L, module);
    sn_open_skeleton(L, module);
    sn_open_pose(L, module);
    sn_open_clip(L, module);
    sn_open_chain(L, module);
    sn_open_gltf(L, module);
    sn_open_bvh(L, module);
    sn_open_morph(L, module);
    sn_open_group(L, module);
    sn_open_ik(L, module);
    sn_open_ffi(L, module); /* after every class whose metatable it hands over */
    sn_open_rig2d(L, module);
    /***
     * Calls a function of sinew with what it refuses given back as values instead of raised: for
     * code that turns a refusal into its own message (the animator's definition, glTF import).
     * Only a function of sinew's C binding called directly by `try` refuses this way; any other
     * error (from Lua code, memory running out) is raised again as it came. On the FFI path
     * (`sinew.path == "ffi"`) a fast function is called as its C binding function.
     * @function try
     * @tparam function fn a function or method of sinew (`sinew.blendspace`, `pose.add`, ...)
     * @param ... its arguments (for a method, `self` first)
     * @return what `fn` returns; or nil, the message (as the error's text in parentheses: "duplicate
     * points 1 and 2"), and the position of the refused argument among `fn`'s own (`self` is 1),
     * nil when the refusal names none
     * @raise "bad argument #1 to 'try' (function expected, got nil)"; and any error of `fn` that is
     * not a refusal
     * @usage local space, why, arg = sinew.try(sinew.blendspace, { mode = "1d", points = { 1, 1 } })
     * -- nil, "duplicate points 1 and 2", 1
     */
    lua_pushcfunction(L, sn_lua_try);
    lua_setfield(L, module, "try");
    return 1;
}
