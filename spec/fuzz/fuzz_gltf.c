/* Fuzzes the binary side of glTF import (src/core/gltf.c). The first bytes choose the
   parameters, the rest are the file's bytes:
     - a .glb split gives chunks inside those bytes, or a refusal;
     - base64 decoding writes no more than its size bound;
     - an accessor with any view, offset, stride, count, component type, shape and sparse part is
       refused, or decodes every value, dequantised values within [-1, 1] or [0, 1], and as
       unsigned integers below 2^32 when its type allows;
     - joints mapped through a map, weights normalised, texture coordinates transformed and
       attributes interleaved stay within their buffers and keep their promises;
     - a path is within a folder only when it is the folder or a separator follows the folder's
       bytes in it, stays within it with more parts appended, and no byte past either size is
       read (both are copied to blocks of their exact size);
     - key times checked, rotation keys made unit and slerp keys added (fuzz_keys). */
#include <math.h>
#include <stdlib.h>

#include "gltf.h"
#include "reader.h"

static const int components[] = {SN_GLTF_BYTE, SN_GLTF_UNSIGNED_BYTE, SN_GLTF_SHORT, SN_GLTF_UNSIGNED_SHORT,
                                 SN_GLTF_UNSIGNED_INT, SN_GLTF_FLOAT, 5124, 0};

/* a view over bytes[0 .. n), with offsets and lengths that are mostly near the bytes there are */
static void read_view(reader *r, const unsigned char *bytes, size_t n, sn_gltf_view *v) {
    static const size_t wild[] = {0, 1, 3, 4, 7, 64, (size_t)-1, (size_t)-4, ((size_t)-1) / 2};
    v->buffer = bytes;
    v->buffer_size = n;
    v->offset = read_byte(r) < 240 ? (size_t)read_int(r, 0, 64) : wild[read_int(r, 0, 8)];
    v->length = read_byte(r) < 200 ? (n > v->offset ? n - v->offset : 0) : wild[read_int(r, 0, 8)];
    if (v->length > n && read_byte(r) < 128) v->length = n; /* often in bounds, sometimes not */
    v->stride = read_byte(r) < 160 ? 0 : (read_byte(r) < 240 ? (size_t)read_int(r, 0, 80) : wild[read_int(r, 0, 8)]);
}

/* value k of element i of a valid accessor without sparse values, as its bytes say (glTF 2.0,
   3.6.2): columns start at multiples of 4 bytes, little-endian components; the oracle of the
   decoder's faster paths (written apart from them). `as_uint`: the integer itself. */
static double ref_value(const sn_gltf_accessor *a, size_t i, int k, int as_uint, uint32_t *bits) {
    static const int sizes[] = {1, 1, 2, 2, 0, 4, 4}; /* 5120 .. 5126 */
    const int csize = sizes[a->component - 5120], col = k / a->rows, row = k % a->rows;
    const size_t col_bytes = (size_t)a->rows * (size_t)csize;
    const size_t col_step = a->columns > 1 ? (col_bytes + 3) / 4 * 4 : col_bytes;
    const size_t elem = col_step * (size_t)a->columns;
    const size_t step = a->view->stride != 0 ? a->view->stride : elem;
    const unsigned char *p = a->view->buffer + a->view->offset + a->offset + i * step + (size_t)col * col_step +
                             (size_t)row * (size_t)csize;
    uint32_t u = 0;
    int b;
    for (b = csize - 1; b >= 0; b--) u = u << 8 | p[b];
    *bits = u;
    if (as_uint) return (double)u;
    switch (a->component) {
    case SN_GLTF_BYTE: {
        const int v = u >= 128u ? (int)u - 256 : (int)u;
        return a->normalized ? (v / 127.0 < -1.0 ? -1.0 : (double)((float)v / 127.0f)) : (double)v;
    }
    case SN_GLTF_SHORT: {
        const int v = u >= 32768u ? (int)u - 65536 : (int)u;
        return a->normalized ? (v / 32767.0 < -1.0 ? -1.0 : (double)((float)v / 32767.0f)) : (double)v;
    }
    case SN_GLTF_UNSIGNED_BYTE: return a->normalized ? (double)((float)u / 255.0f) : (double)u;
    case SN_GLTF_UNSIGNED_SHORT: return a->normalized ? (double)((float)u / 65535.0f) : (double)u;
    default: return (double)(float)u; /* UNSIGNED_INT as a float; FLOAT: compared by its bits */
    }
}

