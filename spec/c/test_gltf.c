/* C-only tests of src/core/gltf.c (the binary side of glTF import): no Lua involved. */
#include "fixtures.h"
#include "gltf.h"

/* a little-endian uint32 at p */
static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* a .glb of a 4-byte JSON chunk "{}  " and an 8-byte BIN chunk 1..8; returns its size */
static size_t make_glb(unsigned char *g) {
    int i;
    put32(g, 0x46546C67u);
    put32(g + 4, 2);
    put32(g + 8, 12 + 8 + 4 + 8 + 8);
    put32(g + 12, 4);
    put32(g + 16, 0x4E4F534Au);
    memcpy(g + 20, "{}  ", 4);
    put32(g + 24, 8);
    put32(g + 28, 0x004E4942u);
    for (i = 0; i < 8; i++) g[32 + i] = (unsigned char)(i + 1);
    return 40;
}

static void test_glb_split(void) {
    unsigned char g[64];
    size_t n = make_glb(g);
    sn_gltf_glb out;
    sn_error err;
    ENSURE(sn_gltf_glb_split(g, n, &out, &err) == SN_OK);
    ENSURE(out.json_size == 4 && memcmp(out.json, "{}  ", 4) == 0);
    ENSURE(out.bin_size == 8 && out.bin[0] == 1 && out.bin[7] == 8);
    put32(g + 8, 24); /* JSON only */
    ENSURE(sn_gltf_glb_split(g, 24, &out, &err) == SN_OK && out.bin == NULL && out.bin_size == 0);
}

/* invalid .glb files: the valid one above, spoiled by each case */
typedef struct glb_case {
    const char *what;
    size_t size;        /* bytes given to the splitter (0: all 40) */
    int at;             /* byte to overwrite (-1: none) */
    uint32_t value;     /* little-endian uint32 written there */
    const char *says;
} glb_case;

static const glb_case glb_cases[] = {
    {"an empty file", 1, -1, 0, "12-byte header"},
    {"a cut header", 11, -1, 0, "12-byte header"},
    {"a wrong magic", 0, 0, 0x46546C66u, "does not start with 'glTF'"},
    {"version 1", 0, 4, 1, "the GLB header's version 1 is not 2"},
    {"a length shorter than the header", 0, 8, 4, "less than the 12 bytes of the header"},
    {"a length past the file (truncated)", 0, 8, 400, "past the end of the file (40 bytes): cut short?"},
    {"a JSON chunk past the container", 0, 12, 1000, "chunk 0: length 1000 is past the end"},
    {"a first chunk that is not JSON", 0, 16, 0x004E4942u, "chunk 0 is not the JSON chunk"},
    {"a BIN chunk past the container", 0, 24, 9, "chunk 1: length 9 is past the end"},
    {"a length of 43 (a cut chunk header)", 0, 8, 43, "past the end of the file"},
    {"no chunk at all", 12, 8, 12, "no JSON chunk"},
};

static void test_glb_refused(void) {
    size_t i;
    for (i = 0; i < sizeof glb_cases / sizeof glb_cases[0]; i++) {
        unsigned char g[64];
        sn_gltf_glb out;
        sn_error err;
        size_t n = make_glb(g);
        const glb_case *c = &glb_cases[i];
        err.msg[0] = '\0';
        if (c->at >= 0) put32(g + c->at, c->value);
        if (sn_gltf_glb_split(g, c->size ? c->size : n, &out, &err) == SN_OK || strstr(err.msg, c->says) == NULL) {
            fprintf(stderr, "case '%s': %s\n", c->what, err.msg);
            ensure_failed_checks++;
        }
    }
}

static void test_base64(void) {
    static const char *const text[] = {"", "Zg", "Zg==", "Zm8", "Zm8=", "Zm9v", "Zm9vYmFy", "AAEC/w=="};
    static const char *const bytes[] = {"", "f", "f", "fo", "fo", "foo", "foobar", "\x00\x01\x02\xff"};
    static const size_t sizes[] = {0, 1, 1, 2, 2, 3, 6, 4};
    unsigned char out[16];
    size_t i, w;
    sn_error err;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ENSURE(sn_gltf_base64_size(text[i], strlen(text[i])) == sizes[i]);
        ENSURE(sn_gltf_base64_decode(text[i], strlen(text[i]), out, sizeof out, &w, &err) == SN_OK);
        ENSURE(w == sizes[i] && memcmp(out, bytes[i], sizes[i]) == 0);
    }
    ENSURE(sn_gltf_base64_decode("Zm9v!", 5, out, sizeof out, &w, &err) == SN_EINVAL &&
           strstr(err.msg, "character 4") != NULL);
    ENSURE(sn_gltf_base64_decode("Zm=v", 4, out, sizeof out, &w, &err) == SN_EINVAL); /* padding inside */
    ENSURE(sn_gltf_base64_decode("Zm9vY", 5, out, sizeof out, &w, &err) == SN_EINVAL && strstr(err.msg, "cut short"));
    ENSURE(sn_gltf_base64_decode("Zm9vYmFy", 8, out, 5, &w, &err) == SN_ENOMEM);
}

