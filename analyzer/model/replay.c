/*
 * replay.c — event replay of one process: the live table, per-device live and peak bytes with
 * the stacks live at each peak, leaks, OOMs, anomalies; the hot path (ALLOC and FREE) inline in
 * the record switch. The stacks on top (at a peak, an OOM, now) are replay_top.c's, definitions (stacks, code objects, modules) are replay_defs.c's, what the
 * observer is told replay_observe.c's. See replay.h. Every table is util.h's hash table.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "heaps.h"
#include "replay_internal.h"

const char *const cmt_anomaly_names[CMT_AN_COUNT] = {
    "unknown_free",      "double_free",    "failed_free",          "failed_calls",     "dropped_events",
    "dropped_stacks",    "table_full",     "truncated_dumps",      "unreadable_dumps", "died_processes",
    "running_processes", "unmatched_proc", "captured_allocations",
};

const char *cmt_leak_at_name(int at) {
    return at == CMT_AT_TEARDOWN ? "teardown" : at == CMT_AT_DIED ? "died" : "exit";
}

const char *cmt_leak_at_phrase(int at) {
    return at == CMT_AT_TEARDOWN ? "at context teardown" : at == CMT_AT_DIED ? "when it died" : "at exit";
}

/* plain, in this function and those below: a constant, 1 when the caller knows there is no observer:
 * cmt_replay_run_hashed's loop. */
static inline void notify_stack(struct cmt_replay *r, const struct cmt_event *e, const struct cmt_stack_live *s, int up,
                                uint64_t ptr, uint64_t granted, uint64_t size, int at, const int plain) {
    if (!plain && __builtin_expect(r->observer != NULL, 0) && s->device >= 0)
        cmt_replay_notify_stack(r, e, s, up, ptr, granted, size, at);
}

int cmt_replay_init(struct cmt_replay *r, size_t top_n) {
    memset(r, 0, sizeof *r);
    r->top_n = top_n ? top_n : 10;
    r->t = calloc(1, sizeof *r->t);
    if (!r->t) return -1;
    cmt_replay_devs_moved(r);
    struct cmt_replay_live *t = r->t;
    cmt_htab_init(&t->live, sizeof(struct live), 1024);
    cmt_htab_init(&t->freed, sizeof(struct freed_key), 1024);
    cmt_htab_init(&t->far_map, sizeof(struct live_far), 64);
    struct cmt_htab *maps[] = {&t->sdc_map, &t->stack_map, &t->dev_map, &t->ctx_map,
                               &t->api_map, &t->leak_map,  &t->ck_map};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        cmt_htab_init(maps[i], sizeof(struct cmt_hkey), 64);
    r->t->ring_ptr = calloc(FREED_RING, sizeof(uint64_t));
    r->t->ring_space = calloc(FREED_RING, 1);
    if (!r->t->ring_ptr || !r->t->ring_space) return -1;
    return 0;
}

/* The (stack, device) counter index, added when new; UINT32_MAX when out of memory. */
static uint32_t sdc_get_slow(struct cmt_replay *r, uint64_t stack, int64_t device) {
    struct cmt_replay_live *t = r->t;
    const struct cmt_devstate *d = NULL;
    if (device >= 0 && !(d = cmt_replay_dev_get(r, device))) return UINT32_MAX;
    uint32_t *slot = cmt_htab_slot(&t->sdc_map, stack, cmt_replay_devslot(r, d));
    if (!slot) return UINT32_MAX;
    if (*slot) return *slot - 1;
    if (cmt_grow((void **)&t->sdc, &t->capsdc, t->nsdc + 1, sizeof *t->sdc) != 0 ||
        cmt_grow((void **)&t->sdc_peak, &t->capsdc_peak, t->nsdc + 1, sizeof *t->sdc_peak) != 0)
        return UINT32_MAX;
    t->sdc[t->nsdc] = (struct cmt_stack_live){stack, device, 0, 0};
    *slot = (uint32_t)++t->nsdc;
    return *slot - 1;
}

static inline __attribute__((always_inline)) uint32_t sdc_get(struct cmt_replay *r, uint64_t stack, int64_t device) {
    struct idx_memo *m = cmt_memo_slot(r->t->sdc_memo, stack, (uint64_t)device);
    if (m->v && m->a == stack && m->b == (uint64_t)device) return m->v - 1;
    uint32_t i = sdc_get_slow(r, stack, device);
    if (i != UINT32_MAX) *m = (struct idx_memo){stack, (uint64_t)device, i + 1};
    return i;
}

