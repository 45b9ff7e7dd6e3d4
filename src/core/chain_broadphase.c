/*
 * Dynamic bones, the broad phase: which colliders can reach a chain this step. The collider
 * filter tests a ball against many colliders' cores at once (a plain loop the compiler
 * vectorises, and an AVX version chosen at run time); the broad phase bounds the moving particles
 * by a ball and keeps the colliders that can reach it (with at most FEW_COLLIDERS outside round
 * colliders there is none: all are near). The exact tests and pushes are chain_collider.c's.
 */
#include "chain_internal.h"

#if SN_CHAIN_AVX
#include <immintrin.h>
#endif

/* ---- the collider filter ----------------------------------------------------------------------- */

/* Which of the n (a multiple of 4) cores of s a ball of radius r at x may touch, as bits: the
   squared distance from x to every core at once against the reach plus r, with a margin for
   rounding (the exact tests decide). A plain loop that compilers vectorise for the baseline
   instruction set (SSE2 on x86-64: two cores per instruction); on x86-64 an AVX version (four),
   chosen at run time. Either way the exact tests decide, so the motion is the same. */
static unsigned within_plain(const cores *s, int n, const double *x, double r) {
    double slack[NEAR_SOA];
    unsigned bits = 0;
    int j;
    for (j = 0; j < n; j++) {
        double dx = x[0] - s->ax[j], dy = x[1] - s->ay[j], dz = x[2] - s->az[j];
        double t = dx * s->ux[j] + dy * s->uy[j] + dz * s->uz[j], reach = s->reach[j] + r;
        t = t < 0.0 ? 0.0 : t;
        t = t > s->len[j] ? s->len[j] : t;
        dx -= t * s->ux[j];
        dy -= t * s->uy[j];
        dz -= t * s->uz[j];
        slack[j] = reach * reach * (1.0 + 1e-9) - (dx * dx + dy * dy + dz * dz);
    }
    for (j = 0; j < n; j++) bits |= (unsigned)(slack[j] >= 0.0) << j;
    return bits;
}

#if SN_CHAIN_AVX
/* within_plain with AVX intrinsics: four cores per instruction, the same operations in the same
   order, and the bits straight from the comparison */
__attribute__((target("avx"))) static unsigned within_avx(const cores *s, int n, const double *x, double r) {
    const __m256d px = _mm256_set1_pd(x[0]), py = _mm256_set1_pd(x[1]), pz = _mm256_set1_pd(x[2]);
    const __m256d pr = _mm256_set1_pd(r), zero = _mm256_setzero_pd(), margin = _mm256_set1_pd(1.0 + 1e-9);
    unsigned bits = 0;
    int j;
    for (j = 0; j < n; j += 4) {
        __m256d ux = _mm256_loadu_pd(s->ux + j), uy = _mm256_loadu_pd(s->uy + j), uz = _mm256_loadu_pd(s->uz + j);
        __m256d dx = _mm256_sub_pd(px, _mm256_loadu_pd(s->ax + j));
        __m256d dy = _mm256_sub_pd(py, _mm256_loadu_pd(s->ay + j));
        __m256d dz = _mm256_sub_pd(pz, _mm256_loadu_pd(s->az + j));
        __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, ux), _mm256_mul_pd(dy, uy)), _mm256_mul_pd(dz, uz));
        __m256d reach = _mm256_add_pd(_mm256_loadu_pd(s->reach + j), pr), d2;
        t = _mm256_min_pd(_mm256_max_pd(t, zero), _mm256_loadu_pd(s->len + j));
        dx = _mm256_sub_pd(dx, _mm256_mul_pd(t, ux));
        dy = _mm256_sub_pd(dy, _mm256_mul_pd(t, uy));
        dz = _mm256_sub_pd(dz, _mm256_mul_pd(t, uz));
        d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
        bits |= (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, _mm256_mul_pd(_mm256_mul_pd(reach, reach), margin), _CMP_LE_OQ))
                << j;
    }
    return bits;
}
#endif

/* the filter of a sn_chain_simd_level, called through a pointer (one call, no dispatch) */
filter_fn sn_chain_filter_of(int simd) {
#if SN_CHAIN_AVX
    if (simd >= SN_CHAIN_SIMD_AVX) return within_avx;
#else
    (void)simd;
#endif
    return within_plain;
}

int sn_chain_simd_best(void) {
#if SN_CHAIN_AVX
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx")) return SN_CHAIN_SIMD_AVX;
#endif
    return SN_CHAIN_SIMD_PLAIN;
}

int sn_chain_get_simd(const sn_chain *c) { return c->simd; }

