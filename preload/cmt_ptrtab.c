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

#define MIN_GROUPS 8 /* 56 slots, 1.5 KiB */

struct cmt_stripe cmt_ptr_stripes[CMT_PTR_STRIPES];

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
    uint32_t n = s->ngroups ? s->ngroups * 2 : MIN_GROUPS;
    struct cmt_ptr_group *g = aligned_alloc(_Alignof(struct cmt_ptr_group), (size_t)n * sizeof *g);
    if (!g) return false;
    memset(g, 0, (size_t)n * sizeof *g);
    for (uint32_t k = 0; k < s->ngroups; k++) {
        const struct cmt_ptr_group *o = &s->groups[k];
        for (int i = 0; i < CMT_PTR_GROUP_SLOTS; i++) {
            uint8_t t = (uint8_t)(o->meta >> (8 * i));
            if (!t) continue;
            struct cmt_entry e = cmt_ptr_entry(o, i);
            cmt_ptr_place(g, n, cmt_ptr_home(cmt_ptr_hash(e.key, e.kind_space & 3), n), t, &e);
        }
    }
    free(s->groups);
    s->groups = g;
    s->ngroups = n;
    s->limit = n * CMT_PTR_GROUP_SLOTS / 10 * 7;
    return true;
}

bool cmt_ptr_insert_slow(struct cmt_stripe *s, uint64_t h, uint8_t t, struct cmt_entry e) {
    uint32_t gi;
    int i = s->ngroups ? cmt_ptr_find(s, cmt_ptr_home(h, s->ngroups), t, e.key, &gi) : -1;
    if (i >= 0) { /* replace */
        s->groups[gi].val[i] = cmt_ptr_val_of(&e);
        return true;
    }
    if (s->count >= s->limit && !cmt_ptr_grow(s) && s->count + 1 >= s->ngroups * CMT_PTR_GROUP_SLOTS) return false;
    cmt_ptr_place(s->groups, s->ngroups, cmt_ptr_home(h, s->ngroups), t, &e);
    s->count++;
    return true;
}

bool cmt_ptr_remove_slow(struct cmt_stripe *s, uint32_t home, uint8_t t, uint64_t key, struct cmt_entry *out) {
    uint32_t gi;
    int i = cmt_ptr_find(s, home, t, key, &gi);
    if (i < 0) return false;
    *out = cmt_ptr_entry(&s->groups[gi], i);
    cmt_ptr_delete_at(s, home, gi, i);
    return true;
}

uint64_t cmt_ptr_clock(void) {
    uint64_t m = 0;
    for (int k = 0; k < CMT_PTR_STRIPES; k++) {
        uint64_t c = __atomic_load_n(&cmt_ptr_stripes[k].clock, __ATOMIC_RELAXED); /* no lock: signal-safe */
        if (c > m) m = c;
    }
    return m;
}

void cmt_ptr_sweep(bool (*match)(const struct cmt_entry *, void *), void *arg,
                   void (*gone)(const struct cmt_entry *, void *), uint64_t before) {
    struct cmt_entry batch[64];
    for (int k = 0; k < CMT_PTR_STRIPES; k++) {
        struct cmt_stripe *s = &cmt_ptr_stripes[k];
        for (;;) {
            int n = 0;
            cmt_ptr_lock(s);
            for (int i = 0; i < CMT_PTR_INFLIGHT; i++) /* those frees stay before what swept */
                if (s->inflight[i]) cmt_ptr_mark(s, i, before);
            for (uint32_t gi = 0; gi < s->ngroups && n < 64; gi++) {
                struct cmt_ptr_group *g = &s->groups[gi];
                for (int i = 0; i < CMT_PTR_GROUP_SLOTS && n < 64; i++) {
                    if (!(uint8_t)(g->meta >> (8 * i))) continue;
                    struct cmt_entry e = cmt_ptr_entry(g, i);
                    if (!match(&e, arg)) continue;
                    batch[n++] = e;
                    cmt_ptr_delete_at(s, cmt_ptr_home(cmt_ptr_hash(e.key, e.kind_space & 3), s->ngroups), gi, i);
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
    memset(cmt_ptr_stripes, 0, sizeof cmt_ptr_stripes);
}
CMT_LIFECYCLE(ptrtab, 20, NULL, cmt_ptr_fork_child);