/* an accessor over `view` of buffer `buf` (n bytes) */
static sn_gltf_view view_of(const unsigned char *buf, size_t n, size_t offset, size_t length, size_t stride) {
    sn_gltf_view v;
    v.buffer = buf;
    v.buffer_size = n;
    v.offset = offset;
    v.length = length;
    v.stride = stride;
    return v;
}

static void test_accessors_decode(void) {
    /* bytes: signed and unsigned 8- and 16-bit extremes, floats, at stride 8 */
    unsigned char buf[64];
    float out[64], one = 1.5f, two = -2.25f;
    uint32_t ints[16];
    sn_gltf_accessor a;
    sn_gltf_view v;
    sn_error err;
    memset(buf, 0, sizeof buf);
    buf[0] = 0x80; buf[1] = 0x81; buf[2] = 0x7f; buf[3] = 0x00; /* bytes -128 -127 127 0 */
    buf[8] = 0x00; buf[9] = 0x80; buf[10] = 0x01; buf[11] = 0x80; buf[12] = 0xff; buf[13] = 0x7f; /* shorts */
    memcpy(buf + 16, &one, 4);
    memcpy(buf + 24, &two, 4);
    sn_gltf_accessor_init(&a);
    v = view_of(buf, sizeof buf, 0, 64, 0);
    a.view = &v;
    a.component = SN_GLTF_BYTE;
    a.normalized = 1;
    a.rows = 4;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK);
    ENSURE(out[0] == -1.0f && out[1] == -1.0f && out[2] == 1.0f && out[3] == 0.0f);
    a.component = SN_GLTF_UNSIGNED_BYTE;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK);
    ENSURE(out[0] == 128.0f / 255.0f && out[2] == 127.0f / 255.0f);
    a.normalized = 0;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK && out[0] == 128 && out[1] == 129);
    ENSURE(sn_gltf_accessor_read_uint(&a, ints, 16, &err) == SN_OK && ints[0] == 128 && ints[2] == 127);
    a.component = SN_GLTF_SHORT;
    a.normalized = 1;
    a.rows = 3;
    a.offset = 8;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK);
    ENSURE(out[0] == -1.0f && out[1] == -1.0f && out[2] == 1.0f); /* -32768 clamps to -1 */
    a.component = SN_GLTF_UNSIGNED_SHORT;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK && out[2] == 32767.0f / 65535.0f);
    /* floats at stride 8: 1.5 and -2.25 */
    a.component = SN_GLTF_FLOAT;
    a.normalized = 0;
    a.rows = 1;
    a.offset = 16;
    a.count = 2;
    v.stride = 8;
    ENSURE(sn_gltf_accessor_read(&a, out, 64, &err) == SN_OK && out[0] == 1.5f && out[1] == -2.25f);
    ENSURE(sn_gltf_accessor_values(&a) == 2);
}

static void test_matrix_columns_are_padded(void) {
    /* a MAT3 of bytes: each 3-byte column starts on a 4-byte boundary */
    unsigned char buf[12] = {1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9, 99};
    float out[9];
    sn_gltf_accessor a;
    sn_gltf_view v = view_of(buf, sizeof buf, 0, sizeof buf, 0);
    sn_error err;
    int k;
    sn_gltf_accessor_init(&a);
    a.view = &v;
    a.component = SN_GLTF_UNSIGNED_BYTE;
    a.rows = a.columns = 3;
    ENSURE(sn_gltf_accessor_read(&a, out, 9, &err) == SN_OK);
    for (k = 0; k < 9; k++) ENSURE(out[k] == (float)(k + 1));
}

