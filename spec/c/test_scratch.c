/* C-only tests of the construction scratch (common.h's sn_allocator): skeletons, clips and chains
   take it from their definition's allocator, give all of it back, and refuse with SN_ENOMEM and a
   message, leaving nothing behind, when the allocator refuses. */
#include "chain.h"
#include "clip.h"
#include "fixtures.h"

/* an allocator that counts what is out, and refuses every allocation from the `fail_at`-th on
   (0: never) */
typedef struct counter {
    long live, total;
    size_t bytes;
    int fail_at;
} counter;

static void *counting(void *ud, void *ptr, size_t osize, size_t nsize) {
    counter *c = (counter *)ud;
    if (nsize == 0) {
        if (ptr != NULL) {
            c->live--;
            c->bytes -= osize;
            free(ptr);
        }
        return NULL;
    }
    if (ptr != NULL) return NULL; /* construction scratch never grows a block */
    if (c->fail_at > 0 && c->total + 1 >= c->fail_at) return NULL;
    c->total++;
    c->live++;
    c->bytes += nsize;
    return malloc(nsize);
}

static const char *names[4] = {"hips", "spine", "tail1", "tail2"};
static const int parents[4] = {-1, 0, 1, 2};
static const float times[2] = {0, 1}, values[8] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f};

static void skeleton_def(sn_skeleton_def *d, const sn_allocator *a) {
    sn_skeleton_def_init(d);
    d->count = 4;
    d->parents = parents;
    d->names = names;
    d->alloc = a;
}

/* builds with allocator `a`; the status of the whole construction */
static sn_status build_skeleton(const sn_allocator *a, sn_skeleton **out, sn_error *err) {
    sn_skeleton_def d;
    size_t size;
    skeleton_def(&d, a);
    size = sn_skeleton_size(&d, err);
    if (size == 0) return err->code;
    *out = (sn_skeleton *)fixture_block(size);
    return sn_skeleton_init(*out, size, &d, err);
}

static sn_status build_clip(const sn_skeleton *s, const sn_allocator *a, sn_error *err) {
    sn_clip_track_def tr[2];
    sn_clip_def d;
    size_t size;
    int i;
    for (i = 0; i < 2; i++) {
        tr[i].joint = i + 1;
        tr[i].path = SN_CLIP_ROTATION;
        tr[i].interpolation = (sn_clip_interpolation)i;
        tr[i].keys = 2;
        tr[i].times = times;
        tr[i].values = values;
    }
    sn_clip_def_init(&d);
    d.skeleton = s;
    d.duration = 1;
    d.track_count = 2;
    d.tracks = tr;
    d.alloc = a;
    size = sn_clip_size(&d, err);
    if (size == 0) return err->code;
    return sn_clip_init(fixture_block(size), size, &d, err);
}

static sn_status build_chain(const sn_skeleton *s, const sn_allocator *a, sn_error *err) {
    sn_chain_def d;
    size_t size;
    sn_chain_def_init(&d);
    d.skeleton = s;
    d.root = 1;
    d.alloc = a;
    size = sn_chain_size(&d, err);
    if (size == 0) return err->code;
    return sn_chain_init(fixture_block(size), size, &d, err);
}

static void test_scratch_comes_from_the_allocator_and_goes_back(void) {
    counter c = {0, 0, 0, 0};
    sn_allocator a;
    sn_skeleton *s = NULL;
    sn_error err;
    a.fn = counting;
    a.ud = &c;
    ENSURE(build_skeleton(&a, &s, &err) == SN_OK);
    ENSURE(c.total > 0 && c.live == 0 && c.bytes == 0);
    c.total = 0;
    ENSURE(build_clip(s, &a, &err) == SN_OK);
    ENSURE(c.total > 0 && c.live == 0 && c.bytes == 0);
    c.total = 0;
    ENSURE(build_chain(s, &a, &err) == SN_OK);
    ENSURE(c.total > 0 && c.live == 0 && c.bytes == 0);
    fixture_free();
}

/* every allocation that can fail, failed in turn: SN_ENOMEM with a message, nothing left out */
static void test_a_refusing_allocator_gives_enomem(void) {
    int which, kind;
    for (kind = 0; kind < 3; kind++) {
        int refused = 0;
        for (which = 1; which <= 12; which++) {
            counter c = {0, 0, 0, 0};
            sn_allocator a, plain;
            sn_skeleton *s = NULL;
            sn_error err;
            sn_status st;
            a.fn = counting;
            a.ud = &c;
            plain.fn = NULL;
            plain.ud = NULL;
            ENSURE(build_skeleton(&plain, &s, &err) == SN_OK); /* NULL fn: malloc */
            c.fail_at = which;
            err.msg[0] = '\0';
            st = kind == 0 ? build_skeleton(&a, &s, &err) : kind == 1 ? build_clip(s, &a, &err) : build_chain(s, &a, &err);
            ENSURE(st == SN_OK || (st == SN_ENOMEM && err.msg[0] != '\0'));
            ENSURE(c.live == 0 && c.bytes == 0);
            refused += st == SN_ENOMEM;
            fixture_free();
        }
        ENSURE(refused > 0); /* the allocator's refusals were met */
    }
}

int main(void) {
    RUN(test_scratch_comes_from_the_allocator_and_goes_back);
    RUN(test_a_refusing_allocator_gives_enomem);
    return END("test_scratch");
}
