/*
 * replay_dump.c — replays a whole dump through replay.c in one prefetching pass (the peak snapshots
 * are exact without a second one: replay.c sdc_keep); then what only events needed is
 * trimmed. See replay.h (cmt_replay_dump, cmt_replay_trim).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_internal.h"

static int cmp_dev(const void *a, const void *b) {
    const struct cmt_devstate *x = a, *y = b;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static void sort_devs(struct cmt_replay *r) {
    if (r->ndevs > 1) qsort(r->devs, r->ndevs, sizeof *r->devs, cmp_dev);
    cmt_replay_devs_moved(r);
    struct cmt_replay_live *t = r->t;
    cmt_htab_free(&t->dev_map);
    memset(t->dev_small, 0, sizeof t->dev_small);
    for (size_t i = 0; i < r->ndevs; i++) {
        uint32_t *slot = cmt_htab_slot(&t->dev_map, (uint64_t)r->devs[i].ordinal, 0);
        if (slot)
            *slot = (uint32_t)i + 1;
        else
            cmt_replay_lost(r);
    }
    /* the (stack, device) counters are keyed by device index: the indexes changed */
    cmt_htab_free(&t->sdc_map);
    for (size_t i = 0; i < t->nsdc; i++) {
        const struct cmt_stack_live *s = &t->sdc[i];
        uint32_t v = s->device >= 0 ? cmt_htab_get(&t->dev_map, (uint64_t)s->device, 0) : 0;
        uint32_t *slot = cmt_htab_slot(&t->sdc_map, s->stack, v);
        if (slot)
            *slot = (uint32_t)i + 1;
        else
            cmt_replay_lost(r);
    }
}

/* The pass over d. Once the live table outgrows the caches, every lookup is a miss to memory: events
 * are then decoded up to LOOKAHEAD ahead of the one applied and the hash slots they will touch
 * (live, stack-device counter) are prefetched (the recently-freed set costs nothing there: replay.c
 * indexes it only when a free misses). Events are applied BATCH at a time; the queue is refilled
 * once REFILL or fewer wait, so that the reader decodes runs of records (cmt_dump_next_hot_run): an
 * event's live slot is prefetched when it is queued, BATCH or more events before its live_info is
 * (prefetch_info, from the batch before its own), which is BATCH or more before it is applied. Only
 * ALLOC/FREE/RETRACK are queued past: a queued event of another type may point into the reader's
 * per-stream buffers (STACK frames), so reading stops until it has been applied. */
#define RING 32 /* queue slots: a power of two above LOOKAHEAD */
#define LOOKAHEAD 24
#define BATCH 8
#define REFILL (LOOKAHEAD - BATCH)

static inline int hot_event(unsigned type) {
    return type == CMT_REC_ALLOC || type == CMT_REC_FREE || type == CMT_REC_RETRACK;
}

/* GCC deleted this (a "looping pure" function) while it used __builtin_prefetch: util.h's
 * cmt_prefetch is a volatile asm (tests/cases/analyzer_prefetch.sh checks the binary). */
static inline void prefetch_event(const struct cmt_replay *r, uint64_t h) {
    const struct cmt_htab *t = &r->t->live; /* CMT_REPLAY_QUEUE_MIN_SLOTS slots or more */
    const unsigned char *slot = cmt_htab_at(t, h & (t->cap - 1));
    cmt_prefetch(slot);
    /* and the next line: a probe or a delete's backward shift often runs into it (past the
     * table's end for its last line: a prefetch never faults) */
    cmt_prefetch(slot + 64);
}

/* Second stage, BATCH to 2 * BATCH events before a FREE is applied: its live slot has arrived, so the
 * live_info it points to can be asked for (the entry may still move before then: only a hint).
 * Measured: this
 * prefetch with a full find is worth 40% at 1 M live (looking at the home slot only, 20%). */
