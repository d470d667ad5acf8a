/*
 * cmt_pools.c — see cmt_pools.h. Regions are few compared with events: uthash tables.
 */
#include "cmt_pools.h"

#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "cmt_format.h"
#include "cmt_json.h"
#include "cmt_reader.h"
#include "cmt_report.h"

struct region {
    UT_hash_handle hh;
    uint64_t ptr, size, stack, heap;
};

struct heap {
    UT_hash_handle hh;
    uint64_t heap;
    size_t index; /* into pools */
};

struct cmt_pools {
    struct region *regions;
    struct heap *heaps;
    struct cmt_pool *pools;
    size_t n, cap;
};

struct cmt_pools *cmt_pools_new(void) { return calloc(1, sizeof(struct cmt_pools)); }

static struct cmt_pool *pool_of(struct cmt_pools *p, uint64_t heap) {
    struct heap *h;
    HASH_FIND(hh, p->heaps, &heap, sizeof heap, h);
    return h ? &p->pools[h->index] : NULL;
}

static void end_region(struct cmt_pools *p, struct region *r) {
    struct cmt_pool *pool = pool_of(p, r->heap);
    if (pool) {
        pool->live_regions--;
        pool->live_bytes -= r->size;
    }
    HASH_DEL(p->regions, r);
    free(r);
}

static void end_heap_regions(struct cmt_pools *p, uint64_t heap) {
    struct region *r, *tmp;
    HASH_ITER(hh, p->regions, r, tmp)
    if (r->heap == heap) end_region(p, r);
}

void cmt_pools_event(struct cmt_pools *p, const struct cmt_event *e, int64_t device) {
    if (!p) return;
    switch (e->how) {
    case CMT_SUB_HEAP_REGISTER: {
        struct cmt_pool *pool = pool_of(p, e->handle);
        if (!pool) {
            if (p->n == p->cap) {
                size_t nc = p->cap ? p->cap * 2 : 8;
                struct cmt_pool *np = realloc(p->pools, nc * sizeof *np);
                if (!np) return;
                p->pools = np;
                p->cap = nc;
            }
            struct heap *h = calloc(1, sizeof *h);
            if (!h) return;
            h->heap = e->handle;
            h->index = p->n;
            HASH_ADD(hh, p->heaps, heap, sizeof h->heap, h);
            pool = &p->pools[p->n++];
            memset(pool, 0, sizeof *pool);
        }
        free(pool->name);
        pool->heap = e->handle;
        pool->size = e->size;
        pool->name = strndup(e->str1 ? e->str1 : "", e->str1_len);
        pool->device = device;
        pool->unregistered = 0;
        break;
    }
    case CMT_SUB_HEAP_UNREGISTER:
    case CMT_SUB_HEAP_RESET: {
        end_heap_regions(p, e->handle);
        struct cmt_pool *pool = pool_of(p, e->handle);
        if (pool && e->how == CMT_SUB_HEAP_UNREGISTER) pool->unregistered = 1;
        break;
    }
    case CMT_SUB_REGION_REGISTER: {
        struct region *r;
        HASH_FIND(hh, p->regions, &e->ptr, sizeof e->ptr, r);
        if (r) end_region(p, r); /* registered again without an unregister */
        r = calloc(1, sizeof *r);
        if (!r) return;
        *r = (struct region){.ptr = e->ptr, .size = e->size, .stack = e->stack, .heap = e->handle};
        HASH_ADD(hh, p->regions, ptr, sizeof r->ptr, r);
        struct cmt_pool *pool = pool_of(p, e->handle);
        if (pool) {
            pool->registered++;
            pool->live_regions++;
            pool->live_bytes += e->size;
            if (pool->live_bytes > pool->peak_bytes) pool->peak_bytes = pool->live_bytes;
        }
        break;
    }
    case CMT_SUB_REGION_UNREGISTER: {
        struct region *r;
        HASH_FIND(hh, p->regions, &e->ptr, sizeof e->ptr, r);
        if (r) end_region(p, r);
        break;
    }
    case CMT_SUB_REGION_RESIZE: {
        struct region *r;
        HASH_FIND(hh, p->regions, &e->ptr, sizeof e->ptr, r);
        if (!r) break;
        struct cmt_pool *pool = pool_of(p, r->heap);
        if (pool) {
            pool->live_bytes = pool->live_bytes - r->size + e->size;
            if (pool->live_bytes > pool->peak_bytes) pool->peak_bytes = pool->live_bytes;
        }
        r->size = e->size;
        break;
    }
    default: break;
    }
}

