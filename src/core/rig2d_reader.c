/*
 * 2-D rigs: reading a layout (rig2d.h), each number checked as it is read.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "rig2d_internal.h"

int r2_fault(r2_reader *r, const char *fmt, ...) {
    if (r->failed) return 0;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->timeline > 0)
        sn_fail_arg(r->err, 1, SN_EINVAL, "timeline %d: %s", r->timeline, msg);
    else
        sn_fail_arg(r->err, 1, SN_EINVAL, "%s", msg);
    r->failed = 1;
    return 0;
}

double r2_number(r2_reader *r, const char *what) {
    if (r->failed) return 0.0;
    if (r->at >= r->n) return r2_fault(r, "the layout ends early (at %s, number %zu)", what, r->at + 1), 0.0;
    double v = r->w[r->at++];
    if (!sn_isfinite(v)) return r2_fault(r, "%s is not a finite number (%g)", what, v), 0.0;
    return v;
}

int r2_integer(r2_reader *r, const char *what, int lo, int hi) {
    double v = r2_number(r, what);
    if (r->failed) return lo;
    if (v != floor(v)) return r2_fault(r, "%s %g is not an integer", what, v), lo;
    if (v < lo || v > hi) return r2_fault(r, "%s %g is out of range (%d .. %d)", what, v, lo, hi), lo;
    return (int)v;
}
