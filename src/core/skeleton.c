#include "skeleton_internal.h"

#include <math.h>
#include <string.h>

/* The object block: this header, then (16-byte aligned) the rest pose channels, the parents,
   the name offsets, the name hash table and the name bytes. Pointers are set once by init;
   the block never moves (it lives in a Lua userdata or caller memory). */
struct sn_skeleton {
    int count;            /* joints */
    int stride;           /* count rounded up to SN_SKELETON_LANES */
    unsigned hash_mask;   /* hash table size - 1 (a power of two minus one) */
    const float *rest;    /* 10 rows of stride floats (see SN_ROW) */
    const int *parents;   /* count */
    const int *name_at;   /* count offsets into names */
    const int *hash;      /* hash_mask + 1 slots: a joint, or -1 */
    const char *names;    /* the zero-terminated names, one after another */
    int morph_count;      /* morph targets */
    int morph_stride;     /* morph_count rounded up to SN_SKELETON_LANES */
    unsigned morph_mask;  /* morph hash table size - 1 */
    const float *morph_defaults; /* morph_stride default weights (padding 0) */
    const int *morph_at;  /* morph_count offsets into names */
    const int *morph_hash; /* morph_mask + 1 slots: a morph, or -1 */
};

static const float identity[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

static int stride_of(int count) {
    return (count + SN_SKELETON_LANES - 1) / SN_SKELETON_LANES * SN_SKELETON_LANES;
}

static unsigned hash_size(int count) {
    unsigned n = 8;
    if (count <= 0) return 1; /* no names: one empty slot */
    while (n < 2u * (unsigned)count) n *= 2;
    return n;
}

static unsigned fnv1a(const char *s) {
    unsigned h = 2166136261u;
    for (; *s != '\0'; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Fills the open-addressing table `slots` (mask + 1 entries) with the joints of `names`;
   returns the first joint whose name repeats an earlier one, or -1. */
static int hash_names(const char *const *names, int count, int *slots, unsigned mask) {
    int j;
    for (j = 0; j <= (int)mask; j++) slots[j] = -1;
    for (j = 0; j < count; j++) {
        unsigned h = fnv1a(names[j]) & mask;
        while (slots[h] >= 0) {
            if (strcmp(names[slots[h]], names[j]) == 0) return j;
            h = (h + 1) & mask;
        }
        slots[h] = j;
    }
    return -1;
}

/* Names of `count` joints or morphs (`what`: "joint" or "morph"): present, not too long, distinct. */
static sn_status check_name_list(const char *const *list, int count, const char *what, const sn_allocator *alloc,
                                 sn_error *err) {
    int j, dup, *slots;
    unsigned mask = hash_size(count) - 1;
    if (count == 0) return SN_OK;
    if (list == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no %s names", what);
    for (j = 0; j < count; j++) {
        const char *nm = list[j];
        if (nm == NULL || nm[0] == '\0') return sn_fail_arg(err, 1, SN_EINVAL, "%s %d has no name", what, j + 1);
        if (strlen(nm) > SN_SKELETON_MAX_NAME)
            return sn_fail_arg(err, 1, SN_EINVAL, "name of %s %d is longer than %d bytes", what, j + 1,
                               SN_SKELETON_MAX_NAME);
    }
    slots = (int *)sn_scratch_alloc(alloc, sizeof(int) * (mask + 1));
    if (slots == NULL) return sn_fail(err, SN_ENOMEM, "out of memory checking %s names", what);
    dup = hash_names(list, count, slots, mask);
    if (dup >= 0) {
        int first = 0;
        while (strcmp(list[first], list[dup]) != 0) first++;
        sn_scratch_free(alloc, slots, sizeof(int) * (mask + 1));
        return sn_fail_arg(err, 1, SN_EINVAL, "%ss %d and %d are both named '%s'", what, first + 1, dup + 1, list[dup]);
    }
    sn_scratch_free(alloc, slots, sizeof(int) * (mask + 1));
    return SN_OK;
}

static sn_status check_names(const sn_skeleton_def *def, sn_error *err) {
    return check_name_list(def->names, def->count, "joint", def->alloc, err);
}

/* The morph targets: count in range, names as joints' (among themselves), defaults finite. */
static sn_status check_morphs(const sn_skeleton_def *def, sn_error *err) {
    int m;
    sn_status st;
    if (def->morph_count < 0) return sn_fail_arg(err, 1, SN_EINVAL, "negative morph count %d", def->morph_count);
    if (def->morph_count > SN_SKELETON_MAX_MORPHS)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d morphs, more than the %d allowed", def->morph_count,
                           SN_SKELETON_MAX_MORPHS);
    if ((st = check_name_list(def->morph_names, def->morph_count, "morph", def->alloc, err)) != SN_OK) return st;
    if (def->morph_defaults != NULL)
        for (m = 0; m < def->morph_count; m++)
            if (!sn_isfinite(def->morph_defaults[m]))
                return sn_fail_arg(err, 1, SN_EINVAL, "default weight of morph '%s' is not finite", def->morph_names[m]);
    return SN_OK;
}

static sn_status check_parents(const sn_skeleton_def *def, sn_error *err) {
    int j;
    if (def->parents == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no joint parents");
    for (j = 0; j < def->count; j++) {
        int p = def->parents[j], k, steps;
        if (p < -1 || p >= def->count)
            return sn_fail_arg(err, 1, SN_EINVAL, "parent %d of joint '%s' is out of range (0 .. %d)", p + 1,
                           def->names[j], def->count);
        if (p == j) return sn_fail_arg(err, 1, SN_EINVAL, "joint '%s' is its own parent", def->names[j]);
        if (p < j) continue;
        /* the parent comes after its child: a cycle if following parents leads back to j */
        for (k = p, steps = 0; k >= 0 && k < def->count && k != j && steps <= def->count; steps++)
            k = def->parents[k];
        if (k == j)
            return sn_fail_arg(err, 1, SN_EINVAL, "parents form a cycle through joint '%s'", def->names[j]);
        return sn_fail_arg(err, 1, SN_EINVAL, "parent '%s' comes after its child '%s' (parents must come first)",
                       def->names[p], def->names[j]);
    }
    return SN_OK;
}

static sn_status check_rest(const sn_skeleton_def *def, sn_error *err) {
    int j, c;
    if (def->rest == NULL) return SN_OK;
    for (j = 0; j < def->count; j++) {
        const float *r = def->rest + 10 * j;
        double len2 = 0;
        for (c = 0; c < 10; c++)
            if (!sn_isfinite(r[c]))
                return sn_fail_arg(err, 1, SN_EINVAL, "rest value %d of joint '%s' is not finite", c + 1, def->names[j]);
        for (c = 3; c < 7; c++) len2 += (double)r[c] * r[c];
        if (!(len2 > 0.0)) return sn_fail_arg(err, 1, SN_EINVAL, "rest rotation of joint '%s' is zero", def->names[j]);
    }
    return SN_OK;
}

void sn_skeleton_def_init(sn_skeleton_def *def) { memset(def, 0, sizeof *def); }

sn_status sn_skeleton_validate(const sn_skeleton_def *def, sn_error *err) {
    sn_status st;
    if (def == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "no skeleton definition");
    if (def->count < 1) return sn_fail_arg(err, 1, SN_EINVAL, "a skeleton needs at least one joint");
    if (def->count > SN_SKELETON_MAX_JOINTS)
        return sn_fail_arg(err, 1, SN_EINVAL, "%d joints, more than the %d allowed", def->count, SN_SKELETON_MAX_JOINTS);
    if ((st = check_names(def, err)) != SN_OK) return st;
    if ((st = check_parents(def, err)) != SN_OK) return st;
    if ((st = check_rest(def, err)) != SN_OK) return st;
    return check_morphs(def, err);
}

static size_t names_bytes(const sn_skeleton_def *def) {
    size_t n = 0;
    int j;
    for (j = 0; j < def->count; j++) n += strlen(def->names[j]) + 1;
    for (j = 0; j < def->morph_count; j++) n += strlen(def->morph_names[j]) + 1;
    return n;
}

/* layout offsets from the 16-aligned start of the arrays */
typedef struct layout {
    size_t rest, defaults, parents, name_at, hash, morph_at, morph_hash, names, end;
} layout;

static layout layout_of(const sn_skeleton_def *def) {
    layout l;
    int stride = stride_of(def->count);
    l.rest = 0;
    l.defaults = l.rest + sizeof(float) * 10 * (size_t)stride;
    l.parents = l.defaults + sizeof(float) * (size_t)stride_of(def->morph_count);
    l.name_at = l.parents + sizeof(int) * (size_t)def->count;
    l.hash = l.name_at + sizeof(int) * (size_t)def->count;
    l.morph_at = l.hash + sizeof(int) * hash_size(def->count);
    l.morph_hash = l.morph_at + sizeof(int) * (size_t)def->morph_count;
    l.names = l.morph_hash + sizeof(int) * hash_size(def->morph_count);
    l.end = l.names + names_bytes(def);
    return l;
}

size_t sn_skeleton_size(const sn_skeleton_def *def, sn_error *err) {
    if (sn_skeleton_validate(def, err) != SN_OK) return 0;
    return SN_ALIGN16(sizeof(sn_skeleton)) + 15 + layout_of(def).end;
}

sn_status sn_skeleton_init(void *mem, size_t size, const sn_skeleton_def *def, sn_error *err) {
    size_t need = sn_skeleton_size(def, err), off = 0;
    sn_skeleton *s = (sn_skeleton *)mem;
    unsigned char *base;
    float *rest, *defaults;
    int *parents, *name_at, *hash, *morph_at, *morph_hash, j, c;
    char *names;
    layout l;
    if (need == 0) return err != NULL ? err->code : SN_EINVAL;
    if (mem == NULL || size < need) return sn_fail(err, SN_ENOMEM, "skeleton needs %lu bytes", (unsigned long)need);
    l = layout_of(def);
    base = sn_aligned_after(mem, sizeof(sn_skeleton));
    rest = (float *)(base + l.rest);
    parents = (int *)(base + l.parents);
    name_at = (int *)(base + l.name_at);
    hash = (int *)(base + l.hash);
    names = (char *)(base + l.names);
    defaults = (float *)(base + l.defaults);
    morph_at = (int *)(base + l.morph_at);
    morph_hash = (int *)(base + l.morph_hash);
    s->count = def->count;
    s->stride = stride_of(def->count);
    s->hash_mask = hash_size(def->count) - 1;
    for (j = 0; j < s->stride; j++) {
        const float *r = (def->rest != NULL && j < def->count) ? def->rest + 10 * j : identity;
        double len = sqrt((double)r[3] * r[3] + (double)r[4] * r[4] + (double)r[5] * r[5] + (double)r[6] * r[6]);
        for (c = 0; c < 10; c++) rest[SN_ROW(c) * s->stride + j] = (c >= 3 && c < 7) ? (float)(r[c] / len) : r[c];
    }
    for (j = 0; j < def->count; j++) {
        size_t n = strlen(def->names[j]) + 1;
        parents[j] = def->parents[j];
        name_at[j] = (int)off;
        memcpy(names + off, def->names[j], n);
        off += n;
    }
    (void)hash_names(def->names, def->count, hash, s->hash_mask);
    s->morph_count = def->morph_count;
    s->morph_stride = stride_of(def->morph_count);
    s->morph_mask = hash_size(def->morph_count) - 1;
    for (j = 0; j < s->morph_stride; j++)
        defaults[j] = (def->morph_defaults != NULL && j < def->morph_count) ? def->morph_defaults[j] : 0.0f;
    for (j = 0; j < def->morph_count; j++) {
        size_t n = strlen(def->morph_names[j]) + 1;
        morph_at[j] = (int)off;
        memcpy(names + off, def->morph_names[j], n);
        off += n;
    }
    (void)hash_names(def->morph_names, def->morph_count, morph_hash, s->morph_mask);
    s->morph_defaults = defaults;
    s->morph_at = morph_at;
    s->morph_hash = morph_hash;
    s->rest = rest;
    s->parents = parents;
    s->name_at = name_at;
    s->hash = hash;
    s->names = names;
    return SN_OK;
}

int sn_skeleton_count(const sn_skeleton *s) { return s->count; }

int sn_skeleton_stride(const sn_skeleton *s) { return s->stride; }

int sn_skeleton_parent(const sn_skeleton *s, int joint) {
    return (joint >= 0 && joint < s->count) ? s->parents[joint] : -1;
}

const char *sn_skeleton_name(const sn_skeleton *s, int joint) {
    return (joint >= 0 && joint < s->count) ? s->names + s->name_at[joint] : NULL;
}

/* the entry of `name` in the table `hash` (mask + 1 slots) of names at `at`, or -1 */
static int find_in(const sn_skeleton *s, const int *hash, unsigned mask, const int *at, const char *name) {
    unsigned h;
    if (name == NULL) return -1;
    h = fnv1a(name) & mask;
    while (hash[h] >= 0) {
        if (strcmp(s->names + at[hash[h]], name) == 0) return hash[h];
        h = (h + 1) & mask;
    }
    return -1;
}

int sn_skeleton_find(const sn_skeleton *s, const char *name) {
    return find_in(s, s->hash, s->hash_mask, s->name_at, name);
}

int sn_skeleton_morph_count(const sn_skeleton *s) { return s->morph_count; }

int sn_skeleton_morph_stride(const sn_skeleton *s) { return s->morph_stride; }

const char *sn_skeleton_morph_name(const sn_skeleton *s, int morph) {
    return (morph >= 0 && morph < s->morph_count) ? s->names + s->morph_at[morph] : NULL;
}

int sn_skeleton_morph_find(const sn_skeleton *s, const char *name) {
    return find_in(s, s->morph_hash, s->morph_mask, s->morph_at, name);
}

const float *sn_skeleton_morph_defaults(const sn_skeleton *s) { return s->morph_defaults; }

void sn_skeleton_rest(const sn_skeleton *s, int joint, float trs[10]) {
    int c;
    if (joint < 0 || joint >= s->count) {
        memcpy(trs, identity, sizeof identity);
        return;
    }
    for (c = 0; c < 10; c++) trs[c] = s->rest[SN_ROW(c) * s->stride + joint];
}

const float *sn_skeleton_rest_soa(const sn_skeleton *s) { return s->rest; }

const int *sn_skeleton_parents(const sn_skeleton *s) { return s->parents; }
