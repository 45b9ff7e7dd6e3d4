/* Fuzzes the planar IK solvers (src/core/ik2d.c) with arbitrary numbers: points, targets,
   bend, soften, limits, bounds, iterations, tolerances and weights. A call either refuses (with a
   message, writing no turn) or writes finite turns; weight 0 turns nothing; a chain's distance
   left is finite; a limited chain's turns at weight 1 stay within their bounds (but when every bone is
   zero-length: turns 0). */
#include <math.h>
#include <string.h>

#include "ik2d.h"
#include "reader.h"

#define MAXB 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    double p[2 * (MAXB + 1)], t[2], turn[MAXB], lo[MAXB], hi[MAXB], left = -1;
    unsigned flags = 0;
    sn_error err;
    int i, n = read_int(&r, 0, MAXB);
    for (i = 0; i < 2 * (MAXB + 1); i++) p[i] = read_number(&r);
    t[0] = read_number(&r);
    t[1] = read_number(&r);
    double w = read_byte(&r) < 200u ? read_int(&r, 0, 4) * 0.25 : read_number(&r);
    for (i = 0; i < MAXB; i++) turn[i] = 12345.0;
    switch (read_byte(&r) % 3u) {
    case 0: {
        int bend = read_int(&r, -2, 2);
        double soften = read_byte(&r) < 128u ? 1.0 : read_number(&r);
        if (sn_ik2d_two_bone(p, t, bend, soften, w, turn, &flags, &err) != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && turn[0] == 12345.0 && turn[1] == 12345.0);
            return 0;
        }
        FUZZ_CHECK(sn_isfinite(turn[0]) && sn_isfinite(turn[1]));
        FUZZ_CHECK(fabs(turn[0]) <= 3.2 && fabs(turn[1]) <= 3.2);
        if (w == 0.0) FUZZ_CHECK(turn[0] == 0.0 && turn[1] == 0.0);
        break;
    }
    case 1: {
        double dir[2] = {read_number(&r), read_number(&r)}, limit = read_number(&r);
        if (sn_ik2d_aim(p, p + 2, dir, t, limit, w, turn, &flags, &err) != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && turn[0] == 12345.0);
            return 0;
        }
        FUZZ_CHECK(sn_isfinite(turn[0]) && fabs(turn[0]) <= 3.2);
        if (w == 0.0) FUZZ_CHECK(turn[0] == 0.0);
        break;
    }
    default: {
        int limited = read_byte(&r) < 128u, iterations = read_int(&r, -1, 40);
        double tol = read_byte(&r) < 200u ? read_int(&r, 0, 100) * 1e-3 : read_number(&r);
        sn_ik_method m = (sn_ik_method)read_int(&r, 0, 2);
        for (i = 0; i < MAXB; i++) {
            lo[i] = read_number(&r);
            hi[i] = read_byte(&r) < 220u ? lo[i] + fabs(read_number(&r)) : read_number(&r);
        }
        if (sn_ik2d_chain(p, n, t, m, iterations, tol, limited ? lo : NULL, limited ? hi : NULL, w, turn, &left, &flags,
                          &err) != SN_OK) {
            FUZZ_CHECK(err.msg[0] != '\0' && turn[0] == 12345.0);
            return 0;
        }
        FUZZ_CHECK(sn_isfinite(left) && left >= 0.0);
        for (i = 0; i < n; i++) {
            FUZZ_CHECK(sn_isfinite(turn[i]));
            if (w == 0.0) FUZZ_CHECK(turn[i] == 0.0);
            if (limited && w == 1.0 && !(flags & SN_IK_DEGENERATE)) FUZZ_CHECK(turn[i] >= lo[i] && turn[i] <= hi[i]);
        }
        break;
    }
    }
    return 0;
}
