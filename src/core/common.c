#include "common.h"

#include <stdarg.h>
#include <stdio.h>

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
