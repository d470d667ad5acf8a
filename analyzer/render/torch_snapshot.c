/*
 * torch_snapshot.c — a process as PyTorch's memory snapshot; see torch_snapshot.h. The dict keys
 * are those of torch/csrc/cuda/memory_snapshot.cpp (_memory_snapshot_pickled).
 */
#include "torch_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "render.h"

static struct cmt_torch_event *push(struct cmt_torch_trace *t) {
    if (t->n == t->cap && cmt_grow_big((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v) != 0) {
        t->lost = 1;
        return NULL;
    }
    struct cmt_torch_event *e = &t->v[t->n++];
    memset(e, 0, sizeof *e);
    return e;
}

void cmt_torch_trace_init(struct cmt_torch_trace *t) {
    memset(t, 0, sizeof *t);
    cmt_htab_init(&t->live, sizeof(struct cmt_hkey), 1024);
    cmt_htab_init(&t->heap_map, sizeof(struct cmt_hkey), 16);
    cmt_htab_init(&t->regions, sizeof(struct cmt_hkey), 64);
}

/* Ends the live region whose entry in t->regions is slot (a REGION_FREE of the same block). */
static void end_region(struct cmt_torch_trace *t, void *slot, int64_t time_ns) {
    uint32_t k = ((const struct cmt_hkey *)slot)->val; /* its REGION_ALLOC + 1 */
    cmt_htab_del(&t->regions, slot);
    struct cmt_torch_event *e = push(t);
    if (!e) return;
    *e = t->v[k - 1];
    e->action = CMT_TORCH_REGION_FREE;
    e->time_ns = time_ns;
}

/* Ends every region of heap index h (its reset, unregister, or its memory freed). */
static void end_heap_regions(struct cmt_torch_trace *t, uint32_t h, int64_t time_ns) {
    for (size_t i = 0; i < t->regions.cap;) {
        struct cmt_hkey *k = cmt_htab_at(&t->regions, i);
        if (cmt_hkey_used(k) && t->v[k->val - 1].heap == h) {
            end_region(t, k, time_ns); /* another entry may move into slot i: look again */
            continue;
        }
        i++;
    }
}

/* An NVTX heap or region record: regions become blocks of the heap's device allocation. */
static void suballoc(struct cmt_torch_trace *t, const struct cmt_live_change *c) {
    uint32_t h = cmt_htab_get(&t->heap_map, c->heap, 0);
    struct torch_heap *hp = h ? &t->heaps[h - 1] : NULL;
    switch (c->op) {
    case CMT_SUB_HEAP_REGISTER: {
        if (hp)
            end_heap_regions(t, h, c->time_ns);
        else {
            uint32_t *slot = cmt_htab_slot(&t->heap_map, c->heap, 0);
            if (!slot || cmt_grow((void **)&t->heaps, &t->capheaps, t->nheaps + 1, sizeof *t->heaps) != 0) {
                t->lost = 1;
                return;
            }
            *slot = (uint32_t)++t->nheaps;
            h = *slot;
            hp = &t->heaps[h - 1];
        }
        /* the heap lives in a tracked allocation (at its base, as the report takes it): that
         * allocation is then a segment whose blocks are the regions */
        uint32_t a = cmt_htab_get(&t->live, c->ptr, 0);
        *hp = (struct torch_heap){a ? t->v[a - 1].device : -1, c->ptr, c->size, a};
        if (a) t->v[a - 1].pool = 1;
        return;
    }
    case CMT_SUB_HEAP_UNREGISTER:
    case CMT_SUB_HEAP_RESET:
        if (!hp) return;
        end_heap_regions(t, h, c->time_ns);
        if (c->op == CMT_SUB_HEAP_UNREGISTER) hp->device = -1;
        return;
    case CMT_SUB_REGION_REGISTER:
    case CMT_SUB_REGION_RESIZE: {
        struct cmt_hkey *old = cmt_htab_find(&t->regions, c->ptr, 0);
        uint64_t stack = c->stack;
        if (c->op == CMT_SUB_REGION_RESIZE) { /* a free and an allocation of the new size */
            if (!old) return;
            h = t->v[old->val - 1].heap;
            hp = &t->heaps[h - 1];
            stack = t->v[old->val - 1].stack;
        }
        if (old) end_region(t, old, c->time_ns); /* registered again: the old one ends */
        /* only a region inside its heap's allocation: MemoryViz places blocks in segments */
        if (!hp || hp->device < 0 || c->ptr < hp->base || c->size > hp->size || c->ptr - hp->base > hp->size - c->size)
            return;
        struct cmt_torch_event *e = push(t);
        uint32_t *slot = e ? cmt_htab_slot(&t->regions, c->ptr, 0) : NULL;
        if (!slot) {
            t->lost = 1;
            return;
        }
        *e = (struct cmt_torch_event){c->time_ns, c->ptr, c->size, c->size, stack, hp->device, CMT_TORCH_REGION_ALLOC,
                                      0,          0,      h};
        *slot = (uint32_t)t->n;
        return;
    }
    case CMT_SUB_REGION_UNREGISTER: {
        struct cmt_hkey *old = cmt_htab_find(&t->regions, c->ptr, 0);
        if (old) end_region(t, old, c->time_ns);
        return;
    }
    default:
        return;
    }
}

void cmt_torch_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c) {
    (void)r;
    struct cmt_torch_trace *t = arg;
    if (c->kind == CMT_CHANGE_SUBALLOC) {
        suballoc(t, c);
        return;
    }
    if (c->device < 0) return;
    if (c->kind == CMT_CHANGE_STACK) {
        uint32_t alloc = 0;                          /* the event that began this allocation + 1 */
        if (c->up && c->record == CMT_REC_RETRACK) { /* a refused free: the allocation never ended */
            int freed = 0;
            for (size_t i = t->n; i-- > 0 && !alloc;) {
                struct cmt_torch_event *e = &t->v[i];
                if (e->dropped || e->device != c->device || e->ptr != c->ptr ||
                    (e->action != CMT_TORCH_FREE && e->action != CMT_TORCH_ALLOC))
                    continue;
                if (e->action == CMT_TORCH_FREE && !freed) {
                    e->dropped = freed = 1;
                    continue;
                }
                if (e->action == CMT_TORCH_ALLOC && freed) alloc = (uint32_t)i + 1;
                break; /* its latest event is an allocation: record this one as one */
            }
            if (alloc) {
                uint32_t *slot = cmt_htab_slot(&t->live, c->ptr, 0);
                if (slot)
                    *slot = alloc;
                else
                    t->lost = 1;
                return;
            }
        }
        /* a teardown at exit (or the end) leaves what it ended live: the report's leaks at exit */
        if (!c->up && c->at >= 0 && c->at != CMT_AT_TEARDOWN) return;
        uint8_t pool = 0;
        void *slot = c->up ? NULL : cmt_htab_find(&t->live, c->ptr, 0);
        if (slot) { /* the regions of heaps in this allocation end first */
            alloc = ((const struct cmt_hkey *)slot)->val;
            pool = t->v[alloc - 1].pool;
            for (uint32_t h = 1; pool && h <= t->nheaps; h++)
                if (t->heaps[h - 1].alloc == alloc && t->heaps[h - 1].device >= 0) {
                    end_heap_regions(t, h, c->time_ns);
                    t->heaps[h - 1].device = -1;
                }
            cmt_htab_del(&t->live, slot);
        }
        struct cmt_torch_event *e = push(t);
        if (!e) return;
        *e = (struct cmt_torch_event){
            c->time_ns, c->ptr, c->granted, c->requested, c->stack, c->device, c->up ? CMT_TORCH_ALLOC : CMT_TORCH_FREE,
            0,          pool,   0};
        if (c->up) {
            uint32_t *live = cmt_htab_slot(&t->live, c->ptr, 0);
            if (live && t->n <= UINT32_MAX)
                *live = (uint32_t)t->n;
            else
                t->lost = 1;
        }
    } else if (c->kind == CMT_CHANGE_OOM) {
        struct cmt_torch_event *e = push(t);
        if (!e) return;
        uint64_t total = c->dev ? c->dev->total : 0;
        *e = (struct cmt_torch_event){c->time_ns,
                                      total > c->live ? total - c->live : 0,
                                      c->requested,
                                      c->requested,
                                      c->stack,
                                      c->device,
                                      CMT_TORCH_OOM,
                                      0,
                                      0,
                                      0};
    }
}

