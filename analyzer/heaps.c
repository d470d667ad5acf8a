/*
 * cmt_pools.c — see cmt_pools.h. Regions are few compared with events: uthash tables.
 */
#include "heaps.h"

#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "cmt_format.h"
#include "json.h"
#include "reader.h"
#include "analysis.h"

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
