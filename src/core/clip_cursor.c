/*
 * Clips, cursors: the place of one playback in a clip, kept outside the clip so that many
 * playbacks of one clip (a crowd) each play forward without a key search. Sampling through a
 * cursor puts its place into the clip's groups, samples, and takes the place back out (see
 * clip_state in clip_internal.h): the clip's data is shared, only the moving part is per cursor.
 */
#include <math.h>
#include <string.h>

#include "clip_internal.h"

void sn_clip_cursor_def_init(sn_clip_cursor_def *def) { def->clip = NULL; }

sn_status sn_clip_cursor_validate(const sn_clip_cursor_def *def, sn_error *err) {
    if (def == NULL || def->clip == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "a cursor needs a clip");
    return SN_OK;
}

/* floats of the cache of a keyed group (the keys around the current time, every lane) */
static size_t keyed_floats(const clip_group *g) { return (size_t)g->rows * (size_t)g->depth * (size_t)g->np; }

size_t sn_clip_cursor_size(const sn_clip_cursor_def *def, sn_error *err) {
    size_t size;
    int g;
    if (sn_clip_cursor_validate(def, err) != SN_OK) return 0;
    size = SN_ALIGN16(sizeof(sn_clip_cursor)) + SN_ALIGN16(sizeof(clip_state) * (size_t)def->clip->group_count);
    for (g = 0; g < def->clip->group_count; g++) {
        const clip_group *gr = &def->clip->groups[g];
        if (!gr->uniform && gr->n > 0) size += SN_ALIGN16(sizeof(float) * keyed_floats(gr));
    }
    return size;
}

/* swaps the moving part of group g between the clip and `s` */
static void swap_state(clip_group *g, clip_state *s) {
    clip_state t;
    t.cache = g->cache;
    t.pos = g->pos;
    t.tprev = g->tprev;
    g->cache = s->cache;
    g->pos = s->pos;
    g->tprev = s->tprev;
    *s = t;
}

sn_status sn_clip_cursor_init(void *mem, size_t size, const sn_clip_cursor_def *def, sn_error *err) {
    sn_clip_cursor *cur = (sn_clip_cursor *)mem;
    unsigned char *at;
    size_t need = sn_clip_cursor_size(def, err);
    sn_clip *c;
    int g;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_EINVAL, "cursor memory too small: %lu bytes for %lu",
                                                   (unsigned long)size, (unsigned long)need);
    c = def->clip;
    memset(mem, 0, need);
    cur->clip = c;
    cur->group_count = c->group_count;
    at = (unsigned char *)mem + SN_ALIGN16(sizeof(sn_clip_cursor));
    cur->groups = (clip_state *)at;
    at += SN_ALIGN16(sizeof(clip_state) * (size_t)c->group_count);
    for (g = 0; g < c->group_count; g++) {
        clip_group *gr = &c->groups[g];
        clip_state *s = &cur->groups[g];
        s->pos = 0;
        s->tprev = -INFINITY;
        if (gr->uniform || gr->n == 0) {
            s->cache = gr->block; /* the first interval */
            continue;
        }
        s->cache = (float *)at; /* loaded as construction loads the clip's own: from the start */
        at += SN_ALIGN16(sizeof(float) * keyed_floats(gr));
        swap_state(gr, s);
        sn_clip_clear_keyed(gr);
        sn_clip_seek_keyed(gr, -INFINITY);
        gr->tprev = -INFINITY;
        swap_state(gr, s);
    }
    return SN_OK;
}

sn_clip *sn_clip_cursor_clip(const sn_clip_cursor *cur) { return cur->clip; }

sn_status sn_clip_cursor_sample(sn_clip_cursor *cur, double t, int loop, sn_pose *out, sn_error *err) {
    sn_clip *c = cur->clip;
    sn_status st;
    int g;
    for (g = 0; g < c->group_count; g++) swap_state(&c->groups[g], &cur->groups[g]);
    st = sn_clip_sample(c, t, loop, out, err);
    for (g = 0; g < c->group_count; g++) swap_state(&c->groups[g], &cur->groups[g]);
    return st;
}
