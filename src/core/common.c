#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void record(sn_error *err, int arg, sn_status code, const char *fmt, va_list ap) {
    err->code = code;
    err->arg = arg;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

sn_status sn_fail(sn_error *err, sn_status code, const char *fmt, ...) {
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        record(err, 0, code, fmt, ap);
        va_end(ap);
    }
    return code;
}

sn_status sn_fail_arg(sn_error *err, int arg, sn_status code, const char *fmt, ...) {
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        record(err, arg, code, fmt, ap);
        va_end(ap);
    }
    return code;
}

void *sn_scratch_alloc(const sn_allocator *a, size_t size) {
    if (size == 0) size = 1;
    if (a == NULL || a->fn == NULL) return malloc(size);
    return a->fn(a->ud, NULL, 0, size);
}

void sn_scratch_free(const sn_allocator *a, void *p, size_t size) {
    if (p == NULL) return;
    if (size == 0) size = 1;
    if (a == NULL || a->fn == NULL) free(p);
    else (void)a->fn(a->ud, p, size, 0);
}

sn_status sn_fail_range(sn_error *err, int arg, const char *what, double v, double lo, double hi) {
    return sn_fail_arg(err, arg, SN_EINVAL, "%s %g is out of range (%g .. %g)", what, v, lo, hi);
}