static inline void prefetch_info(const struct cmt_replay *r, const struct cmt_event *e, uint64_t h, size_t *slot) {
    const struct cmt_replay_live *t = r->t;
    if (e->type != CMT_REC_FREE) return;
    const struct live *l = cmt_live_find(t, e->ptr, e->flags & CMT_FLAG_SPACE_MASK, h);
    if (!l) return;
    *slot = (size_t)(l - (const struct live *)t->live.e) + 1; /* the FREE's find starts there */
    cmt_prefetch(&t->info[l->k.val]);                         /* 16 bytes: never across two lines */
}

static int replay_pass(struct cmt_replay *r, struct cmt_dump *d) {
    const struct cmt_replay_live *t = r->t;
    struct cmt_event q[RING];
    uint64_t hq[RING]; /* the live-table hash of q's hot records, computed once */
    size_t sq[RING];   /* a FREE's slot + 1 as prefetch_info found it (0: not looked for) */
    size_t head = 0, n = 0;
    /* stop filling the queue: STOP_BLOCKED while a record not hot_event is queued, STOP_END at the end */
    enum { STOP_BLOCKED = 1, STOP_END = 2 };
    unsigned stop = 0;
    int rc = 0;
    const struct cmt_event *e;
    for (;;) {
        if (!n && t->live.cap < CMT_REPLAY_QUEUE_MIN_SLOTS) { /* small tables: no queue, no copies */
            if ((rc = cmt_dump_next(d, &e)) <= 0) return rc;
            cmt_replay_event(r, e);
            continue;
        }
        for (int fill = n <= REFILL; fill && n < LOOKAHEAD && !stop;) {
            size_t k = (head + n) % RING, room = RING - k < LOOKAHEAD - n ? RING - k : LOOKAHEAD - n;
            size_t got = cmt_dump_next_hot_run(d, &q[k], room);
            for (size_t i = k; i < k + got; i++) {
                hq[i] = cmt_live_hash(q[i].ptr, q[i].flags & CMT_FLAG_SPACE_MASK);
                sq[i] = 0;
                prefetch_event(r, hq[i]);
            }
            n += got;
            if (got) continue;
            /* the next record, whatever it is: ALLOC/FREE come decoded in q[k]; what replay.c reads
             * of the others of hot_event (not the whole ~360 bytes) is copied there */
            struct cmt_event *c = &q[k];
            if ((rc = cmt_dump_next_hot(d, c, &e)) <= 0) {
                stop |= STOP_END;
                break;
            }
            if (hot_event(e->type)) {
                if (e != c) cmt_event_copy_hot(c, e);
                hq[k] = cmt_live_hash(c->ptr, c->flags & CMT_FLAG_SPACE_MASK);
                sq[k] = 0;
                prefetch_event(r, hq[k]);
            } else {
                hq[k] = 0; /* not used */
                sq[k] = 0;
                *c = *e;
                stop |= STOP_BLOCKED;
            }
            n++;
        }
        if (!n) return rc;
        /* a batch of the first BATCH queued, the live_info of the next BATCH asked for first */
        size_t m = n < BATCH ? n : BATCH;
        for (size_t i = m; i < n && i < 2 * BATCH; i++) {
            size_t k = (head + i) % RING;
            prefetch_info(r, &q[k], hq[k], &sq[k]);
        }
        cmt_replay_run_hashed(r, q, hq, sq, RING - 1, head, m);
        head = (head + m) % RING;
        n -= m;
        if (!n) stop &= ~(unsigned)STOP_BLOCKED;
    }
}

int cmt_replay_dump(struct cmt_replay *r, struct cmt_dump *d) {
    cmt_dump_rewind(d);
    if (replay_pass(r, d) < 0) return -1;
    cmt_replay_exit_slot(r, cmt_dump_header(d));
    cmt_replay_finish(r);
    sort_devs(r);
    return 0;
}

void cmt_replay_trim(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    if (!t) return;
    cmt_htab_free(&t->live);
    cmt_big_free(t->info, t->capinfo * sizeof *t->info);
    t->info = NULL;
    t->capinfo = t->ninfo = 0;
    t->info_free = 0;
    cmt_htab_free(&t->far_map);
    cmt_htab_free(&t->freed);
    free(t->ring_ptr);
    free(t->ring_space);
    t->ring_ptr = NULL;
    t->ring_space = NULL;
    t->nfreed = t->synced = 0;
}
