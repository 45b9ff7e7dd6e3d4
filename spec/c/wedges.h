/* The weights of a simple_directional space worked out from its wedges as blendspace.h describes
   them (what a fast path outside the core does), for the C test and the fuzz target to hold
   against sn_blendspace_weights. C only, no Lua. */
#ifndef SN_SPEC_WEDGES_H
#define SN_SPEC_WEDGES_H

#include "blendspace.h"

/* out[0 .. count - 1] for the input p (clamped as the core clamps it); 0 when the wedges are not
   quick or p is (0, 0), which the core works out otherwise */
static int wedge_weights(const sn_blendspace_wedges *wg, const double *in, double *out) {
    double p[2], t, wa, wb, c;
    int lo, hi, next, i;
    for (i = 0; i < 2; i++)
        p[i] = in[i] < -SN_BLENDSPACE_MAX_COORD ? -SN_BLENDSPACE_MAX_COORD
             : in[i] > SN_BLENDSPACE_MAX_COORD  ? SN_BLENDSPACE_MAX_COORD
                                                : in[i];
    if (!wg->quick || (p[0] == 0.0 && p[1] == 0.0)) return 0;
    t = sn_blendspace_pseudo_angle(p[0], p[1]);
    lo = wg->ndir - 1;
    if (t >= wg->ang[0])
        for (lo = 0, hi = wg->ndir; hi - lo > 1;) {
            int mid = (lo + hi) / 2;
            if (wg->ang[mid] <= t) lo = mid;
            else hi = mid;
        }
    next = (lo + 1) % wg->ndir;
    wa = (wg->unit[2 * next + 1] * p[0] - wg->unit[2 * next] * p[1]) * wg->fac[2 * lo];
    wb = (wg->unit[2 * lo] * p[1] - wg->unit[2 * lo + 1] * p[0]) * wg->fac[2 * lo + 1];
    if (!(wa > 0.0)) wa = 0.0;
    if (!(wb > 0.0)) wb = 0.0;
    c = 1.0 - wa - wb;
    if (c < 0.0) {
        double sum = wa + wb;
        wa /= sum;
        wb /= sum;
        c = 0.0;
    }
    for (i = 0; i < wg->count; i++) out[i] = 0.0;
    out[wg->idx[lo]] += wa;
    out[wg->idx[next]] += wb;
    if (wg->centre >= 0) out[wg->centre] += c;
    else
        for (i = 0; i < wg->count; i++) out[i] += c / wg->count;
    return 1;
}

#endif