static int cmp_pleak(const void *a, const void *b) {
    const struct cmt_pool_leak *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

void cmt_pools_finish(struct cmt_pools *p) {
    if (!p) return;
    struct region *r, *tmp;
    HASH_ITER(hh, p->regions, r, tmp) {
        struct cmt_pool *pool = pool_of(p, r->heap);
        if (!pool || pool->unregistered) continue;
        size_t k = 0;
        while (k < pool->nleaks && pool->leaks[k].stack != r->stack) k++;
        if (k == pool->nleaks) {
            struct cmt_pool_leak *nl = realloc(pool->leaks, (pool->nleaks + 1) * sizeof *nl);
            if (!nl) continue;
            pool->leaks = nl;
            pool->leaks[pool->nleaks++] = (struct cmt_pool_leak){r->stack, 0, 0};
        }
        pool->leaks[k].bytes += r->size;
        pool->leaks[k].regions++;
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->pools[i].nleaks > 1)
            qsort(p->pools[i].leaks, p->pools[i].nleaks, sizeof *p->pools[i].leaks, cmp_pleak);
}

const struct cmt_pool *cmt_pools_list(const struct cmt_pools *p, size_t *n) {
    *n = p ? p->n : 0;
    return p ? p->pools : NULL;
}

void cmt_pools_free(struct cmt_pools *p) {
    if (!p) return;
    struct region *r, *rt;
    HASH_ITER(hh, p->regions, r, rt) {
        HASH_DEL(p->regions, r);
        free(r);
    }
    struct heap *h, *ht;
    HASH_ITER(hh, p->heaps, h, ht) {
        HASH_DEL(p->heaps, h);
        free(h);
    }
    for (size_t i = 0; i < p->n; i++) {
        free(p->pools[i].name);
        free(p->pools[i].leaks);
    }
    free(p->pools);
    free(p);
}

void cmt_pools_text(struct cmt_analysis *a, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    int any = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        size_t n;
        const struct cmt_pool *v = cmt_pools_list(a->procs[i].replay.pools, &n);
        for (size_t k = 0; k < n; k++) {
            const struct cmt_pool *pl = &v[k];
            if (!any++) fprintf(f, "\npools (sub-allocations reported through NVTX memory heaps)\n");
            const struct cmt_devstate *d = pl->device >= 0 ? cmt_replay_device(&a->procs[i].replay, pl->device) : NULL;
            char where[96];
            if (pl->device < 0)
                snprintf(where, sizeof where, "memory of no tracked allocation");
            else if (d && d->has_info) {
                cmt_uuid_format(d->uuid, u);
                snprintf(where, sizeof where, "device %lld (%s)", (long long)pl->device, u);
            } else
                snprintf(where, sizeof where, "device %lld", (long long)pl->device);
            fprintf(f, "  pid %u heap 0x%llx \"%s\" %s on %s: %llu region%s live (%s), peak %s%s\n", a->procs[i].hdr.pid,
                    (unsigned long long)pl->heap, pl->name ? pl->name : "", cmt_human_size(pl->size, b1, sizeof b1), where,
                    (unsigned long long)pl->live_regions, pl->live_regions == 1 ? "" : "s",
                    cmt_human_size(pl->live_bytes, b2, sizeof b2), cmt_human_size(pl->peak_bytes, b3, sizeof b3),
                    pl->unregistered ? ", unregistered" : "");
            for (size_t q = 0; q < pl->nleaks && q < a->opts.top_n; q++) {
                fprintf(f, "    %s in %llu region%s still registered at the end:\n",
                        cmt_human_size(pl->leaks[q].bytes, b1, sizeof b1), (unsigned long long)pl->leaks[q].regions,
                        pl->leaks[q].regions == 1 ? "" : "s");
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, pl->leaks[q].stack);
                cmt_report_text_frames(f, &st, "        ");
                cmt_stack_sym_free(&st);
            }
        }
    }
}

void cmt_pools_json(struct cmt_analysis *a, struct cmt_json *j) {
    char buf[48];
    cmt_json_array(j, "pools");
    for (size_t i = 0; i < a->nprocs; i++) {
        size_t n;
        const struct cmt_pool *v = cmt_pools_list(a->procs[i].replay.pools, &n);
        for (size_t k = 0; k < n; k++) {
            const struct cmt_pool *pl = &v[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)pl->heap);
            cmt_json_str(j, "heap", buf);
            cmt_json_str(j, "name", pl->name);
            cmt_json_i64(j, "device", pl->device);
            const struct cmt_devstate *d = pl->device >= 0 ? cmt_replay_device(&a->procs[i].replay, pl->device) : NULL;
            if (d && d->has_info) cmt_uuid_format(d->uuid, buf);
            cmt_json_str(j, "uuid", d && d->has_info ? buf : NULL);
            cmt_json_u64(j, "bytes", pl->size);
            cmt_json_u64(j, "regions_registered", pl->registered);
            cmt_json_u64(j, "regions_live", pl->live_regions);
            cmt_json_u64(j, "live_bytes", pl->live_bytes);
            cmt_json_u64(j, "peak_bytes", pl->peak_bytes);
            cmt_json_bool(j, "unregistered", pl->unregistered);
            cmt_json_array(j, "leaks");
            for (size_t q = 0; q < pl->nleaks; q++) {
                cmt_json_object(j, NULL);
                cmt_json_u64(j, "bytes", pl->leaks[q].bytes);
                cmt_json_u64(j, "regions", pl->leaks[q].regions);
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, pl->leaks[q].stack);
                cmt_report_json_frames(j, &st);
                cmt_stack_sym_free(&st);
                cmt_json_object_end(j);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}