void cmt_torch_trace_free(struct cmt_torch_trace *t) {
    cmt_big_free(t->v, t->cap * sizeof *t->v);
    cmt_htab_free(&t->live);
    cmt_htab_free(&t->heap_map);
    cmt_htab_free(&t->regions);
    free(t->heaps);
    memset(t, 0, sizeof *t);
}

/* What the writer knows of a stack: its frame list's memo handle (0: not written yet) and
 * whether a caching allocator holds what it allocates (-1: not looked at yet). */
struct stack_info {
    uint32_t frames;
    int caching;
};

struct writer {
    struct cmt_pickle *p;
    struct cmt_analysis *a;
    size_t proc;
    int64_t clock_to_real; /* start_realtime_ns - start_clock_ns (0: no real time in the header) */
    struct cmt_htab map;   /* stack id -> infos index + 1 */
    struct stack_info *infos;
    size_t ninfos, capinfos;
    int oom;
};

static struct stack_info *stack_info(struct writer *w, uint64_t stack) {
    uint32_t *slot = cmt_htab_slot(&w->map, stack, 0);
    if (!slot) return NULL;
    if (!*slot) {
        if (cmt_grow((void **)&w->infos, &w->capinfos, w->ninfos + 1, sizeof *w->infos) != 0) return NULL;
        w->infos[w->ninfos] = (struct stack_info){0, -1};
        *slot = (uint32_t)++w->ninfos;
    }
    return &w->infos[*slot - 1];
}

