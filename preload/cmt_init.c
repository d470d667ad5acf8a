/*
 * cmt_init.c — see cmt_init.h: the initialisation state, the fork-token page, the lazy
 * initialisation and the forked child's reset (moved from cmt_main.c), running the modules' steps.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "cmt_internal.h"

_Atomic int cmt_init_state;

/* A page that reads as zero in a forked child (MADV_WIPEONFORK): the child's state is reset by
 * whichever comes first, our pthread_atfork child handler or the first hook the child runs. The
 * handler alone is not enough: another library's child handler registered before ours (its
 * constructor ran first) may call CUDA in the child before ours runs, and would record into the
 * parent's inherited staging block, i.e. into the parent's dump. */
volatile uint64_t *cmt_fork_token;

/* The modules' steps (cmt_init.h): every pointer the linker gathered into the section. */
extern const struct cmt_lifecycle *const __start_cmt_lifecycle[] CMT_STATE_HIDDEN;
extern const struct cmt_lifecycle *const __stop_cmt_lifecycle[] CMT_STATE_HIDDEN;

/* Runs each module's init (or fork_child) step in ascending order; no allocation, no lock. */
static void run_steps(bool fork) {
    for (long done = LONG_MIN;;) { /* the order last run */
        long next = LONG_MAX;
        for (const struct cmt_lifecycle *const *p = __start_cmt_lifecycle; p < __stop_cmt_lifecycle; p++)
            if ((*p)->order > done && (*p)->order < next) next = (*p)->order;
        if (next == LONG_MAX) return;
        for (const struct cmt_lifecycle *const *p = __start_cmt_lifecycle; p < __stop_cmt_lifecycle; p++) {
            void (*step)(void) = fork ? (*p)->fork_child : (*p)->init;
            if ((*p)->order == next && step) step();
        }
        done = next;
    }
}

static void fork_child(void) {
    if (cmt_fork_token) {
        if (*cmt_fork_token) return; /* already reset in this process (or not a fork: no wipe) */
        *cmt_fork_token = 1;
    }
    atomic_fetch_add(&cmt_generation, 1);
    run_steps(true); /* every module's fork_child step */
    cmt_tls.gen = atomic_load(&cmt_generation);
    if (cmt_cfg.no_children) atomic_store(&cmt_disabled, 1);
    cmt_gate_close(); /* read 0 already where the token page is wiped */
}

static __thread bool initialising; /* this thread runs cmt_init (a nested call returns) */

static void fork_token_init(void) {
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
#ifdef MADV_WIPEONFORK
    if (madvise(p, 4096, MADV_WIPEONFORK) == 0) {
        *(volatile uint64_t *)p = 1;
        atomic_store(&cmt_gate_at, (_Atomic(uint64_t) *)p + 1); /* closed (0): nothing opens it before init */
        cmt_fork_token = p;
        return;
    }
#endif
    munmap(p, 4096); /* kernel before 4.14: only the atfork handler resets */
}

void cmt_init_slow(void) {
    if (CMT_LIKELY(atomic_load_explicit(&cmt_init_state, memory_order_acquire) == 2)) {
        if (CMT_UNLIKELY(cmt_fork_token && !*cmt_fork_token))
            fork_child(); /* a child, before our handler */
        return;
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&cmt_init_state, &expected, 1)) {
        /* another thread is reading the configuration: wait for it (never for ourselves; bounded,
         * in case that thread waits for a lock this one holds, such as the loader's) */
        for (int i = 0; i < 20000 && !initialising && atomic_load_explicit(&cmt_init_state, memory_order_acquire) != 2; i++)
            sched_yield();
        return;
    }
    initialising = true;
    fork_token_init();
    cmt_dl_init();
    cmt_read_config();
    run_steps(false); /* every module's init step: time origin, alerts, marker signal, NVTX, exit handler */
    pthread_atfork(NULL, NULL, fork_child);
    initialising = false;
    atomic_store_explicit(&cmt_init_state, 2, memory_order_release);
}
