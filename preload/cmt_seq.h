/*
 * cmt_seq.h — event sequence numbers without a shared counter: a hybrid logical clock
 * (include/cmt_format.h ORDERING is the rule). An event's number is
 *     (max(time since start, floor's clock + 1, this thread's last clock + 1) << CMT_SEQ_SLOT_BITS) | slot
 * where floor is the clock of the structure whose lock orders the event (a pointer-table stripe,
 * the VMM table) and at least the process-wide definition floor, and slot is this thread's writer
 * slot (unique among running threads; a slot freed by an exiting thread goes to a new thread
 * together with its last number, so numbers stay unique). Taken under the structure's lock, the
 * number is stored back into its clock: a plain store, no atomic on the hot path. Threads beyond
 * the slots share the last one, whose clock is an atomic.
 */
#ifndef CMT_SEQ_H
#define CMT_SEQ_H

#include <stdatomic.h>
#include <stdint.h>

#include "cmt_format.h"
#include "cmt_state.h"

#define CMT_SEQ_SHARED_SLOT ((1u << CMT_SEQ_SLOT_BITS) - 1)

extern int64_t cmt_seq_base CMT_STATE_HIDDEN;           /* event time at clock 0 */
extern _Atomic uint64_t cmt_seq_floor CMT_STATE_HIDDEN; /* the largest definition's number */

/* Sets the time origin (once, before the first event). */
void cmt_seq_init(int64_t now) CMT_STATE_HIDDEN;
/* The slow path of cmt_seq_after: no slot yet, the shared slot, or the clock's range is spent. */
uint64_t cmt_seq_slow(uint64_t c) CMT_STATE_HIDDEN;
/* A definition's number (STACK, PYCODE, DEVICE, CTX, MODULE_LOAD, TEARDOWN...): every number
 * taken after it is published (by a lock, or a release store) is larger. */
uint64_t cmt_seq_def(int64_t now) CMT_STATE_HIDDEN;
/* A definition's number that is also after floor (TEARDOWN, EXIT: after every stripe's clock). */
uint64_t cmt_seq_def_after(uint64_t floor, int64_t now) CMT_STATE_HIDDEN;
/* The calling thread ends: its slot may go to a new thread. */
void cmt_seq_thread_exit(void) CMT_STATE_HIDDEN;
void cmt_seq_fork_child(void) CMT_STATE_HIDDEN;

/* The clock c, raised past the clock of number n when it is not already. */
static inline uint64_t cmt_seq_above(uint64_t c, uint64_t n) {
    uint64_t next = (n >> CMT_SEQ_SLOT_BITS) + 1;
    return c < next ? next : c;
}

/* The number of an event at time now ordered after floor (a clock stored by an earlier event; 0:
 * none). 0 when no number is left (after 2^(64 - CMT_SEQ_SLOT_BITS) ns: the event is dropped). */
static inline uint64_t cmt_seq_after(uint64_t floor, int64_t now) {
    struct cmt_tls *t = &cmt_tls;
    uint64_t f = floor > t->seq_last ? floor : t->seq_last;
    uint64_t g = atomic_load_explicit(&cmt_seq_floor, memory_order_relaxed);
    if (g > f) f = g;
    /* max(time since start, f's clock + 1): next >= 1, so an event before the start (a negative
     * time) gets next without a clamp to 0 first */
    int64_t since = now - cmt_seq_base, next = (int64_t)(f >> CMT_SEQ_SLOT_BITS) + 1;
    uint64_t c = (uint64_t)(since > next ? since : next);
    uint32_t slot = t->seq_slot;
    if (__builtin_expect(slot - 1 >= CMT_SEQ_SHARED_SLOT - 1 || (c >> (64 - CMT_SEQ_SLOT_BITS)) != 0, 0))
        return cmt_seq_slow(c);
    uint64_t s = c << CMT_SEQ_SLOT_BITS | slot;
    t->seq_last = s;
    return s;
}

/* A free in flight whose key was handed out again (or swept) before its real free returned: its
 * FREE must stay below the number whose clock is before (0: unknown) and above the number *seq
 * this thread reserved at its untrack (at time *time), the last it took. The number just below
 * before, in this thread's slot, when there is room between the two: its place is then the latest
 * the tracker can prove (the driver released the key before the insert), not the untrack's, whose
 * time is the one this thread read last. *time becomes that number's time, within [*time, now]
 * (a thread's times never decrease). Otherwise *seq and *time stay. */
static inline void cmt_seq_between(uint64_t before, int64_t now, uint64_t *seq, int64_t *time) {
    struct cmt_tls *t = &cmt_tls;
    uint32_t slot = t->seq_slot;
    if (before <= (*seq >> CMT_SEQ_SLOT_BITS) + 1 || t->seq_last != *seq || slot - 1 >= CMT_SEQ_SHARED_SLOT - 1) {
        /* no room; the thread took another number since (never: it was inside the free); shared slot:
         * the reserved number stays, with at least its own clock's time (the thread's last read may
         * be older than the ALLOC the number follows) */
        int64_t at = cmt_seq_base + (int64_t)(*seq >> CMT_SEQ_SLOT_BITS);
        if (at > now) at = now;
        if (at > *time) *time = at;
        return;
    }
    uint64_t c = before - 1;
    *seq = c << CMT_SEQ_SLOT_BITS | slot;
    t->seq_last = *seq;
    int64_t at = cmt_seq_base + (int64_t)c;
    if (at > now) at = now;
    if (at > *time) *time = at;
}

/* An event ordered only after this thread's earlier ones and the definitions. */
static inline uint64_t cmt_seq(int64_t now) {
    return cmt_seq_after(0, now);
}

#endif
