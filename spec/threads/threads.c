/*
 * Four Lua states in four threads, each running the same sinew workload at the same time, must
 * give the result one state gives alone: sinew keeps no mutable state outside its objects. Built
 * and run by spec/threads_spec.lua:
 *     threads <package.cpath> <package.path>
 * prints "threads: 4 states agree (<checksum>)" and exits 0, or says what differs and exits 1.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4

static const char *const workload =
    "local sinew = require 'sinew'\n"
    "local I = { 0,0,0, 0,0,0,1, 1,1,1 }\n"
    "local skel = sinew.skeleton { names = { 'hips', 'spine', 'tail1', 'tail2', 'tail3' },\n"
    "  parents = { 0, 1, 1, 3, 4 }, rest = { I, { 0,0.2,0, 0,0,0,1, 1,1,1 }, { 0,0,-0.2, 0,0,0,1, 1,1,1 },\n"
    "  { 0,0,-0.2, 0,0,0,1, 1,1,1 }, { 0,0,-0.2, 0,0,0,1, 1,1,1 } } }\n"
    "local walk = sinew.clip { skeleton = skel, tracks = {\n"
    "  { joint = 'spine', path = 'rotation', times = { 0, 0.5, 1 }, values = { 0,0,0,1, 0,0,0.38,0.92, 0,0,0,1 } },\n"
    "  { joint = 'hips', path = 'translation', interpolation = 'cubicspline', times = { 0, 1 },\n"
    "    values = { 0,0,0, 0,0,0, 1,0,0, 1,0,0, 1,0.2,0, 0,0,0 } } } }\n"
    "local space = sinew.blendspace { mode = 'freeform_directional', points = { {0,0}, {1,0}, {0,1}, {-1,0}, {0,-1} } }\n"
    "local tail = sinew.chain { skeleton = skel, root = 'tail1', damping = 0.1, stiffness = 0.2 }\n"
    "tail:add_collider { shape = 'plane', point = { 0, -0.1, 0 }, normal = { 0, 1, 0 } }\n"
    "local a, out, mats = sinew.pose(skel), sinew.pose(skel), sinew.matrices(skel)\n"
    "local layers, lw, w = { a, out }, { 0.5, 0.5 }, {}\n"
    "local sum = 0\n"
    "for f = 1, 3000 do\n"
    "  local t = f / 60\n"
    "  space:weights(math.cos(t), math.sin(t), w)\n"
    "  walk:sample(t * w[2] + t, a)\n"
    "  sinew.blend(out, layers, lw)\n"
    "  tail:update(1 / 60, out, { 1,0,0,0, 0,1,0,0, 0,0,1,0, math.sin(t),0,0,1 })\n"
    "  out:to_model(mats)\n"
    "  local x, y, z, qw = sinew.quat.blend({ 0,0,0,1, 0,1,0,0 }, { w[1] + 0.1, w[3] + 0.1 }, 'karcher')\n"
    "  sum = sum + select(14, mats:get(5)) + select(15, mats:get(4)) + y + qw\n"
    "end\n"
    "return string.format('%.17g', sum)\n";

typedef struct job {
    const char *cpath, *path;
    char out[128];
} job;

static void *run(void *arg) {
    job *j = (job *)arg;
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_pushstring(L, j->cpath);
    lua_setfield(L, -2, "cpath");
    lua_pushstring(L, j->path);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    if (luaL_loadstring(L, workload) != 0 || lua_pcall(L, 0, 1, 0) != 0)
        snprintf(j->out, sizeof j->out, "error: %s", lua_tostring(L, -1));
    else
        snprintf(j->out, sizeof j->out, "%s", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
}

int main(int argc, char **argv) {
    job alone, jobs[THREADS];
    pthread_t th[THREADS];
    int i, bad = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: threads <package.cpath> <package.path>\n");
        return 2;
    }
    alone.cpath = argv[1];
    alone.path = argv[2];
    run(&alone);
    for (i = 0; i < THREADS; i++) {
        jobs[i].cpath = argv[1];
        jobs[i].path = argv[2];
        if (pthread_create(&th[i], NULL, run, &jobs[i]) != 0) return 1;
    }
    for (i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    for (i = 0; i < THREADS; i++)
        if (strcmp(jobs[i].out, alone.out) != 0) {
            printf("threads: state %d gave %s, one state alone %s\n", i + 1, jobs[i].out, alone.out);
            bad = 1;
        }
    if (strncmp(alone.out, "error", 5) == 0) {
        printf("threads: %s\n", alone.out);
        bad = 1;
    }
    if (!bad) printf("threads: %d states agree (%s)\n", THREADS, alone.out);
    return bad;
}
