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

#define STRIPES 64
#define MIN_CAP 64

struct stripe {
    _Atomic int lock;
    uint32_t count;
    uint32_t cap; /* power of two */
    struct cmt_entry *slots;
    uint64_t clock; /* the last sequence number taken under the lock (cmt_seq.h) */
} __attribute__((aligned(64)));

static struct stripe stripes[STRIPES];

/* Contended: spin, then yield. Out of line so that the uncontended lock() keeps the caller's
 * registers (a call inside the loop made every caller spill its state around the lock). */
static __attribute__((noinline, cold)) void lock_slow(struct stripe *s) {
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
static inline void lock(struct stripe *s) {
    if (__builtin_expect(atomic_exchange_explicit(&s->lock, 1, memory_order_acquire), 0)) lock_slow(s);
}
static inline void unlock(struct stripe *s) {
    atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static inline uint64_t hash(uint64_t key, unsigned space) {
    uint64_t h = (key ^ ((uint64_t)space << 61)) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}
static inline bool same(const struct cmt_entry *e, uint64_t key, unsigned space) {
    return e->key == key && (e->kind_space & 3) == space;
}

static bool grow(struct stripe *s) {
    uint32_t ncap = s->cap ? s->cap * 2 : MIN_CAP;
    struct cmt_entry *n = calloc(ncap, sizeof *n);
    if (!n) return false;
    for (uint32_t i = 0; i < s->cap; i++) {
        struct cmt_entry *e = &s->slots[i];
        if (!e->key) continue;
        uint32_t j = (uint32_t)(hash(e->key, e->kind_space & 3) >> 6) & (ncap - 1);
        while (n[j].key)
            j = (j + 1) & (ncap - 1);
        n[j] = *e;
    }
    free(s->slots);
    s->slots = n;
    s->cap = ncap;
    return true;
}

bool cmt_ptr_insert(const struct cmt_entry *e, int64_t now, uint64_t *seq) {
    unsigned space = e->kind_space & 3;
    uint64_t h = hash(e->key, space);
    struct stripe *s = &stripes[h & (STRIPES - 1)];
    bool ok = true;
    lock(s);
    if ((s->count + 1) * 10 > s->cap * 7 && !grow(s) && s->count + 1 >= s->cap) ok = false;
    if (ok) {
        uint32_t j = (uint32_t)(h >> 6) & (s->cap - 1);
        while (s->slots[j].key && !same(&s->slots[j], e->key, space))
            j = (j + 1) & (s->cap - 1);
        if (!s->slots[j].key) s->count++;
        s->slots[j] = *e;
    }
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    unlock(s);
    if (!ok) cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    return ok;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void delete_at(struct stripe *s, uint32_t i) {
    uint32_t mask = s->cap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!s->slots[j].key) break;
        uint32_t home = (uint32_t)(hash(s->slots[j].key, s->slots[j].kind_space & 3) >> 6) & mask;
        /* move j into the hole at i when its home is not in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].key = 0;
    s->count--;
}

bool cmt_ptr_remove(uint64_t key, unsigned space, int64_t now, struct cmt_entry *out, uint64_t *seq) {
    uint64_t h = hash(key, space);
    struct stripe *s = &stripes[h & (STRIPES - 1)];
    bool found = false;
    lock(s);
    if (s->cap) {
        uint32_t j = (uint32_t)(h >> 6) & (s->cap - 1);
        while (s->slots[j].key) {
            if (same(&s->slots[j], key, space)) {
                *out = s->slots[j];
                delete_at(s, j);
                found = true;
                break;
            }
            j = (j + 1) & (s->cap - 1);
        }
    }
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    unlock(s);
    return found;
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
        struct stripe *s = &stripes[k];
        for (;;) {
            int n = 0;
            lock(s);
            for (uint32_t i = 0; i < s->cap && n < 64;) {
                if (s->slots[i].key && match(&s->slots[i], arg)) {
                    batch[n++] = s->slots[i];
                    delete_at(s, i); /* re-examine slot i: something may have shifted into it */
                } else {
                    i++;
                }
            }
            unlock(s);
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
