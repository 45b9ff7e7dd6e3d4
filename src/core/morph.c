/* Morph targets applied to vertices (see morph.h). */
#include "morph.h"

#include <string.h>

#define NO_DELTA ((size_t)-1)

struct sn_morph {
    size_t vertices;                /* vertex count */
    int stride;                     /* floats per vertex */
    int targets;                    /* target count */
    int offsets[SN_MORPH_CHANNELS]; /* channel offsets in a vertex, -1: not in the layout */
    const float *base;              /* vertices x stride floats */
    const size_t *delta_at;         /* targets x channels: first float in `deltas`, or NO_DELTA */
    const float *deltas;            /* the kept deltas, 3 floats per vertex each */
};

static const char *const channel_names[SN_MORPH_CHANNELS] = {"position", "normal", "tangent"};

/* the layout of the block: offsets from its start (each 16-byte aligned) and the deltas kept */
typedef struct layout {
    size_t delta_at, base, deltas, total, kept;
} layout;

static layout layout_of(const sn_morph_def *def) {
    layout l;
    int t, c;
    l.kept = 0;
    for (t = 0; t < def->targets; t++)
        for (c = 0; c < SN_MORPH_CHANNELS; c++)
            if (def->offsets[c] >= 0 && def->deltas[SN_MORPH_CHANNELS * t + c] != NULL) l.kept++;
    l.delta_at = SN_ALIGN16(sizeof(sn_morph));
    l.base = l.delta_at + SN_ALIGN16(sizeof(size_t) * SN_MORPH_CHANNELS * (size_t)def->targets);
    l.deltas = l.base + SN_ALIGN16(sizeof(float) * def->vertices * (size_t)def->stride);
    l.total = l.deltas + sizeof(float) * 3 * def->vertices * l.kept + 16; /* +16: any alignment of mem */
    return l;
}

void sn_morph_def_init(sn_morph_def *def) {
    memset(def, 0, sizeof *def);
    def->stride = 3;
    def->offsets[SN_MORPH_POSITION] = 0;
    def->offsets[SN_MORPH_NORMAL] = -1;
    def->offsets[SN_MORPH_TANGENT] = -1;
}

