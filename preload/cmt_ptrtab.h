/*
 * cmt_ptrtab.h — the live-allocation table: address (or handle) -> {size, stack, ctx, device,
 * kind}. 64 stripes with a spinlock each; a stripe is an array of groups, one group three cache
 * lines (192 bytes): a tag byte for each of 7 slots, an overflow count and the 7 keys in the first
 * line, their 16-byte values in the next two. A key lives in its home group (from the hash) or,
 * when that was full at insert, in one of the groups after it; a group's overflow count is the
 * number of keys that passed it, so a lookup stops at the first group that neither holds the key
 * nor was passed. Nothing is shifted on delete and there are no tombstones.
 * Why groups: with random frees over a large live set the group's lines miss the cache, and every
 * branch that depends on them is resolved only when they arrive; a misprediction there throws away
 * the work done meanwhile (the caller's own misses included). Here the lookup compares the 7 tags
 * at once without branches (then the one key they point at), the three lines are fetched together,
 * and the branches left (found in the home group, no overflow to update) are almost always taken
 * the same way. Few instructions matter too: when the program's own loop misses the cache, the
 * tracker's instructions between its misses keep them from overlapping.
 * Insert and remove take the event's sequence number under the stripe lock, after the stripe's
 * clock (cmt_seq.h), so a free and the reuse of the same address are always ordered.
 * A free of a live key (cmt_ptr_untrack) stays "in flight" in its stripe until the real free
 * returned (cmt_ptr_freed): the FREE then takes that moment's number, unless the key was inserted
 * again meanwhile or a sweep passed; then it takes a number just below that insert's (or the
 * TEARDOWN's), and no lower than the one reserved at the untrack. No clock is read for the untrack
 * of a free kept in flight (its reserved number uses the time this thread read last).
 */
#ifndef CMT_PTRTAB_H
#define CMT_PTRTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmt_seq.h"
#include "cmt_writer.h"

/* What callers insert and get back. */
struct cmt_entry {
    uint64_t key; /* never 0 */
    uint64_t size;
    uint32_t stack;
    uint16_t ctx;
    int8_t device;
    uint8_t kind_space; /* kind << 2 | space */
};

/* The stripes and their uncontended paths are here, inline: insert and remove run on every
 * allocation and free. Growing, contended locking and sweeping are in cmt_ptrtab.c. */
#define CMT_PTR_STRIPES 64
#define CMT_PTR_GROUP_SLOTS 7
#define CMT_PTR_OVF_MAX 255 /* a saturated overflow count is never decremented (lookups go on past it) */

struct cmt_ptr_val { /* a slot's value: the entry less its key */
    uint64_t size;
    uint32_t stack;
    uint16_t ctx;
    int8_t device;
    uint8_t kind_space;
};

/* meta: byte i < 7 is slot i's tag (0: empty; else 0x80 | 5 hash bits << 2 | space), byte 7 the
 * overflow count: the keys whose home is this group or one before it, stored after it. */
struct cmt_ptr_group {
    uint64_t meta;
    uint64_t key[CMT_PTR_GROUP_SLOTS];
    struct cmt_ptr_val val[CMT_PTR_GROUP_SLOTS];
    uint8_t pad[16];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct cmt_ptr_group) == 192, "a group is three cache lines");

#define CMT_PTR_INFLIGHT 3 /* frees of a stripe's keys inside the driver at once, kept apart */
/* An in-flight slot: 0 empty; a free in flight: cmt_ptr_busy(h) (bit 0 clear); once its key was
 * inserted again or a sweep passed: bit 0 set, and in bits 8 and up the clock of the number the
 * FREE must stay below (that insert's, the TEARDOWN's; 0: none, the reserved number stays). */
