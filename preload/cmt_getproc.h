/*
 * cmt_getproc.h — cuGetProcAddress: the driver function it returns for a hooked variant becomes
 * that variant's wrapper (its real function kept in the slot); a variant of a hooked name that the
 * tracker does not wrap is recorded (UNMATCHED_PROC) and its family assumed unseen from then on.
 * The wrappers (cmt_wrappers.c) call it with the table of their own addresses.
 */
#ifndef CMT_GETPROC_H
#define CMT_GETPROC_H

#include <cuda.h>

#include "cmt_internal.h"

/* The function to hand out for sym (version, flags as asked) when the driver returned real:
 * wrappers[api] of the matching variant, or real itself. */
void *cmt_getproc_swap(const char *sym, int version, cuuint64_t flags, void *real, void *const *wrappers) CMT_HIDDEN;

/* In every wrapper after a tracked call, before its post-hook (family is the wrapper's constant:
 * all but cuGetProcAddress fold away). */
static inline void cmt_getproc_post(enum cmt_family family, struct cmt_call *c, CUresult r, void *const *wrappers) {
    if (family == CMT_FAM_GETPROC && r == CUDA_SUCCESS && c->out) {
        void **pfn = c->out;
        *pfn = cmt_getproc_swap(c->sym, c->version, c->flags64, *pfn, wrappers);
    }
}

#endif
