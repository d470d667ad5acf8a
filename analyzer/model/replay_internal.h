/*
 * replay_internal.h — the replay's private state, shared by replay.c (applying records) and
 * replay_dump.c (driving a whole dump through it). Nothing else includes it.
 */
#ifndef CMT_REPLAY_INTERNAL_H
#define CMT_REPLAY_INTERNAL_H

#include "replay.h"

/* A live allocation: 16 bytes, keyed by (ptr, space); the rest in struct live_info (the table is
 * the one that misses the cache, so it holds nothing else). */
struct live {
    struct cmt_hkey k; /* a: ptr, b: space, val: its live_info index */
};
struct live_info { /* 16 bytes: four a cache line, none across two */
    uint64_t size;
    uint32_t sdc; /* its stack-device counter index (device: sdc's); the next free one when free */
    uint32_t gk;  /* (granted - size) << 8 | its (context, kind) index; low byte LIVE_GK_FAR: both in far_map */
};
_Static_assert(sizeof(struct live_info) == 16, "live_info: 16 bytes");
/* gk's low byte when granted < size, granted - size >= 2^24 or the (context, kind) index >= 255 */
#define LIVE_GK_FAR 0xffu
/* far_map's entries: granted and (context, kind) of a live allocation whose gk says LIVE_GK_FAR */
struct live_far {
    struct cmt_hkey k; /* a: its live_info index */
    uint64_t granted;
    uint32_t ck;
};
struct ctx_kind {
    uint64_t ctx;
    uint8_t kind;
};

#define FREED_RING 65536

struct freed_key {
    struct cmt_hkey k; /* a: ptr, b: space */
    uint64_t n;        /* the number of its latest free (0-based) */
};
#define DEV_SMALL 64

/* A direct-mapped memo in front of a map (a, b) -> index whose indexes never change: most
 * allocations repeat the (stack, device) and (context, kind) of a recent one, and a hit costs a
 * compare instead of a hash-table probe. */
#define MEMO_SLOTS 64
struct idx_memo {
    uint64_t a, b;
    uint32_t v; /* index + 1; 0: empty */
};
static inline struct idx_memo *cmt_memo_slot(struct idx_memo *m, uint64_t a, uint64_t b) {
    return &m[((a ^ (b << 7)) * 0x9e3779b97f4a7c15ull) >> 58]; /* 58 = 64 - log2(MEMO_SLOTS) */
}

#define UNKNOWN_FREE_WAYS 64
struct cmt_replay_live {
    struct cmt_htab live;
    struct live_info *info; /* cmt_grow_big array; free ones chained from info_free - 1 */
    size_t capinfo, ninfo;
    uint32_t info_free;
    struct cmt_htab far_map; /* live_info index -> struct live_far, for LIVE_GK_FAR */
    struct cmt_htab ck_map;  /* (ctx, kind) -> cks index */
    struct ctx_kind *cks;
    size_t ncks, capcks;
    /* recently freed keys (double free vs unknown free): the last FREED_RING frees, appended to a
     * ring on every free and indexed (freed: key -> its latest free number) only when a free misses
     * the live table, from the ring entries appended since the last miss */
    uint64_t *ring_ptr;
    uint8_t *ring_space;
    uint64_t nfreed, synced; /* frees remembered so far; how many of them freed indexes */
    struct cmt_htab freed;   /* entries struct freed_key */
    /* per writer (by writer mod UNKNOWN_FREE_WAYS), its latest free of an unknown pointer: a FAILED
     * of the same thread and API after it says the driver refused that free (preload/cmt_events.c
     * free_refused), so nothing was freed that the dump missed: not an unknown_free */
    struct unknown_free {
        uint32_t writer;
        uint8_t used, anomaly; /* anomaly: the one it was counted as (CMT_AN_UNKNOWN_FREE or _DOUBLE_FREE) */
        uint64_t api;
    } unknown_free[UNKNOWN_FREE_WAYS];
    struct cmt_htab sdc_map;              /* (stack, 0 for host or devs index + 1) -> sdc index */
    struct idx_memo sdc_memo[MEMO_SLOTS]; /* (stack, device ordinal) -> sdc index + 1 */
    struct idx_memo ck_memo[MEMO_SLOTS];  /* (ctx, kind) -> cks index + 1 */
    struct cmt_stack_live *sdc;
    size_t nsdc, capsdc;
    /* beside each counter, its value at its device's last peak when it changed since (replay.c
     * sdc_keep) */
    struct sdc_peak {
        uint64_t bytes, count;
        uint64_t epoch; /* the snapshot it belongs to (its device's snap_epoch then) */
    } * sdc_peak;
    size_t capsdc_peak;
    struct cmt_htab stack_map; /* (id, 0) -> stacks index */
    struct cmt_stack *stacks;
    size_t nstacks, capstacks;
    struct cmt_replay_pycode *pycodes; /* by PYCODE id - 1 (ids are dense from 1) */
    size_t npycodes, cappycodes;
    struct cmt_htab dev_map;       /* (ordinal, 0) -> devs index */
    uint32_t dev_small[DEV_SMALL]; /* ordinal -> devs index + 1 for small ordinals (0: ask dev_map) */
    int64_t dev_last_ord;          /* the device cmt_replay_dev_get found last, by ordinal (INT64_MIN: none; */
    struct cmt_devstate *dev_last; /* forgotten whenever devs moves: cmt_replay_devs_moved) */
    size_t capdevs;
    struct cmt_htab ctx_map; /* (ctx, 0) -> ctxdev index */
    int64_t *ctxdev;
    size_t nctx, capctx;
    struct cmt_htab api_map; /* (api, 0) -> api_names index */
    char **api_names;
    size_t napi, capapi;
    struct cmt_htab leak_map; /* (sdc index<<10 | kind<<2 | at, 0) -> leaks index */
    size_t capleaks, capooms, capmods;
};

