/* Fuzzes morph sets (src/core/morph.c). The bytes choose a definition (vertex count, stride,
   target count, channel offsets, base values, deltas or none, NaN and infinities now and then)
   and the weights of a few calls:
     - an invalid definition is refused by validate, size and init, with a message;
     - a valid one is made in a block of exactly its size, keeping exactly the deltas of the
       channels in its layout; apply refuses too little room and
       weights of the wrong count or not finite, writing nothing then;
     - an accepted apply writes the base in every slot no channel covers, exactly the base with
       every weight 0, and what sn_morph_vertex gives for each channel, bit for bit. */
#include <math.h>
#include <stdlib.h>

#include "morph.h"
#include "reader.h"

#define MAX_V 24
#define MAX_T 6

static float fuzz_value(reader *r) {
    unsigned tag = read_byte(r);
    if (tag < 250u) return (float)(((int)(tag % 65u) - 32) * 0.125);
    if (tag < 252u) return NAN;
    if (tag < 254u) return INFINITY;
    return (float)read_number(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader rd = {data, size, 0}, *r = &rd;
    static float base[MAX_V * SN_MORPH_MAX_STRIDE], deltas[MAX_T * SN_MORPH_CHANNELS][MAX_V * 3];
    static float out[MAX_V * SN_MORPH_MAX_STRIDE + 1], before[MAX_V * SN_MORPH_MAX_STRIDE + 1];
    const float *ptrs[MAX_T * SN_MORPH_CHANNELS];
    sn_morph_def def;
    sn_error err;
    size_t need, i, floats;
    void *mem;
    sn_morph *m;
    int t, c, call;
    sn_morph_def_init(&def);
    def.vertices = (size_t)read_int(r, 0, MAX_V);
    def.stride = read_byte(r) < 240 ? read_int(r, 3, 16) : read_int(r, -2, SN_MORPH_MAX_STRIDE + 2);
    def.targets = read_byte(r) < 250 ? read_int(r, 0, MAX_T) : (read_byte(r) < 128 ? -1 : SN_MORPH_MAX_TARGETS + 1);
    for (c = 0; c < SN_MORPH_CHANNELS; c++) def.offsets[c] = read_byte(r) < 64 ? -1 : read_int(r, -2, 18);
    for (i = 0; i < sizeof base / sizeof base[0]; i++) base[i] = i < 64 ? fuzz_value(r) : (float)i;
    for (t = 0; t < MAX_T * SN_MORPH_CHANNELS; t++) {
        const int none = read_byte(r) < 80;
        for (i = 0; i < MAX_V * 3; i++) deltas[t][i] = fuzz_value(r);
        ptrs[t] = none ? NULL : deltas[t];
    }
    def.base = read_byte(r) < 4 ? NULL : base;
    def.deltas = read_byte(r) < 4 ? NULL : ptrs;
    if (def.targets > MAX_T) {
        /* more targets than deltas here: refused by the count before any delta is read */
        FUZZ_CHECK(sn_morph_validate(&def, &err) != SN_OK);
        return 0;
    }
    if (sn_morph_validate(&def, &err) != SN_OK) {
        FUZZ_CHECK(err.code != SN_OK && err.msg[0] != '\0');
        FUZZ_CHECK(sn_morph_size(&def, &err) == 0);
        FUZZ_CHECK(sn_morph_init(base, sizeof base, &def, &err) != SN_OK);
        return 0;
    }
    need = sn_morph_size(&def, &err);
    FUZZ_CHECK(need > 0);
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL);
    FUZZ_CHECK(sn_morph_init(mem, need - 1, &def, &err) == SN_ENOMEM);
    FUZZ_CHECK(sn_morph_init(mem, need, &def, &err) == SN_OK);
    m = (sn_morph *)mem;
    floats = def.vertices * (size_t)def.stride;
    FUZZ_CHECK(sn_morph_vertices(m) == def.vertices && sn_morph_targets(m) == def.targets);
    for (t = -1; t <= def.targets; t++)
        for (c = -1; c <= SN_MORPH_CHANNELS; c++) {
            const float *d = sn_morph_deltas(m, t, c);
            const int kept = t >= 0 && t < def.targets && c >= 0 && c < SN_MORPH_CHANNELS && def.offsets[c] >= 0 &&
                             ptrs[SN_MORPH_CHANNELS * t + c] != NULL;
            FUZZ_CHECK((d != NULL) == kept);
            if (kept) FUZZ_CHECK(memcmp(d, ptrs[SN_MORPH_CHANNELS * t + c], sizeof(float) * 3 * def.vertices) == 0);
        }
    for (call = 0; call < 4; call++) {
        float w[MAX_T + 1];
        const int n = read_byte(r) < 240 ? def.targets : read_int(r, 0, MAX_T + 1);
        size_t room = read_byte(r) < 240 ? floats : (size_t)read_int(r, 0, (int)floats);
        int ok = n == def.targets && room >= floats, zero = 1;
        for (t = 0; t < MAX_T + 1; t++) {
            w[t] = call == 0 ? 0.0f : (float)read_weight(r);
            if (t < n && !isfinite(w[t])) ok = 0;
            if (t < n && w[t] != 0.0f) zero = 0;
        }
        for (i = 0; i <= floats; i++) out[i] = before[i] = (float)i * 0.5f + 1000.0f;
        if (sn_morph_apply(m, w, n, out, room, &err) != SN_OK) {
            FUZZ_CHECK(!ok && err.msg[0] != '\0');
            FUZZ_CHECK(memcmp(out, before, sizeof(float) * (floats + 1)) == 0); /* nothing written */
            continue;
        }
        FUZZ_CHECK(ok);
        FUZZ_CHECK(out[floats] == before[floats]); /* nothing past the room */
        if (zero) FUZZ_CHECK(memcmp(out, base, sizeof(float) * floats) == 0);
        for (i = 0; i < def.vertices; i++) {
            int k;
            for (k = 0; k < def.stride; k++) {
                int covered = 0;
                for (c = 0; c < SN_MORPH_CHANNELS; c++)
                    if (def.offsets[c] >= 0 && k >= def.offsets[c] && k < def.offsets[c] + 3) covered = 1;
                if (!covered)
                    FUZZ_CHECK(memcmp(&out[i * (size_t)def.stride + (size_t)k], &base[i * (size_t)def.stride + (size_t)k],
                                      sizeof(float)) == 0);
            }
            for (c = 0; c < SN_MORPH_CHANNELS; c++) {
                float v[3];
                if (def.offsets[c] < 0) {
                    FUZZ_CHECK(sn_morph_vertex(m, i, c, w, n, v, &err) != SN_OK);
                    continue;
                }
                FUZZ_CHECK(sn_morph_vertex(m, i, c, w, n, v, &err) == SN_OK);
                FUZZ_CHECK(memcmp(v, &out[i * (size_t)def.stride + (size_t)def.offsets[c]], sizeof v) == 0);
            }
        }
        FUZZ_CHECK(sn_morph_vertex(m, def.vertices, 0, w, n, out, &err) == SN_ERANGE);
    }
    free(mem);
    return 0;
}
