/*
 * 2-D rigs: animations (the timelines of one DragonBones animation) and their sampling.
 *
 * Sampling follows DragonBones' timeline states (5.6): the key in force at time t is the one of
 * frame floor(t x frame rate) (the last key starting at or before it); its progress is
 * (t - start / rate) / (its duration), eased by its tween (quads, or the curve's samples read
 * piecewise linearly), and a value is current + (next - current) x progress. The last key
 * tweens toward the first only when `tween_last` says so (a play that is not the last).
 */
#include <math.h>
#include <string.h>

#include "rig2d_internal.h"

enum { T_TRANSLATE = 1, T_ROTATE, T_SCALE, T_DISPLAY, T_COLOR, T_DEFORM, T_ORDER, T_IK };
enum { TW_NONE = 0, TW_LINE, TW_QUAD_IN, TW_QUAD_OUT, TW_QUAD_IN_OUT, TW_CURVE };

typedef r2_reader reader;

/* the next number (integer in [lo, hi]) of timeline tl (0: the header) */
static double num(reader *r, const char *what, int tl) {
    r->timeline = tl;
    return r2_number(r, what);
}

static int integer(reader *r, const char *what, int lo, int hi, int tl) {
    r->timeline = tl;
    return r2_integer(r, what, lo, hi);
}

typedef struct counts {
    int frames, timelines;
    long keys, values, samples;
    double frame_rate;
} counts;

static int value_count(const sn_rig2d_data *d, int type, int target, int extra) {
    switch (type) {
    case T_TRANSLATE:
    case T_ROTATE:
    case T_SCALE:
    case T_IK: return 2;
    case T_DISPLAY: return 1;
    case T_COLOR: return 8;
    case T_DEFORM: return sn_rig2d_data_deform_count(d, target, extra);
    case T_ORDER: return d->slots;
    }
    return 0;
}

/// 1 when o[0 .. n-1] holds each of 0 .. n-1 once (the values are integers in -1 .. n-1).
static int is_order(const double *o, int n) {
    unsigned char seen[SN_RIG2D_MAX_SLOTS];
    memset(seen, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        if (o[i] < 0.0 || seen[(int)o[i]]) return 0;
        seen[(int)o[i]] = 1;
    }
    return 1;
}

