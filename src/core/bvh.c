/* The MOTION numbers of BVH files and the keys made of them (see bvh.h). */
#include "bvh.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quat.h"

/* white space within a line, as Lua's %s */
static int blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/* the end of the line that begins at pos (its "\n", "\r\n" or "\r", or len), and where the next
   one begins */
static size_t line_end(const char *text, size_t len, size_t pos, size_t *next) {
    const char *nl = (const char *)memchr(text + pos, '\n', len - pos);
    const size_t lim = nl != NULL ? (size_t)(nl - text) : len;
    const char *cr = (const char *)memchr(text + pos, '\r', lim - pos);
    const size_t end = cr != NULL ? (size_t)(cr - text) : lim;
    *next = end + (end + 1 < len && text[end] == '\r' && text[end + 1] == '\n' ? 2 : 1);
    return end;
}

/* Clinger's fast path: a decimal [sign] digits [. digits] of at most 15 digits, whose digits as a
   whole number m and whose count of decimals k make it m / 10^k, both exact doubles, so that the
   one division rounds as strtod does (correctly); 0 for anything else */
static int parse_plain(const char *s, size_t n, double *v) {
    static const double pow10[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    size_t i = 0;
    int digits = 0, decimals = -1, negative = 0;
    double m = 0.0;
    if (i < n && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    for (; i < n; i++) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 15) return 0;
            m = m * 10.0 + (double)(c - '0');
            if (decimals >= 0) decimals++;
        } else if (c == '.' && decimals < 0) {
            decimals = 0;
        } else {
            return 0;
        }
    }
    if (digits == 0) return 0;
    m = decimals > 0 ? m / pow10[decimals] : m;
    *v = negative ? -m : m;
    return 1;
}

/* the finite number that is the whole of s[0 .. n), into *v; 0 when it is none */
static int parse_number(const char *s, size_t n, double *v) {
    char buf[SN_BVH_MAX_TOKEN + 1], *end;
    if (parse_plain(s, n, v)) return 1;
    if (n > SN_BVH_MAX_TOKEN) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *v = strtod(buf, &end);
    if (end != buf + n) {
        /* under a locale whose decimal point is not '.', a '.' in its place (as Lua's tonumber) */
        char *dot = strchr(buf, '.');
        const char point = localeconv()->decimal_point[0];
        if (dot == NULL || point == '.' || point == '\0') return 0;
        *dot = point;
        *v = strtod(buf, &end);
        if (end != buf + n) return 0;
    }
    return sn_isfinite(*v);
}

static sn_status refuse(sn_bvh_fault *fault, sn_bvh_fault_kind kind, long frame, int number, size_t line) {
    fault->kind = kind;
    fault->frame = frame;
    fault->number = number;
    fault->line = line;
    return SN_EINVAL;
}

sn_status sn_bvh_frames(const char *text, size_t len, size_t start, long frames, int channels, double *out,
                        sn_bvh_fault *fault) {
    size_t pos = start, line = 0, last = 0;
    long f;
    memset(fault, 0, sizeof *fault);
    for (f = 1; f <= frames; f++) {
        size_t end, next;
        int count = 0;
        /* the next line that is not blank (at the end of the text: the fault is on the last line
           that is not blank, the frame before) */
        for (;;) {
            size_t k;
            if (pos >= len) return refuse(fault, SN_BVH_MISSING, f, 0, last);
            end = line_end(text, len, pos, &next);
            for (k = pos; k < end && blank(text[k]); k++) {}
            if (k < end) break;
            pos = next;
            line++;
        }
        last = line;
        /* its numbers */
        while (pos < end) {
            size_t t;
            double v;
            while (pos < end && blank(text[pos])) pos++;
            if (pos >= end) break;
            for (t = pos; t < end && !blank(text[t]); t++) {}
            if (++count > channels) return refuse(fault, SN_BVH_TOO_MANY, f, count, line);
            if (!parse_number(text + pos, t - pos, &v)) {
                refuse(fault, SN_BVH_NOT_NUMBER, f, count, line);
                fault->token = pos;
                fault->token_len = t - pos;
                return SN_EINVAL;
            }
            if (out != NULL) out[(size_t)(f - 1) * (size_t)channels + (size_t)(count - 1)] = v;
            pos = t;
        }
        if (count < channels) return refuse(fault, SN_BVH_TOO_FEW, f, count, line);
        pos = next;
        line++;
    }
    return SN_OK;
}

void sn_bvh_rotations(const double *values, long frames, int channels, const int *cols, const int *axes, int n,
                      int zup, float *out) {
    const double h = sqrt(0.5), rad = 3.14159265358979323846 / 180.0;
    const sn_quat c_in = {-h, 0.0, 0.0, h}, c_out = {h, 0.0, 0.0, h};
    sn_quat prev = {0.0, 0.0, 0.0, 1.0};
    long f;
    for (f = 0; f < frames; f++) {
        const double *row = values + (size_t)f * (size_t)channels;
        sn_quat q = {0.0, 0.0, 0.0, 1.0};
        int i;
        for (i = 0; i < n; i++) { /* unit quaternions: the products never overflow */
            const double a = row[cols[i]] * rad * 0.5;
            sn_quat r = {0.0, 0.0, 0.0, cos(a)};
            *(axes[i] == 0 ? &r.x : axes[i] == 1 ? &r.y : &r.z) = sin(a);
            sn_quat_mul(&q, &r, &q, NULL);
        }
        if (zup) {
            sn_quat_mul(&c_in, &q, &q, NULL);
            sn_quat_mul(&q, &c_out, &q, NULL);
        }
        if (q.x * prev.x + q.y * prev.y + q.z * prev.z + q.w * prev.w < 0.0) /* the shorter way from the key before */
            q.x = -q.x, q.y = -q.y, q.z = -q.z, q.w = -q.w;
        prev = q;
        out[4 * f] = (float)q.x;
        out[4 * f + 1] = (float)q.y;
        out[4 * f + 2] = (float)q.z;
        out[4 * f + 3] = (float)q.w;
    }
}

long sn_bvh_positions(const double *values, long frames, int channels, const int cols[3], const double offset[3],
                      double scale, int zup, int in_place, double max_coord, float *out) {
    double hx = 0.0, hz = 0.0;
    long f;
    for (f = 0; f < frames; f++) {
        const double *row = values + (size_t)f * (size_t)channels;
        double p[3];
        int a;
        for (a = 0; a < 3; a++) {
            p[a] = (offset[a] + (cols[a] >= 0 ? row[cols[a]] : 0.0)) * scale;
            if (!(fabs(p[a]) <= max_coord)) return f + 1;
        }
        if (zup) {
            const double y = p[1];
            p[1] = p[2];
            p[2] = -y;
        }
        if (in_place) { /* the height moves; across the ground, the first frame's place */
            if (f == 0) hx = p[0], hz = p[2];
            p[0] = hx;
            p[2] = hz;
        }
        out[3 * f] = (float)p[0];
        out[3 * f + 1] = (float)p[1];
        out[3 * f + 2] = (float)p[2];
    }
    return 0;
}
