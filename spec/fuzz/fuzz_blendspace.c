/* Fuzzes blend-space construction and evaluation: any definition is either refused with a
   message or builds a space whose weights are finite, non-negative and sum to 1 everywhere
   (except mode direct without normalisation, whose weights are the clamped inputs). The wedges
   of a simple_directional space, followed as blendspace.h says, give the same weights bit for
   bit where they are quick; other modes have none. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blendspace.h"
#include "reader.h"
#include "../c/wedges.h"


/* the weights at `in` from the space's wedges, as blendspace.h describes them, against `w` */
static void check_wedges(const sn_blendspace *bs, const double *in, const double *w) {
    sn_blendspace_wedges wg;
    double mine[64];
    FUZZ_CHECK(sn_blendspace_wedges_of(bs, &wg, NULL) == SN_OK);
    if (wedge_weights(&wg, in, mine)) FUZZ_CHECK(memcmp(mine, w, sizeof(double) * (size_t)wg.count) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    sn_blendspace_def def;
    const sn_blendspace *bs;
    sn_error err;
    double pts[64 * (SN_BLENDSPACE_MAX_DIMS + 1)], in[64], w[64];
    size_t need;
    void *mem;
    int i, q, k;
    sn_blendspace_def_init(&def);
    def.mode = (sn_blendspace_mode)read_int(&r, 0, SN_BLENDSPACE_MODES);   /* one past: invalid */
    def.count = read_int(&r, 0, 64);
    def.dims = read_int(&r, 0, SN_BLENDSPACE_MAX_DIMS + 1);
    if (read_byte(&r) > 200u) def.alpha = read_number(&r);
    if (read_byte(&r) > 200u) def.power = read_number(&r);
    def.normalize_axes = (int)(read_byte(&r) & 1u);
    def.normalize = (int)(read_byte(&r) & 1u);
    if (read_byte(&r) > 200u) {
        def.grid_cols = read_int(&r, 0, 40);
        def.grid_rows = read_int(&r, 0, 40);
    }
    for (i = 0; i < def.count * (def.dims > 0 ? def.dims : 1) && i < (int)(sizeof pts / sizeof pts[0]); i++)
        pts[i] = read_number(&r);
    def.points = pts;
    if (sn_blendspace_validate(&def, &err) != SN_OK) {
        sn_error again;
        FUZZ_CHECK(err.msg[0] != '\0');
        FUZZ_CHECK(sn_blendspace_size(&def, &again) == 0 && strcmp(again.msg, err.msg) == 0);
        return 0;
    }
    need = sn_blendspace_size(&def, &err);
    FUZZ_CHECK(need > 0 && need <= SN_BLENDSPACE_MAX_SIZE);
    mem = malloc(need + 8);
    FUZZ_CHECK(mem != NULL);
    /* at an address 8 past malloc's: the arrays inside must still be 16-byte aligned */
    FUZZ_CHECK(sn_blendspace_init((char *)mem + 8, need, &def, &err) == SN_OK);
    bs = (const sn_blendspace *)((char *)mem + 8);
    FUZZ_CHECK((uintptr_t)sn_blendspace_point(bs, 0) % 16 == 0 || (uintptr_t)mem % 16 != 0);
    {
        sn_blendspace_wedges wg;
        int has = sn_blendspace_wedges_of(bs, &wg, &err) == SN_OK;
        FUZZ_CHECK(has == (def.mode == SN_BLENDSPACE_SIMPLE_DIRECTIONAL));
        if (has) FUZZ_CHECK(wg.count == def.count && wg.ndir >= 3 && wg.ndir <= 180 && wg.centre < def.count);
    }
    for (q = 0; q < 8; q++) {
        int nin = sn_blendspace_inputs(bs);
        double sum = 0.0;
        for (k = 0; k < nin; k++) in[k] = read_number(&r);
        if (sn_blendspace_weights(bs, in, nin, w, &err) != SN_OK) {
            int finite = 1;
            for (k = 0; k < nin; k++) finite = finite && sn_isfinite(in[k]);
            FUZZ_CHECK(!finite); /* only non-finite inputs are refused */
            continue;
        }
        for (k = 0; k < def.count; k++) {
            FUZZ_CHECK(sn_isfinite(w[k]) && w[k] >= 0.0);
            sum += w[k];
        }
        if (def.mode != SN_BLENDSPACE_DIRECT) FUZZ_CHECK(fabs(sum - 1.0) <= 1e-9);
        else if (def.normalize && sum > 0.0) FUZZ_CHECK(fabs(sum - 1.0) <= 1e-9);
        if (def.mode == SN_BLENDSPACE_SIMPLE_DIRECTIONAL) check_wedges(bs, in, w);
    }
    free(mem);
    return 0;
}
