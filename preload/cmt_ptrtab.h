/*
 * cmt_ptrtab.h — the live-allocation table: address (or handle) -> {size, stack, ctx, device,
 * kind}. Open addressing with linear probing and backward-shift deletion, split into 64 stripes
 * with a spinlock each, 24 bytes an entry: cheaper and smaller than uthash for the hot path.
 * Insert and remove take the event's sequence number under the stripe lock, after the stripe's
 * clock (cmt_seq.h), so a free and the reuse of the same address are always ordered.
 */
#ifndef CMT_PTRTAB_H
#define CMT_PTRTAB_H

#include <stdbool.h>
#include <stdint.h>

struct cmt_entry {
    uint64_t key;   /* 0: empty slot */
    uint64_t size;
    uint32_t stack;
    uint16_t ctx;
    int8_t device;
    uint8_t kind_space; /* kind << 2 | space */
};

/* Inserts (or replaces) key in space; *seq receives the number of the event at time now. False
 * when the table could not hold it (counted as table_full; the seq is still taken). */
bool cmt_ptr_insert(const struct cmt_entry *e, int64_t now, uint64_t *seq);
/* Removes key; copies the entry to *out. False when it was not live. Takes *seq either way. */
bool cmt_ptr_remove(uint64_t key, unsigned space, int64_t now, struct cmt_entry *out, uint64_t *seq);
/* Removes every entry for which match() is true; calls gone() for each (no lock held then). */
/* The largest clock of the stripes (read without their locks: async-signal-safe): a number after
 * it follows every insert and remove that happened before the call. */
uint64_t cmt_ptr_clock(void);
void cmt_ptr_sweep(bool (*match)(const struct cmt_entry *, void *), void *arg,
                   void (*gone)(const struct cmt_entry *, void *));
void cmt_ptr_fork_child(void);

#endif
