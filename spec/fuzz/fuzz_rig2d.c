/* Fuzzes 2-D armatures and animations (src/core/rig2d_*.c) and the 2-D pose verbs (pose2d.c): any
   layout is either refused with a message or builds; a built armature's rigs sample any animation
   at any finite time, blend, subtract and add its poses with any weights and masks, and update
   their world matrices, slots and mesh vertices without reading or writing out of bounds. Most
   inputs are layouts of the right shape with fuzzed numbers, so that the deep checks are reached. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "rig2d.h"

#define MAXW 512

static size_t read_layout(reader *r, double *w, int animation, int bones, int slots) {
    size_t n = 0;
    if (!animation) {
        int b = read_int(r, 1, 5), k = read_int(r, 0, 2), s = read_int(r, 0, 3), m = read_int(r, 0, 2);
        int dcount = s + m; /* each slot one display, the first m slots' a mesh */
        if (dcount < m) dcount = m;
        w[n++] = 1, w[n++] = b, w[n++] = k, w[n++] = s, w[n++] = s, w[n++] = m > s ? s : m;
        m = m > s ? s : m;
        for (int i = 0; i < b; i++) {
            w[n++] = i == 0 ? -1 : read_int(r, -1, i - 1);
            w[n++] = read_int(r, 0, 15);
            for (int j = 0; j < 7; j++) w[n++] = read_number(r);
        }
        for (int i = 0; i < k; i++) {
            w[n++] = read_int(r, 0, b - 1), w[n++] = read_int(r, 0, b - 1);
            w[n++] = read_int(r, 0, 1), w[n++] = read_int(r, 0, 1), w[n++] = read_int(r, 0, 4) * 0.25;
        }
        for (int i = 0; i < s; i++) {
            w[n++] = read_int(r, 0, b - 1), w[n++] = read_int(r, -1, 1), w[n++] = i, w[n++] = 1, w[n++] = 0;
            for (int j = 0; j < 8; j++) w[n++] = read_number(r);
        }
        for (int i = 0; i < s; i++) {
            w[n++] = i < m ? 1 : 0, w[n++] = i < m ? i : -1;
            for (int j = 0; j < 6; j++) w[n++] = read_number(r);
        }
        for (int i = 0; i < m && n < MAXW - 64; i++) {
            int v = read_int(r, 1, 3), weighted = read_int(r, 0, 1);
            w[n++] = v, w[n++] = weighted;
            for (int j = 0; j < 2 * v; j++) w[n++] = read_number(r);
            if (!weighted)
                for (int j = 0; j < 2 * v; j++) w[n++] = read_number(r);
            else
                for (int j = 0; j < v; j++) {
                    int c = read_int(r, 1, 2);
                    w[n++] = c;
                    for (int q = 0; q < c; q++) w[n++] = read_int(r, 0, b - 1), w[n++] = read_number(r),
                                                w[n++] = read_number(r), w[n++] = read_number(r);
                }
        }
    } else {
        int frames = read_int(r, 1, 30), t = read_int(r, 0, 4);
        w[n++] = 1, w[n++] = frames, w[n++] = read_int(r, 1, 60), w[n++] = t;
        for (int i = 0; i < t && n < MAXW - 64; i++) {
            int type = read_int(r, 1, 8), keys = read_int(r, 1, 3);
            int count = type == 4 ? 1 : type == 5 ? 8 : type == 7 ? slots : type == 6 ? read_int(r, 0, 12) : 2;
            w[n++] = type, w[n++] = read_int(r, 0, type <= 3 ? bones - 1 : 3), w[n++] = 0, w[n++] = keys, w[n++] = count;
            for (int k = 0; k < keys && n < MAXW - 48; k++) {
                int tween = read_int(r, 0, 5);
                w[n++] = k == 0 ? 0 : read_int(r, 0, frames), w[n++] = tween;
                w[n++] = tween == 5 ? read_int(r, 1, 3) : read_int(r, -100, 100);
                if (tween == 5)
                    for (int q = 0; q < (int)w[n - 1]; q++) w[n++] = read_int(r, -1000, 11000);
                for (int v = 0; v < count && n < MAXW - 8; v++)
                    w[n++] = type == 4 || type == 7 ? read_int(r, -1, 1) : read_number(r);
            }
        }
    }
    /* sometimes a few numbers changed at random */
    int flips = read_int(r, 0, 3);
    for (int i = 0; i < flips && n > 0; i++) w[read_int(r, 0, (int)n - 1)] = read_number(r);
    if (read_int(r, 0, 7) == 0 && n > 0) n = (size_t)read_int(r, 0, (int)n - 1);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    double w[MAXW];
    sn_error err;
    size_t n = read_layout(&r, w, 0, 0, 0);
    size_t need = sn_rig2d_data_size(w, n, NULL, &err);
    if (need == 0) {
        FUZZ_CHECK(err.code != SN_OK && err.msg[0] != '\0');
        return 0;
    }
    sn_rig2d_data *d = (sn_rig2d_data *)malloc(need);
    FUZZ_CHECK(d != NULL && sn_rig2d_data_init(d, need, w, n, NULL, &err) == SN_OK);
    sn_rig2d *rig = (sn_rig2d *)malloc(sn_rig2d_size(d));
    sn_rig2d_init(rig, d);
    int bones = sn_rig2d_data_bones(d), slots = sn_rig2d_data_slots(d);
    n = read_layout(&r, w, 1, bones, slots);
    size_t an_need = sn_anim2d_size(d, w, n, &err);
    if (an_need > 0) {
        sn_anim2d *an = (sn_anim2d *)malloc(an_need);
        FUZZ_CHECK(an != NULL && sn_anim2d_init(an, an_need, d, w, n, &err) == SN_OK);
        /* the 2-D pose verbs on what the animation samples: any weights, masks, threshold */
        {
            double a[6 * 5], b[6 * 5], out[6 * 5], m[5];
            sn_anim2d_sample_pose(an, read_number(&r), read_int(&r, 0, 1), a);
            sn_anim2d_sample_pose(an, read_number(&r), read_int(&r, 0, 1), b);
            for (int k = 0; k < bones; k++) m[k] = read_int(&r, 0, 4) * 0.25;
            const double *poses[2] = { a, b }, *masks[2] = { m, NULL };
            double weights[2] = { read_number(&r), read_number(&r) };
            sn_status st = sn_pose2d_blend(out, bones, poses, weights, read_int(&r, 0, 1) ? masks : NULL, 2,
                                           read_number(&r), &err);
            FUZZ_CHECK(st == SN_OK || err.msg[0] != '\0');
            sn_pose2d_delta(out, a, b, bones);
            sn_pose2d_add(a, out, read_number(&r), read_int(&r, 0, 1) ? m : NULL, bones);
            sn_rig2d_set_pose(rig, a);
            sn_rig2d_world(rig);
        }
        for (int i = 0; i < 4; i++) {
            double t = read_int(&r, 0, 3) == 0 ? read_number(&r) : sn_anim2d_duration(an) * read_int(&r, 0, 40) / 32.0;
            sn_rig2d_sample(rig, an, t, read_int(&r, 0, 1));
            sn_rig2d_world(rig);
            for (int s = 0; s < slots; s++) {
                double out[8];
                int v = sn_rig2d_vertices(rig, s, out, 8);
                FUZZ_CHECK(v >= 0 && v <= 3);
                FUZZ_CHECK(sn_rig2d_slot_position(rig, s) >= 1 && sn_rig2d_slot_position(rig, s) <= slots);
            }
            /* part of the pose changed and redone in part (sn_rig2d_world_changed: a pose given, or
               one bone turned in place; after a display change, all of it), against the whole
               update of the same pose and slots: the same matrices, bit for bit */
            {
                double p2[6 * 5], keep_b[6 * 5], keep_s[6 * 3];
                int given = read_int(&r, 0, 1), bone = read_int(&r, -1, bones - 1), changed = read_int(&r, -1, bones - 1);
                memcpy(p2, sn_rig2d_pose(rig), sizeof(double) * 6 * (size_t)bones);
                if (changed >= 0) p2[6 * changed + read_int(&r, 0, 5)] = read_number(&r);
                if (!given && bone >= 0) sn_rig2d_pose(rig)[6 * bone + read_int(&r, 0, 5)] = read_number(&r);
                if (slots > 0 && read_int(&r, 0, 3) == 0) FUZZ_CHECK(sn_rig2d_set_display(rig, 0, -1, &err) == SN_OK);
                sn_rig2d_world_changed(rig, given ? p2 : NULL, bone);
                for (int b = 0; b < bones; b++) memcpy(keep_b + 6 * b, sn_rig2d_bone_matrix(rig, b), 6 * sizeof(double));
                for (int s = 0; s < slots; s++) memcpy(keep_s + 6 * s, sn_rig2d_slot_matrix(rig, s), 6 * sizeof(double));
                sn_rig2d_world(rig);
                for (int b = 0; b < bones; b++) FUZZ_CHECK(memcmp(keep_b + 6 * b, sn_rig2d_bone_matrix(rig, b), 6 * sizeof(double)) == 0);
                for (int s = 0; s < slots; s++) FUZZ_CHECK(memcmp(keep_s + 6 * s, sn_rig2d_slot_matrix(rig, s), 6 * sizeof(double)) == 0);
            }
        }
        free(an);
    } else {
        FUZZ_CHECK(err.msg[0] != '\0');
    }
    free(rig);
    free(d);
    return 0;
}
