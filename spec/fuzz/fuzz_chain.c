/* Fuzzes dynamic-bone chains in points mode: any definition is refused with a message (by
   sn_chain_validate and sn_chain_size alike) or builds a chain that, through any sequence of
   colliders, root moves, parameter changes and time steps (0, tiny, huge), never produces a
   non-finite position; every refused call says why. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "chain.h"
#include "reader.h"


#define MAXP 10

static void read_vec(reader *r, sn_vec3 *v) {
    v->x = read_number(r);
    v->y = read_number(r);
    v->z = read_number(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_chain_def def;
    double pts[3 * MAXP], curve[SN_CHAIN_PER_PARTICLE][MAXP + 1];
    int parents[MAXP], i, k, op;
    sn_chain *c;
    sn_error err;
    size_t need;
    void *mem;
    sn_chain_def_init(&def);
    def.count = read_int(&r, 0, MAXP);
    for (i = 0; i < 3 * MAXP; i++) pts[i] = read_number(&r);
    for (i = 0; i < MAXP; i++) parents[i] = read_int(&r, -1, i);   /* i itself is invalid */
    def.points = pts;
    def.parents = parents;
    for (k = 0; k < SN_CHAIN_PER_PARTICLE; k++) {
        if (read_byte(&r) < 200u) continue;
        def.curves[k].count = read_int(&r, 0, 3);
        for (i = 0; i <= MAXP; i++) curve[k][i] = read_byte(&r) < 220u ? read_int(&r, 0, 100) / 100.0 : read_number(&r);
        def.curves[k].values = curve[k];
    }
    if (read_byte(&r) > 128u) { def.gravity[0] = read_number(&r); def.gravity[1] = read_number(&r); def.gravity[2] = read_number(&r); }
    if (read_byte(&r) > 200u) def.end_length = read_number(&r);
    if (read_byte(&r) > 200u) def.rate = read_number(&r) * 60.0;
    if (read_byte(&r) > 200u) { /* -1 and 41 stand for INT_MIN and INT_MAX, as a binding saturates */
        int v = read_int(&r, -1, 41);
        def.max_steps = v == -1 ? INT_MIN : v == 41 ? INT_MAX : v;
    }
    def.max_colliders = read_int(&r, 0, 6);
    if (read_byte(&r) > 200u) def.teleport = read_number(&r);
    def.solver = (sn_chain_solver)read_int(&r, 0, 2); /* 2: refused */
    if (sn_chain_validate(&def, &err) != SN_OK) {
        sn_error again;
        FUZZ_CHECK(err.msg[0] != '\0');
        FUZZ_CHECK(sn_chain_size(&def, &again) == 0 && strcmp(again.msg, err.msg) == 0);
        return 0;
    }
    need = sn_chain_size(&def, &err);
    FUZZ_CHECK(need > 0);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL && sn_chain_init(mem, need, &def, &err) == SN_OK);
    c = (sn_chain *)mem;
    for (op = 0; op < 40 && r.at < r.n; op++) {
        unsigned what = read_byte(&r) % 6u;
        memset(&err, 0, sizeof err);
        if (what == 0) {
            sn_collider_def cd;
            int idx;
            cd.shape = (sn_collider_shape)read_int(&r, 0, 3);
            cd.inside = (int)(read_byte(&r) & 1u);
            read_vec(&r, &cd.a);
            read_vec(&r, &cd.b);
            cd.radius = read_number(&r);
            cd.radius_b = read_number(&r);
            if (sn_chain_add_collider(c, &cd, &idx, &err) != SN_OK) FUZZ_CHECK(err.msg[0] != '\0');
        } else if (what == 1 && sn_chain_collider_count(c) > 0) {
            sn_collider_def cd;
            int kk = read_int(&r, 0, sn_chain_collider_count(c) - 1);
            FUZZ_CHECK(sn_chain_get_collider(c, kk, &cd, &err) == SN_OK);
            read_vec(&r, &cd.a);
            if (sn_chain_move_collider(c, kk, &cd, &err) != SN_OK) FUZZ_CHECK(err.msg[0] != '\0' && err.arg == 2);
        } else if (what == 2) {
            sn_vec3 t;
            sn_quat q;
            read_vec(&r, &t);
            q.x = read_number(&r); q.y = read_number(&r); q.z = read_number(&r); q.w = read_number(&r);
            if (sn_chain_move_root(c, &t, &q, &err) != SN_OK) FUZZ_CHECK(err.msg[0] != '\0' && (err.arg == 1 || err.arg == 2));
        } else if (what == 3) {
            double v[3];
            int param = read_int(&r, 0, SN_CHAIN_PARAM_COUNT - 1);
            v[0] = read_number(&r); v[1] = read_number(&r); v[2] = read_number(&r);
            if (sn_chain_set_param(c, param, read_int(&r, -1, sn_chain_count(c)), v, &err) != SN_OK)
                FUZZ_CHECK(err.msg[0] != '\0' && err.arg >= 1 && err.arg <= 3);
        } else if (what == 4) {
            if (read_byte(&r) & 1u) sn_chain_reset(c); else sn_chain_teleport(c);
        } else {
            static const double dts[] = {0.0, 1e-9, 1.0 / 144, 1.0 / 60, 1.0 / 30, 0.25, 10.0};
            double dt = read_byte(&r) < 230u ? dts[read_int(&r, 0, 6)] : read_number(&r);
            if (sn_chain_step(c, dt, &err) != SN_OK) {
                FUZZ_CHECK(!sn_isfinite(dt) || dt < 0.0);
                continue;
            }
            for (i = 0; i < sn_chain_count(c); i++) {
                sn_vec3 p;
                sn_chain_position(c, i, &p);
                FUZZ_CHECK(sn_isfinite(p.x) && sn_isfinite(p.y) && sn_isfinite(p.z));
                sn_chain_step_position(c, i, &p);
                FUZZ_CHECK(sn_isfinite(p.x) && sn_isfinite(p.y) && sn_isfinite(p.z));
            }
        }
    }
    free(mem);
    return 0;
}
