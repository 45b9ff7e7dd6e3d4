/* C-only tests of src/core/bvh.c: the MOTION numbers of BVH files (line ends, blank lines, the
   faults and where they are), numbers read as strtod reads them, and the keys made of them against
   rotations composed here from first principles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "ensure.h"
#include "fixtures.h"
#include "frames.h"

static sn_status frames(const char *text, long n, int channels, double *out, sn_bvh_fault *fault) {
    return sn_bvh_frames(text, strlen(text), 0, n, channels, out, fault);
}

static void test_reads_frames_across_line_ends(void) {
    static const char *const texts[] = {
        "1 2.5 -3\n4 5 6e1\n",
        "1 2.5 -3\r\n\r\n  \t\r\n4 5 6e1",
        "1\t2.5  -3\r4 5 6e1\rtrailing words are not read",
        "\n\n 1 2.5 -3 \n\f\v\n4\t5\t0x3C\n7 8 9\n",
    };
    size_t t;
    for (t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        double v[6];
        sn_bvh_fault fault;
        ENSURE(frames(texts[t], 2, 3, v, &fault) == SN_OK);
        ENSURE(v[0] == 1 && v[1] == 2.5 && v[2] == -3 && v[3] == 4 && v[4] == 5 && v[5] == 60);
        ENSURE(fault.kind == SN_BVH_OK);
    }
}

static void test_names_faults_and_their_lines(void) {
    double v[8];
    sn_bvh_fault fault;
    /* a token that is not a number: frame 2, number 2, on line 3 (a blank line between) */
    const char *bad = "1 2\n\n3 x4 5\n";
    ENSURE(frames(bad, 2, 2, v, &fault) == SN_EINVAL);
    ENSURE(fault.kind == SN_BVH_NOT_NUMBER && fault.frame == 2 && fault.number == 2 && fault.line == 2);
    ENSURE(fault.token_len == 2 && strncmp(bad + fault.token, "x4", 2) == 0);
    /* not finite, and too long a token */
    ENSURE(frames("1 inf\n", 1, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_NOT_NUMBER && fault.number == 2);
    ENSURE(frames("nan 1\n", 1, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_NOT_NUMBER && fault.number == 1);
    ENSURE(frames("1e999 1\n", 1, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_NOT_NUMBER);
    {
        char long_token[400];
        memset(long_token, '1', 300);
        strcpy(long_token + 300, " 2\n");
        ENSURE(frames(long_token, 1, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_NOT_NUMBER);
    }
    /* counts: more, fewer (the count read), a token before the count */
    ENSURE(frames("1 2 3\n", 1, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_TOO_MANY && fault.frame == 1);
    ENSURE(frames("1 2\n3\n", 2, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_TOO_FEW && fault.frame == 2 &&
           fault.number == 1 && fault.line == 1);
    ENSURE(frames("1 2\n3 y 4\n", 2, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_NOT_NUMBER);
    /* the text ends: the fault on the last line that is not blank */
    ENSURE(frames("1 2\n\n3 4\n\n\n", 3, 2, v, &fault) == SN_EINVAL && fault.kind == SN_BVH_MISSING && fault.frame == 3 &&
           fault.line == 2);
    /* without a buffer: checked alike, nothing written */
    ENSURE(frames("1 2\n3 4\n", 2, 2, NULL, &fault) == SN_OK);
    ENSURE(frames("1 2\n3 4\n", 3, 2, NULL, &fault) == SN_EINVAL && fault.kind == SN_BVH_MISSING);
}

/* numbers as mocap tools write them (and others): read bit for bit as strtod reads them */
static void test_numbers_as_strtod(void) {
    unsigned long state = 2611;
    char text[64];
    int i;
    for (i = 0; i < 200000; i++) {
        double v, want;
        sn_bvh_fault fault;
        const int kind = (int)(ensure_random(&state) * 6);
        const double x = (ensure_random(&state) - 0.5) * pow(10.0, (int)(ensure_random(&state) * 12) - 4);
        switch (kind) {
        case 0: snprintf(text, sizeof text, "%.6f", x); break;
        case 1: snprintf(text, sizeof text, "%.4f", x); break;
        case 2: snprintf(text, sizeof text, "%.17g", x); break;
        case 3: snprintf(text, sizeof text, "%.15g", x); break;
        case 4: snprintf(text, sizeof text, "%.0f", x * 1000); break; /* a whole number */
        default: snprintf(text, sizeof text, "%.9e", x); break;
        }
        want = strtod(text, NULL);
        ENSURE(sn_bvh_frames(text, strlen(text), 0, 1, 1, &v, &fault) == SN_OK);
        if (memcmp(&v, &want, sizeof v) != 0) {
            fprintf(stderr, "%s: %.17g, strtod %.17g\n", text, v, want);
            ENSURE(0);
            break;
        }
    }
}

static void test_rotations_compose_in_channel_order(void) {
    /* one frame: Zrotation 90, Xrotation 90 (columns 2 and 0), then a frame turned a half turn
       and more, whose key must stay in the hemisphere of the first */
    const double values[2 * 3] = {90, 0, 90, 200, 0, 0};
    const int cols[2] = {2, 0}, axes[2] = {2, 0};
    float out[8];
    double q[4], v[3], x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    sn_bvh_rotations(values, 2, 3, cols, axes, 2, 0, out);
    q[0] = out[0], q[1] = out[1], q[2] = out[2], q[3] = out[3];
    /* Rz(90) Rx(90): x -> (Rz)(x) = y; y -> Rz(Rx y) = Rz(z) = z */
    qrot(q, x, v);
    ENSURE_NEAR(v[0], 0, 1e-6);
    ENSURE_NEAR(v[1], 1, 1e-6);
    ENSURE_NEAR(v[2], 0, 1e-6);
    qrot(q, y, v);
    ENSURE_NEAR(v[2], 1, 1e-6);
    /* the second key: Rz(0) Rx(200), in q's hemisphere */
    ENSURE(out[0] * out[4] + out[1] * out[5] + out[2] * out[6] + out[3] * out[7] >= 0.0f);
    ENSURE_NEAR(fabs(out[4]), sin(100 * 3.14159265358979323846 / 180), 1e-6);
    /* Z-up: the turn about model z becomes a turn about y */
    {
        const double one[3] = {0, 0, 90};
        const int c1[1] = {2}, a1[1] = {2};
        float o[4];
        sn_bvh_rotations(one, 1, 3, c1, a1, 1, 1, o);
        ENSURE_NEAR(fabs(o[1]), sqrt(0.5), 1e-6);
        ENSURE_NEAR(o[0], 0, 1e-6);
        ENSURE_NEAR(o[2], 0, 1e-6);
    }
}

static void test_positions(void) {
    const double values[2 * 4] = {1, 2, 3, 9, 4, 5, 6, 9};
    const int cols[3] = {0, -1, 2};
    const double offset[3] = {10, 20, 30};
    float out[6];
    ENSURE(sn_bvh_positions(values, 2, 4, cols, offset, 0.5, 0, 0, 1e6, out) == 0);
    ENSURE(out[0] == 5.5f && out[1] == 10.0f && out[2] == 16.5f && out[3] == 7.0f && out[5] == 18.0f);
    /* Z-up and in place: (x, y, z) -> (x, z, -y), x and z held at the first frame's */
    ENSURE(sn_bvh_positions(values, 2, 4, cols, offset, 1.0, 1, 1, 1e6, out) == 0);
    ENSURE(out[0] == 11.0f && out[1] == 33.0f && out[2] == -20.0f && out[3] == 11.0f && out[4] == 36.0f && out[5] == -20.0f);
    /* beyond the bound: the first frame that is */
    ENSURE(sn_bvh_positions(values, 2, 4, cols, offset, 1.0, 0, 0, 34.0, out) == 2);
}

int main(void) {
    RUN(test_reads_frames_across_line_ends);
    RUN(test_names_faults_and_their_lines);
    RUN(test_numbers_as_strtod);
    RUN(test_rotations_compose_in_channel_order);
    RUN(test_positions);
    return END("test_bvh");
}
