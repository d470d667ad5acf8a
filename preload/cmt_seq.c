/*
 * cmt_seq.c — see cmt_seq.h: the writer slots, the shared slot's clock and the definition floor.
 */
#include <pthread.h>
#include <time.h>

#include "cmt_init.h"
#include "cmt_seq.h"

int64_t cmt_seq_base;
_Atomic uint64_t cmt_seq_floor;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t slot_last[CMT_SEQ_SHARED_SLOT]; /* a free slot's last number */
static uint8_t free_slots[CMT_SEQ_SHARED_SLOT]; /* a stack of free slots (1 .. shared - 1) */
static unsigned nfree;
static int slots_ready;
static _Atomic uint64_t shared_clock; /* the last number of the shared slot */

void cmt_seq_init(int64_t now) {
    cmt_seq_base = now - 1;
}

/* The time origin, at the initialisation (cmt_init.h; the configuration read, the event clock
 * chosen): CLOCK_MONOTONIC, the clock event times count in. */
static void seq_start(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cmt_seq_init((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}
CMT_LIFECYCLE(seq, 0, seq_start, NULL);

/* Under slots_lock. */
static void fill_slots(void) {
    if (slots_ready) return;
    slots_ready = 1;
    nfree = 0;
    for (unsigned s = CMT_SEQ_SHARED_SLOT - 1; s >= 1; s--)
        free_slots[nfree++] = (uint8_t)s;
}

uint64_t cmt_seq_slow(uint64_t c) {
    struct cmt_tls *t = &cmt_tls;
    if (t->seq_slot == 0) {
        pthread_mutex_lock(&slots_lock);
        fill_slots();
        if (nfree) {
            t->seq_slot = free_slots[--nfree];
            c = cmt_seq_above(c, slot_last[t->seq_slot]); /* above its last holder's numbers */
        } else {
            t->seq_slot = CMT_SEQ_SHARED_SLOT;
        }
        pthread_mutex_unlock(&slots_lock);
    }
    if (c >> (64 - CMT_SEQ_SLOT_BITS)) return 0;
    uint64_t s;
    if (t->seq_slot != CMT_SEQ_SHARED_SLOT) {
        s = c << CMT_SEQ_SLOT_BITS | t->seq_slot;
    } else {
        uint64_t old = atomic_load_explicit(&shared_clock, memory_order_relaxed);
        do {
            uint64_t cc = cmt_seq_above(c, old);
            if (cc >> (64 - CMT_SEQ_SLOT_BITS)) return 0;
            s = cc << CMT_SEQ_SLOT_BITS | CMT_SEQ_SHARED_SLOT;
        } while (
            !atomic_compare_exchange_weak_explicit(&shared_clock, &old, s, memory_order_relaxed, memory_order_relaxed));
    }
    t->seq_last = s;
    return s;
}

uint64_t cmt_seq_def(int64_t now) {
    return cmt_seq_def_after(0, now);
}

uint64_t cmt_seq_def_after(uint64_t floor, int64_t now) {
    uint64_t s = cmt_seq_after(floor, now);
    uint64_t g = atomic_load_explicit(&cmt_seq_floor, memory_order_relaxed);
    while (g < s &&
           !atomic_compare_exchange_weak_explicit(&cmt_seq_floor, &g, s, memory_order_release, memory_order_relaxed)) {
    }
    return s;
}

void cmt_seq_thread_exit(void) {
    struct cmt_tls *t = &cmt_tls;
    uint32_t slot = t->seq_slot;
    if (slot == 0 || slot == CMT_SEQ_SHARED_SLOT) return;
    pthread_mutex_lock(&slots_lock);
    if (slots_ready && nfree < CMT_SEQ_SHARED_SLOT - 1) {
        slot_last[slot] = t->seq_last;
        free_slots[nfree++] = (uint8_t)slot;
    }
    pthread_mutex_unlock(&slots_lock);
    t->seq_slot = 0;
}

void cmt_seq_fork_child(void) {
    /* the parent's other threads are gone: every slot is free again (the child's dump is new) */
    pthread_mutex_init(&slots_lock, NULL);
    slots_ready = 0;
    atomic_store(&shared_clock, 0);
    atomic_store(&cmt_seq_floor, 0);
    cmt_tls.seq_slot = 0;
    cmt_tls.seq_last = 0;
}