/* The (context, kind) index, added when new; UINT32_MAX when out of memory. */
static uint32_t ck_get_slow(struct cmt_replay_live *t, uint64_t ctx, uint8_t kind) {
    uint32_t *slot = cmt_htab_slot(&t->ck_map, ctx, kind);
    if (!slot) return UINT32_MAX;
    if (*slot) return *slot - 1;
    if (cmt_grow((void **)&t->cks, &t->capcks, t->ncks + 1, sizeof *t->cks) != 0) return UINT32_MAX;
    t->cks[t->ncks] = (struct ctx_kind){ctx, kind};
    *slot = (uint32_t)++t->ncks;
    return *slot - 1;
}

static inline __attribute__((always_inline)) uint32_t ck_get(struct cmt_replay_live *t, uint64_t ctx, uint8_t kind) {
    struct idx_memo *m = cmt_memo_slot(t->ck_memo, ctx, kind);
    if (m->v && m->a == ctx && m->b == kind) return m->v - 1;
    uint32_t i = ck_get_slow(t, ctx, kind);
    if (i != UINT32_MAX) *m = (struct idx_memo){ctx, kind, i + 1};
    return i;
}

/* A live_info for a new live allocation (the last one freed first: still in the cache);
 * UINT32_MAX when out of memory. */
static __attribute__((noinline)) uint32_t info_append(struct cmt_replay_live *t) {
    if (t->ninfo >= UINT32_MAX - 1 || cmt_grow_big((void **)&t->info, &t->capinfo, t->ninfo + 1, sizeof *t->info) != 0)
        return UINT32_MAX;
    return (uint32_t)t->ninfo++;
}
static inline __attribute__((always_inline)) uint32_t info_new(struct cmt_replay_live *t) {
    if (t->info_free) {
        uint32_t i = t->info_free - 1;
        t->info_free = t->info[i].sdc;
        return i;
    }
    if (__builtin_expect(t->ninfo < t->capinfo && t->ninfo < UINT32_MAX - 1, 1)) return (uint32_t)t->ninfo++;
    return info_append(t);
}

/* The far_map entry of live_info i (its gk says LIVE_GK_FAR: info_set put it). */
static __attribute__((noinline)) const struct live_far *info_far(const struct cmt_replay_live *t, uint32_t i) {
    static const struct live_far none;
    const struct live_far *f = cmt_htab_find(&t->far_map, i, 0);
    return f ? f : &none;
}
/* The granted bytes and the (context, kind) index of live_info i. */
static inline uint64_t info_granted(const struct cmt_replay_live *t, uint32_t i) {
    const struct live_info *li = &t->info[i];
    return __builtin_expect((li->gk & 0xff) != LIVE_GK_FAR, 1) ? li->size + (li->gk >> 8) : info_far(t, i)->granted;
}
static inline uint32_t info_ck(const struct cmt_replay_live *t, uint32_t i) {
    uint32_t gk = t->info[i].gk;
    return (gk & 0xff) != LIVE_GK_FAR ? gk & 0xff : info_far(t, i)->ck;
}

/* Keeps what live_info i describes; -1 when out of memory. */
static inline int info_set(struct cmt_replay_live *t, uint32_t i, uint64_t size, uint64_t granted, uint32_t sdc,
                           uint32_t ck) {
    struct live_info *li = &t->info[i];
    if (__builtin_expect((li->gk & 0xff) == LIVE_GK_FAR, 0)) { /* i was a far one until freed or replaced */
        void *f = cmt_htab_find(&t->far_map, i, 0);
        if (f) cmt_htab_del(&t->far_map, f);
    }
    li->size = size;
    li->sdc = sdc;
    if (__builtin_expect(granted >= size && granted - size < (1u << 24) && ck < LIVE_GK_FAR, 1)) {
        li->gk = (uint32_t)(granted - size) << 8 | ck;
        return 0;
    }
    li->gk = LIVE_GK_FAR;
    int existed;
    struct live_far *f = cmt_htab_put(&t->far_map, i, 0, &existed);
    if (!f) return -1;
    f->granted = granted;
    f->ck = ck;
    return 0;
}

static void info_release(struct cmt_replay_live *t, uint32_t i) {
    t->info[i].sdc = t->info_free;
    t->info_free = i + 1;
}