struct cmt_stripe {
    _Atomic int lock;
    uint32_t count;
    uint32_t ngroups; /* power of two (0: no array yet) */
    uint32_t limit;   /* the count at which it grows (load 0.7) */
    struct cmt_ptr_group *groups;
    uint64_t clock; /* the last sequence number taken under the lock (cmt_seq.h) */
    /* frees in flight (removed, the real free not returned yet): ninflight slots of inflight[]
     * are not 0 (see CMT_PTR_INFLIGHT); a slot stays where it is, cmt_ptr_untrack names it */
    uint32_t ninflight;
    uint64_t inflight[CMT_PTR_INFLIGHT];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct cmt_stripe) == 64, "a stripe is one cache line");

extern struct cmt_stripe cmt_ptr_stripes[CMT_PTR_STRIPES] __attribute__((visibility("hidden")));
void cmt_ptr_lock_slow(struct cmt_stripe *s) __attribute__((visibility("hidden"), cold));
bool cmt_ptr_grow(struct cmt_stripe *s) __attribute__((visibility("hidden")));
/* Insert other than the inline common case: e replaces an entry, or goes after its home group, or
 * the stripe is at its limit (grows it first unless e replaces an entry). e by value: the inline
 * insert's entry then never has its address taken and stays in registers. Out of line, so the
 * general loops do not take registers from the wrappers' hot path. */
bool cmt_ptr_insert_slow(struct cmt_stripe *s, uint64_t h, uint8_t t, struct cmt_entry e)
    __attribute__((visibility("hidden")));
/* Remove other than the inline common case (key not in the lowest slot of its home group with its
 * tag t): the general lookup from group home; copies the entry to *out and deletes it. */
bool cmt_ptr_remove_slow(struct cmt_stripe *s, uint32_t home, uint8_t t, uint64_t key, struct cmt_entry *out)
    __attribute__((visibility("hidden")));

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
/* The stripe is h's low 6 bits, the home group the bits above, the tag's hash bits the top 5. */
static inline uint32_t cmt_ptr_home(uint64_t h, uint32_t ngroups) {
    return (uint32_t)(h >> 6) & (ngroups - 1);
}
static inline uint8_t cmt_ptr_tag(uint64_t h, unsigned space) {
    return (uint8_t)(0x80 | (h >> 59) << 2 | space);
}
/* The in-flight slot value of a free of the key of hash h: the low 6 bits of a hash are the
 * stripe's (the same for every key there), so bit 1 is forced (never 0) and bit 0 left clear. */
static inline uint64_t cmt_ptr_busy(uint64_t h) {
    return (h | 2) & ~(uint64_t)1;
}
/* Marks the free in flight in slot i reused (a new insert of its key, or a sweep): its FREE must
 * stay below the number before (its clock above the slot bits; 0: the reserved number). A slot
 * marked already keeps the lower bound: a sweep's TEARDOWN number is taken before it marks, so an
 * insert between the two may have marked with a later number. */
#define CMT_PTR_MARK_CLOCK(v) ((v) >> CMT_SEQ_SLOT_BITS)
static inline void cmt_ptr_mark(struct cmt_stripe *s, int i, uint64_t before) {
    uint64_t m = (before & ~(uint64_t)CMT_SEQ_SHARED_SLOT) | 1, v = s->inflight[i];
    if (!(v & 1) || m < v) s->inflight[i] = m;
}
static inline uint8_t cmt_ptr_ovf(const struct cmt_ptr_group *g) {
    return (uint8_t)(g->meta >> 56);
}
static inline void cmt_ptr_ovf_add(struct cmt_ptr_group *g, int d) {
    if (cmt_ptr_ovf(g) != CMT_PTR_OVF_MAX) g->meta += (uint64_t)(int64_t)d << 56;
}

#define CMT_PTR_BYTES_01 0x0001010101010101ull /* the 7 tag bytes */
#define CMT_PTR_BYTES_80 0x0080808080808080ull
/* Bit 8i+7 set for the slots whose tag is t (the lowest exactly; a higher one may be false, the
 * caller compares the key), and for the first empty slot; no branch, a few instructions. */
