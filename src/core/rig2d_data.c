/*
 * 2-D armatures: checking a layout (rig2d.h) and building it in caller memory.
 *
 * One reader walks the layout twice: sn_rig2d_data_size checks every number and counts what
 * the armature holds; sn_rig2d_data_init builds it. Both run the same check first, so a layout
 * init accepts is exactly one size accepted.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rig2d_internal.h"

typedef r2_reader reader;

/* ---- the check: counts, indices, numbers ---------------------------------------------------- */

typedef struct counts {
    int bones, constraints, slots, displays, meshes;
    long vertices, entries, floats, ints, deform_total;
} counts;

/// Where init puts the meshes' numbers (NULL while only checking).
typedef struct pools {
    float *f;
    int *i;
} pools;

static void read_transform(reader *r, r2_transform *t) {
    t->x = r2_number(r, "x");
    t->y = r2_number(r, "y");
    t->rotation = r2_number(r, "rotation");
    t->skew = r2_number(r, "skew");
    t->sx = r2_number(r, "scale x");
    t->sy = r2_number(r, "scale y");
}

static sn_status read_mesh(reader *r, int i, counts *c, r2_mesh *m, pools *p) {
    char what[64];
    memset(m, 0, sizeof *m);
    snprintf(what, sizeof what, "mesh %d's vertex count", i + 1);
    m->vertices = r2_integer(r, what, 1, SN_RIG2D_MAX_VERTICES);
    m->weighted = r2_integer(r, "weighted", 0, 1);
    if (r->failed) return SN_EINVAL;
    c->vertices += m->vertices;
    if (c->vertices > SN_RIG2D_MAX_VERTICES)
        return r2_fault(r, "mesh vertices: more than %d in all", SN_RIG2D_MAX_VERTICES), SN_EINVAL;
    if (p) m->uvs = p->f, p->f += 2 * m->vertices;
    for (int k = 0; k < 2 * m->vertices; k++) {
        double v = r2_number(r, "uv");
        if (p) m->uvs[k] = (float)v;
    }
    c->floats += 2 * m->vertices;
    if (!m->weighted) {
        if (p) m->points = p->f, p->f += 2 * m->vertices;
        for (int k = 0; k < 2 * m->vertices; k++) {
            double v = r2_number(r, "vertex");
            if (p) m->points[k] = (float)v;
        }
        c->floats += 2 * m->vertices;
        m->deform_count = 2 * m->vertices;
        return r->failed ? SN_EINVAL : SN_OK;
    }
    /* weighted: check (and count) first, then copy */
    size_t start = r->at;
    long entries = 0;
    for (int v = 0; v < m->vertices && !r->failed; v++) {
        snprintf(what, sizeof what, "mesh %d vertex %d's influence count", i + 1, v + 1);
        int n = r2_integer(r, what, 1, 16);
        for (int k = 0; k < n && !r->failed; k++) {
            snprintf(what, sizeof what, "mesh %d vertex %d's bone", i + 1, v + 1);
            r2_integer(r, what, 0, c->bones - 1);
            r2_number(r, "weight");
            r2_number(r, "bind x");
            r2_number(r, "bind y");
        }
        entries += n;
    }
    if (r->failed) return SN_EINVAL;
    if (c->entries + entries > SN_RIG2D_MAX_WEIGHTS)
        return r2_fault(r, "weight entries: more than %d in all", SN_RIG2D_MAX_WEIGHTS), SN_EINVAL;
    c->entries += entries;
    c->floats += 3 * entries;
    c->ints += m->vertices + entries;
    m->entries = (int)entries;
    m->deform_count = 2 * m->entries;
    if (p) {
        m->points = p->f, p->f += 3 * entries;
        m->counts = p->i, p->i += m->vertices;
        m->bones = p->i, p->i += entries;
        size_t at = start;
        for (int v = 0, e = 0; v < m->vertices; v++) {
            int n = (int)r->w[at++];
            m->counts[v] = n;
            for (int k = 0; k < n; k++, e++) {
                m->bones[e] = (int)r->w[at++];
                m->points[3 * e] = (float)r->w[at++];
                m->points[3 * e + 1] = (float)r->w[at++];
                m->points[3 * e + 2] = (float)r->w[at++];
            }
        }
    }
    return SN_OK;
}

