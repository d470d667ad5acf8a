/*
 * cmt_ptrtab.h — the live-allocation table: address (or handle) -> {size, stack, ctx, device,
 * kind}. Open addressing with linear probing and backward-shift deletion, split into 64 stripes
 * with a spinlock each, 24 bytes an entry: cheaper and smaller than uthash for the hot path.
 * Insert and remove take the event's sequence number under the stripe lock, after the stripe's
 * clock (cmt_seq.h), so a free and the reuse of the same address are always ordered.
 */
#ifndef CMT_PTRTAB_H
#define CMT_PTRTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmt_seq.h"
#include "cmt_writer.h"

struct cmt_entry {
    uint64_t key; /* 0: empty slot */
    uint64_t size;
    uint32_t stack;
    uint16_t ctx;
    int8_t device;
    uint8_t kind_space; /* kind << 2 | space */
};

/* The stripes and their uncontended paths are here, inline: insert and remove run on every
 * allocation and free. Growing, contended locking and deletion are in cmt_ptrtab.c. */
#define CMT_PTR_STRIPES 64

struct cmt_stripe {
    _Atomic int lock;
    uint32_t count;
    uint32_t cap;   /* power of two */
    uint32_t limit; /* the count at which an insert grows the table: cap * 7 / 10 (0 before the first) */
    struct cmt_entry *slots;
    uint64_t clock; /* the last sequence number taken under the lock (cmt_seq.h) */
} __attribute__((aligned(64)));

extern struct cmt_stripe cmt_ptr_stripes[CMT_PTR_STRIPES] __attribute__((visibility("hidden")));
void cmt_ptr_lock_slow(struct cmt_stripe *s) __attribute__((visibility("hidden"), cold));
bool cmt_ptr_grow(struct cmt_stripe *s) __attribute__((visibility("hidden")));

static inline void cmt_ptr_lock(struct cmt_stripe *s) {
    if (__builtin_expect(atomic_exchange_explicit(&s->lock, 1, memory_order_acquire), 0)) cmt_ptr_lock_slow(s);
}
static inline void cmt_ptr_unlock(struct cmt_stripe *s) {
    atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static inline uint64_t cmt_ptr_hash(uint64_t key, unsigned space) {
    uint64_t h = (key ^ ((uint64_t)space << 61)) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}
static inline bool cmt_ptr_same(const struct cmt_entry *e, uint64_t key, unsigned space) {
    return e->key == key && (e->kind_space & 3) == space;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static inline void cmt_ptr_delete_at(struct cmt_stripe *s, uint32_t i) {
    uint32_t mask = s->cap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!s->slots[j].key) break;
        uint32_t home = (uint32_t)(cmt_ptr_hash(s->slots[j].key, s->slots[j].kind_space & 3) >> 6) & mask;
        /* move j into the hole at i when its home is not in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].key = 0;
    s->count--;
}

/* Inserts (or replaces) key in space; *seq receives the number of the event at time now. False
 * when the table could not hold it (counted as table_full; the seq is still taken). */
static inline __attribute__((always_inline)) bool cmt_ptr_insert(const struct cmt_entry *e, int64_t now,
                                                                 uint64_t *seq) {
    unsigned space = e->kind_space & 3;
    uint64_t h = cmt_ptr_hash(e->key, space);
    struct cmt_stripe *s = &cmt_ptr_stripes[h & (CMT_PTR_STRIPES - 1)];
    bool ok = true;
    cmt_ptr_lock(s);
    if (s->count >= s->limit && !cmt_ptr_grow(s) && s->count + 1 >= s->cap) ok = false;
    if (ok) {
        uint32_t j = (uint32_t)(h >> 6) & (s->cap - 1);
        while (s->slots[j].key && !cmt_ptr_same(&s->slots[j], e->key, space))
            j = (j + 1) & (s->cap - 1);
        if (!s->slots[j].key) s->count++;
        s->slots[j] = *e;
    }
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    cmt_ptr_unlock(s);
    if (!ok) cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    return ok;
}

/* Removes key; copies the entry to *out. False when it was not live. Takes *seq either way. */
static inline __attribute__((always_inline)) bool cmt_ptr_remove(uint64_t key, unsigned space, int64_t now,
                                                                 struct cmt_entry *out, uint64_t *seq) {
    uint64_t h = cmt_ptr_hash(key, space);
    struct cmt_stripe *s = &cmt_ptr_stripes[h & (CMT_PTR_STRIPES - 1)];
    bool found = false;
    cmt_ptr_lock(s);
    if (s->cap) {
        uint32_t j = (uint32_t)(h >> 6) & (s->cap - 1);
        while (s->slots[j].key) {
            if (cmt_ptr_same(&s->slots[j], key, space)) {
                *out = s->slots[j];
                cmt_ptr_delete_at(s, j);
                found = true;
                break;
            }
            j = (j + 1) & (s->cap - 1);
        }
    }
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    cmt_ptr_unlock(s);
    return found;
}
/* Removes every entry for which match() is true; calls gone() for each (no lock held then). */
/* The largest clock of the stripes (read without their locks: async-signal-safe): a number after
 * it follows every insert and remove that happened before the call. */
uint64_t cmt_ptr_clock(void);
void cmt_ptr_sweep(bool (*match)(const struct cmt_entry *, void *), void *arg,
                   void (*gone)(const struct cmt_entry *, void *));
void cmt_ptr_fork_child(void);

#endif
