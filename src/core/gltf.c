/* The binary side of glTF 2.0 import: the .glb container, base64, accessors, vertex
   interleaving (see gltf.h). */
#include "gltf.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- bytes ---------------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 1 on a host that stores a uint32_t's low byte first, as glTF does */
static int little_endian(void) {
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static unsigned le16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

/* 1 when [offset, offset + length) lies within `size` bytes, without overflow */
static int within(size_t offset, size_t length, size_t size) { return offset <= size && length <= size - offset; }

/* ---- the .glb container ---------------------------------------------------------------------- */

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au  /* "JSON" */
#define GLB_BIN 0x004E4942u   /* "BIN\0" */

sn_status sn_gltf_glb_split(const unsigned char *data, size_t size, sn_gltf_glb *out, sn_error *err) {
    size_t length, pos = 12;
    uint32_t version;
    int chunk = 0;
    memset(out, 0, sizeof *out);
    if (data == NULL || size < 12)
        return sn_fail(err, SN_EINVAL, "a .glb starts with a 12-byte header (the file has %lu bytes)", (unsigned long)size);
    if (le32(data) != GLB_MAGIC) return sn_fail(err, SN_EINVAL, "not a .glb: the file does not start with 'glTF'");
    version = le32(data + 4);
    if (version != 2) return sn_fail(err, SN_EINVAL, "the GLB header's version %lu is not 2", (unsigned long)version);
    length = le32(data + 8);
    if (length < 12)
        return sn_fail(err, SN_EINVAL, "the GLB header's length %lu is less than the 12 bytes of the header",
                       (unsigned long)length);
    if (length > size)
        return sn_fail(err, SN_EINVAL, "the GLB header's length %lu is past the end of the file (%lu bytes): cut short?",
                       (unsigned long)length, (unsigned long)size);
    while (pos < length) {
        size_t clen;
        uint32_t ctype;
        if (length - pos < 8)
            return sn_fail(err, SN_EINVAL, "chunk %d: its header is cut short at byte %lu", chunk, (unsigned long)pos);
        clen = le32(data + pos);
        ctype = le32(data + pos + 4);
        if (!within(pos + 8, clen, length))
            return sn_fail(err, SN_EINVAL, "chunk %d: length %lu is past the end of the container (%lu bytes)", chunk,
                           (unsigned long)clen, (unsigned long)length);
        if (chunk == 0 && ctype != GLB_JSON) return sn_fail(err, SN_EINVAL, "chunk 0 is not the JSON chunk");
        if (chunk == 0) {
            out->json = data + pos + 8;
            out->json_size = clen;
        } else if (ctype == GLB_BIN && out->bin == NULL) {
            out->bin = data + pos + 8;
            out->bin_size = clen;
        }
        pos += 8 + clen;
        chunk++;
    }
    if (chunk == 0) return sn_fail(err, SN_EINVAL, "no JSON chunk");
    return SN_OK;
}

/* ---- base64 ----------------------------------------------------------------------------------- */

/* the value of a base64 character, or -1 */
static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* characters of `in` without the trailing padding (at most two '=') */
static size_t b64_length(const char *in, size_t size) {
    size_t n = size;
    if (n > 0 && in[n - 1] == '=') n--;
    if (n > 0 && in[n - 1] == '=' && size - n < 2) n--;
    return n;
}

size_t sn_gltf_base64_size(const char *in, size_t size) {
    size_t n = b64_length(in, size);
    return n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
}

sn_status sn_gltf_base64_decode(const char *in, size_t size, unsigned char *out, size_t room, size_t *written,
                                sn_error *err) {
    size_t n = b64_length(in, size), need = sn_gltf_base64_size(in, size), i, o = 0;
    uint32_t acc = 0;
    *written = 0;
    for (i = 0; i < n; i++)
        if (b64_value((unsigned char)in[i]) < 0)
            return sn_fail(err, SN_EINVAL, "character %lu of the base64 text is not base64 (byte %d)", (unsigned long)i,
                           (int)(unsigned char)in[i]);
    if (n % 4 == 1) return sn_fail(err, SN_EINVAL, "base64 text of %lu characters is cut short", (unsigned long)n);
    if (room < need) return sn_fail(err, SN_ENOMEM, "base64 needs %lu bytes of room", (unsigned long)need);
    for (i = 0; i < n; i++) {
        acc = acc << 6 | (uint32_t)b64_value((unsigned char)in[i]);
        if (i % 4 == 3) {
            out[o++] = (unsigned char)(acc >> 16);
            out[o++] = (unsigned char)(acc >> 8);
            out[o++] = (unsigned char)acc;
            acc = 0;
        }
    }
    if (n % 4 == 2) out[o++] = (unsigned char)(acc >> 4);
    if (n % 4 == 3) {
        out[o++] = (unsigned char)(acc >> 10);
        out[o++] = (unsigned char)(acc >> 2);
    }
    *written = o;
    return SN_OK;
}

/* ---- accessors -------------------------------------------------------------------------------- */

/* bytes of a component, 0 for an unknown type */
static size_t component_size(int component) {
    switch (component) {
    case SN_GLTF_BYTE:
    case SN_GLTF_UNSIGNED_BYTE: return 1;
    case SN_GLTF_SHORT:
    case SN_GLTF_UNSIGNED_SHORT: return 2;
    case SN_GLTF_UNSIGNED_INT:
    case SN_GLTF_FLOAT: return 4;
    default: return 0;
    }
}

/* bytes from one column of a matrix to the next: columns start on 4-byte boundaries (glTF 3.6.2.4) */
static size_t column_step(const sn_gltf_accessor *a) {
    size_t col = (size_t)a->rows * component_size(a->component);
    return a->columns > 1 ? (col + 3) & ~(size_t)3 : col;
}

static size_t element_size(const sn_gltf_accessor *a) { return (size_t)a->columns * column_step(a); }

void sn_gltf_accessor_init(sn_gltf_accessor *a) {
    memset(a, 0, sizeof *a);
    a->component = SN_GLTF_FLOAT;
    a->rows = a->columns = 1;
    a->count = 1;
}

/* a view within its buffer; `what` names it in the message */
static sn_status check_view(const sn_gltf_view *v, const char *what, sn_error *err) {
    if (v->buffer == NULL && v->buffer_size > 0) return sn_fail(err, SN_EINVAL, "%s has no bytes", what);
    if (!within(v->offset, v->length, v->buffer_size))
        return sn_fail(err, SN_EINVAL, "%s: bytes %lu .. %lu are past the end of its buffer (%lu bytes)", what,
                       (unsigned long)v->offset, (unsigned long)v->offset + (unsigned long)v->length,
                       (unsigned long)v->buffer_size);
    return SN_OK;
}

/* `count` elements of `size` bytes, `step` apart from `offset`, within `length` bytes */
static int elements_within(size_t offset, size_t count, size_t step, size_t size, size_t length) {
    if (offset > length || size > length - offset) return 0;
    return count - 1 <= (length - offset - size) / step;
}

sn_status sn_gltf_accessor_validate(const sn_gltf_accessor *a, sn_error *err) {
    const size_t csize = component_size(a->component);
    size_t elem, per;
    sn_status st;
    if (csize == 0) return sn_fail(err, SN_EINVAL, "unknown component type %d", a->component);
    if (a->normalized && (csize == 4))
        return sn_fail(err, SN_EINVAL, "a normalised accessor must have 8- or 16-bit integers (component type %d)",
                       a->component);
    if (a->rows < 1 || a->rows > 4 || a->columns < 1 || a->columns > 4 || (a->columns > 1 && a->columns != a->rows))
        return sn_fail(err, SN_EINVAL, "elements of %d x %d components are not a glTF type", a->rows, a->columns);
    per = (size_t)a->rows * (size_t)a->columns;
    if (a->count < 1) return sn_fail(err, SN_EINVAL, "count 0: an accessor has at least one element");
    if (a->count > SN_GLTF_MAX_VALUES / per)
        return sn_fail(err, SN_EINVAL, "count %lu is out of range (1 .. %lu for this type)", (unsigned long)a->count,
                       (unsigned long)(SN_GLTF_MAX_VALUES / per));
    elem = element_size(a);
    if (a->view != NULL) {
        const size_t step = a->view->stride != 0 ? a->view->stride : elem;
        if ((st = check_view(a->view, "its buffer view", err)) != SN_OK) return st;
        if (a->view->stride != 0 && a->view->stride < elem)
            return sn_fail(err, SN_EINVAL, "byteStride %lu is less than an element (%lu bytes)",
                           (unsigned long)a->view->stride, (unsigned long)elem);
        if (!elements_within(a->offset, a->count, step, elem, a->view->length))
            return sn_fail(err, SN_EINVAL, "%lu elements of %lu bytes from byte %lu are past the end of its buffer view "
                           "(%lu bytes)", (unsigned long)a->count, (unsigned long)elem, (unsigned long)a->offset,
                           (unsigned long)a->view->length);
    }
    if (a->sparse_count > 0) {
        const size_t isize = component_size(a->sparse_indices_component);
        if (a->sparse_count > a->count)
            return sn_fail(err, SN_EINVAL, "sparse count %lu is out of range (1 .. %lu)", (unsigned long)a->sparse_count,
                           (unsigned long)a->count);
        if (a->sparse_indices_component == SN_GLTF_BYTE || a->sparse_indices_component == SN_GLTF_SHORT ||
            a->sparse_indices_component == SN_GLTF_FLOAT || isize == 0)
            return sn_fail(err, SN_EINVAL, "sparse indices of component type %d (an unsigned integer type is needed)",
                           a->sparse_indices_component);
        if (a->sparse_indices == NULL || a->sparse_values == NULL)
            return sn_fail(err, SN_EINVAL, "sparse indices and values need their buffer views");
        if ((st = check_view(a->sparse_indices, "the buffer view of the sparse indices", err)) != SN_OK) return st;
        if ((st = check_view(a->sparse_values, "the buffer view of the sparse values", err)) != SN_OK) return st;
        if (!elements_within(a->sparse_indices_offset, a->sparse_count, isize, isize, a->sparse_indices->length))
            return sn_fail(err, SN_EINVAL, "%lu sparse indices from byte %lu are past the end of their buffer view",
                           (unsigned long)a->sparse_count, (unsigned long)a->sparse_indices_offset);
        if (!elements_within(a->sparse_values_offset, a->sparse_count, elem, elem, a->sparse_values->length))
            return sn_fail(err, SN_EINVAL, "%lu sparse values from byte %lu are past the end of their buffer view",
                           (unsigned long)a->sparse_count, (unsigned long)a->sparse_values_offset);
    }
    return SN_OK;
}

size_t sn_gltf_accessor_values(const sn_gltf_accessor *a) {
    if (sn_gltf_accessor_validate(a, NULL) != SN_OK) return 0;
    return a->count * (size_t)a->rows * (size_t)a->columns;
}

/* one component at p as a float, dequantised when normalised */
static float component_float(const unsigned char *p, int component, int normalized) {
    switch (component) {
    case SN_GLTF_BYTE: {
        const int v = (int)(signed char)p[0];
        if (!normalized) return (float)v;
        return v < -127 ? -1.0f : (float)v / 127.0f;
    }
    case SN_GLTF_UNSIGNED_BYTE: return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case SN_GLTF_SHORT: {
        const unsigned u = le16(p);
        const int v = u >= 32768u ? (int)u - 65536 : (int)u;
        if (!normalized) return (float)v;
        return v < -32767 ? -1.0f : (float)v / 32767.0f;
    }
    case SN_GLTF_UNSIGNED_SHORT: return normalized ? (float)le16(p) / 65535.0f : (float)le16(p);
    case SN_GLTF_UNSIGNED_INT: return (float)le32(p);
    default: {
        const uint32_t bits = le32(p);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

/* one component at p as an unsigned integer (an unsigned integer type) */
static uint32_t component_uint(const unsigned char *p, int component) {
    if (component == SN_GLTF_UNSIGNED_BYTE) return p[0];
    if (component == SN_GLTF_UNSIGNED_SHORT) return le16(p);
    return le32(p);
}

/* the element at p into out (rows x columns values, column-major) */
static void read_element(const sn_gltf_accessor *a, const unsigned char *p, float *out, uint32_t *uout) {
    const size_t csize = component_size(a->component), step = column_step(a);
    int c, r, k = 0;
    for (c = 0; c < a->columns; c++)
        for (r = 0; r < a->rows; r++, k++) {
            const unsigned char *q = p + (size_t)c * step + (size_t)r * csize;
            if (out != NULL) out[k] = component_float(q, a->component, a->normalized);
            else uout[k] = component_uint(q, a->component);
        }
}

/* the elements of a scalar or vector accessor (one column, so no padding inside an element) from
   `base`, `step` bytes apart: read_element's values, with the choice of component made once for
   all of them instead of once per value (indices, joints, quantised keys and vertices) */
#define READ_VECTORS(dst, expr)                                                                           \
    for (i = 0; i < a->count; i++) {                                                                      \
        const unsigned char *p = base + i * step;                                                         \
        for (r = 0; r < a->rows; r++, p += csize) *dst++ = (expr);                                       \
    }
/* packed elements (one after another): their count x rows components read as one run */
#define READ_PACKED(dst, expr)                                                                            \
    for (i = 0; i < n; i++) {                                                                             \
        const unsigned char *p = base + i * csize;                                                        \
        dst[i] = (expr);                                                                                  \
    }
static void read_vectors(const sn_gltf_accessor *a, const unsigned char *base, size_t step, float *out,
                         uint32_t *uout) {
    const size_t csize = component_size(a->component), n = a->count * (size_t)a->rows;
    size_t i;
    int r;
    if (step == csize * (size_t)a->rows && !a->normalized) { /* the usual case: indices, joints */
        switch (a->component) {
        case SN_GLTF_UNSIGNED_BYTE:
            if (uout != NULL) READ_PACKED(uout, p[0]) else READ_PACKED(out, (float)p[0])
            return;
        case SN_GLTF_UNSIGNED_SHORT:
            if (uout != NULL) READ_PACKED(uout, le16(p)) else READ_PACKED(out, (float)le16(p))
            return;
        case SN_GLTF_UNSIGNED_INT:
            if (uout != NULL) {
                READ_PACKED(uout, le32(p))
                return;
            }
            break;
        default: break;
        }
    }
    if (uout != NULL) {
        switch (a->component) {
        case SN_GLTF_UNSIGNED_BYTE: READ_VECTORS(uout, p[0]) break;
        case SN_GLTF_UNSIGNED_SHORT: READ_VECTORS(uout, le16(p)) break;
        default: READ_VECTORS(uout, le32(p)) break;
        }
        return;
    }
    if (a->normalized) {
        READ_VECTORS(out, component_float(p, a->component, 1))
        return;
    }
    switch (a->component) {
    case SN_GLTF_UNSIGNED_BYTE: READ_VECTORS(out, (float)p[0]) break;
    case SN_GLTF_UNSIGNED_SHORT: READ_VECTORS(out, (float)le16(p)) break;
    default: READ_VECTORS(out, component_float(p, a->component, 0)) break;
    }
}
#undef READ_VECTORS
#undef READ_PACKED

/* the decoding shared by the float and the integer reads: exactly one of out and uout is set */
static sn_status read_all(const sn_gltf_accessor *a, float *out, uint32_t *uout, size_t room, sn_error *err) {
    const size_t per = (size_t)a->rows * (size_t)a->columns, elem = element_size(a);
    size_t i, prev = 0;
    sn_status st = sn_gltf_accessor_validate(a, err);
    if (st != SN_OK) return st;
    if (room < a->count * per)
        return sn_fail(err, SN_ENOMEM, "%lu values need room (got %lu)", (unsigned long)(a->count * per),
                       (unsigned long)room);
    if (a->view != NULL) {
        const size_t step = a->view->stride != 0 ? a->view->stride : elem;
        const unsigned char *base = a->view->buffer + a->view->offset + a->offset;
        if (out != NULL && a->component == SN_GLTF_FLOAT && little_endian()) {
            /* floats as the file holds them (their bits, NaNs kept): a copy per element, or of all
               of them when they are packed (the usual case: animation keys, vertices) */
            if (step == elem)
                memcpy(out, base, sizeof(float) * a->count * per);
            else
                for (i = 0; i < a->count; i++) memcpy(out + i * per, base + i * step, elem);
        } else if (a->columns == 1) {
            read_vectors(a, base, step, out, uout);
        } else {
            for (i = 0; i < a->count; i++)
                read_element(a, base + i * step, out != NULL ? out + i * per : NULL,
                             uout != NULL ? uout + i * per : NULL);
        }
    } else if (out != NULL) {
        memset(out, 0, sizeof(float) * a->count * per);
    } else if (uout != NULL) {
        memset(uout, 0, sizeof(uint32_t) * a->count * per);
    }
    for (i = 0; i < a->sparse_count; i++) {
        const size_t isize = component_size(a->sparse_indices_component);
        const unsigned char *ip = a->sparse_indices->buffer + a->sparse_indices->offset + a->sparse_indices_offset;
        const unsigned char *vp = a->sparse_values->buffer + a->sparse_values->offset + a->sparse_values_offset;
        const size_t index = component_uint(ip + i * isize, a->sparse_indices_component);
        if (index >= a->count)
            return sn_fail(err, SN_EINVAL, "sparse index %lu is out of range (0 .. %lu)", (unsigned long)index,
                           (unsigned long)(a->count - 1));
        if (i > 0 && index <= prev)
            return sn_fail(err, SN_EINVAL, "sparse indices do not increase: %lu after %lu", (unsigned long)index,
                           (unsigned long)prev);
        prev = index;
        read_element(a, vp + i * elem, out != NULL ? out + index * per : NULL, uout != NULL ? uout + index * per : NULL);
    }
    return SN_OK;
}

sn_status sn_gltf_accessor_read(const sn_gltf_accessor *a, float *out, size_t room, sn_error *err) {
    return read_all(a, out, NULL, room, err);
}

sn_status sn_gltf_accessor_read_uint(const sn_gltf_accessor *a, uint32_t *out, size_t room, sn_error *err) {
    if (a->component != SN_GLTF_UNSIGNED_BYTE && a->component != SN_GLTF_UNSIGNED_SHORT &&
        a->component != SN_GLTF_UNSIGNED_INT)
        return sn_fail(err, SN_EINVAL, "component type %d is not an unsigned integer type", a->component);
    if (a->normalized) return sn_fail(err, SN_EINVAL, "normalised integers are not indices");
    return read_all(a, NULL, out, room, err);
}

/* ---- vertices ---------------------------------------------------------------------------------- */

/* `count` vertices of an attribute of `width` values (src, packed) into the slots of the
   interleaved vertices from `dst` (`slots` floats apart), its slots past the values filled */
static inline void copy_attribute(const float *src, float *dst, size_t count, size_t slots, int width, int fill_slots,
                                  float fill) {
    size_t v;
    int c;
    for (v = 0; v < count; v++, src += width, dst += slots) {
        for (c = 0; c < width; c++) dst[c] = src[c];
        for (; c < fill_slots; c++) dst[c] = fill;
    }
}

sn_status sn_gltf_interleave(const sn_gltf_attribute *attrs, int n, size_t count, float *out, size_t room,
                             sn_error *err) {
    size_t slots = 0;
    int i, k;
    for (i = 0; i < n; i++) {
        if (attrs[i].width < 1 || attrs[i].width > 4 || attrs[i].slots < attrs[i].width || attrs[i].slots > 4)
            return sn_fail(err, SN_EINVAL, "attribute %d: %d values in %d slots", i, attrs[i].width, attrs[i].slots);
        slots += (size_t)attrs[i].slots;
    }
    if (slots > 0 && count > room / slots)
        return sn_fail(err, SN_ENOMEM, "%lu vertices of %lu floats need room (got %lu)", (unsigned long)count,
                       (unsigned long)slots, (unsigned long)room);
    /* attribute by attribute (the same writes as vertex by vertex), each width copied by a loop
       of its own (fixed bounds: unrolled) */
    for (i = 0, k = 0; i < n; k += attrs[i].slots, i++) {
        const sn_gltf_attribute *a = &attrs[i];
        switch (a->width) {
        case 1: copy_attribute(a->values, out + k, count, slots, 1, a->slots, a->fill); break;
        case 2: copy_attribute(a->values, out + k, count, slots, 2, a->slots, a->fill); break;
        case 3: copy_attribute(a->values, out + k, count, slots, 3, a->slots, a->fill); break;
        default: copy_attribute(a->values, out + k, count, slots, 4, a->slots, a->fill); break;
        }
    }
    return SN_OK;
}

sn_status sn_gltf_map_joints(float *values, size_t n, const int *map, int map_size, sn_error *err) {
    size_t i;
    for (i = 0; i < n; i++) {
        const float v = values[i];
        if (!(v >= 0.0f && v < (float)map_size) || v != (float)(int)v)
            return sn_fail(err, SN_EINVAL, "joint index %g (value %lu) is out of range (0 .. %d)", (double)v,
                           (unsigned long)i, map_size - 1);
        values[i] = (float)map[(int)v];
    }
    return SN_OK;
}

/* sn_gltf_normalize_weights of 4 weights a vertex (the common case), the same arithmetic in the
   same order, with its loops' bounds fixed: unrolled, and the divisions of a vertex in pairs */
static void normalize_weights4(float *values, size_t count) {
    size_t v;
    for (v = 0; v < count; v++) {
        float *w = values + 4 * v;
        const double a = w[0], b = w[1], c = w[2], d = w[3], sum = (((0.0 + a) + b) + c) + d;
        /* every weight at least 0 and finite (a NaN fails both tests) */
        if (a >= 0.0 && a <= FLT_MAX && b >= 0.0 && b <= FLT_MAX && c >= 0.0 && c <= FLT_MAX && d >= 0.0 &&
            d <= FLT_MAX && sum > 0.0 && sum != 1.0) {
            w[0] = (float)(a / sum);
            w[1] = (float)(b / sum);
            w[2] = (float)(c / sum);
            w[3] = (float)(d / sum);
        }
    }
}

void sn_gltf_normalize_weights(float *values, size_t count, int width) {
    size_t v;
    int k;
    if (width == 4) {
        normalize_weights4(values, count);
        return;
    }
    for (v = 0; v < count; v++) {
        float *w = values + v * (size_t)width;
        double sum = 0.0;
        int usable = 1;
        for (k = 0; k < width; k++) {
            if (!(w[k] >= 0.0f) || !sn_isfinite(w[k])) usable = 0; /* negative, NaN or infinite */
            sum += w[k];
        }
        /* weights that are not negative, divided by their positive sum: each stays in [0, 1] */
        if (usable && sum > 0.0 && sum != 1.0)
            for (k = 0; k < width; k++) w[k] = (float)(w[k] / sum);
    }
}

sn_status sn_gltf_transform_uv(float *values, size_t count, const double m[6], sn_error *err) {
    size_t i;
    int k;
    for (k = 0; k < 6; k++)
        if (!sn_isfinite(m[k])) return sn_fail(err, SN_EINVAL, "texture transform entry %d is not finite", k + 1);
    /* checked before anything is written: a refusal leaves the coordinates as they were */
    for (i = 0; i < count; i++) {
        const double u = values[2 * i], v = values[2 * i + 1];
        const double a = m[0] * u + m[2] * v + m[4], b = m[1] * u + m[3] * v + m[5];
        if ((sn_isfinite(a) && fabs(a) > FLT_MAX) || (sn_isfinite(b) && fabs(b) > FLT_MAX))
            return sn_fail(err, SN_ERANGE, "texture coordinate %lu transformed is past float range", (unsigned long)i);
    }
    for (i = 0; i < count; i++) {
        const double u = values[2 * i], v = values[2 * i + 1];
        values[2 * i] = (float)(m[0] * u + m[2] * v + m[4]);
        values[2 * i + 1] = (float)(m[1] * u + m[3] * v + m[5]);
    }
    return SN_OK;
}

/* a path separator of the host */
static int is_separator(char c) {
#ifdef _WIN32
    return c == '/' || c == '\\';
#else
    return c == '/';
#endif
}

int sn_gltf_path_within(const char *root, size_t root_size, const char *path, size_t path_size) {
    if (root == NULL || path == NULL || root_size == 0) return 0;
    while (root_size > 1 && is_separator(root[root_size - 1])) root_size--; /* "/srv/a/" is "/srv/a" */
    if (path_size < root_size || memcmp(root, path, root_size) != 0) return 0;
    if (path_size == root_size) return 1;                  /* the folder itself */
    if (is_separator(root[root_size - 1])) return 1;       /* root "/" (or "C:\\"): below it */
    return is_separator(path[root_size]);                  /* "/srv/a/b", not "/srv/ab" */
}