sn_status sn_morph_validate(const sn_morph_def *def, sn_error *err) {
    int c, d, t;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no definition");
    if (def->vertices < 1 || def->vertices > SN_MORPH_MAX_VERTICES)
        return sn_fail_arg(err, 1, SN_EINVAL, "%lu vertices (1 .. %lu)", (unsigned long)def->vertices,
                           (unsigned long)SN_MORPH_MAX_VERTICES);
    if (def->stride < 3 || def->stride > SN_MORPH_MAX_STRIDE)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d floats per vertex (3 .. %d)", def->stride, SN_MORPH_MAX_STRIDE);
    if (def->targets < 0 || def->targets > SN_MORPH_MAX_TARGETS)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d targets (0 .. %d)", def->targets, SN_MORPH_MAX_TARGETS);
    if (def->base == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no base vertices");
    if (def->targets > 0 && def->deltas == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no deltas");
    for (c = 0; c < SN_MORPH_CHANNELS; c++) {
        const int o = def->offsets[c];
        if (o < -1 || (o >= 0 && o > def->stride - 3))
            return sn_fail_arg(err, 1, SN_EINVAL, "%s offset %d is out of range (-1 .. %d)", channel_names[c], o,
                               def->stride - 3);
        for (d = 0; d < c && o >= 0; d++)
            if (def->offsets[d] >= 0 && (o < def->offsets[d] + 3 && def->offsets[d] < o + 3))
                return sn_fail_arg(err, 1, SN_EINVAL, "the %s (offset %d) overlaps the %s (offset %d)", channel_names[c],
                                   o, channel_names[d], def->offsets[d]);
    }
    for (t = 0; t < def->targets; t++)
        for (c = 0; c < SN_MORPH_CHANNELS; c++) {
            const float *delta = def->deltas[SN_MORPH_CHANNELS * t + c];
            size_t i;
            if (def->offsets[c] < 0 || delta == NULL) continue;
            for (i = 0; i < 3 * def->vertices; i++)
                if (!sn_isfinite(delta[i]))
                    return sn_fail_arg(err, 1, SN_EINVAL, "target %d: %s delta of vertex %lu is not finite", t,
                                       channel_names[c], (unsigned long)(i / 3));
        }
    return SN_OK;
}

size_t sn_morph_size(const sn_morph_def *def, sn_error *err) {
    if (sn_morph_validate(def, err) != SN_OK) return 0;
    return layout_of(def).total;
}

sn_status sn_morph_init(void *mem, size_t size, const sn_morph_def *def, sn_error *err) {
    const size_t need = sn_morph_size(def, err);
    sn_morph *m = (sn_morph *)mem;
    unsigned char *block;
    size_t *delta_at, at = 0;
    float *base, *deltas;
    int t, c;
    layout l;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "a morph set needs %lu bytes", (unsigned long)need);
    l = layout_of(def);
    /* the arrays start 16-byte aligned after the header, whatever the alignment of mem */
    block = (unsigned char *)mem + ((16u - ((size_t)mem & 15u)) & 15u);
    delta_at = (size_t *)(block + l.delta_at);
    base = (float *)(block + l.base);
    deltas = (float *)(block + l.deltas);
    memcpy(base, def->base, sizeof(float) * def->vertices * (size_t)def->stride);
    for (t = 0; t < def->targets; t++)
        for (c = 0; c < SN_MORPH_CHANNELS; c++) {
            const float *delta = def->deltas[SN_MORPH_CHANNELS * t + c];
            if (def->offsets[c] < 0 || delta == NULL) {
                delta_at[SN_MORPH_CHANNELS * t + c] = NO_DELTA;
                continue;
            }
            delta_at[SN_MORPH_CHANNELS * t + c] = at;
            memcpy(deltas + at, delta, sizeof(float) * 3 * def->vertices);
            at += 3 * def->vertices;
        }
    m->vertices = def->vertices;
    m->stride = def->stride;
    m->targets = def->targets;
    for (c = 0; c < SN_MORPH_CHANNELS; c++) m->offsets[c] = def->offsets[c];
    m->base = base;
    m->delta_at = delta_at;
    m->deltas = deltas;
    return SN_OK;
}

size_t sn_morph_vertices(const sn_morph *m) { return m->vertices; }
int sn_morph_stride(const sn_morph *m) { return m->stride; }
int sn_morph_targets(const sn_morph *m) { return m->targets; }
const float *sn_morph_base(const sn_morph *m) { return m->base; }

const float *sn_morph_deltas(const sn_morph *m, int t, int channel) {
    size_t at;
    if (t < 0 || t >= m->targets || channel < 0 || channel >= SN_MORPH_CHANNELS) return NULL;
    at = m->delta_at[SN_MORPH_CHANNELS * t + channel];
    return at == NO_DELTA ? NULL : m->deltas + at;
}

sn_status sn_morph_check_weights(const sn_morph *m, const float *weights, int n, sn_error *err) {
    int t;
    if (n != m->targets) return sn_fail_arg(err, 2, SN_EINVAL, "%d weights for %d targets", n, m->targets);
    for (t = 0; t < n; t++)
        if (!sn_isfinite(weights[t])) return sn_fail_arg(err, 2, SN_EINVAL, "weight %d is not finite", t + 1);
    return SN_OK;
}

sn_status sn_morph_apply(const sn_morph *m, const float *weights, int n, float *out, size_t room, sn_error *err) {
    const size_t stride = (size_t)m->stride, count = m->vertices;
    sn_status st = sn_morph_check_weights(m, weights, n, err);
    int t, c;
    if (st != SN_OK) return st;
    if (out == NULL || room < count * stride)
        return sn_fail_arg(err, 3, SN_ENOMEM, "%lu vertices of %d floats need room (got %lu)", (unsigned long)count,
                           m->stride, (unsigned long)room);
    memcpy(out, m->base, sizeof(float) * count * stride);
    /* target after target, each a pass over its kept channels: contiguous deltas, strided writes */
    for (t = 0; t < n; t++) {
        const float w = weights[t];
        if (w == 0.0f) continue;
        for (c = 0; c < SN_MORPH_CHANNELS; c++) {
            const size_t at = m->delta_at[SN_MORPH_CHANNELS * t + c];
            const float *d;
            float *o;
            size_t v;
            if (at == NO_DELTA) continue;
            d = m->deltas + at;
            o = out + m->offsets[c];
            for (v = 0; v < count; v++, o += stride, d += 3) {
                o[0] += w * d[0];
                o[1] += w * d[1];
                o[2] += w * d[2];
            }
        }
    }
    return SN_OK;
}

sn_status sn_morph_vertex(const sn_morph *m, size_t v, int channel, const float *weights, int n, float out[3],
                          sn_error *err) {
    const float *b;
    int t;
    sn_status st;
    if (v >= m->vertices)
        return sn_fail_arg(err, 2, SN_ERANGE, "vertex %lu is out of range (0 .. %lu)", (unsigned long)v,
                           (unsigned long)(m->vertices - 1));
    if (channel < 0 || channel >= SN_MORPH_CHANNELS || m->offsets[channel] < 0)
        return sn_fail_arg(err, 3, SN_EINVAL, "channel %d is not in the vertex layout", channel);
    if ((st = sn_morph_check_weights(m, weights, n, err)) != SN_OK) {
        if (err != NULL) err->arg = 4;
        return st;
    }
    b = m->base + v * (size_t)m->stride + m->offsets[channel];
    out[0] = b[0];
    out[1] = b[1];
    out[2] = b[2];
    for (t = 0; t < n; t++) {
        const float w = weights[t];
        const size_t at = m->delta_at[SN_MORPH_CHANNELS * t + channel];
        const float *d;
        if (w == 0.0f || at == NO_DELTA) continue;
        d = m->deltas + at + 3 * v;
        out[0] += w * d[0];
        out[1] += w * d[1];
        out[2] += w * d[2];
    }
    return SN_OK;
}
