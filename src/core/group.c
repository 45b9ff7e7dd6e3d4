/*
 * Groups: a list of per-frame operations on core objects, checked, then run in one call (see
 * group.h). Each operation is the same core call as one call per object.
 */
#include "group.h"

static const char *const kind_names[] = {"sample", "blend", "to_model", "step", "update", "rig2d"};

sn_status sn_group_check_op(const sn_group_op *op, const sn_blend_layer *layers, sn_error *err) {
    int i;
    if (op->slot < 0) return sn_fail_arg(err, 1, SN_EINVAL, "negative parameter slot");
    switch (op->kind) {
    case SN_GROUP_SAMPLE:
        if (op->cursor == NULL || op->pose == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "sample needs a cursor and a pose");
        if (sn_pose_skeleton(op->pose) != sn_clip_skeleton(sn_clip_cursor_clip(op->cursor)))
            return sn_fail_arg(err, 1, SN_EINVAL, "pose of another skeleton than the clip's");
        return SN_OK;
    case SN_GROUP_BLEND:
        if (op->pose == NULL || op->n < 0 || (op->n > 0 && layers == NULL))
            return sn_fail_arg(err, 1, SN_EINVAL, "blend needs an output pose and its layers");
        if (!(op->threshold > 0.0f && op->threshold <= 3.4e38f))
            return sn_fail_arg(err, 1, SN_EINVAL, "threshold must be finite and > 0");
        if ((int)op->method < 0 || (int)op->method > (int)SN_BLEND_POWER)
            return sn_fail_arg(err, 1, SN_EINVAL, "unknown rotation method");
        if (op->method != SN_BLEND_NLERP && op->n > SN_BLEND_METHOD_MAX_LAYERS)
            return sn_fail_arg(err, 1, SN_EINVAL, "more than %d layers", SN_BLEND_METHOD_MAX_LAYERS);
        for (i = 0; i < op->n; i++) {
            const sn_blend_layer *l = &layers[op->layer + i];
            if (l->pose == NULL || sn_pose_skeleton(l->pose) != sn_pose_skeleton(op->pose))
                return sn_fail_arg(err, 1, SN_EINVAL, "layer %d is a pose of another skeleton", i + 1);
            if (l->mask != NULL && sn_mask_skeleton(l->mask) != sn_pose_skeleton(op->pose))
                return sn_fail_arg(err, 1, SN_EINVAL, "mask %d is of another skeleton", i + 1);
        }
        return SN_OK;
    case SN_GROUP_TO_MODEL:
        if (op->pose == NULL || op->mats == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "to_model needs a pose and matrices");
        if (sn_matrices_skeleton(op->mats) != sn_pose_skeleton(op->pose))
            return sn_fail_arg(err, 1, SN_EINVAL, "matrices of another skeleton");
        return SN_OK;
    case SN_GROUP_STEP:
        if (op->chain == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "step needs a chain");
        return SN_OK;
    case SN_GROUP_UPDATE:
        if (op->chain == NULL || op->pose == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "update needs a chain and a pose");
        if (!sn_chain_has_skeleton(op->chain)) return sn_fail_arg(err, 1, SN_EINVAL, "update needs a chain of a skeleton");
        return SN_OK;
    case SN_GROUP_RIG2D:
        if (op->rig == NULL || op->anim == NULL) return sn_fail_arg(err, 1, SN_EINVAL, "rig2d needs a rig and an animation");
        if (sn_anim2d_data(op->anim) != sn_rig2d_rig_data(op->rig))
            return sn_fail_arg(err, 1, SN_EINVAL, "an animation of another armature than the rig's");
        return SN_OK;
    }
    return sn_fail_arg(err, 1, SN_EINVAL, "unknown operation");
}

sn_status sn_group_validate_run(const sn_group_op *ops, int n, double dt, const double *params, int nparams,
                                sn_error *err) {
    int i, k;
    if (!(dt >= 0.0 && dt <= 1e300)) return sn_fail_arg(err, 1, SN_EINVAL, "dt must be finite and >= 0");
    for (i = 0; i < n; i++) {
        const sn_group_op *op = &ops[i];
        int count = op->kind == SN_GROUP_SAMPLE || op->kind == SN_GROUP_RIG2D ? 1 : op->kind == SN_GROUP_BLEND ? op->n : 0;
        if (count > 0 && (op->slot > nparams - count))
            return sn_fail_arg(err, 2, SN_EINVAL, "operation %d (%s) reads parameter %d of %d", i + 1,
                               kind_names[op->kind], op->slot + count, nparams);
        for (k = 0; k < count; k++) {
            double v = params[op->slot + k];
            if (!sn_isfinite(v) || (op->kind == SN_GROUP_BLEND && !(v >= 0.0 && v <= 3.4e38)))
                return sn_fail_arg(err, 2, SN_EINVAL, "operation %d (%s): parameter %d is %s", i + 1,
                                   kind_names[op->kind], op->slot + k + 1,
                                   !sn_isfinite(v) ? "not finite" : v < 0.0 ? "a negative weight" : "too large for a float");
        }
    }
    return SN_OK;
}

sn_status sn_group_run(const sn_group_op *ops, int n, sn_blend_layer *layers, double dt, const double *params,
                       int nparams, sn_error *err) {
    sn_error inner;
    sn_status st = SN_OK;
    int i, k;
    if (sn_group_validate_run(ops, n, dt, params, nparams, err) != SN_OK) return err != NULL ? err->code : SN_EINVAL;
    for (i = 0; i < n && st == SN_OK; i++) {
        const sn_group_op *op = &ops[i];
        switch (op->kind) {
        case SN_GROUP_SAMPLE:
            st = sn_clip_cursor_sample(op->cursor, params[op->slot], op->n, op->pose, &inner);
            break;
        case SN_GROUP_BLEND:
            for (k = 0; k < op->n; k++) layers[op->layer + k].weight = (float)params[op->slot + k];
            st = sn_pose_blend_method(op->pose, layers + op->layer, op->n, op->threshold, op->method, &inner);
            break;
        case SN_GROUP_TO_MODEL:
            st = sn_pose_to_matrices(op->pose, op->mats, &inner);
            break;
        case SN_GROUP_STEP:
            st = sn_chain_step(op->chain, dt, &inner);
            break;
        case SN_GROUP_UPDATE:
            st = sn_chain_update(op->chain, dt, op->pose, NULL, &inner);
            break;
        case SN_GROUP_RIG2D:
            sn_rig2d_sample(op->rig, op->anim, params[op->slot], op->n);
            sn_rig2d_world(op->rig);
            break;
        }
        if (st != SN_OK) return sn_fail(err, st, "operation %d (%s): %s", i + 1, kind_names[op->kind], inner.msg);
    }
    return SN_OK;
}
