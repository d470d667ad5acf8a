/*
 * cmt_events.h — what each family of hooked calls means (cmt_events.c): the pre-hook and the
 * post-hook the generated wrappers call, and the process's end as the events see it.
 */
#ifndef CMT_EVENTS_H
#define CMT_EVENTS_H

#include <cuda.h>
#include <stdbool.h>

#include "cmt_internal.h"

/* pre returns false when the call must pass through untracked (nested inside another hook,
 * tracking disabled); post follows every pre that returned true. */
bool cmt_hook_pre(struct cmt_call *c) CMT_HIDDEN;
void cmt_hook_post(struct cmt_call *c, CUresult r) CMT_HIDDEN;
/* Ends a call after pre returned true: the post-hook, or only leaving the tracker where that is
 * all the post-hook would do (a free the driver accepted: the pre-hook recorded it). family is
 * c->family as a constant (each wrapper's), so the check folds away. */
static inline void cmt_hook_end(struct cmt_call *c, enum cmt_family family, CUresult r) {
    if ((family == CMT_FAM_FREE || family == CMT_FAM_ARRAY_DESTROY) && r == CUDA_SUCCESS)
        cmt_leave();
    else
        cmt_hook_post(c, r);
}
void cmt_events_fork_child(void) CMT_HIDDEN;
extern _Atomic int cmt_exited CMT_HIDDEN; /* the EXIT record was written */

#endif