static inline uint64_t cmt_ptr_tags_eq(uint64_t meta, uint8_t t) {
    uint64_t x = (meta ^ (CMT_PTR_BYTES_01 * t)) & (CMT_PTR_BYTES_01 * 0xff);
    return (x - CMT_PTR_BYTES_01) & ~x & CMT_PTR_BYTES_80;
}
/* Bit 8i+7 set for every empty slot (a tag has its top bit, an empty slot is 0). */
static inline uint64_t cmt_ptr_empty(uint64_t meta) {
    return ~meta & CMT_PTR_BYTES_80;
}
static inline int cmt_ptr_slot(uint64_t bits) {
    return __builtin_ctzll(bits) >> 3;
}

/* Slot i of g as an entry, and an entry's value. */
static inline struct cmt_entry cmt_ptr_entry(const struct cmt_ptr_group *g, int i) {
    const struct cmt_ptr_val *v = &g->val[i];
    return (struct cmt_entry){.key = g->key[i],
                              .size = v->size,
                              .stack = v->stack,
                              .ctx = v->ctx,
                              .device = v->device,
                              .kind_space = v->kind_space};
}
static inline struct cmt_ptr_val cmt_ptr_val_of(const struct cmt_entry *e) {
    return (struct cmt_ptr_val){
        .size = e->size, .stack = e->stack, .ctx = e->ctx, .device = e->device, .kind_space = e->kind_space};
}

/* The slot of key (tag t) in s from group g on: *gi = its group, return value its index; -1 when
 * absent. */
static inline int cmt_ptr_find(const struct cmt_stripe *s, uint32_t g, uint8_t t, uint64_t key, uint32_t *gi) {
    uint32_t mask = s->ngroups - 1;
    for (uint32_t n = 0; n <= mask; n++, g = (g + 1) & mask) {
        const struct cmt_ptr_group *gp = &s->groups[g];
        for (uint64_t m = cmt_ptr_tags_eq(gp->meta, t); m; m &= m - 1) {
            int i = cmt_ptr_slot(m);
            if (__builtin_expect(gp->key[i] == key, 1)) {
                *gi = g;
                return i;
            }
        }
        if (__builtin_expect(!cmt_ptr_ovf(gp), 1)) break;
    }
    return -1;
}

/* Empties slot i of group gi, whose key's home group is home (the groups in between were passed). */
static inline void cmt_ptr_delete_at(struct cmt_stripe *s, uint32_t home, uint32_t gi, int i) {
    for (uint32_t g = home; __builtin_expect(g != gi, 0); g = (g + 1) & (s->ngroups - 1))
        cmt_ptr_ovf_add(&s->groups[g], -1);
    s->groups[gi].meta &= ~((uint64_t)0xff << (8 * i));
    s->count--;
}

/* Fills slot i of g with e (tag t). */
static inline void cmt_ptr_fill(struct cmt_ptr_group *g, int i, uint8_t t, const struct cmt_entry *e) {
    g->meta |= (uint64_t)t << (8 * i);
    g->key[i] = e->key;
    g->val[i] = cmt_ptr_val_of(e);
}

/* Puts e (not in the table; tag t) into the first empty slot from group g on. The table has one. */
static inline void cmt_ptr_place(struct cmt_ptr_group *groups, uint32_t ngroups, uint32_t g, uint8_t t,
                                 const struct cmt_entry *e) {
    for (;;) {
        uint64_t z = cmt_ptr_empty(groups[g].meta);
        if (__builtin_expect(z != 0, 1)) {
            cmt_ptr_fill(&groups[g], cmt_ptr_slot(z), t, e);
            return;
        }
        cmt_ptr_ovf_add(&groups[g], 1);
        g = (g + 1) & (ngroups - 1);
    }
}

/* Starts fetching the three lines of group g (under the lock: the array does not move).
 * always_inline: GCC 12 finds a function that only prefetches "pure" and deletes the call. */