/* Whether a caching allocator (caching.h: the built-in rules and --caching-allocator) allocated
 * through stack: the same match as the report's "cached", less the holders of whole buffers in use
 * (PyTorch's handle pool: cuBLAS's workspaces are allocated blocks, not a cache's free segment). */
static int held_by_cache(struct writer *w, uint64_t stack) {
    struct stack_info *si = stack_info(w, stack);
    if (!si) {
        w->oom = 1;
        return 0;
    }
    if (si->caching < 0) {
        struct cmt_stack_sym s = cmt_analysis_stack(w->a, w->proc, stack);
        const struct cmt_caching_rule *r =
            s.n ? cmt_caching_match_rule(w->a->opts.caching, &w->a->builtin_caching, s.frames, s.n) : NULL;
        /* (a --caching-allocator rule names a holder; whether its buffers are in use is the
         * built-in rules' knowledge: a broad user regex does not make cuBLAS's workspaces free) */
        const struct cmt_caching_rule *b =
            r && r->user ? cmt_caching_match_rule(NULL, &w->a->builtin_caching, s.frames, s.n) : r;
        si->caching = r && !(b && b->holds_buffers);
        cmt_stack_sym_free(&s);
    }
    return si->caching;
}

/* "frames": [{"filename", "line", "name"}, ...] of a stack, innermost first, every frame (hidden
 * ones too, as in report --json); a stack's list is written once, then referenced. */
static void frames(struct writer *w, uint64_t stack) {
    cmt_pk_str(w->p, "frames");
    struct stack_info *si = stack_info(w, stack);
    if (si && si->frames) {
        cmt_pk_memo_get(w->p, si->frames);
        return;
    }
    if (!si) w->oom = 1;
    cmt_pk_list(w->p);
    uint32_t h = cmt_pk_memoize(w->p);
    struct cmt_stack_sym s = cmt_analysis_stack(w->a, w->proc, stack);
    for (size_t i = 0; i < s.n; i++) {
        char buf[320];
        const char *file;
        int line;
        const char *name = cmt_frame_parts(&s.frames[i], buf, sizeof buf, &file, &line);
        cmt_pk_dict(w->p);
        cmt_pk_key_str(w->p, "filename", file);
        cmt_pk_key_int(w->p, "line", line);
        cmt_pk_key_str(w->p, "name", name ? name : "?");
        cmt_pk_close(w->p);
    }
    cmt_stack_sym_free(&s);
    cmt_pk_close(w->p);
    if ((si = stack_info(w, stack))) si->frames = h; /* the list's memo is valid from now on */
}