static void fuzz_accessor(reader *r, const unsigned char *bytes, size_t n) {
    sn_gltf_accessor a;
    sn_gltf_view views[3];
    sn_error err;
    size_t values, i;
    float *out;
    uint32_t *uout;
    sn_gltf_accessor_init(&a);
    a.component = components[read_int(r, 0, 7)];
    a.normalized = read_byte(r) < 64;
    a.rows = read_int(r, 0, 5);
    a.columns = read_byte(r) < 200 ? 1 : read_int(r, 0, 5);
    a.count = read_byte(r) < 240 ? (size_t)read_int(r, 0, 40) : (size_t)1 << read_int(r, 0, 63);
    a.offset = read_byte(r) < 200 ? (size_t)read_int(r, 0, 8) : (size_t)-1 - (size_t)read_int(r, 0, 8);
    if (read_byte(r) < 220) {
        read_view(r, bytes, n, &views[0]);
        a.view = &views[0];
    }
    if (read_byte(r) < 80) {
        a.sparse_count = (size_t)read_int(r, 0, 12);
        read_view(r, bytes, n, &views[1]);
        read_view(r, bytes, n, &views[2]);
        a.sparse_indices = &views[1];
        a.sparse_values = &views[2];
        a.sparse_indices_offset = (size_t)read_int(r, 0, 8);
        a.sparse_values_offset = (size_t)read_int(r, 0, 8);
        a.sparse_indices_component = components[read_int(r, 0, 7)];
    }
    if (sn_gltf_accessor_validate(&a, &err) != SN_OK) {
        FUZZ_CHECK(err.code != SN_OK && err.msg[0] != '\0');
        FUZZ_CHECK(sn_gltf_accessor_read(&a, NULL, 0, &err) != SN_OK);
        return;
    }
    values = sn_gltf_accessor_values(&a);
    FUZZ_CHECK(values >= 1 && values <= SN_GLTF_MAX_VALUES);
    if (values > (1u << 16)) return; /* valid, and large: reading it only costs time */
    out = (float *)malloc(sizeof(float) * values);
    uout = (uint32_t *)malloc(sizeof(uint32_t) * values);
    FUZZ_CHECK(out != NULL && uout != NULL);
    /* too little room is refused */
    FUZZ_CHECK(sn_gltf_accessor_read(&a, out, values - 1, &err) != SN_OK);
    if (sn_gltf_accessor_read(&a, out, values, &err) == SN_OK) {
        const int per = a.rows * a.columns;
        for (i = 0; i < values; i++) {
            if (a.view != NULL && a.sparse_count == 0) { /* every value as its bytes say */
                uint32_t bits, got;
                const double want = ref_value(&a, i / (size_t)per, (int)(i % (size_t)per), 0, &bits);
                memcpy(&got, &out[i], sizeof got);
                if (a.component == SN_GLTF_FLOAT) FUZZ_CHECK(got == bits);
                else FUZZ_CHECK((double)out[i] == want);
            }
            if (a.component == SN_GLTF_FLOAT) continue; /* any float at all, NaN included */
            FUZZ_CHECK(isfinite(out[i]));
            if (a.normalized) FUZZ_CHECK(out[i] >= -1.0f && out[i] <= 1.0f);
        }
    } else {
        FUZZ_CHECK(err.msg[0] != '\0'); /* e.g. sparse indices out of order */
    }
    if (sn_gltf_accessor_read_uint(&a, uout, values, &err) == SN_OK) {
        FUZZ_CHECK(!a.normalized && (a.component == SN_GLTF_UNSIGNED_BYTE || a.component == SN_GLTF_UNSIGNED_SHORT ||
                                     a.component == SN_GLTF_UNSIGNED_INT));
        if (a.component == SN_GLTF_UNSIGNED_BYTE)
            for (i = 0; i < values; i++) FUZZ_CHECK(uout[i] <= 255u);
        if (a.view != NULL && a.sparse_count == 0) {
            const int per = a.rows * a.columns;
            for (i = 0; i < values; i++) {
                uint32_t bits;
                (void)ref_value(&a, i / (size_t)per, (int)(i % (size_t)per), 1, &bits);
                FUZZ_CHECK(uout[i] == bits);
            }
        }
    }
    free(out);
    free(uout);
}

