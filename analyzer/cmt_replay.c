/*
 * cmt_replay.c — event replay of one process. See cmt_replay.h. Hash tables are open addressing
 * with linear probing (the live table deletes by backward shift), sized in powers of two.
 */
#include "cmt_replay.h"
#include "cmt_pools.h"

#include <stdbool.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const char *const cmt_anomaly_names[CMT_AN_COUNT] = {
    "unknown_free", "double_free",     "failed_free",     "failed_calls",  "dropped_events",      "dropped_stacks",
    "table_full",   "truncated_dumps", "died_processes", "unmatched_proc", "captured_allocations",
};

const char *cmt_leak_at_name(int at) {
    return at == CMT_AT_TEARDOWN ? "teardown" : at == CMT_AT_DIED ? "died" : "exit";
}

/* Zeroed memory for a hash table. Big tables get transparent huge pages: their lookups are misses
 * all over the table, and a TLB miss costs as much as the cache miss (more on VMs). */
static void *table_alloc(size_t bytes) {
    if (bytes < (4u << 20)) return calloc(1, bytes);
    void *p = NULL;
    if (posix_memalign(&p, 2u << 20, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes & ~(size_t)4095, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

static inline uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6));
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

/* ---- map: (k1, k2) -> uint32 value, no deletion; one slot is one cache-friendly record ---- */
struct m2e {
    uint64_t k1, k2;
    uint32_t v; /* value + 1; 0: empty */
};
struct map2 {
    struct m2e *e;
    size_t cap, n;
};

static int map2_grow(struct map2 *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    struct m2e *e = table_alloc(ncap * sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].v) {
            size_t j = mix(m->e[i].k1, m->e[i].k2) & (ncap - 1);
            while (e[j].v) j = (j + 1) & (ncap - 1);
            e[j] = m->e[i];
        }
    free(m->e);
    m->e = e;
    m->cap = ncap;
    return 0;
}

/* Returns a pointer to the slot's value (value + 1, 0 when newly created), or NULL (no memory). */
static uint32_t *map2_slot(struct map2 *m, uint64_t a, uint64_t b) {
    if ((m->n + 1) * 4 > m->cap * 3 && map2_grow(m) != 0) return NULL;
    size_t j = mix(a, b) & (m->cap - 1);
    while (m->e[j].v) {
        if (m->e[j].k1 == a && m->e[j].k2 == b) return &m->e[j].v;
        j = (j + 1) & (m->cap - 1);
    }
    m->e[j].k1 = a;
    m->e[j].k2 = b;
    m->n++;
    return &m->e[j].v;
}

static uint32_t map2_get(const struct map2 *m, uint64_t a, uint64_t b) {
    if (!m->cap) return 0;
    size_t j = mix(a, b) & (m->cap - 1);
    while (m->e[j].v) {
        if (m->e[j].k1 == a && m->e[j].k2 == b) return m->e[j].v;
        j = (j + 1) & (m->cap - 1);
    }
    return 0;
}

static void map2_prefetch(const struct map2 *m, uint64_t a, uint64_t b) {
    if (m->cap) __builtin_prefetch(&m->e[mix(a, b) & (m->cap - 1)]);
}

static void map2_free(struct map2 *m) {
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- live table: (space, ptr) -> allocation ---- */
struct live {
    uint64_t ptr, size, granted, ctx;
    int64_t device;
    uint32_t sdc; /* stack-device counter index */
    uint8_t used, space, kind;
};

struct ltab {
    struct live *e;
    size_t cap, n;
};

static size_t ltab_find(const struct ltab *t, uint64_t space, uint64_t ptr) {
    if (!t->cap) return (size_t)-1;
    size_t j = mix(ptr, space) & (t->cap - 1);
    while (t->e[j].used) {
        if (t->e[j].ptr == ptr && t->e[j].space == space) return j;
        j = (j + 1) & (t->cap - 1);
    }
    return (size_t)-1;
}

static int ltab_grow(struct ltab *t) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    struct live *e = table_alloc(ncap * sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->e[i].used) {
            size_t j = mix(t->e[i].ptr, t->e[i].space) & (ncap - 1);
            while (e[j].used) j = (j + 1) & (ncap - 1);
            e[j] = t->e[i];
        }
    free(t->e);
    t->e = e;
    t->cap = ncap;
    return 0;
}

/* Inserts (or finds) the key; returns its slot or NULL. */
static struct live *ltab_put(struct ltab *t, uint64_t space, uint64_t ptr, int *existed) {
    if ((t->n + 1) * 4 > t->cap * 3 && ltab_grow(t) != 0) return NULL;
    size_t j = mix(ptr, space) & (t->cap - 1);
    while (t->e[j].used) {
        if (t->e[j].ptr == ptr && t->e[j].space == space) {
            *existed = 1;
            return &t->e[j];
        }
        j = (j + 1) & (t->cap - 1);
    }
    *existed = 0;
    memset(&t->e[j], 0, sizeof t->e[j]);
    t->e[j].used = 1;
    t->e[j].ptr = ptr;
    t->e[j].space = (uint8_t)space;
    t->n++;
    return &t->e[j];
}