static void test_sparse(void) {
    /* 5 float scalars 10..14; indices 1, 3 (uint16) replaced by 21, 23 */
    unsigned char buf[64];
    float base[5] = {10, 11, 12, 13, 14}, vals[2] = {21, 23}, out[5];
    sn_gltf_accessor a;
    sn_gltf_view v, iv, vv;
    sn_error err;
    memset(buf, 0, sizeof buf);
    memcpy(buf, base, sizeof base);
    buf[20] = 1;
    buf[22] = 3;
    memcpy(buf + 24, vals, sizeof vals);
    v = view_of(buf, sizeof buf, 0, 20, 0);
    iv = view_of(buf, sizeof buf, 20, 4, 0);
    vv = view_of(buf, sizeof buf, 24, 8, 0);
    sn_gltf_accessor_init(&a);
    a.view = &v;
    a.count = 5;
    a.sparse_count = 2;
    a.sparse_indices = &iv;
    a.sparse_indices_component = SN_GLTF_UNSIGNED_SHORT;
    a.sparse_values = &vv;
    ENSURE(sn_gltf_accessor_read(&a, out, 5, &err) == SN_OK);
    ENSURE(out[0] == 10 && out[1] == 21 && out[2] == 12 && out[3] == 23 && out[4] == 14);
    a.view = NULL; /* no base view: zeros */
    ENSURE(sn_gltf_accessor_read(&a, out, 5, &err) == SN_OK);
    ENSURE(out[0] == 0 && out[1] == 21 && out[2] == 0 && out[3] == 23 && out[4] == 0);
    buf[22] = 1; /* not increasing */
    ENSURE(sn_gltf_accessor_read(&a, out, 5, &err) == SN_EINVAL && strstr(err.msg, "do not increase"));
    buf[22] = 9; /* past the count */
    ENSURE(sn_gltf_accessor_read(&a, out, 5, &err) == SN_EINVAL && strstr(err.msg, "sparse index 9 is out of range"));
}

/* invalid accessors: 4 float VEC3 over a 48-byte view, spoiled by each case */
static unsigned char case_buffer[64];
static sn_gltf_view case_view, case_sparse_view;

static void valid_accessor(sn_gltf_accessor *a) {
    sn_gltf_accessor_init(a);
    case_view = view_of(case_buffer, sizeof case_buffer, 8, 48, 0);
    case_sparse_view = view_of(case_buffer, sizeof case_buffer, 0, 8, 0);
    a->view = &case_view;
    a->rows = 3;
    a->count = 4;
}

static void unknown_component(sn_gltf_accessor *a) { a->component = 5124; }
static void normalised_floats(sn_gltf_accessor *a) { a->normalized = 1; }
static void normalised_uint32(sn_gltf_accessor *a) { a->component = SN_GLTF_UNSIGNED_INT; a->normalized = 1; }
static void five_rows(sn_gltf_accessor *a) { a->rows = 5; }
static void non_square_matrix(sn_gltf_accessor *a) { a->rows = 2; a->columns = 3; }
static void no_elements(sn_gltf_accessor *a) { a->count = 0; }
static void too_many_elements(sn_gltf_accessor *a) { a->view = NULL; a->count = SN_GLTF_MAX_VALUES; }
static void count_past_the_view(sn_gltf_accessor *a) { a->count = 5; }
static void offset_past_the_view(sn_gltf_accessor *a) { a->offset = 4; }
static void huge_offset(sn_gltf_accessor *a) { a->offset = (size_t)-8; }
static void view_past_the_buffer(sn_gltf_accessor *a) { (void)a; case_view.length = 60; }
static void view_offset_overflows(sn_gltf_accessor *a) { (void)a; case_view.offset = (size_t)-4; }
static void stride_below_an_element(sn_gltf_accessor *a) { (void)a; case_view.stride = 8; }
static void stride_past_the_view(sn_gltf_accessor *a) { (void)a; case_view.stride = 16; }
static void sparse_count_too_large(sn_gltf_accessor *a) {
    a->sparse_count = 5;
    a->sparse_indices = a->sparse_values = &case_sparse_view;
    a->sparse_indices_component = SN_GLTF_UNSIGNED_BYTE;
}
static void sparse_signed_indices(sn_gltf_accessor *a) {
    sparse_count_too_large(a);
    a->sparse_count = 1;
    a->sparse_indices_component = SN_GLTF_SHORT;
}
static void sparse_without_views(sn_gltf_accessor *a) {
    sparse_count_too_large(a);
    a->sparse_count = 1;
    a->sparse_values = NULL;
}
static void sparse_values_past_their_view(sn_gltf_accessor *a) {
    sparse_count_too_large(a);
    a->sparse_count = 1; /* one VEC3 of floats: 12 bytes, the view has 8 */
}

