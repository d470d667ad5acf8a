/*
 * cmt_streams.h — what the tracker knows of streams without asking the driver on every
 * stream-ordered allocation: whether a stream capture can be active at all (none before the
 * first cuStreamBeginCapture* of the process), and the device of a created stream (a per-thread
 * cache of stream handle -> device, forgotten by every stream or context destruction).
 */
#ifndef CMT_STREAMS_H
#define CMT_STREAMS_H

#include <cuda.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "cmt_internal.h"

extern _Atomic int cmt_capture_begun CMT_HIDDEN;        /* a capture was begun (or may have been) */
extern _Atomic unsigned cmt_stream_destroys CMT_HIDDEN; /* destroys in flight: the cache is off */
extern _Atomic unsigned cmt_stream_gen CMT_HIDDEN;      /* destroys ended: older entries are stale */

/* Whether a capture may be active: false only while no capture was ever begun in the process. */
static inline bool cmt_capture_possible(void) {
    return atomic_load_explicit(&cmt_capture_begun, memory_order_acquire) != 0;
}

/* Around every hooked call, also nested and untracked ones (family is the wrapper's constant,
 * so all but the families below fold away): a capture begin is noted before the driver can begin
 * it; a destroy of a stream or of contexts (which destroys their streams) keeps the cache off
 * from before the driver frees the handle until the generation moved past every entry. */
static inline bool cmt_streams_destroys(enum cmt_family family) {
    return family == CMT_FAM_STREAM_DESTROY || family == CMT_FAM_CTX_DESTROY || family == CMT_FAM_CTX_RESET ||
           family == CMT_FAM_CTX_RELEASE;
}
static inline void cmt_streams_pre(enum cmt_family family) {
    if (family == CMT_FAM_CAPTURE_BEGIN) atomic_store(&cmt_capture_begun, 1);
    if (cmt_streams_destroys(family)) atomic_fetch_add(&cmt_stream_destroys, 1);
}
static inline void cmt_streams_post(enum cmt_family family) {
    if (cmt_streams_destroys(family)) {
        atomic_fetch_add(&cmt_stream_gen, 1);
        atomic_fetch_sub(&cmt_stream_destroys, 1);
    }
}

/* cuGetProcAddress handed out a variant of a hooked name that the tracker does not wrap: the
 * calls of that family are unseen from now on, so assume the worst of them. */
void cmt_streams_unwrapped(enum cmt_family family) CMT_HIDDEN;

/* The device of a created stream (handle > CU_STREAM_PER_THREAD) from its context; -2 unknown. */
int cmt_stream_device(CUstream s) CMT_HIDDEN;

#endif
