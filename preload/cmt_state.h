/*
 * cmt_state.h — the state every module of the tracer reads: the configuration (CUMEMTRACK_*
 * variables, read once at initialisation), the process-wide flags (disabled, fork generation), the
 * thread-local state, and the ONE re-entrancy guard (cmt_enter/cmt_leave) that keeps CUDA calls
 * made from inside the tracker (and hooks reached while one runs) from being recorded twice.
 */
#ifndef CMT_STATE_H
#define CMT_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CMT_STATE_HIDDEN __attribute__((visibility("hidden")))

struct cmt_config {
    char output_template[4096]; /* absolute */
    char manifest[4096];        /* CUMEMTRACK_MANIFEST, or "" */
    unsigned depth;             /* CUMEMTRACK_DEPTH: native frames kept per stack */
    bool no_children;
    bool precise_clock; /* false with CUMEMTRACK_CLOCK=coarse */
    bool stack_cache;   /* false with CUMEMTRACK_STACK_CACHE=0 */
    bool python;        /* false with CUMEMTRACK_PYTHON=0 */
};
extern struct cmt_config cmt_cfg CMT_STATE_HIDDEN;
extern _Atomic int cmt_disabled CMT_STATE_HIDDEN;        /* 1: pass everything through */
extern _Atomic uint32_t cmt_generation CMT_STATE_HIDDEN; /* bumped in a forked child */

/* Reads the CUMEMTRACK_* variables into cmt_cfg (and the modules' own switches). */
void cmt_read_config(void) CMT_STATE_HIDDEN;

/* Event times in ns (cmt_state.c: CLOCK_MONOTONIC, or _COARSE with CUMEMTRACK_CLOCK=coarse). */
int64_t cmt_now(void) CMT_STATE_HIDDEN;

/* Thread-local state. */
struct cmt_tls {
    uint32_t gen;
    int nesting; /* >0 inside the tracker: nested CUDA calls pass through */
    uint32_t writer;
    uint32_t block_index;
    uint8_t *block;
    uint32_t pos;
    uint64_t last_seq;
    int64_t last_time;
    uint64_t last_ptr;
    uint64_t ctx_handle; /* cache: last context seen and its index/device */
    uint16_t ctx_index;
    int8_t ctx_device;
    uint32_t ctx_gen;
};
extern __thread struct cmt_tls cmt_tls __attribute__((tls_model("initial-exec"))) CMT_STATE_HIDDEN;

/* The guard: true (and this thread is now inside the tracker) unless it already is or tracking is
 * disabled; every true must be paired with one cmt_leave(). */
static inline bool cmt_enter(void) {
    if (__builtin_expect(cmt_tls.nesting > 0, 0) || atomic_load_explicit(&cmt_disabled, memory_order_relaxed))
        return false;
    cmt_tls.nesting++;
    return true;
}
static inline void cmt_leave(void) {
    cmt_tls.nesting--;
}
/* True while this thread runs tracker code (a signal handler must not write then). */
static inline bool cmt_inside(void) {
    return cmt_tls.nesting > 0;
}

#endif
