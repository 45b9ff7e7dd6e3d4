/*
 * Private to the binding: the userdata of a 2-D IK solver, shared by ik2d.c (definitions, getters,
 * setters, clone) and ik2d_solve.c (the three `solve` methods).
 */
#ifndef SN_BINDING_IK2D_SOLVER_H
#define SN_BINDING_IK2D_SOLVER_H

#include "../core/ik2d.h"
#include "binding.h"

/* The userdata of a 2-D solver: everything it solves with. Its uservalue (a table: the
   dragonbones rig, then its core Rig2D) keeps the rig alive, so `rig` stays valid. */
typedef struct ik2d {
    sn_rig2d *rig;
    const sn_rig2d_data *data;
    int n;                              /* bones */
    int bone[SN_IK2D_CHAIN_MAX];        /* 0-based, parent to child */
    int bend;                           /* two-bone: +1 or -1 */
    double soften;                      /* two-bone: (0, 1] */
    double forward, offset[2], limit;   /* aim: axis angle and start in the bone's frame, limit */
    int method, iterations;             /* chain */
    double tolerance;
    int limited;                        /* chain: whether any bone has limits */
    double min[SN_IK2D_CHAIN_MAX], max[SN_IK2D_CHAIN_MAX]; /* local rotation ranges (+-inf: none) */
} ik2d;

/// ik2d_solve.c: adds the `solve` methods to the classes IK2DTwoBone, IK2DAim and IK2DChain (made
/// by ik2d.c's sn_open_ik2d first).
void sn_open_ik2d_solve(lua_State *L);

#endif
