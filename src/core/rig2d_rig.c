/*
 * 2-D rigs: instances (the pose, the world matrices and the slots' state of one character) and
 * their meshes' vertices.
 */
#include <string.h>

#include "rig2d_internal.h"

size_t sn_rig2d_size(const sn_rig2d_data *d) {
    size_t b = (size_t)d->bones, s = (size_t)d->slots, k = (size_t)d->constraints;
    return SN_ALIGN16(sizeof(sn_rig2d)) + 2 * SN_ALIGN16(sizeof(double) * 6 * b) + SN_ALIGN16(sizeof(r2_transform) * b) +
           2 * SN_ALIGN16(b) + SN_ALIGN16(sizeof(double) * k) + SN_ALIGN16(sizeof(int) * k) + 3 * SN_ALIGN16(sizeof(int) * s) +
           SN_ALIGN16(sizeof(double) * 8 * s) + SN_ALIGN16(sizeof(double) * 6 * s) +
           SN_ALIGN16(sizeof(double) * (size_t)d->deform_total) +
           SN_ALIGN16((size_t)SN_RIG2D_VERTEX_BYTES * (size_t)d->vertex_total);
}

void sn_rig2d_init(void *mem, const sn_rig2d_data *d) {
    memset(mem, 0, sn_rig2d_size(d));
    unsigned char *at = (unsigned char *)mem;
    sn_rig2d *r = (sn_rig2d *)at;
    at += SN_ALIGN16(sizeof(sn_rig2d));
#define TAKE(ptr, type, count) (ptr = (type *)at, at += SN_ALIGN16(sizeof(type) * (size_t)(count)))
    TAKE(r->pose, double, 6 * d->bones);
    TAKE(r->world, double, 6 * d->bones);
    TAKE(r->global, r2_transform, d->bones);
    TAKE(r->state, unsigned char, d->bones);
    TAKE(r->dirty, unsigned char, d->bones);
    TAKE(r->ik_weight, double, d->constraints);
    TAKE(r->ik_bend, int, d->constraints);
    TAKE(r->display, int, d->slots);
    TAKE(r->order, int, d->slots);
    TAKE(r->position, int, d->slots);
    TAKE(r->color, double, 8 * d->slots);
    TAKE(r->slot_world, double, 6 * d->slots);
    TAKE(r->deform, double, d->deform_total);
    TAKE(r->buffer, unsigned char, (size_t)SN_RIG2D_VERTEX_BYTES * (size_t)d->vertex_total);
#undef TAKE
    r->data = d;
    sn_rig2d_setup(r);
    sn_rig2d_world(r);
}

const sn_rig2d_data *sn_rig2d_rig_data(const sn_rig2d *r) { return r->data; }

void sn_rig2d_setup(sn_rig2d *r) {
    const sn_rig2d_data *d = r->data;
    r->stale = 1;
    sn_pose2d_rest(r->pose, d->bones);
    for (int k = 0; k < d->constraints; k++) {
        r->ik_weight[k] = d->ik[k].weight;
        r->ik_bend[k] = d->ik[k].bend_positive;
    }
    for (int s = 0; s < d->slots; s++) {
        const r2_slot *slot = &d->slot[s];
        r->display[s] = slot->display_index;
        r->order[s] = s;
        r->position[s] = s + 1;
        /* as the runtime's pose timeline: percent x 0.01, back to percent, x 0.01 */
        for (int c = 0; c < 4; c++) r->color[8 * s + c] = (slot->color[c] * 0.01 * 100.0) * 0.01;
        for (int c = 4; c < 8; c++) r->color[8 * s + c] = slot->color[c];
    }
    for (int i = 0; i < d->deform_total; i++) r->deform[i] = 0.0;
}

double *sn_rig2d_pose(sn_rig2d *r) { return r->pose; }
void sn_rig2d_set_pose(sn_rig2d *r, const double *pose) {
    memcpy(r->pose, pose, sizeof(double) * 6 * (size_t)r->data->bones);
    r->stale = 1;
}
const double *sn_rig2d_bone_matrix(const sn_rig2d *r, int b) { return r->world + 6 * b; }
const double *sn_rig2d_slot_matrix(const sn_rig2d *r, int s) { return r->slot_world + 6 * s; }
int sn_rig2d_slot_display(const sn_rig2d *r, int s) { return r->display[s]; }
int sn_rig2d_slot_position(const sn_rig2d *r, int s) { return r->position[s]; }
const double *sn_rig2d_slot_color(const sn_rig2d *r, int s) { return r->color + 8 * s; }
int sn_rig2d_draw_order(const sn_rig2d *r, int k) { return r->order[k]; }