static inline __attribute__((always_inline)) void cmt_ptr_prefetch(const struct cmt_stripe *s, uint32_t g) {
    const char *p = (const char *)&s->groups[g];
    __builtin_prefetch(p, 1);
    __builtin_prefetch(p + 64, 1);
    __builtin_prefetch(p + 128, 1);
}

/* Inserts (or replaces) key in space; *seq receives the number of the event at time now. False
 * when the table could not hold it (counted as table_full; the seq is still taken). */
static inline __attribute__((always_inline)) bool cmt_ptr_insert(const struct cmt_entry *e, int64_t now,
                                                                 uint64_t *seq) {
    unsigned space = e->kind_space & 3;
    uint64_t h = cmt_ptr_hash(e->key, space);
    uint8_t t = cmt_ptr_tag(h, space);
    struct cmt_stripe *s = &cmt_ptr_stripes[h & (CMT_PTR_STRIPES - 1)];
    bool ok = true;
    cmt_ptr_lock(s);
    /* the common case in one pass over the home group: below the limit (so the groups exist), not
     * there, not passed, a slot free */
    struct cmt_ptr_group *gp = NULL;
    uint64_t z = 0;
    if (__builtin_expect(s->count < s->limit, 1)) {
        gp = &s->groups[cmt_ptr_home(h, s->ngroups)];
        uint64_t meta = gp->meta;
        if (cmt_ptr_tags_eq(meta, t) || cmt_ptr_ovf(gp)) gp = NULL;
        z = cmt_ptr_empty(meta);
    }
    if (__builtin_expect(gp != NULL && z != 0, 1)) {
        cmt_ptr_fill(gp, cmt_ptr_slot(z), t, e);
        s->count++;
    } else {
        ok = cmt_ptr_insert_slow(s, h, t, *e);
    }
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    if (__builtin_expect(s->ninflight != 0, 0))          /* a free of this key still in the driver: reused */
        for (int i = 0; i < CMT_PTR_INFLIGHT; i++)
            if (s->inflight[i] == cmt_ptr_busy(h)) cmt_ptr_mark(s, i, *seq);
    cmt_ptr_unlock(s);
    if (!ok) cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    return ok;
}

/* Removes key from stripe s (hash h, locked); copies the entry to *out. False when it was not live. */
static inline __attribute__((always_inline)) bool cmt_ptr_take(struct cmt_stripe *s, uint64_t h, uint64_t key,
                                                               unsigned space, struct cmt_entry *out) {
    if (!s->ngroups) return false;
    uint32_t home = cmt_ptr_home(h, s->ngroups);
    cmt_ptr_prefetch(s, home);
    uint8_t t = cmt_ptr_tag(h, space);
    const struct cmt_ptr_group *gp = &s->groups[home];
    /* the common case: in its home group, the lowest slot with its tag (as cmt_ptr_find) */
    uint64_t m = cmt_ptr_tags_eq(gp->meta, t);
    int i = m ? cmt_ptr_slot(m) : 0;
    if (__builtin_expect(m && gp->key[i] == key, 1)) {
        *out = cmt_ptr_entry(gp, i);
        cmt_ptr_delete_at(s, home, home, i);
        return true;
    }
    return cmt_ptr_remove_slow(s, home, t, key, out);
}

/* Removes key; copies the entry to *out. False when it was not live. Takes *seq (at time now)
 * either way. */
static inline __attribute__((always_inline)) bool cmt_ptr_remove(uint64_t key, unsigned space, int64_t now,
                                                                 struct cmt_entry *out, uint64_t *seq) {
    uint64_t h = cmt_ptr_hash(key, space);
    struct cmt_stripe *s = &cmt_ptr_stripes[h & (CMT_PTR_STRIPES - 1)];
    cmt_ptr_lock(s);
    bool found = cmt_ptr_take(s, h, key, space, out);
    *seq = cmt_seq_after(s->clock, now);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    cmt_ptr_unlock(s);
    return found;
}

