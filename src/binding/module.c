/***
 * The C module `sinew.core`. Use it through `require "sinew"`, which re-exports everything here.
 * @module sinew.core
 */
#include "binding.h"

int luaopen_sinew_core(lua_State *L);

int luaopen_sinew_core(lua_State *L) {
    int module;
    lua_newtable(L);
    module = lua_gettop(L);
    sn_open_quat(L, module);
    sn_open_blendspace(L, module);
    sn_open_skeleton(L, module);
    sn_open_pose(L, module);
    sn_open_clip(L, module);
    sn_open_chain(L, module);
    sn_open_gltf(L, module);
    sn_open_group(L, module);
    sn_open_ffi(L, module);
    return 1;
}