static int64_t time_us(const struct writer *w, int64_t t) {
    return cmt_add_sat(t, w->clock_to_real) / 1000;
}

/* One trace entry: action, addr (OOM: device_free), size, stream, time_us, frames. */
static void entry(struct writer *w, const char *action, const struct cmt_torch_event *e) {
    cmt_pk_dict(w->p);
    cmt_pk_key_str(w->p, "action", action);
    cmt_pk_key_uint(w->p, e->action == CMT_TORCH_OOM ? "device_free" : "addr", e->ptr);
    cmt_pk_key_uint(w->p, "size", e->size);
    cmt_pk_key_int(w->p, "stream", 0);
    cmt_pk_key_int(w->p, "time_us", time_us(w, e->time_ns));
    frames(w, e->stack);
    cmt_pk_close(w->p);
}

/* One device's trace: its events ev[0..n) (in the order they happened). */
static void device_trace(struct writer *w, const struct cmt_torch_trace *t, const size_t *ev, size_t n,
                         struct cmt_torch_summary *sum) {
    cmt_pk_list(w->p);
    for (size_t k = 0; k < n; k++) {
        const struct cmt_torch_event *e = &t->v[ev[k]];
        switch (e->action) {
        case CMT_TORCH_OOM:
            entry(w, "oom", e);
            sum->ooms++;
            break;
        case CMT_TORCH_REGION_ALLOC:
            entry(w, "alloc", e);
            break;
        case CMT_TORCH_REGION_FREE:
            entry(w, "free_requested", e);
            entry(w, "free_completed", e);
            break;
        case CMT_TORCH_ALLOC:
            entry(w, "segment_alloc", e);
            if (!e->pool && !held_by_cache(w, e->stack)) entry(w, "alloc", e);
            sum->allocations++;
            break;
        default:
            if (!e->pool && !held_by_cache(w, e->stack)) {
                entry(w, "free_requested", e);
                entry(w, "free_completed", e);
            }
            entry(w, "segment_free", e);
            break;
        }
    }
    cmt_pk_close(w->p);
}

/* The events of each device ordinal 0..top, in one pass: by_dev[first[d] .. first[d + 1]) are
 * device d's (their indexes into t->v, in order), refused frees (dropped) left out. -1: out of
 * memory. */
static int by_device(const struct cmt_torch_trace *t, int64_t top, size_t **by_dev, size_t **first) {
    size_t nd = (size_t)top + 1, *f = calloc(nd + 1, sizeof *f), *v = malloc((t->n + 1) * sizeof *v);
    if (!f || !v) {
        free(f);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) { /* counts, then where each device's run starts */
        const struct cmt_torch_event *e = &t->v[i];
        if (!e->dropped && e->device >= 0 && e->device <= top) f[e->device + 1]++;
    }
    for (size_t d = 0; d < nd; d++)
        f[d + 1] += f[d];
    size_t *at = calloc(nd, sizeof *at);
    if (!at) {
        free(f);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct cmt_torch_event *e = &t->v[i];
        if (!e->dropped && e->device >= 0 && e->device <= top) v[f[e->device] + at[e->device]++] = i;
    }
    free(at);
    *by_dev = v;
    *first = f;
    return 0;
}

static int cmp_live(const void *x, const void *y) {
    const struct cmt_torch_event *a = *(const struct cmt_torch_event *const *)x,
                                 *b = *(const struct cmt_torch_event *const *)y;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    return a->ptr < b->ptr ? -1 : a->ptr > b->ptr;
}

/* The allocations no event ended, by device then address (NULL with *n 0 when none; -1 out of
 * memory). */