/// Walks the layout; with `an` laid out, fills it.
static sn_status walk(reader *r, const sn_rig2d_data *d, counts *c, sn_anim2d *an) {
    memset(c, 0, sizeof *c);
    if (integer(r, "the layout version", 1, 1, 0) != 1) return SN_EINVAL;
    c->frames = integer(r, "the frame count", 1, SN_RIG2D_MAX_FRAMES, 0);
    c->frame_rate = num(r, "the frame rate", 0);
    c->timelines = integer(r, "the timeline count", 0, SN_RIG2D_MAX_TIMELINES, 0);
    if (r->failed) return SN_EINVAL;
    if (!(c->frame_rate > 0.0 && c->frame_rate <= 10000.0)) {
        r2_fault(r, "the frame rate %g is out of range (above 0 .. 10000)", c->frame_rate);
        return SN_EINVAL;
    }
    for (int i = 0; i < c->timelines && !r->failed; i++) {
        int tl = i + 1;
        r2_timeline t;
        t.type = integer(r, "the type", 1, 8, tl);
        int targets = t.type <= T_SCALE ? d->bones : t.type == T_IK ? d->constraints : t.type == T_ORDER ? 1 : d->slots;
        t.target = integer(r, "the target", 0, targets - 1, tl);
        t.extra = integer(r, "the display", 0, t.type == T_DEFORM ? SN_RIG2D_MAX_DISPLAYS : 0, tl);
        if (r->failed) break;
        if (t.type == T_DEFORM && sn_rig2d_data_deform_count(d, t.target, t.extra) == 0) {
            r2_fault(r, "display %d of slot %d is not a mesh", t.extra + 1,
                        t.target + 1);
            return SN_EINVAL;
        }
        t.keys = integer(r, "the key count", 1, SN_RIG2D_MAX_KEYS, tl);
        t.count = integer(r, "the value count", 0, SN_RIG2D_MAX_VALUES, tl);
        if (r->failed) break;
        if (t.count != value_count(d, t.type, t.target, t.extra)) {
            r2_fault(r, "%d values per key, not %d", t.count,
                        value_count(d, t.type, t.target, t.extra));
            return SN_EINVAL;
        }
        if (c->keys + t.keys > SN_RIG2D_MAX_KEYS || c->values + (long)t.keys * t.count > SN_RIG2D_MAX_VALUES) {
            r2_fault(r, "more than %d keys or %d values in all", SN_RIG2D_MAX_KEYS, SN_RIG2D_MAX_VALUES);
            return SN_EINVAL;
        }
        t.first = (int)c->keys;
        int previous = -1;
        for (int j = 0; j < t.keys && !r->failed; j++) {
            r2_key k;
            k.start = integer(r, "a key's start", 0, c->frames, tl);
            if (!r->failed && (j == 0 ? k.start != 0 : k.start <= previous)) {
                r2_fault(r, "key %d starts at frame %d (%s)", j + 1, k.start,
                            j == 0 ? "the first must start at 0" : "not after the previous key");
                return SN_EINVAL;
            }
            previous = k.start;
            k.tween = integer(r, "a key's tween", 0, 5, tl);
            double amount = num(r, "a key's amount", tl);
            k.samples = (int)c->samples;
            k.amount = 0.0;
            if (k.tween == TW_CURVE) {
                if (amount != floor(amount) || amount < 1 || amount > SN_RIG2D_MAX_FRAMES + 1) {
                    r2_fault(r, "key %d's curve sample count %g is out of range", j + 1, amount);
                    return SN_EINVAL;
                }
                int n = (int)amount;
                if (c->samples + n > SN_RIG2D_MAX_VALUES) {
                    r2_fault(r, "more than %d curve samples in all", SN_RIG2D_MAX_VALUES);
                    return SN_EINVAL;
                }
                for (int s = 0; s < n; s++) {
                    int v = integer(r, "a curve sample", -32768, 32767, tl);
                    if (an) an->sample[c->samples + s] = (short)v;
                }
                c->samples += n;
                k.amount = amount;
            } else if (k.tween >= TW_QUAD_IN) {
                k.amount = amount * 0.01;
            }
            k.values = (int)c->values;
            for (int v = 0; v < t.count; v++) {
                double x = num(r, "a key's value", tl);
                if (r->failed) break;
                if (t.type == T_DISPLAY && (x != floor(x) || x < -1 || x >= d->slot[t.target].display_count)) {
                    r2_fault(r, "display index %g is out of range (-1 .. %d)", x,
                                d->slot[t.target].display_count - 1);
                    return SN_EINVAL;
                }
                if (t.type == T_ORDER && (x != floor(x) || x < -1 || x >= d->slots)) {
                    r2_fault(r, "slot %g is out of range", x);
                    return SN_EINVAL;
                }
                if (an) an->value[c->values + v] = (float)x;
            }
            c->values += t.count;
            if (t.type == T_ORDER && t.count > 0 && !r->failed && r->w[r->at - t.count] >= 0.0 && !is_order(r->w + r->at - t.count, t.count)) {
                r2_fault(r, "key %d is not an order of the slots", j + 1);
                return SN_EINVAL;
            }
            if (an) an->key[t.first + j] = k;
        }
        c->keys += t.keys;
        if (r->failed) break;
        if (an) {
            an->timeline[i] = t;
        }
    }
    if (r->failed) return SN_EINVAL;
    if (r->at != r->n) {
        r->timeline = 0;
        r2_fault(r, "%zu numbers after the end of the layout", r->n - r->at);
        return SN_EINVAL;
    }
    return SN_OK;
}