FIXTURE_CASE_TYPE(accessor_case, sn_gltf_accessor);
static const accessor_case accessor_cases[] = {
    {"an unknown component type", unknown_component, "unknown component type 5124"},
    {"normalised floats", normalised_floats, "8- or 16-bit integers"},
    {"normalised 32-bit integers", normalised_uint32, "8- or 16-bit integers"},
    {"five rows", five_rows, "5 x 1 components are not a glTF type"},
    {"a 2 x 3 matrix", non_square_matrix, "2 x 3 components"},
    {"no elements", no_elements, "count 0"},
    {"more values than allowed", too_many_elements, "is out of range (1 .. 5592405 for this type)"},
    {"a count past the view", count_past_the_view, "5 elements of 12 bytes from byte 0 are past the end"},
    {"an offset past the view", offset_past_the_view, "from byte 4 are past the end"},
    {"an offset near SIZE_MAX", huge_offset, "are past the end of its buffer view"},
    {"a view past its buffer", view_past_the_buffer, "bytes 8 .. 68 are past the end of its buffer (64 bytes)"},
    {"a view offset that overflows", view_offset_overflows, "past the end of its buffer"},
    {"a stride below an element", stride_below_an_element, "byteStride 8 is less than an element (12 bytes)"},
    {"a stride past the view", stride_past_the_view, "are past the end of its buffer view"},
    {"a sparse count above the count", sparse_count_too_large, "sparse count 5 is out of range (1 .. 4)"},
    {"signed sparse indices", sparse_signed_indices, "an unsigned integer type is needed"},
    {"sparse values without a view", sparse_without_views, "need their buffer views"},
    {"sparse values past their view", sparse_values_past_their_view, "1 sparse values from byte 0 are past the end"},
};

static void test_accessors_refused(void) {
    sn_gltf_accessor a;
    float out[16];
    uint32_t ints[16];
    sn_error err;
    valid_accessor(&a);
    ENSURE(sn_gltf_accessor_validate(&a, &err) == SN_OK);
    REFUSE_CASES(accessor_cases, sn_gltf_accessor, valid_accessor, sn_gltf_accessor_validate);
    valid_accessor(&a);
    ENSURE(sn_gltf_accessor_read(&a, out, 11, &err) == SN_ENOMEM); /* 12 values */
    ENSURE(sn_gltf_accessor_read_uint(&a, ints, 16, &err) == SN_EINVAL && strstr(err.msg, "not an unsigned"));
    a.component = SN_GLTF_UNSIGNED_BYTE;
    a.normalized = 1;
    ENSURE(sn_gltf_accessor_read_uint(&a, ints, 16, &err) == SN_EINVAL && strstr(err.msg, "normalised"));
}