static inline struct live_info *info_of(const struct cmt_replay_live *t, const struct live *l) {
    return &t->info[l->k.val];
}

static inline int64_t live_device(const struct cmt_replay_live *t, const struct live *l) {
    return t->sdc[info_of(t, l)->sdc].device;
}

/* Before counter i of device d (NULL: host memory) changes. The peak snapshot of d, the top stacks
 * live at its peak, is kept lazily: a new peak makes the state then the snapshot's (a new epoch of
 * d: an increment, add_live), and each counter of d keeps its value of that moment beside it the
 * first time it changes after (here). The top stacks are drawn once, at the end (peak_snapshots):
 * exact, in one pass, for a compare per counter change and a store at most. */
static inline void sdc_keep(struct cmt_replay_live *t, uint32_t i, const struct cmt_devstate *d) {
    struct sdc_peak *p = &t->sdc_peak[i];
    if (!d || p->epoch == d->snap_epoch) return;
    p->bytes = t->sdc[i].bytes;
    p->count = t->sdc[i].count;
    p->epoch = d->snap_epoch;
}

/* e allocates (space, e->ptr); d: the state of its device, e->device (NULL: host memory, or out of
 * memory: asked again). */
static inline __attribute__((always_inline)) void add_live(struct cmt_replay *r, const struct cmt_event *e,
                                                           uint64_t space, struct cmt_devstate *d, uint64_t h,
                                                           const int plain) {
    struct cmt_replay_live *t = r->t;
    int existed;
    struct live *l = cmt_live_put(t, e->ptr, space, &existed, h);
    if (!l) {
        cmt_replay_lost(r);
        return;
    }
    if (existed) { /* allocated again without a free: replace (the old one was released unseen) */
        uint32_t old_sdc = info_of(t, l)->sdc;
        uint64_t old_granted = info_granted(t, l->k.val);
        struct cmt_stack_live *s = &t->sdc[old_sdc];
        struct cmt_devstate *d = s->device >= 0 ? cmt_replay_dev_get(r, s->device) : NULL;
        sdc_keep(t, old_sdc, d);
        s->bytes -= old_granted;
        s->count--;
        notify_stack(r, e, s, 0, e->ptr, old_granted, info_of(t, l)->size, -1, plain);
        if (__builtin_expect(r->tests.open, 0)) cmt_tests_gone(&r->tests, e->ptr, (uint32_t)space);
        if (s->device >= 0) {
            if (d) {
                d->live -= old_granted;
                d->live_count--;
                r->gpu_live -= old_granted;
            }
        } else
            r->host_live -= old_granted;
    } else {
        uint32_t ii = info_new(t);
        if (ii == UINT32_MAX) {
            cmt_replay_lost(r);
            cmt_live_del(t, l);
            return;
        }
        l->k.val = ii;
    }
    int64_t device = e->device < 0 ? -1 : e->device;
    uint32_t ck = ck_get(t, e->ctx, (uint8_t)(e->kind < 255 ? e->kind : 255));
    uint32_t si = ck == UINT32_MAX ? UINT32_MAX : sdc_get(r, e->stack, device);
    if (si == UINT32_MAX || info_set(t, l->k.val, e->size, e->granted, si, ck) != 0) {
        cmt_replay_lost(r);
        info_release(t, l->k.val);
        cmt_live_del(t, l);
        return;
    }
    if (device >= 0 && !d) d = cmt_replay_dev_get(r, device); /* NULL: out of memory (below) */
    sdc_keep(t, si, d);
    t->sdc[si].bytes += e->granted;
    t->sdc[si].count++;
    notify_stack(r, e, &t->sdc[si], 1, e->ptr, e->granted, e->size, -1, plain);
    if (__builtin_expect(r->tests.open, 0) && device >= 0 &&
        cmt_tests_alloc(&r->tests, e->ptr, (uint32_t)space, si, e->granted, e->type == CMT_REC_RETRACK) != 0)
        cmt_replay_lost(r);
    if (device >= 0) {
        if (!d) {
            cmt_replay_lost(r);
            return;
        }
        d->live += e->granted;
        d->live_count++;
        r->gpu_live += e->granted;
        if (r->gpu_live > r->gpu_peak) r->gpu_peak = r->gpu_live;
        if (d->live > d->peak) {
            d->peak = d->live;
            d->peak_time = e->time_ns;
            d->peak_seq = e->seq;
            d->snap_epoch++; /* the state now is the peak snapshot's */
        }
    } else {
        r->host_live += e->granted;
        if (r->host_live > r->host_peak) r->host_peak = r->host_live;
    }
}

