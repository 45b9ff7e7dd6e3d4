/* Fuzzes the BVH frame reader and key makers (src/core/bvh.c): a few header bytes choose the frame
   and channel counts and where reading starts, the rest is the text, read into an exactly sized
   buffer (ASan finds a write past it) and without one (the same verdict and fault). A read that
   succeeds gives finite values; a refusal points inside the text and names a frame in range. The
   values then make rotation keys (unit, each in the hemisphere of the one before) and position
   keys. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size < 8 ? size : 8, 0};
    const long frames = read_int(&r, 1, 12);
    const int channels = read_int(&r, 1, 9);
    const size_t skip = size > 8 ? (size_t)read_int(&r, 0, 3) : 0;
    const char *text = (const char *)data + (size < 8 ? size : 8);
    const size_t len = size < 8 ? 0 : size - 8;
    const size_t start = skip < len ? skip : len;
    double *v = (double *)malloc(sizeof(double) * (size_t)frames * (size_t)channels);
    sn_bvh_fault fault, again;
    sn_status st, st2;
    long f;
    int c;
    if (v == NULL) return 0;
    st = sn_bvh_frames(text, len, start, frames, channels, v, &fault);
    st2 = sn_bvh_frames(text, len, start, frames, channels, NULL, &again);
    FUZZ_CHECK(st == st2 && fault.kind == again.kind && fault.frame == again.frame && fault.line == again.line);
    if (st != SN_OK) {
        FUZZ_CHECK(fault.kind != SN_BVH_OK && fault.frame >= 1 && fault.frame <= frames);
        if (fault.kind == SN_BVH_NOT_NUMBER)
            FUZZ_CHECK(fault.token >= start && fault.token + fault.token_len <= len && fault.token_len > 0);
        free(v);
        return 0;
    }
    FUZZ_CHECK(fault.kind == SN_BVH_OK);
    for (f = 0; f < frames * channels; f++) FUZZ_CHECK(isfinite(v[f]));
    {
        int cols[3], axes[3], n = channels < 3 ? channels : 3;
        float *q = (float *)malloc(sizeof(float) * 4 * (size_t)frames);
        float *p = (float *)malloc(sizeof(float) * 3 * (size_t)frames);
        const double offset[3] = {0.5, -1.0, 2.0};
        int pc[3] = {-1, -1, -1};
        if (q != NULL && p != NULL) {
            for (c = 0; c < n; c++) cols[c] = channels - 1 - c, axes[c] = c, pc[c] = c;
            sn_bvh_rotations(v, frames, channels, cols, axes, n, (int)(data[0] & 1u), q);
            for (f = 0; f < frames; f++) {
                const float *k = q + 4 * f;
                const double l = (double)k[0] * k[0] + (double)k[1] * k[1] + (double)k[2] * k[2] + (double)k[3] * k[3];
                FUZZ_CHECK(fabs(l - 1.0) < 1e-5);
                if (f > 0) FUZZ_CHECK(k[0] * k[-4] + k[1] * k[-3] + k[2] * k[-2] + k[3] * k[-1] >= -1e-6f);
            }
            f = sn_bvh_positions(v, frames, channels, pc, offset, 0.01, (int)(data[0] & 2u), (int)(data[0] & 4u), 1e9, p);
            FUZZ_CHECK(f >= 0 && f <= frames);
        }
        free(q);
        free(p);
    }
    free(v);
    return 0;
}
