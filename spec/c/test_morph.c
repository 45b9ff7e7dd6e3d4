/* C-only tests of src/core/morph.c (morph targets applied to vertices): no Lua involved. */
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "morph.h"

#define V 5      /* vertices */
#define STRIDE 8 /* position 0, normal 3, texcoord 6 */
#define T 3      /* targets */

static float base[V * STRIDE];
static float deltas[T][SN_MORPH_CHANNELS][V * 3];
static const float *delta_ptrs[T * SN_MORPH_CHANNELS];

/* a set of V vertices, 3 targets: target 0 moves positions and normals, target 1 positions only,
   target 2 normals only; tangent deltas are given but the layout has no tangent */
static void make_def(sn_morph_def *def) {
    unsigned long seed = 7;
    int i, t, c;
    for (i = 0; i < V * STRIDE; i++) base[i] = (float)(ensure_random(&seed) * 2 - 1);
    for (t = 0; t < T; t++)
        for (c = 0; c < SN_MORPH_CHANNELS; c++) {
            for (i = 0; i < V * 3; i++) deltas[t][c][i] = (float)(ensure_random(&seed) - 0.5);
            delta_ptrs[SN_MORPH_CHANNELS * t + c] = deltas[t][c];
        }
    delta_ptrs[SN_MORPH_CHANNELS * 1 + SN_MORPH_NORMAL] = NULL;
    delta_ptrs[SN_MORPH_CHANNELS * 2 + SN_MORPH_POSITION] = NULL;
    sn_morph_def_init(def);
    def->vertices = V;
    def->stride = STRIDE;
    def->targets = T;
    def->offsets[SN_MORPH_NORMAL] = 3;
    def->base = base;
    def->deltas = delta_ptrs;
}

static sn_morph *make(const sn_morph_def *def) {
    sn_error err;
    size_t size = sn_morph_size(def, &err);
    void *mem = size > 0 ? malloc(size) : NULL;
    ENSURE(mem != NULL);
    if (mem == NULL) return NULL;
    ENSURE(sn_morph_init(mem, size, def, &err) == SN_OK);
    return (sn_morph *)mem;
}

/* the glTF formula in double, channel c of vertex v */
static double expected(int v, int c, int k, const float *w) {
    const int off = c == SN_MORPH_POSITION ? 0 : 3;
    double x = base[v * STRIDE + off + k];
    int t;
    for (t = 0; t < T; t++)
        if (delta_ptrs[SN_MORPH_CHANNELS * t + c] != NULL) x += (double)w[t] * deltas[t][c][3 * v + k];
    return x;
}