static void test_interleave_and_joints(void) {
    const float pos[6] = {1, 2, 3, 4, 5, 6}, color[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
    float joints[8] = {0, 1, 2, 3, 3, 2, 1, 0}, out[32];
    const int map[4] = {3, 0, 1, 2};
    sn_gltf_attribute at[2];
    sn_error err;
    at[0].values = pos; at[0].width = 3; at[0].slots = 3; at[0].fill = 0;
    at[1].values = color; at[1].width = 3; at[1].slots = 4; at[1].fill = 1;
    ENSURE(sn_gltf_interleave(at, 2, 2, out, 14, &err) == SN_OK);
    ENSURE(out[0] == 1 && out[2] == 3 && out[3] == 0.1f && out[6] == 1 && out[7] == 4 && out[13] == 1);
    ENSURE(sn_gltf_interleave(at, 2, 2, out, 13, &err) == SN_ENOMEM);
    at[1].slots = 2;
    ENSURE(sn_gltf_interleave(at, 2, 2, out, 14, &err) == SN_EINVAL);
    ENSURE(sn_gltf_map_joints(joints, 8, map, 4, &err) == SN_OK);
    ENSURE(joints[0] == 3 && joints[1] == 0 && joints[3] == 2 && joints[7] == 3);
    joints[5] = 4;
    ENSURE(sn_gltf_map_joints(joints, 8, map, 4, &err) == SN_EINVAL && strstr(err.msg, "joint index 4 (value 5)"));
    joints[5] = 0.5f;
    ENSURE(sn_gltf_map_joints(joints, 8, map, 4, &err) == SN_EINVAL);
}

static void test_weights_normalised(void) {
    float w[12] = {0.25f, 0.25f, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    sn_gltf_normalize_weights(w, 3, 4);
    ENSURE(w[0] == 0.5f && w[1] == 0.5f); /* summed to 0.5 */
    ENSURE(w[4] == 0 && w[5] == 0);       /* all zero: left */
    ENSURE(w[8] == 1 && w[9] == 0);       /* already 1 */
}

static void test_uv_transform(void) {
    /* scale (2, 3), then a quarter turn, then offset (0.5, 1): (1, 0) -> (2, 0) -> (0, -2) -> (0.5, -1)
       with the turn glTF's texture transforms make (u' = u cos + v sin, v' = -u sin + v cos) */
    const double m[6] = {0, -2, 3, 0, 0.5, 1};
    const double huge[6] = {1e300, 0, 0, 1, 0, 0}, nan[6] = {NAN, 0, 0, 1, 0, 0};
    float uv[4] = {1, 0, 0, 1};
    sn_error err;
    ENSURE(sn_gltf_transform_uv(uv, 2, m, &err) == SN_OK);
    ENSURE(uv[0] == 0.5f && uv[1] == -1.0f); /* (1, 0) */
    ENSURE(uv[2] == 3.5f && uv[3] == 1.0f);  /* (0, 1) -> (0, 3) -> (3, 0) -> (3.5, 1) */
    ENSURE(sn_gltf_transform_uv(uv, 2, huge, &err) == SN_ERANGE);
    ENSURE(strstr(err.msg, "texture coordinate 0 transformed is past float range") != NULL);
    ENSURE(uv[0] == 0.5f && uv[2] == 3.5f); /* left as they were */
    ENSURE(sn_gltf_transform_uv(uv, 2, nan, &err) == SN_EINVAL);
    ENSURE(strstr(err.msg, "entry 1 is not finite") != NULL);
}

/* sn_gltf_path_within over a table of one-line cases: root, path, expected */
static void test_path_within(void) {
    static const struct {
        const char *root, *path;
        int within;
    } cases[] = {
        {"/srv/a", "/srv/a", 1},          /* the folder itself */
        {"/srv/a", "/srv/a/b.png", 1},    /* a file in it */
        {"/srv/a", "/srv/a/x/y/z.bin", 1},
        {"/srv/a/", "/srv/a/b.png", 1},   /* a separator ending the root */
        {"/srv/a//", "/srv/a/b.png", 1},
        {"/srv/a", "/srv/ab", 0},         /* a sibling that starts with the same bytes */
        {"/srv/a", "/srv/ab/c.png", 0},
        {"/srv/a", "/srv", 0},            /* the folder above */
        {"/srv/a", "/etc/passwd", 0},
        {"/srv/a", "/srv/", 0},
        {"/", "/etc/passwd", 1},          /* everything is below the root folder */
        {"/", "/", 1},
        {"", "/srv/a", 0},                /* an empty root holds nothing */
        {"/srv/a", "", 0},
        {"/srv/a", "/srv/a\\b", 0},       /* on POSIX a backslash is part of a name */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int got = sn_gltf_path_within(cases[i].root, strlen(cases[i].root), cases[i].path, strlen(cases[i].path));
        if (got != cases[i].within) printf("  case %lu: '%s' in '%s'\n", (unsigned long)i, cases[i].path, cases[i].root);
        ENSURE(got == cases[i].within);
    }
    ENSURE(sn_gltf_path_within(NULL, 0, "/a", 2) == 0 && sn_gltf_path_within("/a", 2, NULL, 0) == 0);
    ENSURE(sn_gltf_path_within("/srv/a/b", 6, "/srv/a/c", 8) == 1); /* sizes, not terminators */
}

/* key times: the first fault and where it is */
static void test_key_times(void) {
    static const float ok[] = {0.0f, 0.5f, 2.0f}, negative[] = {-1.0f, 0.0f}, equal[] = {0.0f, 1.0f, 1.0f},
                       back[] = {0.0f, 2.0f, 1.0f};
    float bad[] = {0.0f, 1.0f, 2.0f};
    size_t at = 99;
    ENSURE(sn_gltf_key_times_check(ok, 3, &at) == SN_GLTF_TIMES_OK);
    ENSURE(sn_gltf_key_times_check(ok, 0, &at) == SN_GLTF_TIMES_OK);
    ENSURE(sn_gltf_key_times_check(negative, 2, &at) == SN_GLTF_TIMES_NEGATIVE && at == 0);
    ENSURE(sn_gltf_key_times_check(equal, 3, &at) == SN_GLTF_TIMES_NOT_INCREASING && at == 2);
    ENSURE(sn_gltf_key_times_check(back, 3, &at) == SN_GLTF_TIMES_NOT_INCREASING && at == 2);
    bad[2] = (float)NAN;
    ENSURE(sn_gltf_key_times_check(bad, 3, &at) == SN_GLTF_TIMES_NOT_FINITE && at == 2);
    bad[1] = (float)-INFINITY; /* the first not finite, before any order fault */
    ENSURE(sn_gltf_key_times_check(bad, 3, &at) == SN_GLTF_TIMES_NOT_FINITE && at == 1);
}

/* rotation keys: unit, in the hemisphere of the one before; a zero key refused at its index */
static void test_unit_rotations(void) {
    static const float keys[] = {0, 0, 0, 2, 0, 0, 0.6f, -0.8f, 0, 0, 0, 0};
    double unit[12];
    size_t at = 99;
    ENSURE(sn_gltf_unit_rotations(keys, 2, unit, &at) == 1);
    ENSURE(unit[0] == 0 && unit[3] == 1.0);
    /* (0, 0, 0.6, -0.8) is on the far side of (0, 0, 0, 1): flipped */
    ENSURE_NEAR(unit[6], -0.6, 1e-7);
    ENSURE_NEAR(unit[7], 0.8, 1e-7);
    ENSURE(sn_gltf_unit_rotations(keys, 3, unit, &at) == 0 && at == 2);
}

#define KEYS_PI 3.14159265358979323846

/* keys on the slerp arc: a quarter turn about z cut where nlerp strays, times evenly apart */
static void test_slerp_keys(void) {
    static const float times[] = {1.0f, 3.0f}, keys[] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    const double widest = 0.17594207229755; /* glTF's 0.01 degree, clips.lua's widest_angle */
    double unit[8];
    float out_t[8], out_v[32];
    size_t at, added, k;
    sn_error err;
    ENSURE(sn_gltf_unit_rotations(keys, 2, unit, &at) == 1);
    added = sn_gltf_slerp_added(times, unit, 2, widest); /* w = pi / 4: ceil(0.785 / 0.176) = 5 pieces */
    ENSURE(added == 4);
    ENSURE(sn_gltf_slerp_fill(times, unit, 2, widest, out_t, out_v, 6, &err) == SN_OK);
    for (k = 0; k < 6; k++) {
        const double angle = (double)k / 5.0 * (KEYS_PI / 2); /* about z */
        ENSURE_NEAR(out_t[k], 1.0 + 2.0 * (double)k / 5.0, 1e-6);
        ENSURE_NEAR(out_v[4 * k + 2], sin(angle / 2), 1e-6);
        ENSURE_NEAR(out_v[4 * k + 3], cos(angle / 2), 1e-6);
        ENSURE(out_v[4 * k] == 0 && out_v[4 * k + 1] == 0);
    }
    ENSURE(out_t[0] == times[0] && out_t[5] == times[1]);
    ENSURE(sn_gltf_slerp_fill(times, unit, 2, widest, out_t, out_v, 5, &err) == SN_ENOMEM);
    /* a narrower angle than SN_GLTF_SLERP_MIN_WIDEST is taken as it; a wide one adds nothing */
    ENSURE(sn_gltf_slerp_added(times, unit, 2, 1e-9) == sn_gltf_slerp_added(times, unit, 2, SN_GLTF_SLERP_MIN_WIDEST));
    ENSURE(sn_gltf_slerp_added(times, unit, 2, KEYS_PI) == 0);
    /* keys closer than float32 times tell apart: the interval stays whole */
    {
        static const float close[] = {1000.0f, 1000.0005f};
        ENSURE(sn_gltf_slerp_added(close, unit, 2, widest) == 0);
    }
    ENSURE(sn_gltf_slerp_added(times, unit, 1, widest) == 0 && sn_gltf_slerp_added(times, unit, 0, widest) == 0);
}

int main(void) {
    RUN(test_glb_split);
    RUN(test_glb_refused);
    RUN(test_base64);
    RUN(test_accessors_decode);
    RUN(test_matrix_columns_are_padded);
    RUN(test_sparse);
    RUN(test_accessors_refused);
    RUN(test_interleave_and_joints);
    RUN(test_weights_normalised);
    RUN(test_uv_transform);
    RUN(test_path_within);
    RUN(test_key_times);
    RUN(test_unit_rotations);
    RUN(test_slerp_keys);
    fixture_free();
    return END("test_gltf");
}
