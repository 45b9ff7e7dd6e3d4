/*
 * Private to src/core: the chain solver's block (ik_chain_def.c builds it, ik_chain.c solves
 * with it): one link per chain joint, what init fixes, then the scratch of a solve.
 *
 * CONVENTIONS: as ik.h. Not part of the public API.
 */
#ifndef SN_IK_CHAIN_INTERNAL_H
#define SN_IK_CHAIN_INTERNAL_H

/* No fused multiply-adds in the files that include this one first (ik_chain.c, ik_chain_def.c),
   so that a solve gives the same bits on every target (see ik_chain.c): a file-scope pragma holds
   to the end of the including file. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__FMA__)
/* gcc 12's straight-line vectoriser fuses a * b - c, a * b + c pairs into vfmsubadd where FMA is
   there (-march=native, -mfma), whatever -ffp-contract says: off in this file on such targets */
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include "ik_internal.h"

/* One chain joint: what init fixes, then the scratch of a solve. */
typedef struct ik_link {
    int joint;          /* skeleton index */
    unsigned kind;      /* SN_IK_HINGE, SN_IK_CONE | SN_IK_TWIST, or 0 */
    double axis[3];     /* hinge axis, or the bone's rest direction (unit, in the joint's frame) */
    sn_quat rest;       /* rest local rotation (unit) */
    double lo_s, lo_c;  /* sin and cos of half the lower angle (hinge or twist) */
    double hi_s, hi_c;  /* ... of half the upper angle */
    double cone_c, cone_s; /* cos and sin of half the cone */
    /* scratch */
    sn_quat in;         /* the input local rotation (unit) */
    sn_quat q;          /* the current local rotation */
    sn_quat base;       /* the input within its limits */
    sn_quat model;      /* the current model rotation */
    double t[3];        /* local translation */
    double s;           /* scale of the joint's model frame (uniform; x under non-uniform) */
    double ls;          /* local scale (x) */
    double p[3];        /* model position */
    double f[3];        /* FABRIK's backward position */
    double c[3];        /* a hinge's column of the damped least-squares step */
    sn_quat best;       /* the local rotation of the best pose so far ... */
    sn_quat best_model; /* ... its model rotation ... */
    double best_p[3];   /* ... and position */
    sn_quat next;       /* the rotation a damped least-squares step gives it */
    int held;           /* 1: the step's limit held the joint, the others solve again */
    double len;         /* length of the bone to the next joint (model units) */
} ik_link;

struct sn_ik_chain {
    const sn_skeleton *skeleton;  /* outlives the solver */
    int count, method, iterations;
    int has_limits;               /* 1 when a joint has a limit */
    double tolerance;
    sn_quat parent;               /* scratch: the root's parent's model rotation */
    double parent_t[3], parent_s; /* ... its origin and scale */
    ik_link link[1];              /* count links */
};

#endif