/* The untrack of a free (before the real free): removes key as cmt_ptr_remove does. When it was
 * live and its stripe has a free in-flight slot, the free stays in flight there (*where != 0
 * names the slot, for cmt_ptr_freed) and *seq is only reserved, at the time this thread read last
 * (stale; no clock read: cmt_ptr_freed takes the FREE's place). Otherwise (*where 0: not live, or
 * no room) *seq is the FREE's own number, at the time now() reads under the lock. *time: the time
 * of *seq. now: cmt_now (a parameter so that the table's test needs no clock). */
static inline __attribute__((always_inline)) bool cmt_ptr_untrack(uint64_t key, unsigned space, int64_t stale,
                                                                  int64_t (*now)(void), struct cmt_entry *out,
                                                                  uint64_t *seq, int64_t *time, unsigned *where) {
    uint64_t h = cmt_ptr_hash(key, space);
    unsigned k = (unsigned)(h & (CMT_PTR_STRIPES - 1));
    struct cmt_stripe *s = &cmt_ptr_stripes[k];
    cmt_ptr_lock(s);
    bool found = cmt_ptr_take(s, h, key, space, out);
    unsigned w = 0;
    if (__builtin_expect(found && s->ninflight < CMT_PTR_INFLIGHT, 1)) {
        int i = s->inflight[0] == 0 ? 0 : s->inflight[1] == 0 ? 1 : 2;
        s->inflight[i] = cmt_ptr_busy(h);
        s->ninflight++;
        w = k << 2 | (unsigned)(i + 1);
    }
    /* (0: no time read yet; a thread on the shared slot gets no place of its own later) */
    if (__builtin_expect(!w || !stale || cmt_tls.seq_slot - 1 >= CMT_SEQ_SHARED_SLOT - 1, 0)) stale = now();
    *seq = cmt_seq_after(s->clock, stale);
    __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED); /* cmt_ptr_clock reads it unlocked */
    cmt_ptr_unlock(s);
    *time = stale;
    *where = w;
    return found;
}

/* The real free of the key in flight in slot where (cmt_ptr_untrack: *seq reserved at *time)
 * returned at time now: *seq and *time become the FREE's. Its place is that moment (a number after
 * the stripe's clock) unless the key was inserted again meanwhile or a sweep passed; then just
 * below that insert's number (the TEARDOWN's), and never below the reserved one
 * (cmt_seq_between). Returns whether it took the late place. */
static inline __attribute__((always_inline)) bool cmt_ptr_freed(unsigned where, int64_t now, uint64_t *seq,
                                                                int64_t *time) {
    struct cmt_stripe *s = &cmt_ptr_stripes[where >> 2];
    int i = (int)(where & 3) - 1;
    cmt_ptr_lock(s);
    uint64_t v = s->inflight[i];
    if (__builtin_expect(v != 0, 1)) { /* (0: emptied meanwhile: a fork's child starts with none) */
        s->inflight[i] = 0;
        s->ninflight--;
    }
    if (__builtin_expect(!(v & 1), 1)) {
        *seq = cmt_seq_after(s->clock, now);
        __atomic_store_n(&s->clock, *seq, __ATOMIC_RELAXED);
        cmt_ptr_unlock(s);
        *time = now;
        return true;
    }
    cmt_ptr_unlock(s);
    cmt_seq_between(CMT_PTR_MARK_CLOCK(v), now, seq, time);
    return false;
}
/* The largest clock of the stripes (read without their locks: async-signal-safe): a number after
 * it follows every insert and remove that happened before the call. */
uint64_t cmt_ptr_clock(void);
/* Removes every entry for which match() is true; calls gone() for each (no lock held then). Every
 * free in flight then stays below before (a TEARDOWN's number; 0: its reserved number). */
void cmt_ptr_sweep(bool (*match)(const struct cmt_entry *, void *), void *arg,
                   void (*gone)(const struct cmt_entry *, void *), uint64_t before);
void cmt_ptr_fork_child(void);

#endif
