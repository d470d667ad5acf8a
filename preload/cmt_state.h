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
    bool stack_cache;   /* false with CUMEMTRACK_STACK_CACHE=0 */
    bool python;        /* false with CUMEMTRACK_PYTHON=0 */
    bool fast;          /* false with CUMEMTRACK_FAST=0 (tests): no inline path (cmt_events.h) */
    unsigned busy_every; /* CUMEMTRACK_TEST_BUSY=N (tests): every Nth copy that need not wait finds the lock busy */
};
extern struct cmt_config cmt_cfg CMT_STATE_HIDDEN;
extern _Atomic int cmt_disabled CMT_STATE_HIDDEN;        /* 1: pass everything through */
extern _Atomic uint32_t cmt_generation CMT_STATE_HIDDEN; /* bumped in a forked child */

/* Reads the CUMEMTRACK_* variables into cmt_cfg (and the modules' own switches). */
void cmt_read_config(void) CMT_STATE_HIDDEN;

/* The gate of the hot calls' inline path (cmt_events.h): one word, (closes << 1) | open, that
 * stands for every process-wide condition the general pre-hook checks on each call (initialised,
 * not a fresh fork child, enabled, the dump open, the module map clean, no signalled markers...).
 * Whoever sets such a condition closes the gate after setting it (async-signal-safe); only the
 * general path opens it, after it found every condition clear, and only when nobody closed it
 * since it read the word (cmt_gate_open_from). The word sits in the fork-token page where there
 * is one (a forked child reads 0: closed), else in static memory (the atfork handler closes it). */
extern _Atomic(uint64_t) *_Atomic cmt_gate_at CMT_STATE_HIDDEN; /* moved once, at initialisation */
static inline bool cmt_gate_is_open(void) {
    return atomic_load_explicit(atomic_load_explicit(&cmt_gate_at, memory_order_acquire), memory_order_acquire) & 1;
}
void cmt_gate_close(void) CMT_STATE_HIDDEN;
/* Opens the gate if it still holds seen (a closed word read before checking the conditions). */
void cmt_gate_open_from(uint64_t seen) CMT_STATE_HIDDEN;

/* Thread-local state. */
struct cmt_tls {
    uint32_t gen;
    int nesting; /* >0 inside the tracker: nested CUDA calls pass through */
    uint32_t writer;
    uint32_t block_index;
    uint8_t *block;
    uint8_t *cur; /* where the next record's type byte goes; lim: block + CMT_BLOCK_SIZE (NULL, NULL: */
    uint8_t *lim; /* no block: no room) */
    uint64_t last_seq;
    int64_t last_time;
    uint64_t last_ptr;
    uint64_t ctx_handle; /* cache: last context seen and its index/device */
    uint16_t ctx_index;
    int8_t ctx_device;
    uint32_t ctx_gen;
    uint64_t clk_tsc;     /* the event clock's base pair (0: none) and the last time returned */
    int64_t clk_ns;
    int64_t clk_last;
    uint64_t seq_last; /* cmt_seq.h: the last sequence number this thread took, and its slot */
    uint32_t seq_slot;
    uint8_t *pending;     /* cmt_writer.c: a full staging block not yet copied (NULL: none), the end */
    uint8_t *pending_end; /* of its records, and a clear staging block in reserve (NULL: none) */
    uint8_t *spare;
};
extern __thread struct cmt_tls cmt_tls __attribute__((tls_model("initial-exec"))) CMT_STATE_HIDDEN;

/* Event times in ns of CLOCK_MONOTONIC (cmt_state.c says how they are read). */
enum cmt_clock_source { CMT_CLOCK_SRC_MONOTONIC, CMT_CLOCK_SRC_COARSE, CMT_CLOCK_SRC_TSC };
extern enum cmt_clock_source cmt_clock CMT_STATE_HIDDEN;
extern uint64_t cmt_tsc_mult CMT_STATE_HIDDEN, cmt_tsc_span CMT_STATE_HIDDEN;
const char *cmt_clock_name(void) CMT_STATE_HIDDEN; /* "tsc", "monotonic", "coarse" */
int64_t cmt_now_slow(void) CMT_STATE_HIDDEN;
static inline int64_t cmt_now(void) {
#if defined(__x86_64__)
    struct cmt_tls *t = &cmt_tls;
    if (__builtin_expect(t->clk_tsc != 0, 1)) { /* tsc, with a base pair */
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        uint64_t d = ((uint64_t)hi << 32 | lo) - t->clk_tsc;
        if (__builtin_expect(d < cmt_tsc_span, 1)) {
            int64_t v = t->clk_ns + (int64_t)((d * cmt_tsc_mult) >> 32);
            if (v < t->clk_last) v = t->clk_last;
            t->clk_last = v;
            return v;
        }
    }
#endif
    return cmt_now_slow();
}

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