static void fuzz_vertices(reader *r) {
    enum { N = 24 };
    float a[N * 4], b[N * 2], out[N * 8];
    sn_gltf_attribute attrs[2];
    int map[5], nmap = read_int(r, 0, 5), i, count = read_int(r, 0, N), usable[N];
    double m[6];
    sn_error err;
    for (i = 0; i < N * 4; i++) a[i] = read_byte(r) < 200 ? (float)read_int(r, 0, 7) : (float)read_number(r);
    for (i = 0; i < N * 2; i++) b[i] = (float)read_number(r);
    for (i = 0; i < nmap; i++) map[i] = read_int(r, 0, 200);
    for (i = 0; i < 6; i++) m[i] = read_number(r);
    if (sn_gltf_map_joints(a, (size_t)count * 4, map, nmap, &err) == SN_OK) {
        for (i = 0; i < count * 4; i++) FUZZ_CHECK(a[i] >= 0.0f && a[i] <= 200.0f && a[i] == floorf(a[i]));
    }
    for (i = 0; i < count; i++) { /* which vertices have weights to normalise */
        int k;
        double sum = 0;
        usable[i] = 1;
        for (k = 0; k < 4; k++) {
            if (!(a[4 * i + k] >= 0.0f) || !isfinite(a[4 * i + k])) usable[i] = 0;
            sum += a[4 * i + k];
        }
        if (!(sum > 0.0)) usable[i] = 0;
    }
    sn_gltf_normalize_weights(a, (size_t)count, 4);
    for (i = 0; i < count; i++) {
        const double sum = (double)a[4 * i] + a[4 * i + 1] + a[4 * i + 2] + a[4 * i + 3];
        if (usable[i]) FUZZ_CHECK(fabs(sum - 1.0) < 1e-6);
    }
    if (sn_gltf_transform_uv(b, (size_t)count, m, &err) == SN_OK) {
        /* nothing to check but the sanitizers: a float-cast overflow is reported by UBSan */
    }
    attrs[0].values = a;
    attrs[0].width = 4;
    attrs[0].slots = 4;
    attrs[0].fill = 0;
    attrs[1].values = b;
    attrs[1].width = 2;
    attrs[1].slots = read_int(r, 1, 4);
    attrs[1].fill = 1;
    if (sn_gltf_interleave(attrs, 2, (size_t)count, out, (size_t)read_int(r, 0, N * 8), &err) == SN_OK) {
        const int per = 4 + attrs[1].slots;
        for (i = 0; i < count; i++) {
            int k;
            for (k = 2; k < attrs[1].slots; k++) FUZZ_CHECK(out[per * i + 4 + k] == 1.0f);
        }
    }
}

/* sn_gltf_path_within over root = bytes[0 .. split) and path = bytes[split .. n) */
static void fuzz_path_within(const unsigned char *bytes, size_t n, size_t split) {
    char *root = (char *)malloc(split + 1), *path = (char *)malloc(n - split + 2);
    size_t rs = split, ps = n - split, trimmed;
    int within;
    FUZZ_CHECK(root != NULL && path != NULL);
    if (rs > 0) memcpy(root, bytes, rs);
    if (ps > 0) memcpy(path, bytes + split, ps);
    within = sn_gltf_path_within(root, rs, path, ps);
    trimmed = rs;
    while (trimmed > 1 && root[trimmed - 1] == '/') trimmed--;
    if (within) {
        FUZZ_CHECK(rs > 0 && ps >= trimmed && memcmp(root, path, trimmed) == 0);
        FUZZ_CHECK(ps == trimmed || root[trimmed - 1] == '/' || path[trimmed] == '/');
        path[ps] = '/'; /* one part more is still within */
        path[ps + 1] = 'x';
        FUZZ_CHECK(sn_gltf_path_within(root, rs, path, ps + 2) == 1);
    } else if (rs > 0 && ps == trimmed && memcmp(root, path, trimmed) == 0) {
        FUZZ_CHECK(0); /* the folder itself is within */
    }
    if (rs > 0) FUZZ_CHECK(sn_gltf_path_within(root, rs, root, rs) == 1);
    free(root);
    free(path);
}

/* key times and rotation keys of any values (mostly increasing times, any quaternions): the
   check finds a fault exactly when there is one; unit keys are unit and in one hemisphere; the
   keys added on the slerp arc are counted and written within the room, their times strictly
   increasing from the first key to the last, their values unit */