/* Appends a free to the ring: nothing else, freeing is the hot path. */
static inline void remember_freed(struct cmt_replay_live *t, uint64_t space, uint64_t ptr) {
    size_t k = (size_t)(t->nfreed++ % FREED_RING);
    t->ring_ptr[k] = ptr;
    t->ring_space[k] = (uint8_t)space;
}

/* Whether (ptr, space), not live now, was freed by one of the last FREED_RING frees (so freeing it
 * again is a double free). Brings the index up to date first: only the frees since the last call,
 * or the whole ring rebuilt when more than a ring's worth came since, or the index holds twice a
 * ring's worth of keys (most fell out of the window). A key re-allocated since its free is live, so
 * it never comes here. Returns 1, 0, or -1 when out of memory. */
static int freed_recently(struct cmt_replay_live *t, uint64_t ptr, uint64_t space) {
    if (t->nfreed - t->synced > FREED_RING || t->freed.n > 2 * FREED_RING) {
        cmt_htab_free(&t->freed);
        t->synced = t->nfreed > FREED_RING ? t->nfreed - FREED_RING : 0;
    }
    for (; t->synced < t->nfreed; t->synced++) {
        size_t k = (size_t)(t->synced % FREED_RING);
        int existed;
        struct freed_key *f = cmt_htab_put(&t->freed, t->ring_ptr[k], (uint32_t)t->ring_space[k], &existed);
        if (!f) return -1;
        f->n = t->synced;
    }
    const struct freed_key *f = cmt_htab_find(&t->freed, ptr, (uint32_t)space);
    return f && f->n + FREED_RING >= t->nfreed;
}

static void add_leak(struct cmt_replay *r, uint32_t info, uint64_t granted, const struct cmt_stack_live *s, int at) {
    struct cmt_replay_live *t = r->t;
    const struct live_info *li = &t->info[info];
    uint8_t kind = t->cks[info_ck(t, info)].kind;
    uint64_t key = ((uint64_t)li->sdc << 10) | ((uint64_t)kind << 2) | (uint64_t)at; /* sdc: (stack, device) */
    uint32_t *slot = cmt_htab_slot(&t->leak_map, key, 0);
    if (!slot || (!*slot && cmt_grow((void **)&r->leaks, &t->capleaks, r->nleaks + 1, sizeof *r->leaks) != 0)) {
        cmt_replay_lost(r);
        return;
    }
    if (!*slot) {
        r->leaks[r->nleaks] = (struct cmt_leak){s->device, kind, s->stack, at, 0, 0, 0};
        *slot = (uint32_t)++r->nleaks;
    }
    struct cmt_leak *k = &r->leaks[*slot - 1];
    k->bytes += granted;
    k->requested += li->size;
    k->allocations++;
}

/* Ends live allocation l (free, or leak when at >= 0) because of record e (NULL: the end); a free
 * (freeing) is counted on its device. */
static inline __attribute__((always_inline)) void end_live(struct cmt_replay *r, struct live *l, int at,
                                                           const struct cmt_event *e, int freeing, const int plain) {
    struct cmt_replay_live *t = r->t;
    const struct live_info *li = info_of(t, l);
    struct cmt_stack_live *s = &t->sdc[li->sdc];
    int64_t device = s->device;
    uint64_t granted = info_granted(t, l->k.val);
    if (at >= 0) add_leak(r, l->k.val, granted, s, at);
    struct cmt_devstate *d = device >= 0 ? cmt_replay_dev_get(r, device) : NULL;
    sdc_keep(t, li->sdc, d); /* the snapshot must see the state before this decrease */
    if (freeing) {
        if (d)
            d->frees++;
        else if (device < 0)
            r->host_frees++;
    }
    s->bytes -= granted;
    s->count--;
    if (e) notify_stack(r, e, s, 0, l->k.a, granted, li->size, at, plain);
    if (__builtin_expect(r->tests.open, 0)) cmt_tests_gone(&r->tests, l->k.a, l->k.b & ~CMT_HKEY_B_MAX);
    if (device >= 0) {
        if (d) {
            d->live -= granted;
            d->live_count--;
            r->gpu_live -= granted;
            if (at >= 0) {
                d->leaked_bytes += granted;
                d->leaked_allocations++;
            }
        }
    } else {
        r->host_live -= granted;
        if (at >= 0) {
            r->host_leaked += granted;
            r->host_leaked_allocations++;
        }
    }
    info_release(t, l->k.val);
    cmt_live_del(t, l);
}