/// Walks the whole layout; with `d` (laid out by init) it also fills it.
static sn_status walk(reader *r, counts *c, sn_rig2d_data *d, pools *p) {
    char what[64];
    memset(c, 0, sizeof *c);
    if (r2_integer(r, "the layout version", 1, 1) != 1 || r->failed) return SN_EINVAL;
    c->bones = r2_integer(r, "the bone count", 1, SN_RIG2D_MAX_BONES);
    c->constraints = r2_integer(r, "the constraint count", 0, SN_RIG2D_MAX_BONES);
    c->slots = r2_integer(r, "the slot count", 0, SN_RIG2D_MAX_SLOTS);
    c->displays = r2_integer(r, "the display count", 0, SN_RIG2D_MAX_DISPLAYS);
    c->meshes = r2_integer(r, "the mesh count", 0, SN_RIG2D_MAX_DISPLAYS);
    if (r->failed) return SN_EINVAL;
    for (int i = 0; i < c->bones && !r->failed; i++) {
        r2_bone b;
        snprintf(what, sizeof what, "bone %d's parent", i + 1);
        b.parent = r2_integer(r, what, -1, c->bones - 1);
        if (!r->failed && b.parent == i) return r2_fault(r, "%s %d is the bone itself", what, b.parent + 1), SN_EINVAL;
        b.flags = r2_integer(r, "inherit flags", 0, 15);
        b.length = r2_number(r, "length");
        read_transform(r, &b.setup);
        b.has_ik = 0;
        if (d) d->bone[i] = b;
    }
    for (int i = 0; i < c->constraints && !r->failed; i++) {
        snprintf(what, sizeof what, "constraint %d's bone", i + 1);
        int bone = r2_integer(r, what, 0, c->bones - 1);
        snprintf(what, sizeof what, "constraint %d's target", i + 1);
        int target = r2_integer(r, what, 0, c->bones - 1);
        int chain = r2_integer(r, "chain", 0, 1);
        int bend = r2_integer(r, "bend positive", 0, 1);
        double weight = r2_number(r, "weight");
        if (r->failed) break;
        if (weight < 0.0 || weight > 1.0) return r2_fault(r, "%s %g is out of range (0 .. 1)", "IK weight", weight), SN_EINVAL;
        if (d) {
            r2_ik *k = &d->ik[i];
            int parent = d->bone[bone].parent;
            k->root = chain && parent >= 0 ? parent : bone;
            k->bone = chain && parent >= 0 ? bone : -1;
            k->target = target;
            k->bend_positive = bend;
            k->weight = weight;
            d->bone[k->root].has_ik = 1;
        }
    }
    int first = 0;
    for (int i = 0; i < c->slots && !r->failed; i++) {
        r2_slot s;
        snprintf(what, sizeof what, "slot %d's bone", i + 1);
        s.bone = r2_integer(r, what, 0, c->bones - 1);
        s.display_index = r2_integer(r, "display index", -1, SN_RIG2D_MAX_DISPLAYS);
        s.first_display = r2_integer(r, "first display", 0, c->displays);
        s.display_count = r2_integer(r, "display count", 0, c->displays - s.first_display);
        if (!r->failed && s.first_display != first)
            return r2_fault(r, "slot %d starts at display %d (expected the next one)", i + 1, s.first_display + 1), SN_EINVAL;
        first += s.display_count;
        if (s.display_index >= s.display_count) s.display_index = -1; /* shows nothing, as DragonBones */
        s.blend = r2_integer(r, "blend mode", 0, 15);
        for (int k = 0; k < 8; k++) s.color[k] = r2_number(r, "colour");
        if (d) d->slot[i] = s;
    }
    if (!r->failed && first != c->displays)
        return r2_fault(r, "the slots hold %d displays in all, not the display count", first), SN_EINVAL;
    for (int i = 0; i < c->displays && !r->failed; i++) {
        r2_display q;
        q.type = r2_integer(r, "display type", 0, 3);
        snprintf(what, sizeof what, "display %d's mesh", i + 1);
        q.mesh = r2_integer(r, what, -1, c->meshes - 1);
        if (!r->failed && (q.type == SN_RIG2D_MESH) != (q.mesh >= 0))
            return r2_fault(r, "display %d: only a mesh display has a mesh, and it must", i + 1), SN_EINVAL;
        r2_transform t;
        read_transform(r, &t);
        if (d) {
            r2_to_matrix(&t, q.local);
            d->display[i] = q;
        }
    }
    for (int i = 0; i < c->meshes && !r->failed; i++) {
        r2_mesh m;
        if (read_mesh(r, i, c, &m, p) != SN_OK) break;
        c->deform_total += m.deform_count;
        if (d) d->mesh[i] = m;
    }
    if (r->failed) return SN_EINVAL;
    if (r->at != r->n) return r2_fault(r, "%s: %g numbers after its end", "the layout", (double)(r->n - r->at)), SN_EINVAL;
    return SN_OK;
}

