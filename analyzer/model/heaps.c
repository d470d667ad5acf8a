/*
 * heaps.c — NVTX memory heaps; see heaps.h. Regions are few compared with events: uthash tables.
 */
#include "heaps.h"

#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "cmt_format.h"
#include "reader.h"

struct region {
    UT_hash_handle hh;
    uint64_t ptr, size, stack, heap;
};

struct heap_index {
    UT_hash_handle hh;
    uint64_t heap;
    size_t index; /* into list */
};

struct cmt_heaps {
    struct region *regions;
    struct heap_index *heaps;
    struct cmt_heap *list; /* in order of registration */
    size_t n, cap;
};

struct cmt_heaps *cmt_heaps_new(void) {
    return calloc(1, sizeof(struct cmt_heaps));
}

static struct cmt_heap *heap_of(struct cmt_heaps *p, uint64_t heap) {
    struct heap_index *h;
    HASH_FIND(hh, p->heaps, &heap, sizeof heap, h);
    return h ? &p->list[h->index] : NULL;
}

static void end_region(struct cmt_heaps *p, struct region *r) {
    struct cmt_heap *heap = heap_of(p, r->heap);
    if (heap) {
        heap->live_regions--;
        heap->live_bytes -= r->size;
    }
    HASH_DEL(p->regions, r);
    free(r);
}

static void end_heap_regions(struct cmt_heaps *p, uint64_t heap) {
    struct region *r, *tmp;
    HASH_ITER(hh, p->regions, r, tmp)
    if (r->heap == heap) end_region(p, r);
}

int cmt_heaps_event(struct cmt_heaps *p, const struct cmt_event *e, int64_t device) {
    if (!p) return 0;
    switch (e->op) {
    case CMT_SUB_HEAP_REGISTER: {
        struct cmt_heap *heap = heap_of(p, e->heap);
        if (!heap) {
            if (p->n == p->cap) {
                size_t nc = p->cap ? p->cap * 2 : 8;
                struct cmt_heap *np = realloc(p->list, nc * sizeof *np);
                if (!np) return -1;
                p->list = np;
                p->cap = nc;
            }
            struct heap_index *h = calloc(1, sizeof *h);
            if (!h) return -1;
            h->heap = e->heap;
            h->index = p->n;
            HASH_ADD(hh, p->heaps, heap, sizeof h->heap, h);
            heap = &p->list[p->n++];
            memset(heap, 0, sizeof *heap);
        }
        free(heap->name);
        heap->heap = e->heap;
        heap->size = e->size;
        heap->name = strndup(e->str1 ? e->str1 : "", e->str1_len);
        if (!heap->name) return -1;
        heap->device = device;
        heap->unregistered = 0;
        break;
    }
    case CMT_SUB_HEAP_UNREGISTER:
    case CMT_SUB_HEAP_RESET: {
        end_heap_regions(p, e->heap);
        struct cmt_heap *heap = heap_of(p, e->heap);
        if (heap && e->op == CMT_SUB_HEAP_UNREGISTER) heap->unregistered = 1;
        break;
    }
    case CMT_SUB_REGION_REGISTER: {
        struct region *r;
        HASH_FIND(hh, p->regions, &e->ptr, sizeof e->ptr, r);
        if (r) end_region(p, r); /* registered again without an unregister */
        r = calloc(1, sizeof *r);
        if (!r) return -1;
        *r = (struct region){.ptr = e->ptr, .size = e->size, .stack = e->stack, .heap = e->heap};
        HASH_ADD(hh, p->regions, ptr, sizeof r->ptr, r);
        struct cmt_heap *heap = heap_of(p, e->heap);
        if (heap) {
            heap->registered++;
            heap->live_regions++;
            heap->live_bytes += e->size;
            if (heap->live_bytes > heap->peak_bytes) heap->peak_bytes = heap->live_bytes;
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
        struct cmt_heap *heap = heap_of(p, r->heap);
        if (heap) {
            heap->live_bytes = heap->live_bytes - r->size + e->size;
            if (heap->live_bytes > heap->peak_bytes) heap->peak_bytes = heap->live_bytes;
        }
        r->size = e->size;
        break;
    }
    default:
        break;
    }
    return 0;
}

static int cmp_pleak(const void *a, const void *b) {
    const struct cmt_heap_leak *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int cmt_heaps_finish(struct cmt_heaps *p) {
    if (!p) return 0;
    int rc = 0;
    struct region *r, *tmp;
    HASH_ITER(hh, p->regions, r, tmp) {
        struct cmt_heap *heap = heap_of(p, r->heap);
        if (!heap || heap->unregistered) continue;
        size_t k = 0;
        while (k < heap->nleaks && heap->leaks[k].stack != r->stack)
            k++;
        if (k == heap->nleaks) {
            struct cmt_heap_leak *nl = realloc(heap->leaks, (heap->nleaks + 1) * sizeof *nl);
            if (!nl) {
                rc = -1;
                continue;
            }
            heap->leaks = nl;
            heap->leaks[heap->nleaks++] = (struct cmt_heap_leak){r->stack, 0, 0};
        }
        heap->leaks[k].bytes += r->size;
        heap->leaks[k].regions++;
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->list[i].nleaks > 1) qsort(p->list[i].leaks, p->list[i].nleaks, sizeof *p->list[i].leaks, cmp_pleak);
    return rc;
}

const struct cmt_heap *cmt_heaps_list(const struct cmt_heaps *p, size_t *n) {
    *n = p ? p->n : 0;
    return p ? p->list : NULL;
}

void cmt_heaps_free(struct cmt_heaps *p) {
    if (!p) return;
    struct region *r, *rt;
    HASH_ITER(hh, p->regions, r, rt) {
        HASH_DEL(p->regions, r);
        free(r);
    }
    struct heap_index *h, *ht;
    HASH_ITER(hh, p->heaps, h, ht) {
        HASH_DEL(p->heaps, h);
        free(h);
    }
    for (size_t i = 0; i < p->n; i++) {
        free(p->list[i].name);
        free(p->list[i].leaks);
    }
    free(p->list);
    free(p);
}