/* A FREE; hint: its key's slot + 1 when the queue found it there (0: none), checked. */
static inline __attribute__((always_inline)) void do_free(struct cmt_replay *r, const struct cmt_event *e, uint64_t h,
                                                          size_t hint, const int plain) {
    struct cmt_replay_live *t = r->t;
    uint64_t space = e->flags & CMT_FLAG_SPACE_MASK;
    if (e->flags & CMT_FLAG_CAPTURED) return;
    for (size_t k = r->nimported; k-- > 0;) /* releasing imported memory */
        if (r->imported[k].open && r->imported[k].space == space && r->imported[k].ptr == e->ptr) {
            r->imported[k].open = 0;
            return;
        }
    struct live *l = hint - 1 < t->live.cap ? cmt_htab_at(&t->live, hint - 1) : NULL;
    if (!l || l->k.a != e->ptr || l->k.b != ((uint32_t)space | CMT_HKEY_B_MAX)) /* moved since, or no hint */
        l = cmt_live_find(t, e->ptr, space, h);
    if (!l) {
        int again = freed_recently(t, e->ptr, space);
        if (again < 0)
            cmt_replay_lost(r);
        else {
            int an = again ? CMT_AN_DOUBLE_FREE : CMT_AN_UNKNOWN_FREE;
            r->anomalies[an]++;
            t->unknown_free[e->writer % UNKNOWN_FREE_WAYS] =
                (struct unknown_free){.writer = e->writer, .used = 1, .anomaly = (uint8_t)an, .api = e->api};
        }
        return;
    }
    end_live(r, l, -1, e, 1, plain);
    remember_freed(t, space, e->ptr);
}

/* A FAILED record: a failed call; when it is the refusal of its thread's latest free of an unknown
 * pointer (same API), that free released nothing, so it is no unknown_free (a double free stays
 * one: the program's bug either way). */
static void failed_call(struct cmt_replay *r, const struct cmt_event *e) {
    struct unknown_free *u = &r->t->unknown_free[e->writer % UNKNOWN_FREE_WAYS];
    if (u->used && u->writer == e->writer && u->api == e->api) {
        if (u->anomaly == CMT_AN_UNKNOWN_FREE && r->anomalies[CMT_AN_UNKNOWN_FREE]) r->anomalies[CMT_AN_UNKNOWN_FREE]--;
        u->used = 0;
    }
    r->anomalies[CMT_AN_FAILED_CALLS]++;
}

static void do_teardown(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    int at = (e->flags & CMT_FLAG_AT_EXIT) ? CMT_AT_EXIT : CMT_AT_TEARDOWN;
    for (size_t i = 0; i < t->live.cap;) {
        struct live *l = cmt_htab_at(&t->live, i);
        int match = 0;
        if (cmt_hkey_used(&l->k)) {
            uint64_t ctx = t->cks[info_ck(t, l->k.val)].ctx;
            /* ctx 0: every context of the device; memory of no context (VMM) is never ended */
            if (e->ctx)
                match = ctx == e->ctx;
            else
                match = ctx && cmt_replay_ctx_device(r, ctx) == e->device;
        }
        if (match) {
            end_live(r, l, at, e, 0, 0); /* backward shift may move another entry into i: look at i again */
            continue;
        }
        i++;
    }
}

static void copy_str(char *dst, size_t cap, const char *s, size_t n) {
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, s, n);
    dst[n] = 0;
}

static void do_marker(struct cmt_replay *r, const struct cmt_event *e) {
    int test = cmt_tests_marker(&r->tests, e, r->t->sdc); /* a test's begin or end: no marker */
    if (test < 0) cmt_replay_lost(r);
    if (test || e->flags == CMT_MARK_RANGE_POP) return;
    int64_t *dev = calloc(r->ndevs + 1, sizeof *dev);
    uint64_t *live = calloc(r->ndevs + 1, sizeof *live);
    if (dev && live) {
        for (size_t i = 0; i < r->ndevs; i++) {
            dev[i] = r->devs[i].ordinal;
            live[i] = r->devs[i].live;
        }
        dev[r->ndevs] = -1;
        live[r->ndevs] = r->host_live;
    } else {
        free(dev);
        free(live);
        dev = NULL;
        live = NULL;
    }
    if (cmt_marker_log_add(&r->marks, e, dev, live, dev ? r->ndevs + 1 : 0, r->t->sdc, r->t->nsdc) != 0 || !dev)
        cmt_replay_lost(r);
}

