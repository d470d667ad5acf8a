/*
 * cmt_ptrtab.c — see cmt_ptrtab.h.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_internal.h"
#include "cmt_ptrtab.h"
#include "cmt_seq.h"
#include "cmt_writer.h"

#define MIN_CAP 64

struct cmt_stripe cmt_ptr_stripes[CMT_PTR_STRIPES];
#define stripes cmt_ptr_stripes
#define STRIPES CMT_PTR_STRIPES

/* Contended: spin, then yield. Out of line so that the uncontended cmt_ptr_lock() keeps the caller's
 * registers (a call inside the loop made every caller spill its state around the lock). */
void cmt_ptr_lock_slow(struct cmt_stripe *s) {
    int spins = 0;
    do {
        while (atomic_load_explicit(&s->lock, memory_order_relaxed)) {
            if (++spins < 64)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    } while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire));
}

bool cmt_ptr_grow(struct cmt_stripe *s) {
    uint32_t ncap = s->cap ? s->cap * 2 : MIN_CAP;
    struct cmt_entry *n = calloc(ncap, sizeof *n);
    if (!n) return false;
    for (uint32_t i = 0; i < s->cap; i++) {
        struct cmt_entry *e = &s->slots[i];
        if (!e->key) continue;
        uint32_t j = (uint32_t)(cmt_ptr_hash(e->key, e->kind_space & 3) >> 6) & (ncap - 1);
        while (n[j].key)
            j = (j + 1) & (ncap - 1);
        n[j] = *e;
    }
    free(s->slots);
    s->slots = n;
    s->cap = ncap;
    s->limit = ncap / 10 * 7 + ncap % 10 * 7 / 10; /* (count + 1) * 10 > cap * 7, without overflow */
    return true;
}

uint64_t cmt_ptr_clock(void) {
    uint64_t m = 0;
    for (int k = 0; k < STRIPES; k++) {
        uint64_t c = __atomic_load_n(&stripes[k].clock, __ATOMIC_RELAXED); /* no lock: signal-safe */
        if (c > m) m = c;
    }
    return m;
}

void cmt_ptr_sweep(bool (*match)(const struct cmt_entry *, void *), void *arg,
                   void (*gone)(const struct cmt_entry *, void *)) {
    struct cmt_entry batch[64];
    for (int k = 0; k < STRIPES; k++) {
        struct cmt_stripe *s = &stripes[k];
        for (;;) {
            int n = 0;
            cmt_ptr_lock(s);
            for (uint32_t i = 0; i < s->cap && n < 64;) {
                if (s->slots[i].key && match(&s->slots[i], arg)) {
                    batch[n++] = s->slots[i];
                    cmt_ptr_delete_at(s, i); /* re-examine slot i: something may have shifted into it */
                } else {
                    i++;
                }
            }
            cmt_ptr_unlock(s);
            for (int i = 0; i < n; i++)
                gone(&batch[i], arg);
            if (n < 64) break;
        }
    }
}

void cmt_ptr_fork_child(void) {
    /* Another thread may have held a stripe at fork: start from empty tables (the child's CUDA
     * state starts from scratch too). The parent's arrays are abandoned, not freed. */
    memset(stripes, 0, sizeof stripes);
}