static size_t layout_size(const counts *c) {
    return SN_ALIGN16(sizeof(sn_anim2d)) + SN_ALIGN16(sizeof(r2_timeline) * (size_t)c->timelines) +
           SN_ALIGN16(sizeof(r2_key) * (size_t)c->keys) + SN_ALIGN16(sizeof(float) * (size_t)c->values) +
           SN_ALIGN16(sizeof(short) * (size_t)c->samples);
}

size_t sn_anim2d_size(const sn_rig2d_data *d, const double *w, size_t n, sn_error *err) {
    if (d == NULL || w == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no layout"), 0;
    reader r = { w, n, 0, err, 0, 0 };
    counts c;
    if (walk(&r, d, &c, NULL) != SN_OK) return 0;
    return layout_size(&c);
}

sn_status sn_anim2d_init(void *mem, size_t size, const sn_rig2d_data *d, const double *w, size_t n,
                         sn_error *err) {
    if (d == NULL || w == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no layout");
    reader r = { w, n, 0, err, 0, 0 };
    counts c;
    if (walk(&r, d, &c, NULL) != SN_OK) return SN_EINVAL;
    size_t need = layout_size(&c);
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "the animation needs %zu bytes", need);
    memset(mem, 0, need);
    unsigned char *at = (unsigned char *)mem;
    sn_anim2d *an = (sn_anim2d *)at;
    at += SN_ALIGN16(sizeof(sn_anim2d));
#define TAKE(ptr, type, count) (ptr = (type *)at, at += SN_ALIGN16(sizeof(type) * (size_t)(count)))
    TAKE(an->timeline, r2_timeline, c.timelines);
    TAKE(an->key, r2_key, c.keys);
    TAKE(an->value, float, c.values);
    TAKE(an->sample, short, c.samples);
#undef TAKE
    an->data = d;
    an->frames = c.frames;
    an->timelines = c.timelines;
    an->frame_rate = c.frame_rate;
    an->duration = c.frames / c.frame_rate;
    reader r2 = { w, n, 0, err, 0, 0 };
    return walk(&r2, d, &c, an);
}

int sn_anim2d_frames(const sn_anim2d *an) { return an->frames; }
double sn_anim2d_frame_rate(const sn_anim2d *an) { return an->frame_rate; }
double sn_anim2d_duration(const sn_anim2d *an) { return an->duration; }
const sn_rig2d_data *sn_anim2d_data(const sn_anim2d *an) { return an->data; }

/* ---- sampling ------------------------------------------------------------------------------- */

static double eased(const sn_anim2d *an, const r2_key *k, double p) {
    switch (k->tween) {
    case TW_LINE: return p;
    case TW_QUAD_IN: return (pow(p, 2.0) - p) * k->amount + p;
    case TW_QUAD_OUT: return ((1.0 - pow(1.0 - p, 2.0)) - p) * k->amount + p;
    case TW_QUAD_IN_OUT: return ((0.5 * (1.0 - cos(p * R2_PI))) - p) * k->amount + p;
    case TW_CURVE: {
        if (!(p > 0.0)) return 0.0; /* NaN too */
        if (p >= 1.0) return 1.0;
        int count = (int)k->amount, segments = count + 1;
        int i = (int)floor(p * segments);
        const short *s = an->sample + k->samples;
        double from = i == 0 ? 0.0 : s[i - 1];
        double to = i == segments - 1 ? 10000.0 : s[i];
        return (from + (to - from) * (p * segments - i)) * 0.0001;
    }
    }
    return 0.0;
}

/// The key of timeline t in force at `time`, and the progress toward the next (0: held).
static const r2_key *key_at(const sn_anim2d *an, const r2_timeline *t, double time, int tween_last,
                            double *progress, const r2_key **next) {
    *progress = 0.0;
    *next = NULL;
    if (t->keys == 1) return &an->key[t->first];
    double f = floor(time * an->frame_rate);
    int frame = f >= 0.0 ? (f < an->frames ? (int)f : an->frames) : 0; /* NaN: 0 */
    /* the last key starting at or before the frame (the first starts at 0): a binary search, so
       an animation holds nothing per frame */
    const r2_key *keys = an->key + t->first;
    int j = 0, hi = t->keys - 1;
    while (j < hi) {
        int mid = (j + hi + 1) / 2;
        if (keys[mid].start <= frame) j = mid;
        else hi = mid - 1;
    }
    const r2_key *k = &an->key[t->first + j];
    int last = j == t->keys - 1;
    if (k->tween == TW_NONE || (last && !tween_last)) return k;
    double rate_r = 1.0 / an->frame_rate;
    double position = k->start * rate_r, duration_r;
    if (last) {
        duration_r = 1.0 / (an->duration - position);
    } else {
        double length = an->key[t->first + j + 1].start * rate_r - position;
        duration_r = length > 0.0 ? 1.0 / length : 0.0;
    }
    double p = (time - position) * duration_r;
    *progress = k->tween == TW_LINE ? p : eased(an, k, p);
    *next = last ? &an->key[t->first] : k + 1;
    return k;
}

/// The value of a tweening timeline's key k with progress p toward `next`.
static void tween_values(const sn_anim2d *an, const r2_key *k, const r2_key *next, double p, int count, double *out) {
    const float *v = an->value + k->values, *nv = next ? an->value + next->values : NULL;
    for (int c = 0; c < count; c++) {
        double cur = v[c], delta = nv ? (double)nv[c] - cur : 0.0;
        out[c] = cur + delta * p;
    }
}

void sn_anim2d_sample_pose(const sn_anim2d *an, double time, int tween_last, double *pose) {
    sn_pose2d_rest(pose, an->data->bones);
    for (int i = 0; i < an->timelines; i++) {
        const r2_timeline *t = &an->timeline[i];
        if (t->type > T_SCALE) continue;
        double p;
        const r2_key *next;
        const r2_key *k = key_at(an, t, time, tween_last, &p, &next);
        tween_values(an, k, next, p, 2, pose + 6 * t->target + 2 * (t->type - T_TRANSLATE));
    }
}

void sn_rig2d_sample(sn_rig2d *r, const sn_anim2d *an, double time, int tween_last) {
    const sn_rig2d_data *d = r->data;
    sn_rig2d_setup(r);
    for (int pass = 0; pass < 2; pass++) { /* deform after the displays it depends on */
        for (int i = 0; i < an->timelines; i++) {
            const r2_timeline *t = &an->timeline[i];
            if ((t->type == T_DEFORM) != (pass == 1)) continue;
            double p;
            const r2_key *next;
            const r2_key *k = key_at(an, t, time, tween_last, &p, &next);
            const float *v = an->value + k->values;
            switch (t->type) {
            case T_TRANSLATE:
            case T_ROTATE:
            case T_SCALE: tween_values(an, k, next, p, 2, r->pose + 6 * t->target + 2 * (t->type - T_TRANSLATE)); break;
            case T_DISPLAY: r->display[t->target] = (int)v[0]; break;
            case T_COLOR: {
                double *out = r->color + 8 * t->target;
                tween_values(an, k, next, p, 8, out);
                for (int c = 0; c < 4; c++) out[c] *= 0.01;
                break;
            }
            case T_DEFORM: {
                if (r->display[t->target] != t->extra) break;
                const r2_display *q = &d->display[d->slot[t->target].first_display + t->extra];
                tween_values(an, k, next, p, t->count, r->deform + d->mesh_deform[q->mesh]);
                break;
            }
            case T_ORDER: {
                if (d->slots == 0 || v[0] < 0) break;
                for (int s = 0; s < d->slots; s++) {
                    r->order[s] = (int)v[s];
                    r->position[(int)v[s]] = s + 1;
                }
                break;
            }
            case T_IK: {
                double weight;
                tween_values(an, k, next, p, 1, &weight);
                r->ik_weight[t->target] = weight;
                r->ik_bend[t->target] = v[1] != 0.0;
                break;
            }
            }
        }
    }
}