void cmt_replay_event(struct cmt_replay *r, const struct cmt_event *e) {
    cmt_replay_event_hashed(r, e, cmt_live_hash(e->ptr, e->flags & CMT_FLAG_SPACE_MASK));
}

/* An ALLOC or RETRACK. */
static inline __attribute__((always_inline)) void do_alloc(struct cmt_replay *r, const struct cmt_event *e, uint64_t h,
                                                           const int plain) {
    if (e->flags & CMT_FLAG_CAPTURED) {
        if (e->type == CMT_REC_ALLOC) r->anomalies[CMT_AN_CAPTURED_ALLOCATIONS]++;
        return;
    }
    if (e->kind == CMT_KIND_IMPORTED) { /* kept out of the live table: not this process's memory */
        if (cmt_grow((void **)&r->imported, &r->capimported, r->nimported + 1, sizeof *r->imported) != 0) {
            cmt_replay_lost(r);
            return;
        }
        r->imported[r->nimported++] =
            (struct cmt_imported){e->device, e->flags & CMT_FLAG_SPACE_MASK, e->ptr, e->granted, 1};
        return;
    }
    struct cmt_devstate *d = e->device >= 0 ? cmt_replay_dev_get(r, e->device) : NULL;
    if (e->type == CMT_REC_RETRACK) r->anomalies[CMT_AN_FAILED_FREE]++;
    if (e->device >= 0) {
        if (d) {
            if (e->type == CMT_REC_ALLOC)
                d->allocations++;
            else if (d->frees)
                d->frees--;
        }
    } else if (e->type == CMT_REC_ALLOC)
        r->host_allocations++;
    else if (r->host_frees)
        r->host_frees--;
    add_live(r, e, e->flags & CMT_FLAG_SPACE_MASK, d, h, plain);
}