static void fuzz_keys(reader *r) {
    float times[40], values[160], out_t[4000], out_v[16000];
    double unit[160], widest;
    size_t keys = (size_t)read_int(r, 0, 40), k, at, added;
    int fault, ok, i;
    sn_error err;
    float t = read_byte(r) < 240 ? 0.0f : read_float(r);
    for (k = 0; k < keys; k++) {
        times[k] = t;
        t = read_byte(r) < 240 ? t + (float)fabs(read_number(r)) : read_float(r);
        for (i = 0; i < 4; i++) values[4 * k + (size_t)i] = read_float(r);
    }
    fault = sn_gltf_key_times_check(times, keys, &at);
    if (fault == SN_GLTF_TIMES_OK) {
        for (k = 0; k < keys; k++) FUZZ_CHECK(isfinite(times[k]) && (k == 0 ? times[k] >= 0 : times[k] > times[k - 1]));
    } else {
        FUZZ_CHECK(at < keys);
        if (fault == SN_GLTF_TIMES_NOT_FINITE) FUZZ_CHECK(!isfinite(times[at]));
        if (fault == SN_GLTF_TIMES_NEGATIVE) FUZZ_CHECK(at == 0 && times[0] < 0);
        if (fault == SN_GLTF_TIMES_NOT_INCREASING) FUZZ_CHECK(at > 0 && !(times[at] > times[at - 1]));
        return;
    }
    ok = sn_gltf_unit_rotations(values, keys, unit, &at);
    if (!ok) {
        FUZZ_CHECK(at < keys);
        return;
    }
    for (k = 0; k < keys; k++) {
        const double *u = unit + 4 * k;
        FUZZ_CHECK(fabs(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3] - 1.0) < 1e-12);
        if (k > 0) FUZZ_CHECK(u[-4] * u[0] + u[-3] * u[1] + u[-2] * u[2] + u[-1] * u[3] >= 0.0);
    }
    widest = read_byte(r) < 128 ? 0.17594207229755 : read_number(r);
    added = sn_gltf_slerp_added(times, unit, keys, widest);
    FUZZ_CHECK(added <= (keys > 0 ? keys - 1 : 0) * 1571);
    if (keys + added > 4000) return;
    if (added > 0) FUZZ_CHECK(sn_gltf_slerp_fill(times, unit, keys, widest, out_t, out_v, keys + added - 1, &err) == SN_ENOMEM);
    FUZZ_CHECK(sn_gltf_slerp_fill(times, unit, keys, widest, out_t, out_v, keys + added, &err) == SN_OK);
    if (keys == 0) return;
    FUZZ_CHECK(out_t[0] == times[0] && out_t[keys + added - 1] == times[keys - 1]);
    for (k = 0; k < keys + added; k++) {
        const float *v = out_v + 4 * k;
        FUZZ_CHECK(k == 0 || out_t[k] > out_t[k - 1]);
        FUZZ_CHECK(fabs((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3] - 1.0) < 1e-5);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    unsigned mode = read_byte(&r) % 6u;
    size_t params = mode == 2 ? 64 : (mode == 3 ? 400 : 0), at = params < size ? params + 1 : size;
    const unsigned char *bytes = data + at;
    const size_t n = size - at;
    sn_gltf_glb glb;
    sn_error err;
    if (mode == 0) {
        if (sn_gltf_glb_split(bytes, n, &glb, &err) == SN_OK) {
            FUZZ_CHECK(glb.json >= bytes && glb.json + glb.json_size <= bytes + n);
            FUZZ_CHECK(glb.bin == NULL ? glb.bin_size == 0 : (glb.bin >= bytes && glb.bin + glb.bin_size <= bytes + n));
        } else {
            FUZZ_CHECK(err.msg[0] != '\0');
        }
    } else if (mode == 1) {
        const size_t bound = sn_gltf_base64_size((const char *)bytes, n);
        unsigned char *out = (unsigned char *)malloc(bound + 1);
        size_t written = (size_t)-1;
        FUZZ_CHECK(out != NULL);
        if (sn_gltf_base64_decode((const char *)bytes, n, out, bound, &written, &err) == SN_OK)
            FUZZ_CHECK(written <= bound && written <= n);
        free(out);
    } else if (mode == 4) {
        const size_t split = n > 0 ? (size_t)bytes[0] % n : 0;
        if (n > 0) fuzz_path_within(bytes + 1, n - 1, split < n - 1 ? split : n - 1);
    } else if (mode == 5) {
        fuzz_keys(&r);
    } else if (mode == 2) {
        reader params_reader = {data + 1, at > 1 ? at - 1 : 0, 0};
        fuzz_accessor(&params_reader, bytes, n);
    } else {
        reader params_reader = {data + 1, at > 1 ? at - 1 : 0, 0};
        fuzz_vertices(&params_reader);
    }
    return 0;
}
