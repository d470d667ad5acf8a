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
static inline void cmt_free_late(bool gated, enum cmt_api api, unsigned flags, int device, uint64_t ptr, unsigned where,
                                 uint64_t seq, int64_t time);
static inline void cmt_hook_end(struct cmt_call *c, enum cmt_family family, CUresult r) {
    if (family == CMT_FAM_FREE || family == CMT_FAM_ARRAY_DESTROY) {
        if (c->free_at) /* before a RETRACK, if refused */
            cmt_free_late(false, c->api, c->free_flags, c->saved.device, c->ptr, c->free_at, c->free_seq, c->free_time);
        c->free_at = 0;
        if (r == CUDA_SUCCESS) {
            cmt_leave();
            return;
        }
    }
    cmt_hook_post(c, r);
}
void cmt_events_fork_child(void) CMT_HIDDEN;
extern _Atomic int cmt_exited CMT_HIDDEN; /* the EXIT record was written */
extern _Atomic int cmt_exit_handler_registered CMT_HIDDEN; /* at the first allocation */

/* A tracked (not captured) allocation that succeeded: its live entry (its number taken under the
 * stripe lock), its ALLOC record, the alert count. gated: from the inline path (cmt_rec_begin_as). */
static inline __attribute__((always_inline)) void cmt_alloc_tracked(bool gated, enum cmt_api api, int kind,
                                                                    unsigned space, unsigned flags, int device,
                                                                    uint64_t ptr, uint64_t size, uint64_t granted,
                                                                    uint32_t stack, uint16_t ctx, const void *caller) {
    int64_t now = cmt_now();
    struct cmt_entry e = {.key = ptr,
                          .size = size,
                          .stack = stack,
                          .ctx = ctx,
                          .device = (int8_t)device,
                          .kind_space = (uint8_t)(kind << 2 | space)};
    uint64_t seq;
    cmt_ptr_insert(&e, now, &seq);
    cmt_rec_alloc_as(gated, CMT_REC_ALLOC, api, kind, flags, device, ptr, size, granted, stack, ctx, seq, now, 0);
    if (kind != CMT_KIND_IMPORTED) cmt_live_add(device, (int64_t)size, caller);
}

/* A free on a capturing stream (a free node of its graph, nothing released now): records it and
 * returns true; false when the stream is not capturing. flags: the FREE record's. */
bool cmt_untrack_captured(enum cmt_api api, unsigned flags, uint64_t ptr, CUstream stream) CMT_HIDDEN;
/* The FREE of a free that was in flight in slot where (cmt_untrack: seq and time reserved), now
 * that the real free returned: at this moment, unless its key was handed out again meanwhile
 * (cmt_ptr_freed). The one clock read of a free. */
static inline __attribute__((always_inline)) void cmt_free_late(bool gated, enum cmt_api api, unsigned flags,
                                                                int device, uint64_t ptr, unsigned where, uint64_t seq,
                                                                int64_t time) {
    cmt_ptr_freed(where, cmt_now(), &seq, &time);
    cmt_rec_free_as(gated, api, flags, device, ptr, seq, time);
}

/* Before a free of ptr (not 0): ends its live entry (copied to *e) under the stripe lock, before
 * the driver can hand the address to another thread, and records its FREE, or (*where != 0)
 * leaves it in flight: the caller records it with cmt_free_late once the real free returned
 * (*where the in-flight slot, *late, *time: the number and time reserved; *flags the FREE's
 * flags). Returns what it did. gated: from the inline path. */
static inline __attribute__((always_inline)) enum cmt_untracked
cmt_untrack(bool gated, enum cmt_api api, enum cmt_family family, int per_thread, uint64_t ptr, CUstream stream,
            struct cmt_entry *e, unsigned *where, uint64_t *late, int64_t *time, unsigned *flags) {
    unsigned space = family == CMT_FAM_ARRAY_DESTROY ? CMT_SPACE_ARRAY : CMT_SPACE_ADDR;
    unsigned pt = per_thread ? CMT_FLAG_PER_THREAD : 0;
    *where = 0;
    if ((stream || per_thread) && CMT_UNLIKELY(cmt_capture_possible()) &&
        cmt_untrack_captured(api, space | pt | CMT_FLAG_CAPTURED, ptr, stream))
        return CMT_UNTRACK_CAPTURED;
    uint64_t seq;
    /* A free kept in flight reads no clock here: its number is only reserved, at the time this
     * thread read last, and its FREE takes its place when the real free returned (or, its key
     * handed out again first, just below that reuse: cmt_ptr_freed). A FREE recorded now (no room
     * in flight, an unknown free) takes the time now, read under the stripe lock (the time read
     * last could be minutes old: that FREE would sort before events of other stripes that happened
     * earlier, and the peak read low). */
    int64_t now;
    unsigned w;
    if (cmt_ptr_untrack(ptr, space, cmt_tls.clk_last, cmt_now, e, &seq, &now, &w)) {
        if (CMT_LIKELY(w != 0)) {
            *where = w;
            *late = seq;
            *time = now;
            *flags = space | pt;
        } else {
            cmt_rec_free_as(gated, api, space | pt, e->device, ptr, seq, now);
        }
        if (e->kind_space >> 2 != CMT_KIND_IMPORTED) cmt_live_add(e->device, -(int64_t)e->size, NULL);
        return CMT_UNTRACK_LIVE;
    }
    cmt_rec_free_as(gated, api, space | pt | CMT_FLAG_UNKNOWN, -2, ptr, seq, now);
    return CMT_UNTRACK_UNKNOWN;
}