static void ltab_del(struct ltab *t, size_t i) {
    size_t mask = t->cap - 1, j = i;
    t->e[i].used = 0;
    t->n--;
    for (;;) {
        j = (j + 1) & mask;
        if (!t->e[j].used) return;
        size_t home = mix(t->e[j].ptr, t->e[j].space) & mask;
        /* move e[j] into the hole at i when its home is not in (i, j] cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            t->e[i] = t->e[j];
            t->e[j].used = 0;
            i = j;
        }
    }
}

#define FREED_RING 65536
#define DEV_SMALL 64

/* observations of one (stack, device) counter across the markers of a series */
struct gstate {
    uint64_t first, last;
    uint32_t n, ups, downs;
};
struct series {
    char *label;
    uint64_t kind; /* CMT_MARK_POINT (marks and signals) or CMT_MARK_RANGE_PUSH */
    uint64_t n;
    struct gstate *st; /* indexed like sdc */
    size_t cap;
};

/* stack-device live counter */
struct sdc {
    uint64_t stack;
    int64_t device;
    uint64_t bytes, count;
};

struct cmt_replay_live {
    struct ltab live;
    struct ltab freed; /* recently freed keys, bounded by the ring */
    uint64_t *ring_ptr;
    uint8_t *ring_space;
    size_t ring_pos, ring_n;
    struct map2 sdc_map; /* (stack, device) -> sdc index */
    struct sdc *sdc;
    size_t nsdc, capsdc;
    struct map2 stack_map; /* (id, 0) -> stacks index */
    struct cmt_stack *stacks;
    size_t nstacks, capstacks;
    struct map2 dev_map; /* (ordinal, 0) -> devs index */
    uint32_t dev_small[DEV_SMALL]; /* ordinal -> devs index + 1 for small ordinals (0: ask dev_map) */
    size_t capdevs;
    struct map2 ctx_map; /* (ctx, 0) -> ctxdev index */
    int64_t *ctxdev;
    size_t nctx, capctx;
    struct map2 api_map; /* (api, 0) -> api_names index */
    char **api_names;
    size_t napi, capapi;
    struct map2 leak_map; /* (device<<10 | kind<<2 | at, stack) -> leaks index */
    size_t capleaks, capooms, capmods;
    /* marker series: per label and kind, the live bytes of every (stack, device) counter */
    struct series *series;
    size_t nseries, capseries, capmarkers, capgrowth;
    /* exact second pass */
    int snapshot_only;
    uint64_t *target_seq; /* per devs index (pass 2) */
    int oom_failed;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *np = realloc(*p, ncap * elem);
    if (!np) return -1;
    memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
    *p = np;
    *cap = ncap;
    return 0;
}

int cmt_replay_init(struct cmt_replay *r, size_t top_n) {
    memset(r, 0, sizeof *r);
    r->top_n = top_n ? top_n : 10;
    r->t = calloc(1, sizeof *r->t);
    if (!r->t) return -1;
    r->t->ring_ptr = calloc(FREED_RING, sizeof(uint64_t));
    r->t->ring_space = calloc(FREED_RING, 1);
    if (!r->t->ring_ptr || !r->t->ring_space) return -1;
    return 0;
}

static struct cmt_devstate *dev_get(struct cmt_replay *r, int64_t ord) {
    struct cmt_replay_live *t = r->t;
    if (ord >= 0 && ord < DEV_SMALL && t->dev_small[ord]) return &r->devs[t->dev_small[ord] - 1];
    uint32_t *slot = map2_slot(&t->dev_map, (uint64_t)ord, 0);
    if (!slot) return NULL;
    if (*slot) {
        if (ord >= 0 && ord < DEV_SMALL) t->dev_small[ord] = *slot;
        return &r->devs[*slot - 1];
    }
    if (grow((void **)&r->devs, &t->capdevs, r->ndevs + 1, sizeof *r->devs) != 0) return NULL;
    struct cmt_devstate *d = &r->devs[r->ndevs++];
    memset(d, 0, sizeof *d);
    d->ordinal = ord;
    *slot = (uint32_t)r->ndevs;
    return d;
}

const struct cmt_devstate *cmt_replay_device(const struct cmt_replay *r, int64_t ord) {
    uint32_t v = map2_get(&r->t->dev_map, (uint64_t)ord, 0);
    return v ? &r->devs[v - 1] : NULL;
}

const struct cmt_stack *cmt_replay_stack(const struct cmt_replay *r, uint64_t id) {
    uint32_t v = map2_get(&r->t->stack_map, id, 0);
    return v ? &r->t->stacks[v - 1] : NULL;
}

const char *cmt_replay_api_name(const struct cmt_replay *r, uint64_t api) {
    uint32_t v = map2_get(&r->t->api_map, api, 0);
    return v ? r->t->api_names[v - 1] : NULL;
}

int64_t cmt_replay_ctx_device(const struct cmt_replay *r, uint64_t ctx) {
    uint32_t v = map2_get(&r->t->ctx_map, ctx, 0);
    return v ? r->t->ctxdev[v - 1] : -2;
}

static uint32_t sdc_get(struct cmt_replay *r, uint64_t stack, int64_t device) {
    struct cmt_replay_live *t = r->t;
    uint32_t *slot = map2_slot(&t->sdc_map, stack, (uint64_t)device);
    if (!slot) return UINT32_MAX;
    if (*slot) return *slot - 1;
    if (grow((void **)&t->sdc, &t->capsdc, t->nsdc + 1, sizeof *t->sdc) != 0) return UINT32_MAX;
    t->sdc[t->nsdc] = (struct sdc){stack, device, 0, 0};
    *slot = (uint32_t)++t->nsdc;
    return *slot - 1;
}

/* Top n stacks live on device (by bytes desc, then stack id), into a new array. */
static struct cmt_stack_bytes *top_stacks(struct cmt_replay *r, int64_t device, size_t *nout) {
    size_t n = r->top_n, k = 0;
    struct cmt_stack_bytes *top = calloc(n ? n : 1, sizeof *top);
    if (!top) {
        *nout = 0;
        return NULL;
    }
    struct cmt_replay_live *t = r->t;
    for (size_t i = 0; i < t->nsdc; i++) {
        const struct sdc *s = &t->sdc[i];
        if (s->device != device || !s->bytes) continue;
        size_t pos = k;
        while (pos > 0 && (top[pos - 1].bytes < s->bytes || (top[pos - 1].bytes == s->bytes && top[pos - 1].stack > s->stack)))
            pos--;
        if (pos >= n) continue;
        size_t last = k < n ? k : n - 1;
        memmove(&top[pos + 1], &top[pos], (last - pos) * sizeof *top);
        top[pos] = (struct cmt_stack_bytes){s->stack, s->bytes, s->count};
        if (k < n) k++;
    }
    *nout = k;
    return top;
}

static void take_snapshot(struct cmt_replay *r, struct cmt_devstate *d) {
    free(d->peak_top);
    d->peak_top = top_stacks(r, d->ordinal, &d->npeak_top);
    d->snap_seq = d->peak_seq;
    d->snap_peak = d->peak;
    d->has_snap = 1;
    d->snap_pending = 0;
}

/* Before live bytes of d decrease: snapshot a pending peak (exact when taken; skipped when the peak
 * grew by less than 1% since the last snapshot, then pass 2 redoes it exactly). */
static inline void before_decrease(struct cmt_replay *r, struct cmt_devstate *d) {
    if (!d->snap_pending) return;
    if (r->t->snapshot_only) return;
    if (!d->has_snap || d->peak - d->snap_peak > d->snap_peak / 100) take_snapshot(r, d);
    else d->snap_pending = 0;
}

static void add_live(struct cmt_replay *r, const struct cmt_event *e, uint64_t space) {
    struct cmt_replay_live *t = r->t;
    int existed;
    struct live *l = ltab_put(&t->live, space, e->ptr, &existed);
    if (!l) return;
    if (existed) { /* allocated again without a free: replace (the old one was released unseen) */
        struct sdc *s = &t->sdc[l->sdc];
        struct cmt_devstate *d = l->device >= 0 ? dev_get(r, l->device) : NULL;
        if (d) before_decrease(r, d);
        s->bytes -= l->granted;
        s->count--;
        if (l->device >= 0) {
            if (d) {
                d->live -= l->granted;
                d->live_count--;
            }
        } else
            r->host_live -= l->granted;
    }
    l->size = e->size;
    l->granted = e->granted;
    l->ctx = e->ctx;
    l->device = e->device < 0 ? -1 : e->device;
    l->kind = (uint8_t)(e->kind < 255 ? e->kind : 255);
    uint32_t si = sdc_get(r, e->stack, l->device);
    if (si == UINT32_MAX) {
        ltab_del(&t->live, (size_t)(l - t->live.e));
        return;
    }
    l->sdc = si;
    t->sdc[si].bytes += e->granted;
    t->sdc[si].count++;
    if (t->freed.n) {
        size_t fi = ltab_find(&t->freed, space, e->ptr);
        if (fi != (size_t)-1) ltab_del(&t->freed, fi);
    }
    if (l->device >= 0) {
        struct cmt_devstate *d = dev_get(r, l->device);
        if (!d) return;
        d->live += e->granted;
        d->live_count++;
        if (d->live > d->peak) {
            d->peak = d->live;
            d->peak_time = e->time_ns;
            d->peak_seq = e->seq;
            d->snap_pending = 1;
        }
        if (t->snapshot_only && t->target_seq[d - r->devs] == e->seq) take_snapshot(r, d);
    } else {
        r->host_live += e->granted;
        if (r->host_live > r->host_peak) r->host_peak = r->host_live;
    }
}

static void remember_freed(struct cmt_replay *r, uint64_t space, uint64_t ptr) {
    struct cmt_replay_live *t = r->t;
    if (t->ring_n == FREED_RING) { /* evict the oldest */
        size_t fi = ltab_find(&t->freed, t->ring_space[t->ring_pos], t->ring_ptr[t->ring_pos]);
        if (fi != (size_t)-1) ltab_del(&t->freed, fi);
    } else
        t->ring_n++;
    t->ring_ptr[t->ring_pos] = ptr;
    t->ring_space[t->ring_pos] = (uint8_t)space;
    t->ring_pos = (t->ring_pos + 1) % FREED_RING;
    int existed;
    ltab_put(&t->freed, space, ptr, &existed);
}

static void add_leak(struct cmt_replay *r, const struct live *l, uint64_t stack, int at) {
    struct cmt_replay_live *t = r->t;
    uint64_t k1 = ((uint64_t)l->device << 10) | ((uint64_t)l->kind << 2) | (uint64_t)at;
    uint32_t *slot = map2_slot(&t->leak_map, k1, stack);
    if (!slot) return;
    if (!*slot) {
        if (grow((void **)&r->leaks, &t->capleaks, r->nleaks + 1, sizeof *r->leaks) != 0) return;
        r->leaks[r->nleaks] = (struct cmt_leak){l->device, l->kind, stack, at, 0, 0, 0};
        *slot = (uint32_t)++r->nleaks;
    }
    struct cmt_leak *k = &r->leaks[*slot - 1];
    k->bytes += l->granted;
    k->requested += l->size;
    k->allocations++;
}

/* Ends live allocation at slot i (free, or leak when at >= 0). */
static void end_live(struct cmt_replay *r, size_t i, int at) {
    struct cmt_replay_live *t = r->t;
    struct live *l = &t->live.e[i];
    struct sdc *s = &t->sdc[l->sdc];
    if (at >= 0 && !t->snapshot_only) add_leak(r, l, s->stack, at);
    struct cmt_devstate *d = l->device >= 0 ? dev_get(r, l->device) : NULL;
    if (d) before_decrease(r, d); /* the snapshot must see the state before this decrease */
    s->bytes -= l->granted;
    s->count--;
    if (l->device >= 0) {
        if (d) {
            d->live -= l->granted;
            d->live_count--;
            if (at >= 0) {
                d->leaked_bytes += l->granted;
                d->leaked_allocations++;
            }
        }
    } else {
        r->host_live -= l->granted;
        if (at >= 0) {
            r->host_leaked += l->granted;
            r->host_leaked_allocations++;
        }
    }
    ltab_del(&t->live, i);
}

static void do_free(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    uint64_t space = e->flags & CMT_FLAG_SPACE_MASK;
    if (e->flags & CMT_FLAG_CAPTURED) return;
    for (size_t k = r->nimported; k-- > 0;)
        if (r->imported[k].open && r->imported[k].space == space && r->imported[k].ptr == e->ptr) {
            r->imported[k].open = 0;
            return;
        }
    size_t i = ltab_find(&t->live, space, e->ptr);
    if (i == (size_t)-1) {
        if (!t->snapshot_only) {
            if (t->freed.n && ltab_find(&t->freed, space, e->ptr) != (size_t)-1) r->anomalies[CMT_AN_DOUBLE_FREE]++;
            else r->anomalies[CMT_AN_UNKNOWN_FREE]++;
        }
        return;
    }
    int64_t dev = t->live.e[i].device;
    if (dev >= 0) {
        struct cmt_devstate *d = dev_get(r, dev);
        if (d) d->frees++;
    } else
        r->host_frees++;
    end_live(r, i, -1);
    if (!t->snapshot_only) remember_freed(r, space, e->ptr);
}

static void do_teardown(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    int at = (e->flags & CMT_FLAG_AT_EXIT) ? CMT_AT_EXIT : CMT_AT_TEARDOWN;
    for (size_t i = 0; i < t->live.cap;) {
        struct live *l = &t->live.e[i];
        int match = 0;
        if (l->used) {
            /* ctx 0: every context of the device; memory of no context (VMM) is never ended */
            if (e->ctx) match = l->ctx == e->ctx;
            else
                match = l->ctx && cmt_replay_ctx_device(r, l->ctx) == e->device;
        }
        if (match) {
            end_live(r, i, at); /* backward shift may move another entry into i: look at i again */
            continue;
        }
        i++;
    }
}

static void do_oom(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (grow((void **)&r->ooms, &t->capooms, r->nooms + 1, sizeof *r->ooms) != 0) return;
    struct cmt_oom *o = &r->ooms[r->nooms++];
    memset(o, 0, sizeof *o);
    o->device = e->device;
    o->requested = e->size;
    o->stack = e->stack;
    o->api = e->api;
    o->seq = e->seq;
    o->time_ns = e->time_ns;
    const struct cmt_devstate *d = e->device >= 0 ? cmt_replay_device(r, e->device) : NULL;
    o->live_bytes = e->device >= 0 ? (d ? d->live : 0) : r->host_live;
    o->live_dev = calloc(r->ndevs + 1, sizeof *o->live_dev);
    o->live_bytes_dev = calloc(r->ndevs + 1, sizeof *o->live_bytes_dev);
    if (o->live_dev && o->live_bytes_dev) {
        for (size_t i = 0; i < r->ndevs; i++) {
            o->live_dev[i] = r->devs[i].ordinal;
            o->live_bytes_dev[i] = r->devs[i].live;
        }
        o->nlive = r->ndevs;
    }
    o->top = top_stacks(r, e->device < 0 ? -1 : e->device, &o->ntop);
}

static void def_module(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (grow((void **)&r->mods, &t->capmods, r->nmods + 1, sizeof *r->mods) != 0) return;
    struct cmt_module *m = &r->mods[r->nmods];
    memset(m, 0, sizeof *m);
    m->id = e->id;
    m->base = e->base;
    m->path = strndup(e->str1 ? e->str1 : "", e->str1_len);
    m->build_id = malloc(e->str2_len + 1);
    m->segs = malloc((e->nseg + 1) * sizeof *m->segs);
    if (!m->path || !m->build_id || !m->segs) {
        free(m->path);
        free(m->build_id);
        free(m->segs);
        return;
    }
    if (e->str2_len) memcpy(m->build_id, e->str2, e->str2_len);
    m->build_id_len = e->str2_len;
    memcpy(m->segs, e->segs, e->nseg * sizeof *m->segs);
    m->nseg = e->nseg;
    r->nmods++;
}

static void def_stack(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    uint32_t *slot = map2_slot(&t->stack_map, e->id, 0);
    if (!slot) return;
    uint64_t *fr = malloc((e->nframes + 1) * sizeof *fr);
    if (!fr) return;
    memcpy(fr, e->frames, e->nframes * sizeof *fr);
    if (*slot) { /* redefinition: the last one wins */
        struct cmt_stack *s = &t->stacks[*slot - 1];
        free((void *)s->frames);
        s->frames = fr;
        s->nframes = e->nframes;
        return;
    }
    if (grow((void **)&t->stacks, &t->capstacks, t->nstacks + 1, sizeof *t->stacks) != 0) {
        free(fr);
        return;
    }
    t->stacks[t->nstacks] = (struct cmt_stack){e->id, e->nframes, fr};
    *slot = (uint32_t)++t->nstacks;
}

static void copy_str(char *dst, size_t cap, const char *s, size_t n) {
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, s, n);
    dst[n] = 0;
}

static void do_marker(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (e->flags == CMT_MARK_RANGE_POP) return;
    uint64_t kind = e->flags == CMT_MARK_RANGE_PUSH ? CMT_MARK_RANGE_PUSH : CMT_MARK_POINT;
    const char *label = e->str1 ? e->str1 : "";
    size_t llen = e->str1_len;
    if (r->nmarkers >= CMT_MAX_MARKERS) {
        r->markers_dropped++;
    } else if (grow((void **)&r->markers, &t->capmarkers, r->nmarkers + 1, sizeof *r->markers) == 0) {
        struct cmt_marker_rec *m = &r->markers[r->nmarkers];
        m->label = strndup(label, llen);
        m->domain = strndup(e->str2 ? e->str2 : "", e->str2_len);
        m->flags = e->flags;
        m->time_ns = e->time_ns;
        m->seq = e->seq;
        m->dev = calloc(r->ndevs + 1, sizeof *m->dev);
        m->live = calloc(r->ndevs + 1, sizeof *m->live);
        if (m->label && m->domain && m->dev && m->live) {
            for (size_t i = 0; i < r->ndevs; i++) {
                m->dev[i] = r->devs[i].ordinal;
                m->live[i] = r->devs[i].live;
            }
            m->dev[r->ndevs] = -1;
            m->live[r->ndevs] = r->host_live;
            m->ndev = r->ndevs + 1;
            r->nmarkers++;
        } else {
            free(m->label);
            free(m->domain);
            free(m->dev);
            free(m->live);
        }
    }
    /* the series of this label and kind: observe every (stack, device) counter */
    struct series *s = NULL;
    for (size_t i = 0; i < t->nseries && !s; i++)
        if (t->series[i].kind == kind && strlen(t->series[i].label) == llen &&
            memcmp(t->series[i].label, label, llen) == 0)
            s = &t->series[i];
    if (!s) {
        if (grow((void **)&t->series, &t->capseries, t->nseries + 1, sizeof *t->series) != 0) return;
        s = &t->series[t->nseries];
        memset(s, 0, sizeof *s);
        s->label = strndup(label, llen);
        if (!s->label) return;
        s->kind = kind;
        t->nseries++;
    }
    if (grow((void **)&s->st, &s->cap, t->nsdc, sizeof *s->st) != 0) return;
    s->n++;
    for (size_t i = 0; i < t->nsdc; i++) {
        struct gstate *g = &s->st[i];
        uint64_t v = t->sdc[i].bytes;
        if (!g->n) g->first = v;
        else if (v > g->last) g->ups++;
        else if (v < g->last) g->downs++;
        g->last = v;
        g->n++;
    }
}

static int cmp_growth(const void *a, const void *b) {
    const struct cmt_growth *x = a, *y = b;
    if (x->bytes_per_marker != y->bytes_per_marker) return x->bytes_per_marker > y->bytes_per_marker ? -1 : 1;
    if (x->stack != y->stack) return x->stack < y->stack ? -1 : 1;
    return x->flags < y->flags ? -1 : x->flags > y->flags;
}

/* Stacks that grew persistently across a series: up at half the steps or more, down at a quarter
 * or fewer, and higher at the end than at the start. One entry per (stack, device, label). */
static void compute_growth(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    for (size_t k = 0; k < t->nseries; k++) {
        const struct series *s = &t->series[k];
        for (size_t i = 0; i < s->cap && i < t->nsdc; i++) {
            const struct gstate *g = &s->st[i];
            if (g->n < 3 || g->last <= g->first) continue;
            uint32_t steps = g->n - 1;
            if (g->ups * 2 < steps || g->downs * 4 > steps) continue;
            bool dup = false;
            for (size_t q = 0; q < r->ngrowth && !dup; q++)
                dup = r->growth[q].stack == t->sdc[i].stack && r->growth[q].device == t->sdc[i].device &&
                      !strcmp(r->growth[q].label, s->label);
            if (dup) continue;
            if (grow((void **)&r->growth, &t->capgrowth, r->ngrowth + 1, sizeof *r->growth) != 0) return;
            r->growth[r->ngrowth++] = (struct cmt_growth){
                .label = s->label, .flags = s->kind, .stack = t->sdc[i].stack, .device = t->sdc[i].device,
                .first_bytes = g->first, .last_bytes = g->last, .markers = g->n,
                .bytes_per_marker = (double)(g->last - g->first) / steps};
        }
    }
    if (r->ngrowth > 1) qsort(r->growth, r->ngrowth, sizeof *r->growth, cmp_growth);
}

void cmt_replay_event(struct cmt_replay *r, const struct cmt_event *e) {
    struct cmt_replay_live *t = r->t;
    if (!r->events++) r->first_time = e->time_ns;
    r->last_time = e->time_ns;
    switch (e->type) {
    case CMT_REC_ALLOC:
    case CMT_REC_RETRACK:
        if (e->flags & CMT_FLAG_CAPTURED) {
            if (!t->snapshot_only && e->type == CMT_REC_ALLOC) r->anomalies[CMT_AN_CAPTURED_ALLOCATIONS]++;
            break;
        }
        if (e->kind == CMT_KIND_IMPORTED) {
            if (grow((void **)&r->imported, &r->capimported, r->nimported + 1, sizeof *r->imported) != 0) break;
            r->imported[r->nimported++] = (struct cmt_imported){e->device, e->flags & CMT_FLAG_SPACE_MASK, e->ptr,
                                                                e->granted, 1};
            break;
        }
        if (!t->snapshot_only) {
            if (e->type == CMT_REC_RETRACK) r->anomalies[CMT_AN_FAILED_FREE]++;
            if (e->device >= 0) {
                struct cmt_devstate *d = dev_get(r, e->device);
                if (d) {
                    if (e->type == CMT_REC_ALLOC) d->allocations++;
                    else if (d->frees) d->frees--;
                }
            } else if (e->type == CMT_REC_ALLOC)
                r->host_allocations++;
            else if (r->host_frees)
                r->host_frees--;
        }
        add_live(r, e, e->flags & CMT_FLAG_SPACE_MASK);
        break;
    case CMT_REC_FREE:
        do_free(r, e);
        break;
    case CMT_REC_TEARDOWN:
        do_teardown(r, e);
        break;
    case CMT_REC_OOM:
        if (!t->snapshot_only) do_oom(r, e);
        break;
    case CMT_REC_FAILED:
        if (!t->snapshot_only) r->anomalies[CMT_AN_FAILED_CALLS]++;
        break;
    case CMT_REC_STACK:
        if (!t->snapshot_only) def_stack(r, e);
        break;
    case CMT_REC_DEVICE: {
        if (t->snapshot_only || e->device < 0) break;
        struct cmt_devstate *d = dev_get(r, e->device);
        if (!d) break;
        d->has_info = 1;
        memcpy(d->uuid, e->uuid, 16);
        copy_str(d->name, sizeof d->name, e->str1, e->str1_len);
        copy_str(d->pci, sizeof d->pci, e->str2, e->str2_len);
        d->total = e->total;
        break;
    }
    case CMT_REC_CTX: {
        uint32_t *slot = map2_slot(&t->ctx_map, e->ctx, 0);
        if (!slot) break;
        if (!*slot) {
            if (grow((void **)&t->ctxdev, &t->capctx, t->nctx + 1, sizeof *t->ctxdev) != 0) break;
            *slot = (uint32_t)++t->nctx;
        }
        t->ctxdev[*slot - 1] = e->device;
        break;
    }
    case CMT_REC_EXIT:
        if (t->snapshot_only) break;
        r->have_exit = 1;
        r->exit_how = e->how;
        r->exit_status = e->status;
        break;
    case CMT_REC_EXEC_FAILED:
        if (r->exit_how == CMT_EXIT_EXEC) r->have_exit = 0; /* the process went on */
        break;
    case CMT_REC_MODULE_LOAD:
        if (!t->snapshot_only) def_module(r, e);
        break;
    case CMT_REC_MODULE_UNLOAD:
        for (size_t i = 0; i < r->nmods; i++)
            if (r->mods[i].id == e->id) r->mods[i].unloaded = 1;
        break;
    case CMT_REC_UNMATCHED_PROC:
        r->unmatched_records++;
        break;
    case CMT_REC_MARKER:
        if (!t->snapshot_only) do_marker(r, e);
        break;
    case CMT_REC_SUBALLOC: {
        if (t->snapshot_only) break;
        if (!r->pools) r->pools = cmt_pools_new();
        int64_t device = -2;
        if (e->how == CMT_SUB_HEAP_REGISTER) {
            /* the heap lives in a tracked allocation: usually its base */
            size_t li = ltab_find(&t->live, CMT_SPACE_ADDR, e->ptr);
            if (li != (size_t)-1) device = t->live.e[li].device;
        }
        cmt_pools_event(r->pools, e, device);
        break;
    }
    case CMT_REC_API_NAME: {
        if (t->snapshot_only) break;
        uint32_t *slot = map2_slot(&t->api_map, e->id, 0);
        if (!slot) break;
        char *name = strndup(e->str1 ? e->str1 : "", e->str1_len);
        if (!name) break;
        if (*slot) {
            free(t->api_names[*slot - 1]);
            t->api_names[*slot - 1] = name;
            break;
        }
        if (grow((void **)&t->api_names, &t->capapi, t->napi + 1, sizeof *t->api_names) != 0) {
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
    if (r->hook) r->hook(r->hook_arg, e, r);
}

static int cmp_dev(const void *a, const void *b) {
    const struct cmt_devstate *x = a, *y = b;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
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
    /* a peak still pending is the current state of that device: snapshot it now */
    for (size_t i = 0; i < r->ndevs; i++)
        if (r->devs[i].snap_pending && !t->snapshot_only) take_snapshot(r, &r->devs[i]);
    int at = r->have_exit ? CMT_AT_EXIT : CMT_AT_DIED;
    for (size_t i = 0; i < t->live.cap;) {
        if (t->live.e[i].used) {
            end_live(r, i, at);
            continue;
        }
        i++;
    }
    if (r->nleaks > 1) qsort(r->leaks, r->nleaks, sizeof *r->leaks, cmp_leak);
    if (!t->snapshot_only) {
        compute_growth(r);
        cmt_pools_finish(r->pools);
    }
}

static void sort_devs(struct cmt_replay *r) {
    if (r->ndevs > 1) qsort(r->devs, r->ndevs, sizeof *r->devs, cmp_dev);
    struct cmt_replay_live *t = r->t;
    map2_free(&t->dev_map);
    memset(t->dev_small, 0, sizeof t->dev_small);
    for (size_t i = 0; i < r->ndevs; i++) {
        uint32_t *slot = map2_slot(&t->dev_map, (uint64_t)r->devs[i].ordinal, 0);
        if (slot) *slot = (uint32_t)i + 1;
    }
}

/* Pass 1 over d. Once the live table outgrows the caches, every lookup is a miss to memory: events
 * are then decoded LOOKAHEAD ahead of the one applied and the hash slots they will touch (live,
 * recently freed, stack-device counter, the freed key the ring will evict) are prefetched. Only
 * ALLOC/FREE/RETRACK are queued past: a queued event of another type may point into the reader's
 * per-stream buffers (STACK frames), so reading stops until it has been applied. */
#define LOOKAHEAD 16
#define PREFETCH_MIN_SLOTS 16384

static inline int hot_event(unsigned type) {
    return type == CMT_REC_ALLOC || type == CMT_REC_FREE || type == CMT_REC_RETRACK;
}

static void prefetch_event(const struct cmt_replay *r, const struct cmt_event *e, size_t ahead) {
    const struct cmt_replay_live *t = r->t;
    uint64_t h = mix(e->ptr, e->flags & CMT_FLAG_SPACE_MASK);
    __builtin_prefetch(&t->live.e[h & (t->live.cap - 1)]);
    if (t->freed.cap) __builtin_prefetch(&t->freed.e[h & (t->freed.cap - 1)]);
    if (e->type != CMT_REC_FREE) {
        map2_prefetch(&t->sdc_map, e->stack, (uint64_t)(e->device < 0 ? -1 : e->device));
    } else if (t->ring_n == FREED_RING && t->freed.cap) {
        size_t k = (t->ring_pos + ahead) % FREED_RING;
        __builtin_prefetch(&t->freed.e[mix(t->ring_ptr[k], t->ring_space[k]) & (t->freed.cap - 1)]);
    }
}

static int replay_pass1(struct cmt_replay *r, struct cmt_dump *d) {
    const struct cmt_replay_live *t = r->t;
    struct cmt_event q[LOOKAHEAD];
    size_t head = 0, n = 0;
    int blocked = 0, end = 0, rc = 0;
    const struct cmt_event *e;
    for (;;) {
        if (!n && t->live.cap < PREFETCH_MIN_SLOTS) { /* small tables: no queue, no copies */
            if ((rc = cmt_dump_next(d, &e)) <= 0) return rc;
            cmt_replay_event(r, e);
            continue;
        }
        while (n < LOOKAHEAD && !blocked && !end) {
            if ((rc = cmt_dump_next(d, &e)) <= 0) {
                end = 1;
                break;
            }
            struct cmt_event *c = &q[(head + n) % LOOKAHEAD];
            *c = *e;
            if (hot_event(c->type)) prefetch_event(r, c, n);
            else blocked = 1;
            n++;
        }
        if (!n) return rc;
        cmt_replay_event(r, &q[head]);
        head = (head + 1) % LOOKAHEAD;
        if (!--n) blocked = 0;
    }
}

int cmt_replay_dump(struct cmt_replay *r, struct cmt_dump *d) {
    const struct cmt_event *e;
    cmt_dump_rewind(d);
    if (replay_pass1(r, d) < 0) return -1;
    /* exactness of the peak snapshots: a device whose snapshot is older than its peak gets a
     * second pass that stops at the peak */
    int need = 0;
    for (size_t i = 0; i < r->ndevs; i++) {
        struct cmt_devstate *dv = &r->devs[i];
        if (dv->peak && !dv->snap_pending && dv->snap_seq != dv->peak_seq) need = 1;
    }
    if (need) {
        struct cmt_replay p2;
        if (cmt_replay_init(&p2, r->top_n) == 0) {
            p2.t->snapshot_only = 1;
            p2.t->target_seq = calloc(r->ndevs + 1, sizeof(uint64_t));
            /* same device order as r, so indexes line up */
            for (size_t i = 0; i < r->ndevs && p2.t->target_seq; i++) {
                dev_get(&p2, r->devs[i].ordinal);
                p2.t->target_seq[i] = r->devs[i].peak_seq;
            }
            uint64_t maxseq = 0;
            for (size_t i = 0; i < r->ndevs; i++)
                if (r->devs[i].peak_seq > maxseq) maxseq = r->devs[i].peak_seq;
            cmt_dump_rewind(d);
            while (p2.t->target_seq && cmt_dump_next(d, &e) > 0 && e->seq <= maxseq) cmt_replay_event(&p2, e);
            for (size_t i = 0; i < r->ndevs && p2.t->target_seq; i++)
                if (p2.devs[i].has_snap && p2.devs[i].snap_seq == r->devs[i].peak_seq) {
                    free(r->devs[i].peak_top);
                    r->devs[i].peak_top = p2.devs[i].peak_top;
                    r->devs[i].npeak_top = p2.devs[i].npeak_top;
                    p2.devs[i].peak_top = NULL;
                    r->devs[i].snap_seq = r->devs[i].peak_seq;
                }
        }
        cmt_replay_free(&p2);
    }
    cmt_replay_finish(r);
    sort_devs(r);
    return 0;
}

void cmt_replay_trim(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    if (!t) return;
    free(t->live.e);
    free(t->freed.e);
    memset(&t->live, 0, sizeof t->live);
    memset(&t->freed, 0, sizeof t->freed);
    free(t->ring_ptr);
    free(t->ring_space);
    t->ring_ptr = NULL;
    t->ring_space = NULL;
    t->ring_pos = t->ring_n = 0;
}

void cmt_replay_free(struct cmt_replay *r) {
    struct cmt_replay_live *t = r->t;
    free(r->imported);
    for (size_t i = 0; i < r->ndevs; i++) free(r->devs[i].peak_top);
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
    for (size_t i = 0; i < r->nmarkers; i++) {
        free(r->markers[i].label);
        free(r->markers[i].domain);
        free(r->markers[i].dev);
        free(r->markers[i].live);
    }
    free(r->markers);
    free(r->growth);
    cmt_pools_free(r->pools);
    if (t) {
        for (size_t i = 0; i < t->nseries; i++) {
            free(t->series[i].label);
            free(t->series[i].st);
        }
        free(t->series);
        free(t->live.e);
        free(t->freed.e);
        free(t->ring_ptr);
        free(t->ring_space);
        map2_free(&t->sdc_map);
        free(t->sdc);
        map2_free(&t->stack_map);
        for (size_t i = 0; i < t->nstacks; i++) free((void *)t->stacks[i].frames);
        free(t->stacks);
        map2_free(&t->dev_map);
        map2_free(&t->ctx_map);
        free(t->ctxdev);
        map2_free(&t->api_map);
        for (size_t i = 0; i < t->napi; i++) free(t->api_names[i]);
        free(t->api_names);
        map2_free(&t->leak_map);
        free(t->target_seq);
        free(t);
    }
    memset(r, 0, sizeof *r);
}