static void test_apply_formula(void) {
    sn_morph_def def;
    sn_morph *m;
    float out[V * STRIDE];
    const float weights[][T] = {{0, 0, 0}, {1, 0, 0}, {0.25f, 0.5f, 0.75f}, {-1, 2, 0.5f}, {0, 1, 0}};
    sn_error err;
    size_t w;
    make_def(&def);
    m = make(&def);
    if (m == NULL) return;
    ENSURE(sn_morph_vertices(m) == V && sn_morph_stride(m) == STRIDE && sn_morph_targets(m) == T);
    for (w = 0; w < sizeof weights / sizeof weights[0]; w++) {
        int v, k;
        ENSURE(sn_morph_apply(m, weights[w], T, out, V * STRIDE, &err) == SN_OK);
        for (v = 0; v < V; v++) {
            float p[3], n[3];
            ENSURE(sn_morph_vertex(m, (size_t)v, SN_MORPH_POSITION, weights[w], T, p, &err) == SN_OK);
            ENSURE(sn_morph_vertex(m, (size_t)v, SN_MORPH_NORMAL, weights[w], T, n, &err) == SN_OK);
            for (k = 0; k < 3; k++) {
                ENSURE_NEAR(out[v * STRIDE + k], expected(v, SN_MORPH_POSITION, k, weights[w]), 1e-6);
                ENSURE_NEAR(out[v * STRIDE + 3 + k], expected(v, SN_MORPH_NORMAL, k, weights[w]), 1e-6);
                ENSURE(out[v * STRIDE + k] == p[k] && out[v * STRIDE + 3 + k] == n[k]); /* bit for bit */
            }
            /* the slots no channel covers are the base's */
            ENSURE(out[v * STRIDE + 6] == base[v * STRIDE + 6] && out[v * STRIDE + 7] == base[v * STRIDE + 7]);
        }
    }
    /* the deltas kept: copies of the definition's, none where there were none or no channel */
    ENSURE(sn_morph_deltas(m, 0, SN_MORPH_NORMAL) != NULL &&
           memcmp(sn_morph_deltas(m, 0, SN_MORPH_NORMAL), deltas[0][1], sizeof deltas[0][1]) == 0);
    ENSURE(sn_morph_deltas(m, 1, SN_MORPH_NORMAL) == NULL && sn_morph_deltas(m, 2, SN_MORPH_POSITION) == NULL);
    ENSURE(sn_morph_deltas(m, 0, SN_MORPH_TANGENT) == NULL && sn_morph_deltas(m, T, 0) == NULL);
    ENSURE(sn_morph_deltas(m, -1, 0) == NULL && sn_morph_deltas(m, 0, 3) == NULL);
    /* the definition's arrays may go: the set holds copies */
    base[0] += 1.0f;
    ENSURE(sn_morph_apply(m, weights[0], T, out, V * STRIDE, &err) == SN_OK);
    ENSURE(out[0] == base[0] - 1.0f);
    base[0] -= 1.0f;
    free(m);
}

static void test_refusals_write_nothing(void) {
    sn_morph_def def;
    sn_morph *m;
    float out[V * STRIDE], p[3];
    float bad[T] = {0.5f, 0, 0};
    sn_error err;
    int i;
    make_def(&def);
    m = make(&def);
    if (m == NULL) return;
    for (i = 0; i < V * STRIDE; i++) out[i] = 42.0f;
    ENSURE(sn_morph_apply(m, bad, T - 1, out, V * STRIDE, &err) != SN_OK && err.arg == 2);
    ENSURE(strstr(err.msg, "2 weights for 3 targets") != NULL);
    ENSURE(sn_morph_apply(m, bad, T, out, V * STRIDE - 1, &err) == SN_ENOMEM && err.arg == 3);
    bad[2] = (float)NAN;
    ENSURE(sn_morph_apply(m, bad, T, out, V * STRIDE, &err) != SN_OK && strstr(err.msg, "weight 3 is not finite"));
    bad[2] = (float)INFINITY;
    ENSURE(sn_morph_apply(m, bad, T, out, V * STRIDE, &err) != SN_OK);
    for (i = 0; i < V * STRIDE; i++) ENSURE(out[i] == 42.0f);
    bad[2] = 0;
    ENSURE(sn_morph_vertex(m, V, SN_MORPH_POSITION, bad, T, p, &err) == SN_ERANGE && err.arg == 2);
    ENSURE(sn_morph_vertex(m, 0, SN_MORPH_TANGENT, bad, T, p, &err) != SN_OK && err.arg == 3);
    ENSURE(sn_morph_vertex(m, 0, 7, bad, T, p, &err) != SN_OK && err.arg == 3);
    ENSURE(sn_morph_vertex(m, 0, SN_MORPH_POSITION, bad, 2, p, &err) != SN_OK && err.arg == 4);
    free(m);
}

/* every invalid definition is refused, with a message, by validate, size and init */
typedef struct def_case {
    const char *what;
    int field; /* what to spoil */
    int value;
    const char *says;
} def_case;

