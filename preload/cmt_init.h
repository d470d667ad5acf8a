/*
 * cmt_init.h — the tracker's start and a forked child's reset (cmt_init.c). cmt_init() starts the
 * tracker once, lazily, from whichever comes first: a hook, cmt_mark(), an NVTX injection call or
 * our constructor (another library's constructor may call CUDA before ours ran): the fork-token
 * page, the real dynamic-linker functions, the configuration, then every module's init step. A
 * forked child runs every module's fork_child step, from our atfork handler or the child's first
 * hook, whichever comes first (cmt_init.c says why both).
 *
 * The modules that take part sit above this one (preload/layers.txt): each declares its steps in
 * its own .c with CMT_LIFECYCLE, so this module calls none of them by name. Steps run in ascending
 * order (equal orders: in link order); the orders keep the sequence the steps always had.
 */
#ifndef CMT_INIT_H
#define CMT_INIT_H

#include <stdatomic.h>
#include <stdint.h>

#include "cmt_state.h"

/* inline: the done-and-not-a-fresh-fork-child check every hook makes */
extern _Atomic int cmt_init_state CMT_STATE_HIDDEN;        /* 0 no, 1 running, 2 done */
extern volatile uint64_t *cmt_fork_token CMT_STATE_HIDDEN; /* reads 0 in a forked child (see cmt_init.c) */
void cmt_init_slow(void) CMT_STATE_HIDDEN;
static inline void cmt_init(void) {
    if (__builtin_expect(atomic_load_explicit(&cmt_init_state, memory_order_acquire) == 2, 1) &&
        __builtin_expect(!cmt_fork_token || *cmt_fork_token, 1))
        return;
    cmt_init_slow();
}

/* A module's part: init runs once, at the initialisation, after the configuration is read;
 * fork_child in a forked child before anything is recorded (async-signal-safe, no allocation).
 * Either may be NULL. */
struct cmt_lifecycle {
    int order;
    void (*init)(void);
    void (*fork_child)(void);
};
/* CMT_LIFECYCLE(name, order, init, fork_child); at file scope, once per module: a pointer to the
 * module's steps in the section cmt_lifecycle, which the linker gathers into one array. */
#define CMT_LIFECYCLE(name, ord, init_fn, fork_fn)                                                                     \
    static const struct cmt_lifecycle cmt_lifecycle_##name = {(ord), (init_fn), (fork_fn)};                            \
    __attribute__((used, section("cmt_lifecycle"))) static const struct cmt_lifecycle *const cmt_lifecycle_at_##name = \
        &cmt_lifecycle_##name

#endif