int sn_chain_set_simd(sn_chain *c, int simd) {
    int best = sn_chain_simd_best();
    c->simd = simd < SN_CHAIN_SIMD_PLAIN ? SN_CHAIN_SIMD_PLAIN : simd > best ? best : simd;
    c->within = sn_chain_filter_of(c->simd);
    return c->simd;
}

/* ---- the broad phase: per chain and step, the colliders that can reach it ---------------------- */

/* squared distance from x to the core of a sphere (its centre) or capsule (its axis segment) */
static double core_distance2(const collider *k, const double *x) {
    double d[3], t;
    sub3(d, x, k->a);
    t = dot3(d, k->u); /* a sphere has u = 0 and len = 0 */
    t = t < 0.0 ? 0.0 : t > k->len ? k->len : t;
    madd3(d, d, -t, k->u);
    return dot3(d, d);
}

/* 1 when collider k cannot act on a particle of radius at most r anywhere in the ball (bc, br):
   every point of the ball is outside the outside-collider grown by r (or inside the
   inside-collider shrunk by r) with room to spare, so the collision passes would not move it.
   Conservative: a sphere or round cone lies within rmax of its core, and holds the balls of
   radius rmin about its core. */
static int collider_far(const collider *k, const double *bc, double br, double r) {
    double d[3];
    if (k->def.shape == SN_COLLIDER_PLANE) {
        sub3(d, bc, k->a);
        return k->def.inside ? dot3(d, k->u) + br + r < 0.0 : dot3(d, k->u) - br - r > 0.0;
    }
    if (k->def.inside) {
        double room = k->rmin - r - br;
        return room > 0.0 && core_distance2(k, bc) < room * room;
    }
    return core_distance2(k, bc) > (k->rmax + r + br) * (k->rmax + r + br);
}

/* Before the colliders of a step: the ball around the box lo..hi of every moving particle's
   start and solved positions, and the list of the colliders that can reach a particle of radius
   at most `rmax` in it. A particle whose path stays in the ball needs only those: the others
   cannot move it (colliders_for). One that the placing or a push takes out of it is tested
   against all of them (cheaper, measured, than growing the ball by a margin). */
void sn_chain_broad_phase(sn_chain *c, const double *lo, const double *hi, double rmax) {
    double d[3], br;
    unsigned cand;
    int k, nfirst = c->ncol < NEAR_SOA ? c->ncol : NEAR_SOA;
    set3(c->bc, 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    sub3(d, hi, lo);
    br = 0.5 * len3(d);
    c->br2 = br * br;
    c->everywhere = 0;
    c->nnear = 0;
    c->sweep2 = HUGE_VAL;
    /* the first NEAR_SOA at once: an outside round collider whose core is beyond its reach plus
       rmax + br is far (the filter keeps the others, and every plane and inside collider, which
       collider_far then decides) */
    cand = c->within(&c->all, c->nall, c->bc, rmax + br);
    for (k = 0; k < c->ncol; k++) {
        const collider *col = &c->col[k];
        int far = k < nfirst && !((cand >> k) & 1u);
        if (!far && (k >= nfirst || col->kind != KIND_ROUND)) far = collider_far(col, c->bc, br, rmax);
        if (far) continue;
        c->near[c->nnear++] = k;
        if (col->kind == KIND_ROUND && col->rmin * col->rmin < c->sweep2) c->sweep2 = col->rmin * col->rmin;
    }
    if (c->nnear == c->ncol && c->ncol <= NEAR_SOA) { /* all of them: `all` holds them */
        c->near_cores = &c->all;
        c->npad = c->nall;
        return;
    }
    c->near_cores = &c->nearc;
    c->npad = c->nnear < NEAR_SOA ? c->nnear : NEAR_SOA;
    for (k = 0; k < c->npad; k++) cores_set(&c->nearc, k, &c->col[c->near[k]]);
    for (; c->npad % 4 != 0; c->npad++) cores_set(&c->nearc, c->npad, NULL);
}

/* Instead of the broad phase for at most FEW_COLLIDERS outside round colliders: every collider
   is near and the ball is all space. The filter looks at four cores at once (one AVX
   instruction, two SSE2), so keeping fewer would not make it cheaper: the broad phase and the
   box it needs would cost more than they save. (A plane or inside collider always passes the
   filter, so with one of them the broad phase is kept: it drops them when they are far.) */
void sn_chain_all_near(sn_chain *c) {
    int k;
    set3(c->bc, 0.0, 0.0, 0.0);
    c->br2 = HUGE_VAL;
    c->everywhere = 1;
    c->sweep2 = HUGE_VAL;
    for (k = 0; k < c->ncol; k++) {
        double r = c->col[k].rmin;
        c->near[k] = k;
        if (r * r < c->sweep2) c->sweep2 = r * r;
    }
    c->nnear = c->ncol;
    c->near_cores = &c->all;
    c->npad = c->nall;
}