/// The update order of bones: parents first, an IK root after its target (DragonBones sorts the
/// same way). Fails on a cycle. `order` has room for every bone; `placed` is scratch.
static sn_status sort_bones(const counts *c, const double *w, int *order, unsigned char *placed, sn_error *err) {
    /* parents and IK pairs are read straight from the layout (the check has passed) */
    const double *bones = w + 6, *iks = bones + 9 * c->bones;
    memset(placed, 0, (size_t)c->bones);
    int n = 0;
    while (n < c->bones) {
        int progress = 0;
        for (int i = 0; i < c->bones; i++) {
            if (placed[i]) continue;
            int parent = (int)bones[9 * i];
            if (parent >= 0 && !placed[parent]) continue;
            int ready = 1;
            for (int k = 0; k < c->constraints && ready; k++) {
                int bone = (int)iks[5 * k], target = (int)iks[5 * k + 1], chain = (int)iks[5 * k + 2];
                int bparent = (int)bones[9 * bone];
                int root = chain && bparent >= 0 ? bparent : bone;
                if (root == i && !placed[target]) ready = 0;
                if (root == i && target == i) ready = 0;
            }
            if (!ready) continue;
            placed[i] = 1;
            order[n++] = i;
            progress = 1;
        }
        if (!progress)
            return sn_fail_arg(err, 1, SN_EINVAL,
                               "the bones cannot be ordered: an IK target depends on its own chain (or a parent cycle)");
    }
    return SN_OK;
}

static size_t layout_size(const counts *c) {
    size_t s = SN_ALIGN16(sizeof(sn_rig2d_data));
    s += SN_ALIGN16(sizeof(r2_bone) * (size_t)c->bones);
    s += SN_ALIGN16(sizeof(int) * (size_t)c->bones);
    s += SN_ALIGN16(sizeof(r2_ik) * (size_t)c->constraints);
    s += SN_ALIGN16(sizeof(r2_slot) * (size_t)c->slots);
    s += SN_ALIGN16(sizeof(r2_display) * (size_t)c->displays);
    s += SN_ALIGN16(sizeof(r2_mesh) * (size_t)c->meshes);
    s += 2 * SN_ALIGN16(sizeof(int) * (size_t)c->meshes);
    s += SN_ALIGN16(sizeof(float) * (size_t)c->floats);
    s += SN_ALIGN16(sizeof(int) * (size_t)c->ints);
    return s;
}