void sn_rig2d_constraint(const sn_rig2d *r, int k, double *weight, int *bend_positive) {
    *weight = r->ik_weight[k];
    *bend_positive = r->ik_bend[k];
}

sn_status sn_rig2d_set_display(sn_rig2d *r, int s, int display, sn_error *err) {
    const sn_rig2d_data *d = r->data;
    if (s < 0 || s >= d->slots) return sn_fail_range(err, 1, "slot", s + 1, 1, d->slots);
    if (display < -1 || display >= d->slot[s].display_count)
        return sn_fail_range(err, 2, "display index", display, -1, d->slot[s].display_count - 1);
    int old = r->display[s];
    r->display[s] = display;
    r->stale = 1;
    if (display >= 0 && display != old) {
        const r2_display *q = &d->display[d->slot[s].first_display + display];
        if (q->mesh >= 0) {
            double *deform = r->deform + d->mesh_deform[q->mesh];
            for (int i = 0; i < d->mesh[q->mesh].deform_count; i++) deform[i] = 0.0;
        }
    }
    return SN_OK;
}

/// Vertex i of mesh m shown by slot s, in armature space, into xy; *e walks the weight entries
/// (start at 0, vertices in order).
static void mesh_point(const sn_rig2d *r, int s, const r2_mesh *m, const double *deform, int i, int *e, double *xy) {
    if (!m->weighted) {
        const double *w = r->slot_world + 6 * s;
        double x = m->points[2 * i] + deform[2 * i], y = m->points[2 * i + 1] + deform[2 * i + 1];
        xy[0] = w[0] * x + w[2] * y + w[4];
        xy[1] = w[1] * x + w[3] * y + w[5];
        return;
    }
    double x = 0.0, y = 0.0;
    for (int k = 0; k < m->counts[i]; k++, (*e)++) {
        const double *w = r->world + 6 * m->bones[*e];
        double weight = m->points[3 * *e];
        double xl = m->points[3 * *e + 1] + deform[2 * *e], yl = m->points[3 * *e + 2] + deform[2 * *e + 1];
        x += (w[0] * xl + w[2] * yl + w[4]) * weight;
        y += (w[1] * xl + w[3] * yl + w[5]) * weight;
    }
    xy[0] = x;
    xy[1] = y;
}

/// The mesh slot s shows, NULL for none.
static const r2_mesh *shown_mesh(const sn_rig2d *r, int s, const double **deform, int *first_vertex) {
    const sn_rig2d_data *d = r->data;
    if (s < 0 || s >= d->slots || r->display[s] < 0) return NULL;
    const r2_display *q = &d->display[d->slot[s].first_display + r->display[s]];
    if (q->mesh < 0) return NULL;
    *deform = r->deform + d->mesh_deform[q->mesh];
    *first_vertex = d->mesh_vertex[q->mesh];
    return &d->mesh[q->mesh];
}

int sn_rig2d_vertices(const sn_rig2d *r, int s, double *out, int cap) {
    const double *deform;
    int first, e = 0;
    const r2_mesh *m = shown_mesh(r, s, &deform, &first);
    if (m == NULL || cap < 2 * m->vertices) return 0;
    for (int i = 0; i < m->vertices; i++) mesh_point(r, s, m, deform, i, &e, out + 2 * i);
    return m->vertices;
}

static unsigned char colour_byte(double m) {
    double v = m * 255.0 + 0.5;
    return (unsigned char)(v >= 255.0 ? 255 : v > 0.0 ? v : 0); /* NaN: 0 */
}

const unsigned char *sn_rig2d_mesh(sn_rig2d *r, int s, int *count) {
    const double *deform;
    int first, e = 0;
    *count = 0;
    const r2_mesh *m = shown_mesh(r, s, &deform, &first);
    if (m == NULL) return NULL;
    unsigned char *out = r->buffer + (size_t)SN_RIG2D_VERTEX_BYTES * (size_t)first;
    const double *c = r->color + 8 * s;
    unsigned char rgba[4] = { colour_byte(c[1]), colour_byte(c[2]), colour_byte(c[3]), colour_byte(c[0]) };
    for (int i = 0; i < m->vertices; i++) {
        double xy[2];
        mesh_point(r, s, m, deform, i, &e, xy);
        float f[4] = { (float)xy[0], (float)xy[1], m->uvs[2 * i], m->uvs[2 * i + 1] };
        unsigned char *v = out + (size_t)SN_RIG2D_VERTEX_BYTES * (size_t)i;
        memcpy(v, f, sizeof f);
        memcpy(v + 16, rgba, 4);
    }
    *count = m->vertices;
    return out;
}
