/*
 * cmt_events.h — what each family of hooked calls means (cmt_events.c): the pre-hook and the
 * post-hook the generated wrappers call, the process's end as the events see it, and the inline
 * path of the hot calls (device allocations and frees: cmt_fast_*), the same steps as the hooks'
 * with the family, kind and API constant in each wrapper.
 */
#ifndef CMT_EVENTS_H
#define CMT_EVENTS_H

#include <cuda.h>
#include <stdbool.h>
#include <string.h>

#include "cmt_alerts.h"
#include "cmt_driver.h"
#include "cmt_internal.h"
#include "cmt_marks.h"
#include "cmt_modules.h"
#include "cmt_ptrtab.h"
#include "cmt_records.h"
#include "cmt_stacks.h"
#include "cmt_streams.h"
#include "cmt_writer.h"

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
extern _Atomic int cmt_exit_handler_registered CMT_HIDDEN; /* at the first allocation */

/* A tracked (not captured) allocation that succeeded: its live entry (its number taken under the
 * stripe lock), its ALLOC record, the alert count. */
static inline __attribute__((always_inline)) void cmt_alloc_tracked(enum cmt_api api, int kind, unsigned space,
                                                                    unsigned flags, int device, uint64_t ptr,
                                                                    uint64_t size, uint64_t granted, uint32_t stack,
                                                                    uint16_t ctx, const void *caller) {
    int64_t now = cmt_now();
    struct cmt_entry e = {.key = ptr,
                          .size = size,
                          .stack = stack,
                          .ctx = ctx,
                          .device = (int8_t)device,
                          .kind_space = (uint8_t)(kind << 2 | space)};
    uint64_t seq;
    cmt_ptr_insert(&e, now, &seq);
    cmt_rec_alloc(CMT_REC_ALLOC, api, kind, flags, device, ptr, size, granted, stack, ctx, seq, now, 0);
    if (kind != CMT_KIND_IMPORTED) cmt_live_add(device, (int64_t)size, caller);
}

/* A free of a capturing stream (a free node of its graph, nothing released now): records it and
 * returns true; false when the stream is not capturing. */
bool cmt_untrack_captured(struct cmt_call *c) CMT_HIDDEN;
/* Before a free (c->ptr not 0): ends the live entry (kept in c->saved for a refusal) and records
 * the FREE under the stripe lock, before the driver can hand the address to another thread. */
static inline __attribute__((always_inline)) void cmt_untrack(struct cmt_call *c) {
    unsigned space = c->family == CMT_FAM_ARRAY_DESTROY ? CMT_SPACE_ARRAY : CMT_SPACE_ADDR;
    unsigned pt = cmt_apis[c->api].per_thread ? CMT_FLAG_PER_THREAD : 0;
    if ((c->stream || pt) && CMT_UNLIKELY(cmt_capture_possible()) && cmt_untrack_captured(c)) return;
    struct cmt_entry e;
    uint64_t seq;
    int64_t now = cmt_now();
    bool live = cmt_ptr_remove(c->ptr, space, now, &e, &seq);
    c->untracked = live ? CMT_UNTRACK_LIVE : CMT_UNTRACK_UNKNOWN;
    if (live) {
        c->saved = (struct cmt_entry_copy){.size = e.size,
                                           .stack = e.stack,
                                           .ctx = e.ctx,
                                           .device = e.device,
                                           .kind = (uint8_t)(e.kind_space >> 2),
                                           .space = (uint8_t)(e.kind_space & 3)};
        cmt_rec_free(c->api, space | pt, e.device, c->ptr, seq, now);
        if (e.kind_space >> 2 != CMT_KIND_IMPORTED) cmt_live_add(e.device, -(int64_t)e.size, NULL);
    } else {
        cmt_rec_free(c->api, space | pt | CMT_FLAG_UNKNOWN, -2, c->ptr, seq, now);
    }
}

/* ---- the inline path of the hot calls ----
 * cuMemAlloc_v2 and cuMemAllocManaged (allocations whose device is the current context's: no
 * pitch, stream, pool or handle) and the frees without a per-thread stream. The wrapper fills c
 * (api, family, kind, caller, frame, out, ptr, size, stream; nothing else) and calls
 * cmt_fast_pre; when it returns true, the real function and cmt_fast_end. A nested call, a closed
 * gate (cmt_state.h: one word for every process-wide check the general pre-hook makes on each call
 * and that is almost always a no-op: initialisation or a fresh fork child, tracking disabled, no
 * dump yet, module map dirty, signalled markers, the exit handler not yet registered,
 * CUMEMTRACK_FAST=0), a free of 0 and a free on a stream while a capture may be active take the
 * general path instead (cmt_fast_pre returns false having changed nothing). A refused call ends in cmt_hook_post, as in
 * the general path (only the fields it reads then are set). tests/cases/preload_fast_path.sh compares the dumps of both
 * paths. */
static inline bool cmt_fast_api(enum cmt_family family, int kind, int per_thread) {
    return !per_thread && ((family == CMT_FAM_ALLOC && (kind == CMT_KIND_DEVICE || kind == CMT_KIND_MANAGED)) ||
                           family == CMT_FAM_FREE);
}
static inline __attribute__((always_inline)) bool cmt_fast_pre(struct cmt_call *c) {
    if (CMT_UNLIKELY(cmt_tls.nesting != 0) || CMT_UNLIKELY(!cmt_gate_is_open())) return false;
    if (c->family == CMT_FAM_FREE && (!c->ptr || (c->stream && cmt_capture_possible()))) return false;
    cmt_tls.nesting = 1; /* cmt_enter */
    if (c->family == CMT_FAM_ALLOC) {
        c->ctx_idx = cmt_ctx_current(&c->device);
        c->stack = cmt_cfg.depth ? cmt_stack_capture(c->frame) : 0;
        cmt_device_note(c->device);
    } else {
        cmt_untrack(c);
    }
    return true;
}
static inline __attribute__((always_inline)) void cmt_fast_end(struct cmt_call *c, CUresult r) {
    if (c->family == CMT_FAM_ALLOC) {
        uint64_t ptr = 0;
        if (CMT_LIKELY(r == CUDA_SUCCESS && c->out)) memcpy(&ptr, c->out, sizeof ptr);
        if (CMT_UNLIKELY(!ptr)) { /* refused (or no pointer): the general post-hook */
            c->pitch = NULL;
            c->pool = NULL;
            c->captured = false;
            cmt_hook_post(c, r);
            return;
        }
        /* the device was noted before the call: the context's, as it is after */
        cmt_alloc_tracked(c->api, c->kind, CMT_SPACE_ADDR, CMT_SPACE_ADDR, c->device, ptr, c->size, c->size, c->stack,
                          c->ctx_idx, c->caller);
        cmt_leave();
        return;
    }
    cmt_hook_end(c, c->family, r);
}

#endif