/* What record e does to the replay (h: cmt_replay_event_hashed's), but the event counts and times. */
static inline __attribute__((always_inline)) void apply(struct cmt_replay *r, const struct cmt_event *e, uint64_t h) {
    struct cmt_replay_live *t = r->t;
    switch (e->type) {
    case CMT_REC_ALLOC:
    case CMT_REC_RETRACK:
        do_alloc(r, e, h, 0);
        break;
    case CMT_REC_FREE:
        do_free(r, e, h, 0, 0);
        break;
    case CMT_REC_TEARDOWN:
        do_teardown(r, e);
        break;
    case CMT_REC_OOM:
        cmt_replay_oom(r, e);
        break;
    case CMT_REC_FAILED:
        failed_call(r, e);
        break;
    case CMT_REC_STACK:
        cmt_replay_def_stack(r, e);
        break;
    case CMT_REC_PYCODE:
        cmt_replay_def_pycode(r, e);
        break;
    case CMT_REC_DEVICE: {
        if (e->device < 0) break;
        struct cmt_devstate *d = cmt_replay_dev_get(r, e->device);
        if (!d) {
            cmt_replay_lost(r);
            break;
        }
        d->has_info = 1;
        memcpy(d->uuid, e->uuid, 16);
        copy_str(d->name, sizeof d->name, e->str1, e->str1_len);
        copy_str(d->pci, sizeof d->pci, e->str2, e->str2_len);
        d->total = e->total;
        break;
    }
    case CMT_REC_CTX: {
        uint32_t *slot = cmt_htab_slot(&t->ctx_map, e->ctx, 0);
        if (!slot || (!*slot && cmt_grow((void **)&t->ctxdev, &t->capctx, t->nctx + 1, sizeof *t->ctxdev) != 0)) {
            cmt_replay_lost(r);
            break;
        }
        if (!*slot) {
            *slot = (uint32_t)++t->nctx;
        }
        t->ctxdev[*slot - 1] = e->device;
        break;
    }
    case CMT_REC_EXIT:
        r->have_exit = 1;
        r->exit_how = e->exit_how;
        r->exit_status = e->exit_status;
        break;
    case CMT_REC_EXEC_FAILED:
        if (r->exit_how == CMT_EXIT_EXEC) r->have_exit = 0; /* the process went on */
        break;
    case CMT_REC_MODULE_LOAD:
        cmt_replay_def_module(r, e);
        break;
    case CMT_REC_MODULE_UNLOAD:
        r->mod_events++;
        for (size_t i = 0; i < r->nmods; i++)
            if (r->mods[i].id == e->id && !r->mods[i].unloaded) {
                r->mods[i].unloaded = 1;
                r->mods[i].unloaded_at = r->mod_events;
            }
        break;
    case CMT_REC_UNMATCHED_PROC:
        r->unmatched_records++;
        break;
    case CMT_REC_MARKER:
        do_marker(r, e);
        break;
    case CMT_REC_SUBALLOC: {
        if (!r->heaps && !(r->heaps = cmt_heaps_new())) {
            cmt_replay_lost(r);
            break;
        }
        int64_t device = -2;
        if (e->op == CMT_SUB_HEAP_REGISTER) {
            /* the heap lives in a tracked allocation: usually its base */
            const struct live *l = cmt_live_find(t, e->ptr, CMT_SPACE_ADDR, cmt_live_hash(e->ptr, CMT_SPACE_ADDR));
            if (l) device = live_device(t, l);
        }
        if (cmt_heaps_event(r->heaps, e, device) != 0) cmt_replay_lost(r);
        break;
    }
    case CMT_REC_INFO: {
        if (e->str1_len != 6 || memcmp(e->str1, "python", 6) != 0) break;
        char *v = strndup(e->str2 ? e->str2 : "", e->str2_len);
        if (!v) {
            cmt_replay_lost(r);
            break;
        }
        free(r->python_info);
        r->python_info = v;
        r->python_state = 0; /* until the PYTHON record that follows it (2.3) */
        break;
    }
    case CMT_REC_PYTHON: {
        size_t n = e->str1_len < sizeof r->python_text - 1 ? e->str1_len : sizeof r->python_text - 1;
        for (size_t i = 0; i < n; i++) { /* shown in reports: no control characters */
            unsigned char c = (unsigned char)e->str1[i];
            r->python_text[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
        }
        r->python_text[n] = 0;
        r->python_state = e->op;
        r->python_version = e->version;
        break;
    }
    case CMT_REC_API_NAME: {
        uint32_t *slot = cmt_htab_slot(&t->api_map, e->id, 0);
        char *name = slot ? strndup(e->str1 ? e->str1 : "", e->str1_len) : NULL;
        if (!name) {
            cmt_replay_lost(r);
            break;
        }
        if (*slot) {
            free(t->api_names[*slot - 1]);
            t->api_names[*slot - 1] = name;
            break;
        }
        if (cmt_grow((void **)&t->api_names, &t->capapi, t->napi + 1, sizeof *t->api_names) != 0) {
            cmt_replay_lost(r);
            free(name);
            break;
        }
        t->api_names[t->napi] = name;
        *slot = (uint32_t)++t->napi;
        break;
    }
    default:
        break;
    }
    if (r->observer) cmt_replay_observe(r, e);
}

void cmt_replay_event_hashed(struct cmt_replay *r, const struct cmt_event *e, uint64_t h) {
    if (!r->events++) r->first_time = e->time_ns;
    if (!(r->events & 0xffff) && r->progress) atomic_fetch_add_explicit(r->progress, 0x10000, memory_order_relaxed);
    r->last_time = e->time_ns;
    apply(r, e, h);
}

void cmt_replay_run_hashed(struct cmt_replay *r, const struct cmt_event *q, const uint64_t *hq, const size_t *slot,
                           size_t mask, size_t at, size_t n) {
    if (!n) return;
    if (r->observer) { /* it may look at the counts: one event at a time */
        for (size_t i = 0; i < n; i++)
            cmt_replay_event_hashed(r, &q[(at + i) & mask], hq[(at + i) & mask]);
        return;
    }
    /* the event counts and times cmt_replay_event_hashed keeps, at once (nothing below reads them) */
    uint64_t before = r->events, after = before + n;
    if (!before) r->first_time = q[at & mask].time_ns;
    r->events = after;
    if (r->progress && (after >> 16) != (before >> 16))
        atomic_fetch_add_explicit(r->progress, ((after >> 16) - (before >> 16)) << 16, memory_order_relaxed);
    r->last_time = q[(at + n - 1) & mask].time_ns;
    for (size_t i = 0; i < n; i++) {
        const struct cmt_event *e = &q[(at + i) & mask];
        uint64_t h = hq[(at + i) & mask];
        if (e->type == CMT_REC_FREE) /* the usual records first, the switch for the rest */
            do_free(r, e, h, slot[(at + i) & mask], 1);
        else if (e->type == CMT_REC_ALLOC)
            do_alloc(r, e, h, 1);
        else
            apply(r, e, h);
    }
}

static int cmp_leak(const void *a, const void *b) {
    const struct cmt_leak *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stack != y->stack) return x->stack < y->stack ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->at - y->at;
}