/* The live table's find, put and delete, inlined for its 16-byte entries (util.h); h: the key's
 * hash, cmt_live_hash(ptr, space). */
static inline uint64_t cmt_live_hash(uint64_t ptr, uint64_t space) {
    return cmt_hkey_hash(ptr, (uint32_t)space);
}
static inline struct live *cmt_live_find(const struct cmt_replay_live *t, uint64_t ptr, uint64_t space, uint64_t h) {
    return cmt_htab_find_sz(&t->live, ptr, (uint32_t)space, sizeof(struct live), h);
}
static inline struct live *cmt_live_put(struct cmt_replay_live *t, uint64_t ptr, uint64_t space, int *existed,
                                        uint64_t h) {
    return cmt_htab_put_sz(&t->live, ptr, (uint32_t)space, existed, sizeof(struct live), h);
}
static inline void cmt_live_del(struct cmt_replay_live *t, struct live *l) {
    cmt_htab_del_sz(&t->live, l, sizeof(struct live));
}

/* The sdc_map key of a device (-1: host), given its state (NULL for the host). */
static inline uint32_t cmt_replay_devslot(const struct cmt_replay *r, const struct cmt_devstate *d) {
    return d ? (uint32_t)(d - r->devs) + 1 : 0;
}

/* cmt_replay_event for a record whose live-table key hash (cmt_live_hash of its ptr and space) the
 * caller has computed already (replay_dump.c: for the prefetch); h is ignored for other records. */
void cmt_replay_event_hashed(struct cmt_replay *r, const struct cmt_event *e, uint64_t h);

/* cmt_replay_dump queues records (replay_dump.c) once the live table has this many slots. */
#define CMT_REPLAY_QUEUE_MIN_SLOTS 16384

/* cmt_replay_event_hashed of n events in turn, the i-th q[(at + i) & mask] with hash hq[(at + i) & mask]
 * (mask: a power of two less one): replay_dump.c's queue, a batch at a time. slot[(at + i) & mask]: for
 * a FREE, the live table slot where its key was found when its live_info was prefetched, + 1 (0: not
 * looked for); only a hint, checked (the entry may have moved since, the table grown). */
void cmt_replay_run_hashed(struct cmt_replay *r, const struct cmt_event *q, const uint64_t *hq, const size_t *slot,
                           size_t mask, size_t at, size_t n);

/* Counts a record whose effect was lost for lack of memory: the figures are wrong, so the analysis
 * refuses to report them (analysis.c). */
static inline void cmt_replay_lost(struct cmt_replay *r) {
    r->out_of_memory++;
}
/* replay_defs.c: a STACK, PYCODE or MODULE_LOAD record kept (the last definition of an id wins) */
void cmt_replay_def_stack(struct cmt_replay *r, const struct cmt_event *e);
void cmt_replay_def_pycode(struct cmt_replay *r, const struct cmt_event *e);
void cmt_replay_def_module(struct cmt_replay *r, const struct cmt_event *e);
/* replay_observe.c (only with an observer): a (stack, device) counter of a GPU changed by the
 * allocation (ptr, granted and size bytes) beginning (up) or ending (at: -1 freed, else its leak verdict); what record
 * e changed (the GPUs' live bytes, an OOM, a sub-allocation, a marker) */
void cmt_replay_notify_stack(struct cmt_replay *r, const struct cmt_event *e, const struct cmt_stack_live *s, int up,
                             uint64_t ptr, uint64_t granted, uint64_t size, int at);
void cmt_replay_observe(struct cmt_replay *r, const struct cmt_event *e);
/* replay_top.c: every device's peak snapshot, at the end (none before its first peak); an OOM
 * record kept with what was live then */
void cmt_replay_peak_snapshots(struct cmt_replay *r);
void cmt_replay_oom(struct cmt_replay *r, const struct cmt_event *e);
/* The state of device ord, added when new; NULL when out of memory. Inline for the device found
 * last and small ordinals already seen (called a few times per event); the rest in replay.c. */
struct cmt_devstate *cmt_replay_dev_get_slow(struct cmt_replay *r, int64_t ord);
static inline struct cmt_devstate *cmt_replay_dev_get(struct cmt_replay *r, int64_t ord) {
    struct cmt_replay_live *t = r->t;
    if (ord == t->dev_last_ord) return t->dev_last;
    if ((uint64_t)ord < DEV_SMALL && t->dev_small[ord]) {
        t->dev_last_ord = ord;
        return t->dev_last = &r->devs[t->dev_small[ord] - 1];
    }
    return cmt_replay_dev_get_slow(r, ord);
}
/* r->devs moved or was reordered: cmt_replay_dev_get's last device is forgotten. */
static inline void cmt_replay_devs_moved(struct cmt_replay *r) {
    r->t->dev_last_ord = INT64_MIN;
    r->t->dev_last = NULL;
}

#endif