static const def_case def_cases[] = {
    {"no vertices", 0, 0, "0 vertices"},
    {"a stride of 2", 1, 2, "2 floats per vertex"},
    {"a stride of 65", 1, 65, "65 floats per vertex"},
    {"-1 targets", 2, -1, "-1 targets"},
    {"too many targets", 2, SN_MORPH_MAX_TARGETS + 1, "targets (0 .. 1024)"},
    {"a normal past the vertex", 3, 6, "normal offset 6 is out of range (-1 .. 5)"},
    {"a normal offset of -2", 3, -2, "normal offset -2"},
    {"a normal over the position", 3, 2, "the normal (offset 2) overlaps the position (offset 0)"},
    {"no base", 4, 0, "no base vertices"},
    {"no deltas", 5, 0, "no deltas"},
    {"a NaN delta", 6, 0, "target 0: position delta of vertex 1 is not finite"},
    {"an infinite normal delta", 7, 0, "target 2: normal delta of vertex 4 is not finite"},
};

static void test_invalid_definitions(void) {
    size_t i;
    for (i = 0; i < sizeof def_cases / sizeof def_cases[0]; i++) {
        const def_case *c = &def_cases[i];
        sn_morph_def def;
        sn_error err;
        unsigned char mem[64];
        float saved_p = deltas[0][0][4], saved_n = deltas[2][1][14];
        make_def(&def);
        switch (c->field) {
        case 0: def.vertices = (size_t)c->value; break;
        case 1: def.stride = c->value; break;
        case 2: def.targets = c->value; break;
        case 3: def.offsets[SN_MORPH_NORMAL] = c->value; break;
        case 4: def.base = NULL; break;
        case 5: def.deltas = NULL; break;
        case 6: deltas[0][0][4] = (float)NAN; break;
        default: deltas[2][1][14] = (float)INFINITY; break;
        }
        err.msg[0] = '\0';
        ENSURE(sn_morph_validate(&def, &err) != SN_OK);
        if (strstr(err.msg, c->says) == NULL) fprintf(stderr, "%s: got '%s'\n", c->what, err.msg);
        ENSURE(strstr(err.msg, c->says) != NULL);
        ENSURE(sn_morph_size(&def, &err) == 0);
        ENSURE(sn_morph_init(mem, sizeof mem, &def, &err) != SN_OK);
        deltas[0][0][4] = saved_p;
        deltas[2][1][14] = saved_n;
    }
    {
        /* a tangent not in the layout: its deltas are neither checked nor kept */
        sn_morph_def def;
        sn_error err;
        size_t with, without;
        make_def(&def);
        with = sn_morph_size(&def, &err);
        deltas[1][SN_MORPH_TANGENT][0] = (float)NAN;
        ENSURE(sn_morph_validate(&def, &err) == SN_OK);
        def.offsets[SN_MORPH_TANGENT] = 5;
        ENSURE(sn_morph_validate(&def, &err) != SN_OK); /* overlaps the normal at 3 */
        def.offsets[SN_MORPH_TANGENT] = 6 - 1;
        deltas[1][SN_MORPH_TANGENT][0] = 0;
        def.offsets[SN_MORPH_NORMAL] = -1;
        without = sn_morph_size(&def, &err);
        ENSURE(with > 0 && without > 0);
        /* too small a block */
        {
            unsigned char *mem = (unsigned char *)malloc(with);
            make_def(&def);
            ENSURE(mem != NULL && sn_morph_init(mem, with - 1, &def, &err) == SN_ENOMEM);
            free(mem);
        }
    }
}

/* a set of no targets writes its base */
static void test_no_targets(void) {
    sn_morph_def def;
    sn_error err;
    float out[V * STRIDE];
    unsigned char *mem;
    size_t size;
    int i;
    make_def(&def);
    def.targets = 0;
    def.deltas = NULL;
    size = sn_morph_size(&def, &err);
    mem = (unsigned char *)malloc(size);
    ENSURE(mem != NULL);
    if (mem == NULL) return;
    ENSURE(sn_morph_init(mem, size, &def, &err) == SN_OK);
    ENSURE(sn_morph_apply((sn_morph *)(mem), NULL, 0, out, V * STRIDE, &err) == SN_OK);
    for (i = 0; i < V * STRIDE; i++) ENSURE(out[i] == base[i]);
    free(mem);
}

int main(void) {
    RUN(test_apply_formula);
    RUN(test_refusals_write_nothing);
    RUN(test_invalid_definitions);
    RUN(test_no_targets);
    return END("test_morph");
}