static int live_at_end(const struct cmt_torch_trace *t, const struct cmt_torch_event ***out, size_t *n) {
    struct cmt_htab live; /* (ptr, device) -> the event that began it + 1 */
    cmt_htab_init(&live, sizeof(struct cmt_hkey), 1024);
    int rc = 0;
    for (size_t i = 0; i < t->n && !rc; i++) {
        const struct cmt_torch_event *e = &t->v[i];
        if (e->dropped || (e->action != CMT_TORCH_ALLOC && e->action != CMT_TORCH_FREE) || e->device < 0) continue;
        if (e->action == CMT_TORCH_ALLOC) {
            uint32_t *slot = i < UINT32_MAX ? cmt_htab_slot(&live, e->ptr, (uint32_t)e->device) : NULL;
            if (!slot)
                rc = -1;
            else
                *slot = (uint32_t)i + 1;
        } else {
            void *k = cmt_htab_find(&live, e->ptr, (uint32_t)e->device);
            if (k) cmt_htab_del(&live, k);
        }
    }
    const struct cmt_torch_event **v = rc ? NULL : malloc((live.n + 1) * sizeof *v);
    size_t k = 0;
    if (v) {
        for (size_t i = 0; i < live.cap; i++) {
            const struct cmt_hkey *h = cmt_htab_at(&live, i);
            if (cmt_hkey_used(h)) v[k++] = &t->v[h->val - 1];
        }
        qsort(v, k, sizeof *v, cmp_live);
    } else
        rc = -1;
    cmt_htab_free(&live);
    *out = v;
    *n = k;
    return rc;
}

/* One block of a segment. */
static void block(struct writer *w, uint64_t addr, uint64_t size, uint64_t requested, const char *state,
                  const uint64_t *stack) {
    cmt_pk_dict(w->p);
    cmt_pk_key_uint(w->p, "address", addr);
    cmt_pk_key_uint(w->p, "size", size);
    cmt_pk_key_uint(w->p, "requested_size", requested);
    cmt_pk_key_str(w->p, "state", state);
    if (stack)
        frames(w, *stack);
    else { /* an inactive block: nobody allocated it */
        cmt_pk_str(w->p, "frames");
        cmt_pk_list(w->p);
        cmt_pk_close(w->p);
    }
    cmt_pk_close(w->p);
}

/* A segment live at the end (e: its ALLOC); regions: the live regions of NVTX heaps, by device
 * and address. */
static void segment(struct writer *w, const struct cmt_torch_event *e, const struct cmt_torch_event *const *regions,
                    size_t nregions) {
    int cache = !e->pool && held_by_cache(w, e->stack);
    uint64_t used = cache ? 0 : e->size, requested = cache ? 0 : e->requested, end = e->ptr + e->size;
    size_t first = 0, last = 0; /* the regions inside it (a pool's segment) */
    if (e->pool) {
        used = requested = 0;
        while (first < nregions && (regions[first]->device < e->device ||
                                    (regions[first]->device == e->device && regions[first]->ptr < e->ptr)))
            first++;
        for (last = first; last < nregions && regions[last]->device == e->device && regions[last]->ptr < end; last++)
            if (regions[last]->size <= end - regions[last]->ptr) {
                used += regions[last]->size;
                requested += regions[last]->requested;
            }
    }
    cmt_pk_dict(w->p);
    cmt_pk_key_int(w->p, "device", e->device);
    cmt_pk_key_uint(w->p, "address", e->ptr);
    cmt_pk_key_uint(w->p, "total_size", e->size);
    cmt_pk_key_uint(w->p, "allocated_size", used);
    cmt_pk_key_uint(w->p, "active_size", used);
    cmt_pk_key_uint(w->p, "requested_size", requested);
    cmt_pk_key_int(w->p, "stream", 0);
    cmt_pk_key_str(w->p, "segment_type", e->size > (1u << 20) ? "large" : "small");
    cmt_pk_str(w->p, "segment_pool_id");
    cmt_pk_tuple(w->p);
    cmt_pk_int(w->p, 0);
    cmt_pk_int(w->p, 0);
    cmt_pk_close(w->p);
    cmt_pk_str(w->p, "is_expandable");
    cmt_pk_bool(w->p, 0);
    frames(w, e->stack);
    cmt_pk_str(w->p, "blocks");
    cmt_pk_list(w->p);
    if (!e->pool) /* what a cache holds inside is not known: one inactive block */
        block(w, e->ptr, e->size, requested, cache ? "inactive" : "active_allocated", cache ? NULL : &e->stack);
    else { /* the regions in address order, inactive blocks between them (the blocks tile it) */
        uint64_t at = e->ptr;
        for (size_t i = first; i < last; i++) {
            const struct cmt_torch_event *g = regions[i];
            if (g->ptr < at || g->size > end - g->ptr) continue; /* overlaps the one before, or past the end */
            if (g->ptr > at) block(w, at, g->ptr - at, 0, "inactive", NULL);
            block(w, g->ptr, g->size, g->requested, "active_allocated", &g->stack);
            at = g->ptr + g->size;
        }
        if (at < end) block(w, at, end - at, 0, "inactive", NULL);
    }
    cmt_pk_close(w->p);
    cmt_pk_close(w->p);
}