/* ---- the inline path of the hot calls ----
 * cuMemAlloc_v2 and cuMemAllocManaged (allocations whose device is the current context's: no
 * pitch, stream, pool or handle) and the frees without a per-thread stream (cmt_fast_api). The
 * wrapper fills a struct cmt_fast (its address never escapes: it lives in registers, and the API,
 * family and kind are constants) and calls cmt_fast_pre; when it returns true, the real function
 * and cmt_fast_end. A nested call, a closed gate (cmt_state.h: one word for every process-wide
 * check the general pre-hook makes on each call and that is almost always a no-op: initialisation
 * or a fresh fork child, tracking disabled, no dump yet, module map dirty, signalled markers, the
 * exit handler not yet registered, CUMEMTRACK_FAST=0), a free of 0 and a free on a stream while a
 * capture may be active take the general path instead (cmt_fast_pre returns false having changed
 * nothing). A refused call ends in the general post-hook (cmt_fast_refused). The steps are the
 * general path's; tests/cases/preload_fast_path.sh compares the dumps of both paths. */
struct cmt_fast {
    enum cmt_api api;
    enum cmt_family family;
    int kind;
    const void *caller, *frame;
    void *out;                    /* allocations: the out-parameter */
    uint64_t ptr;                 /* frees */
    size_t size;                  /* allocations */
    CUstream stream;              /* frees */
    int device;                   /* allocations: the current context's device, */
    uint16_t ctx;                 /* its index */
    uint32_t stack;               /* and the stack, taken before the call */
    enum cmt_untracked untracked; /* frees: what the pre-hook did (e: the entry it removed) */
    unsigned free_at;             /* frees: the FREE in flight (cmt_free_late): its slot, 0: none */
    uint64_t free_seq;
    int64_t free_time;
    unsigned free_flags;
};
static inline bool cmt_fast_api(enum cmt_family family, int kind, int per_thread) {
    return !per_thread && ((family == CMT_FAM_ALLOC && (kind == CMT_KIND_DEVICE || kind == CMT_KIND_MANAGED)) ||
                           family == CMT_FAM_FREE);
}
/* The general post-hook for a call the driver refused (or an allocation without a pointer); the
 * fields of f one by one (f stays in registers). */
void cmt_fast_refused(enum cmt_api api, enum cmt_family family, int kind, const void *caller, const void *frame,
                      void *out, uint64_t ptr, size_t size, CUstream stream, int device, uint16_t ctx, uint32_t stack,
                      enum cmt_untracked untracked, const struct cmt_entry *e, CUresult r) CMT_HIDDEN;
static inline __attribute__((always_inline)) bool cmt_fast_pre(struct cmt_fast *f, struct cmt_entry *e) {
    if (CMT_UNLIKELY(cmt_tls.nesting != 0) || CMT_UNLIKELY(!cmt_gate_is_open())) return false;
    if (f->family == CMT_FAM_FREE && (!f->ptr || (f->stream && cmt_capture_possible()))) return false;
    cmt_tls.nesting = 1; /* cmt_enter */
    if (f->family == CMT_FAM_ALLOC) {
        int device; /* not &f->device: f's address must not escape */
        f->ctx = cmt_ctx_current(&device);
        f->device = device;
        f->stack = cmt_cfg.depth ? cmt_stack_capture(f->frame) : 0;
        cmt_device_note(f->device);
    } else {
        uint64_t seq; /* not &f->...: f's address must not escape */
        int64_t time;
        unsigned flags, at;
        f->untracked = cmt_untrack(true, f->api, f->family, 0, f->ptr, f->stream, e, &at, &seq, &time, &flags);
        f->free_at = at;
        f->free_seq = seq;
        f->free_time = time;
        f->free_flags = flags;
    }
    return true;
}
static inline __attribute__((always_inline)) void cmt_fast_end(struct cmt_fast *f, struct cmt_entry *e, CUresult r) {
    uint64_t ptr = 0;
    if (f->family == CMT_FAM_ALLOC) {
        if (CMT_LIKELY(r == CUDA_SUCCESS) && CMT_LIKELY(f->out != NULL)) memcpy(&ptr, f->out, sizeof ptr);
        if (CMT_LIKELY(ptr != 0)) {
            /* the device was noted before the call: the context's, as it is after */
            /* flags: the space alone (an address, no per-thread stream) */
            cmt_alloc_tracked(true, f->api, f->kind, CMT_SPACE_ADDR, CMT_SPACE_ADDR, f->device, ptr, f->size, f->size,
                              f->stack, f->ctx, f->caller);
            cmt_leave();
            return;
        }
    } else {
        if (CMT_LIKELY(f->free_at != 0)) /* before a RETRACK, if refused */
            cmt_free_late(true, f->api, f->free_flags, e->device, f->ptr, f->free_at, f->free_seq, f->free_time);
        if (CMT_LIKELY(r == CUDA_SUCCESS)) {
            cmt_leave();
            return;
        }
    }
    cmt_fast_refused(f->api, f->family, f->kind, f->caller, f->frame, f->out, f->ptr, f->size, f->stream, f->device,
                     f->ctx, f->stack, f->untracked, e, r); /* leaves the tracker */
}

#endif