void cmt_replay_finish(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    cmt_replay_peak_snapshots(r); /* before the leaks below end what is live */
    /* a test still open when the stream ends: what it allocated and is live now */
    if (r->tests.open && cmt_tests_end(&r->tests, r->last_time, CMT_TEST_UNFINISHED, t->sdc) != 0) cmt_replay_lost(r);
    int at = r->have_exit ? CMT_AT_EXIT : CMT_AT_DIED;
    for (size_t i = 0; i < t->live.cap;) {
        struct live *l = cmt_htab_at(&t->live, i);
        if (cmt_hkey_used(&l->k)) {
            end_live(r, l, at, NULL, 0, 0);
            continue;
        }
        i++;
    }
    if (r->nleaks > 1) qsort(r->leaks, r->nleaks, sizeof *r->leaks, cmp_leak);
    if (cmt_marker_log_finish(&r->marks, t->sdc, t->nsdc) != 0) cmt_replay_lost(r);
    if (cmt_heaps_finish(r->heaps) != 0) cmt_replay_lost(r);
}

void cmt_replay_exit_slot(struct cmt_replay *r, const struct cmt_file_header *h) {
    if (r->have_exit || !h || h->version_major != 2 || h->version_minor < 3) return;
    uint32_t v = h->exit_status, how = v >> 8 & 0xff;
    if (!(v & CMT_EXIT_SLOT_SET) || how < CMT_EXIT_CLEAN || how > CMT_EXIT_EXEC) return;
    r->have_exit = 1;
    r->exit_how = how;
    r->exit_status = v & 0xff;
}

void cmt_replay_free(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    free(r->imported);
    free(r->python_info);
    for (size_t i = 0; i < r->ndevs; i++)
        free(r->devs[i].peak_top);
    free(r->devs);
    free(r->leaks);
    for (size_t i = 0; i < r->nooms; i++) {
        free(r->ooms[i].live_dev);
        free(r->ooms[i].live_bytes_dev);
        free(r->ooms[i].top);
    }
    free(r->ooms);
    for (size_t i = 0; i < r->nmods; i++) {
        free(r->mods[i].path);
        free(r->mods[i].build_id);
        free(r->mods[i].segs);
    }
    free(r->mods);
    cmt_marker_log_free(&r->marks);
    cmt_heaps_free(r->heaps);
    cmt_tests_free(&r->tests);
    if (t) {
        cmt_htab_free(&t->live);
        cmt_big_free(t->info, t->capinfo * sizeof *t->info);
        cmt_htab_free(&t->far_map);
        cmt_htab_free(&t->ck_map);
        free(t->cks);
        cmt_htab_free(&t->freed);
        free(t->ring_ptr);
        free(t->ring_space);
        cmt_htab_free(&t->sdc_map);
        free(t->sdc);
        free(t->sdc_peak);
        cmt_htab_free(&t->stack_map);
        for (size_t i = 0; i < t->nstacks; i++) {
            free((void *)t->stacks[i].frames);
            free((void *)t->stacks[i].py);
        }
        free(t->stacks);
        for (size_t i = 0; i < t->npycodes; i++) {
            free(t->pycodes[i].file);
            free(t->pycodes[i].name);
        }
        free(t->pycodes);
        cmt_htab_free(&t->dev_map);
        cmt_htab_free(&t->ctx_map);
        free(t->ctxdev);
        cmt_htab_free(&t->api_map);
        for (size_t i = 0; i < t->napi; i++)
            free(t->api_names[i]);
        free(t->api_names);
        cmt_htab_free(&t->leak_map);
        free(t);
    }
    memset(r, 0, sizeof *r);
}
