/* Placeholder: the anim binding is being written (see the open issue). Registers nothing yet. */
#include "binding.h"

void sn_open_anim(lua_State *L, int module) {
    (void)L;
    (void)module;
}
