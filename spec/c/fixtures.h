/*
 * Shared fixtures of the C-only tests: seeded random numbers, an arena of object blocks freed
 * together, and ready-made skeletons. Include after ensure.h; a test file may define
 * FIXTURE_SEED before including it to get its own random sequence.
 */
#ifndef SN_FIXTURES_H
#define SN_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "pose.h"
#include "skeleton.h"

#ifndef FIXTURE_SEED
#define FIXTURE_SEED 4242
#endif

static unsigned long fixture_seed = FIXTURE_SEED;

/* A random number in [lo, hi) from the file's deterministic sequence. */
static inline double rnd(double lo, double hi) { return lo + (hi - lo) * ensure_random(&fixture_seed); }

/* Object blocks: zeroed, 8 bytes past a malloc address (so the objects' own 16-byte alignment of
   their arrays is exercised), all freed by fixture_free(). */
static void **fixture_blocks = NULL;
static int fixture_count = 0, fixture_room = 0;

static inline void *fixture_block(size_t size) {
    unsigned char *p;
    if (fixture_count == fixture_room) {
        int room = fixture_room == 0 ? 64 : 2 * fixture_room;
        void **grown = (void **)realloc(fixture_blocks, sizeof(void *) * (size_t)room);
        if (grown == NULL) return NULL;
        fixture_blocks = grown;
        fixture_room = room;
    }
    p = (unsigned char *)calloc(1, size + 16);
    if (p == NULL) return NULL;
    fixture_blocks[fixture_count++] = p;
    return p + 8;
}

static inline void fixture_free(void) {
    while (fixture_count > 0) free(fixture_blocks[--fixture_count]);
    free(fixture_blocks);
    fixture_blocks = NULL;
    fixture_room = 0;
}

/* A skeleton of n joints (at most FIXTURE_MAX_JOINTS) named "j0", "j1", ... with the given
   0-based parents (-1 for a root) and rest transforms (10 floats per joint, or NULL for
   identities), in an arena block. */
#define FIXTURE_MAX_JOINTS SN_SKELETON_MAX_JOINTS
static inline sn_skeleton *fixture_skeleton(int n, const int *parents, const float *rest) {
    static char names[FIXTURE_MAX_JOINTS][16];
    static const char *np[FIXTURE_MAX_JOINTS];
    sn_skeleton_def def;
    sn_error err;
    size_t size;
    void *mem;
    int j;
    if (n > FIXTURE_MAX_JOINTS) return NULL;
    for (j = 0; j < n; j++) {
        snprintf(names[j], sizeof names[j], "j%d", j);
        np[j] = names[j];
    }
    sn_skeleton_def_init(&def);
    def.count = n;
    def.parents = parents;
    def.names = np;
    def.rest = rest;
    size = sn_skeleton_size(&def, &err);
    ENSURE(size > 0);
    if (size == 0) return NULL;
    mem = fixture_block(size);
    ENSURE(sn_skeleton_init(mem, size, &def, &err) == SN_OK);
    return (sn_skeleton *)mem;
}

/* A straight chain of n joints: joint j's parent is j - 1. */
static inline sn_skeleton *fixture_line_skeleton(int n, const float *rest) {
    static int parents[FIXTURE_MAX_JOINTS];
    int j;
    for (j = 0; j < n && j < FIXTURE_MAX_JOINTS; j++) parents[j] = j - 1;
    return fixture_skeleton(n, parents, rest);
}

/* A pose of `s` at its rest pose, in an arena block. */
static inline sn_pose *fixture_pose(const sn_skeleton *s) {
    sn_pose_def def;
    size_t size;
    void *mem;
    sn_pose_def_init(&def);
    def.skeleton = s;
    size = sn_pose_size(&def, NULL);
    mem = fixture_block(size);
    ENSURE(sn_pose_init(mem, size, &def, NULL) == SN_OK);
    return (sn_pose *)mem;
}

/* A mask of `s` with every joint at `weight`, in an arena block. */
static inline sn_mask *fixture_mask(const sn_skeleton *s, float weight) {
    sn_mask_def def;
    size_t size;
    void *mem;
    sn_mask_def_init(&def);
    def.skeleton = s;
    def.weight = weight;
    size = sn_mask_size(&def, NULL);
    mem = fixture_block(size);
    ENSURE(sn_mask_init(mem, size, &def, NULL) == SN_OK);
    return (sn_mask *)mem;
}

/* A matrix set of `s` (identities), in an arena block. */
static inline sn_matrices *fixture_matrices(const sn_skeleton *s) {
    sn_matrices_def def;
    size_t size;
    void *mem;
    sn_matrices_def_init(&def);
    def.skeleton = s;
    size = sn_matrices_size(&def, NULL);
    mem = fixture_block(size);
    ENSURE(sn_matrices_init(mem, size, &def, NULL) == SN_OK);
    return (sn_matrices *)mem;
}

/* Invalid-input tests as tables of one-line named cases. Each case spoils a valid definition
   in one way and names a fragment that the refusal's message must contain:

       static void no_points(sn_chain_def *d) { d->count = 0; }
       static const chain_case cases[] = {{"no points", no_points, "'points'"}, ...};
       REFUSE_CASES(cases, sn_chain_def, valid_def, sn_chain_validate);

   `valid` fills a valid definition; `check(const def *, sn_error *)` must refuse each spoiled
   one with a message holding the fragment. FIXTURE_CASE_TYPE(chain_case, sn_chain_def) declares
   the row type. */
#define FIXTURE_CASE_TYPE(name, def_type) \
    typedef struct name {                 \
        const char *what;                 \
        void (*spoil)(def_type *);        \
        const char *says;                 \
    } name

#define REFUSE_CASES(cases, def_type, valid, check)                                                \
    do {                                                                                           \
        size_t case_i_;                                                                            \
        for (case_i_ = 0; case_i_ < sizeof(cases) / sizeof(cases)[0]; case_i_++) {                 \
            def_type case_d_;                                                                      \
            sn_error case_e_;                                                                      \
            sn_status case_s_;                                                                     \
            memset(&case_e_, 0, sizeof case_e_);                                                   \
            valid(&case_d_);                                                                       \
            (cases)[case_i_].spoil(&case_d_);                                                      \
            case_s_ = check(&case_d_, &case_e_);                                                   \
            if (case_s_ == SN_OK || strstr(case_e_.msg, (cases)[case_i_].says) == NULL) {          \
                fprintf(stderr, "%s:%d: case '%s': %s (wanted a message with \"%s\")\n", __FILE__, \
                        __LINE__, (cases)[case_i_].what,                                           \
                        case_s_ == SN_OK ? "accepted" : case_e_.msg, (cases)[case_i_].says);      \
                ensure_failed_checks++;                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