static sn_status check(const double *w, size_t n, const sn_allocator *a, counts *c, sn_error *err) {
    if (w == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no layout");
    reader r = { w, n, 0, err, 0, 0 };
    if (walk(&r, c, NULL, NULL) != SN_OK) return SN_EINVAL;
    size_t bytes = (size_t)c->bones * (sizeof(int) + 1);
    int *order = (int *)sn_scratch_alloc(a, bytes);
    if (order == NULL) return sn_fail(err, SN_ENOMEM, "out of memory ordering the bones");
    sn_status st = sort_bones(c, w, order, (unsigned char *)(order + c->bones), err);
    sn_scratch_free(a, order, bytes);
    return st;
}

size_t sn_rig2d_data_size(const double *w, size_t n, const sn_allocator *a, sn_error *err) {
    counts c;
    if (check(w, n, a, &c, err) != SN_OK) return 0;
    return layout_size(&c);
}

sn_status sn_rig2d_data_init(void *mem, size_t size, const double *w, size_t n, const sn_allocator *a,
                             sn_error *err) {
    counts c;
    sn_status st = check(w, n, a, &c, err);
    if (st != SN_OK) return st;
    if (mem == NULL || size < layout_size(&c)) return sn_fail(err, SN_ENOMEM, "the armature needs %zu bytes", layout_size(&c));
    memset(mem, 0, layout_size(&c));
    unsigned char *at = (unsigned char *)mem;
    sn_rig2d_data *d = (sn_rig2d_data *)at;
    at += SN_ALIGN16(sizeof(sn_rig2d_data));
#define TAKE(ptr, type, count) (ptr = (type *)at, at += SN_ALIGN16(sizeof(type) * (size_t)(count)))
    TAKE(d->bone, r2_bone, c.bones);
    TAKE(d->order, int, c.bones);
    TAKE(d->ik, r2_ik, c.constraints);
    TAKE(d->slot, r2_slot, c.slots);
    TAKE(d->display, r2_display, c.displays);
    TAKE(d->mesh, r2_mesh, c.meshes);
    int *deform_offset, *vertex_offset;
    TAKE(deform_offset, int, c.meshes);
    TAKE(vertex_offset, int, c.meshes);
    pools p;
    TAKE(p.f, float, c.floats);
    TAKE(p.i, int, c.ints);
#undef TAKE
    d->bones = c.bones;
    d->constraints = c.constraints;
    d->slots = c.slots;
    d->displays = c.displays;
    d->meshes = c.meshes;
    d->deform_total = (int)c.deform_total;
    reader r = { w, n, 0, err, 0, 0 };
    walk(&r, &c, d, &p);
    unsigned char *placed = (unsigned char *)sn_scratch_alloc(a, (size_t)c.bones);
    if (placed == NULL) return sn_fail(err, SN_ENOMEM, "out of memory ordering the bones");
    sort_bones(&c, w, d->order, placed, err);
    sn_scratch_free(a, placed, (size_t)c.bones);
    /* each mesh's room in a rig's deform area */
    int total = 0, vertices = 0;
    for (int m = 0; m < c.meshes; m++) {
        deform_offset[m] = total;
        total += d->mesh[m].deform_count;
        vertex_offset[m] = vertices;
        vertices += d->mesh[m].vertices;
    }
    d->mesh_deform = deform_offset;
    d->mesh_vertex = vertex_offset;
    d->vertex_total = vertices;
    return SN_OK;
}

int sn_rig2d_data_bones(const sn_rig2d_data *d) { return d->bones; }
int sn_rig2d_data_slots(const sn_rig2d_data *d) { return d->slots; }
int sn_rig2d_data_constraints(const sn_rig2d_data *d) { return d->constraints; }
int sn_rig2d_data_parent(const sn_rig2d_data *d, int b) { return b >= 0 && b < d->bones ? d->bone[b].parent : -1; }
int sn_rig2d_data_slot_bone(const sn_rig2d_data *d, int s) { return s >= 0 && s < d->slots ? d->slot[s].bone : -1; }

static const r2_display *display_of(const sn_rig2d_data *d, int s, int k) {
    if (s < 0 || s >= d->slots || k < 0 || k >= d->slot[s].display_count) return NULL;
    return &d->display[d->slot[s].first_display + k];
}

int sn_rig2d_data_display_type(const sn_rig2d_data *d, int s, int k) {
    const r2_display *p = display_of(d, s, k);
    return p ? p->type : -1;
}

int sn_rig2d_data_mesh_vertices(const sn_rig2d_data *d, int s, int k) {
    const r2_display *p = display_of(d, s, k);
    return p && p->mesh >= 0 ? d->mesh[p->mesh].vertices : 0;
}

int sn_rig2d_data_deform_count(const sn_rig2d_data *d, int s, int k) {
    const r2_display *p = display_of(d, s, k);
    return p && p->mesh >= 0 ? d->mesh[p->mesh].deform_count : 0;
}