int cmt_torch_write(FILE *f, struct cmt_analysis *a, size_t proc, const struct cmt_torch_trace *t,
                    struct cmt_torch_summary *sum) {
    const struct cmt_process *pr = &a->procs[proc];
    struct writer w = {.a = a, .proc = proc};
    memset(sum, 0, sizeof *sum);
    if (pr->hdr.start_realtime_ns) w.clock_to_real = cmt_sub_sat(pr->hdr.start_realtime_ns, pr->hdr.start_clock_ns);
    cmt_htab_init(&w.map, sizeof(struct cmt_hkey), 256);
    const struct cmt_torch_event **live, **regions = malloc((t->regions.n + 1) * sizeof *regions);
    size_t nlive, nregions = 0;
    int rc = live_at_end(t, &live, &nlive);
    for (size_t i = 0; regions && i < t->regions.cap; i++) { /* the NVTX regions live at the end */
        const struct cmt_hkey *k = cmt_htab_at(&t->regions, i);
        if (cmt_hkey_used(k)) regions[nregions++] = &t->v[k->val - 1];
    }
    if (nregions > 1) qsort(regions, nregions, sizeof *regions, cmp_live);
    w.p = rc || !regions ? NULL : cmt_pk_new(f);
    if (!w.p) {
        free(live);
        free(regions);
        cmt_htab_free(&w.map);
        return -1;
    }
    /* one trace per ordinal from 0 to the largest the process used (devs: sorted by ordinal); at
     * least device 0's, as PyTorch writes one per visible device (and MemoryViz opens device 0) */
    const struct cmt_replay *r = &pr->replay;
    int64_t top = r->ndevs && r->devs[r->ndevs - 1].ordinal > 0 ? r->devs[r->ndevs - 1].ordinal : 0;
    cmt_pk_dict(w.p);
    cmt_pk_str(w.p, "segments");
    cmt_pk_list(w.p);
    for (size_t i = 0; i < nlive; i++) {
        segment(&w, live[i], regions, nregions);
        sum->live_bytes += live[i]->size;
    }
    cmt_pk_close(w.p);
    cmt_pk_str(w.p, "device_traces");
    cmt_pk_list(w.p);
    size_t *by_dev = NULL, *first = NULL;
    if (by_device(t, top, &by_dev, &first) != 0)
        w.oom = 1;
    else
        for (int64_t d = 0; d <= top; d++)
            device_trace(&w, t, by_dev + first[d], first[d + 1] - first[d], sum);
    free(by_dev);
    free(first);
    cmt_pk_close(w.p);
    cmt_pk_close(w.p);
    sum->devices = (size_t)(top + 1);
    sum->segments = nlive;
    rc = cmt_pk_end(w.p) || w.oom ? -1 : 0;
    free(live);
    free(regions);
    free(w.infos);
    cmt_htab_free(&w.map);
    return rc;
}
