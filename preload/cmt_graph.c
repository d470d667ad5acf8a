/*
 * cmt_graph.c — see cmt_graph.h. Graph calls are rare: one mutex, uthash tables; the driver is
 * asked about a graph's nodes and edges when it is instantiated, outside the lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_graph.h"
#include "cmt_init.h"
#include "cmt_internal.h"
#include "cmt_resolve.h"
#include "cmt_writer.h"

#define HASH_NONFATAL_OOM 1
static int graph_oom;
#define uthash_nonfatal_oom(obj) (graph_oom = 1)
#include <uthash.h>

struct nstack { /* an alloc node's stack */
    UT_hash_handle hh;
    uint64_t node, graph, ptr;
    uint32_t stack;
};

struct gexec {
    UT_hash_handle hh;
    uint64_t key;
    struct cmt_gnode *ops;
    int n;
    unsigned long long flags;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct nstack *stacks;
static struct gexec *execs;

void cmt_graph_node_made(uint64_t node, uint64_t graph, uint64_t ptr, uint32_t stack) {
    pthread_mutex_lock(&lock);
    struct nstack *s = NULL;
    if (node) HASH_FIND(hh, stacks, &node, sizeof node, s);
    if (!s && (s = calloc(1, sizeof *s))) {
        s->node = node ? node : ptr | 1ull << 63; /* unknown handle: a key of its own */
        graph_oom = 0;
        HASH_ADD(hh, stacks, node, sizeof s->node, s);
        if (graph_oom) {
            free(s);
            s = NULL;
        }
    }
    if (s) {
        s->graph = graph;
        s->ptr = ptr;
        s->stack = stack;
    } else {
        cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    }
    pthread_mutex_unlock(&lock);
}

void cmt_graph_destroy(uint64_t graph) {
    pthread_mutex_lock(&lock);
    struct nstack *s, *tmp;
    HASH_ITER(hh, stacks, s, tmp) {
        if (s->graph == graph) {
            HASH_DEL(stacks, s);
            free(s);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* The stack of alloc node `node` (address ptr): by its handle, else the newest one made at ptr. */
static uint32_t node_stack(uint64_t node, uint64_t graph, uint64_t ptr) {
    uint32_t stack = 0;
    pthread_mutex_lock(&lock);
    struct nstack *s = NULL, *tmp;
    HASH_FIND(hh, stacks, &node, sizeof node, s);
    if (s && s->ptr == ptr) {
        stack = s->stack;
    } else {
        bool in_graph = false;
        HASH_ITER(hh, stacks, s, tmp) { /* a captured node whose handle the driver did not tell */
            if (s->ptr == ptr && (!in_graph || s->graph == graph)) {
                stack = s->stack;
                in_graph = s->graph == graph;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return stack;
}

/* ---- the walk: a graph's nodes flattened (child graphs in place), edges between them ---- */

enum { W_ALLOC, W_OTHER, W_FREE }; /* also the order ready nodes are taken in */

struct witem {
    uint64_t node; /* 0: the end of a child graph */
    int rank;
    int indeg, succ0, nsucc;
};
struct wmap {
    UT_hash_handle hh;
    uint64_t node;
    int item, exit; /* exit: the item its successors follow (a child graph node: its end) */
    bool has_pred;  /* an edge of its own graph leads to it */
};
struct walk {
    struct witem *items;
    int n, cap;
    int (*edges)[2];
    int nedges, capedges;
    struct wmap *map;
    bool failed;
};

static bool grow(void **p, int *cap, int n, size_t elem) {
    if (n < *cap) return true;
    int nc = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

static int item_new(struct walk *w, uint64_t node, int rank) {
    if (!grow((void **)&w->items, &w->cap, w->n, sizeof *w->items)) {
        w->failed = true;
        return -1;
    }
    w->items[w->n] = (struct witem){.node = node, .rank = rank};
    return w->n++;
}

static void edge_new(struct walk *w, int from, int to) {
    if (from < 0 || to < 0) return;
    if (!grow((void **)&w->edges, &w->capedges, w->nedges, sizeof *w->edges)) {
        w->failed = true;
        return;
    }
    w->edges[w->nedges][0] = from;
    w->edges[w->nedges++][1] = to;
}

static struct wmap *map_of(struct walk *w, uint64_t node) {
    struct wmap *m = NULL;
    HASH_FIND(hh, w->map, &node, sizeof node, m);
    return m;
}

/* Adds g's nodes (depending on item start, -1 at the top) and edges; returns g's nodes (malloc'd,
 * *count of them) for the caller to end a child graph with, or NULL. */
static CUgraphNode *walk_graph(struct walk *w, CUgraph g, int start, size_t *count, int depth) {
    size_t n = 0;
    *count = 0;
    if (depth > 64 || CMT_DRV(cuGraphGetNodes, g, NULL, &n) != CUDA_SUCCESS) {
        w->failed = true;
        return NULL;
    }
    CUgraphNode *nodes = malloc((n ? n : 1) * sizeof *nodes);
    if (!nodes || (n && CMT_DRV(cuGraphGetNodes, g, nodes, &n) != CUDA_SUCCESS)) {
        free(nodes);
        w->failed = true;
        return NULL;
    }
    for (size_t i = 0; i < n && !w->failed; i++) {
        CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
        if (CMT_DRV(cuGraphNodeGetType, nodes[i], &t) != CUDA_SUCCESS) w->failed = true;
        int rank = t == CU_GRAPH_NODE_TYPE_MEM_ALLOC ? W_ALLOC : t == CU_GRAPH_NODE_TYPE_MEM_FREE ? W_FREE : W_OTHER;
        struct wmap *m = calloc(1, sizeof *m);
        if (!m) {
            w->failed = true;
            break;
        }
        m->node = (uint64_t)(uintptr_t)nodes[i];
        m->item = m->exit = item_new(w, m->node, rank);
        graph_oom = 0;
        HASH_ADD(hh, w->map, node, sizeof m->node, m);
        if (graph_oom) {
            free(m);
            w->failed = true;
            break;
        }
        CUgraph child = NULL;
        if (t != CU_GRAPH_NODE_TYPE_GRAPH) continue;
        if (CMT_DRV(cuGraphChildGraphNodeGetGraph, nodes[i], &child) != CUDA_SUCCESS || !child) {
            w->failed = true;
            break;
        }
        size_t cn = 0;
        CUgraphNode *cnodes = walk_graph(w, child, m->item, &cn, depth + 1);
        m->exit = item_new(w, 0, W_OTHER);
        for (size_t k = 0; k < cn; k++) {
            struct wmap *c = map_of(w, (uint64_t)(uintptr_t)cnodes[k]);
            if (c) edge_new(w, c->exit, m->exit);
        }
        free(cnodes);
    }
    size_t ne = 0;
    CUgraphNode *from = NULL, *to = NULL;
    if (!w->failed && CMT_DRV(cuGraphGetEdges, g, NULL, NULL, &ne) != CUDA_SUCCESS) w->failed = true;
    if (!w->failed && ne) {
        from = malloc(ne * sizeof *from);
        to = malloc(ne * sizeof *to);
        if (!from || !to || CMT_DRV(cuGraphGetEdges, g, from, to, &ne) != CUDA_SUCCESS) w->failed = true;
    }
    for (size_t e = 0; e < ne && !w->failed; e++) {
        struct wmap *f = map_of(w, (uint64_t)(uintptr_t)from[e]), *t = map_of(w, (uint64_t)(uintptr_t)to[e]);
        if (!f || !t) continue; /* NULL entries past the real count */
        edge_new(w, f->exit, t->item);
        t->has_pred = true;
    }
    for (size_t i = 0; i < n && !w->failed && start >= 0; i++) {
        struct wmap *m = map_of(w, (uint64_t)(uintptr_t)nodes[i]);
        if (m && !m->has_pred) edge_new(w, start, m->item);
    }
    free(from);
    free(to);
    *count = n;
    return nodes;
}

/* Heap of ready items, least (rank, index) on top. */
static bool ready_less(const struct witem *it, int a, int b) {
    return it[a].rank != it[b].rank ? it[a].rank < it[b].rank : a < b;
}
static void heap_push(int *h, int *n, const struct witem *it, int x) {
    int i = (*n)++;
    h[i] = x;
    while (i && ready_less(it, h[i], h[(i - 1) / 2])) {
        int p = (i - 1) / 2, t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}
static int heap_pop(int *h, int *n, const struct witem *it) {
    int top = h[0], i = 0;
    h[0] = h[--*n];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && ready_less(it, h[l], h[m])) m = l;
        if (r < *n && ready_less(it, h[r], h[m])) m = r;
        if (m == i) break;
        int t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
    return top;
}

/* The memory operations of a launch of graph in order (malloc'd, *nops); NULL on failure. */
static struct cmt_gnode *graph_order(CUgraph graph, int *nops) {
    struct walk w = {0};
    size_t top = 0;
    free(walk_graph(&w, graph, -1, &top, 0));
    struct cmt_gnode *ops = NULL;
    int *succ = NULL, *heap = NULL, nop = 0;
    if (w.failed) goto out;
    for (int e = 0; e < w.nedges; e++) {
        w.items[w.edges[e][0]].nsucc++;
        w.items[w.edges[e][1]].indeg++;
    }
    int pos = 0;
    for (int i = 0; i < w.n; i++) {
        w.items[i].succ0 = pos;
        pos += w.items[i].nsucc;
        w.items[i].nsucc = 0;
    }
    succ = malloc((size_t)(w.nedges ? w.nedges : 1) * sizeof *succ);
    heap = malloc((size_t)(w.n ? w.n : 1) * sizeof *heap);
    ops = malloc((size_t)(w.n ? w.n : 1) * sizeof *ops);
    if (!succ || !heap || !ops) goto fail;
    for (int e = 0; e < w.nedges; e++) {
        struct witem *f = &w.items[w.edges[e][0]];
        succ[f->succ0 + f->nsucc++] = w.edges[e][1];
    }
    int nheap = 0, done = 0;
    for (int i = 0; i < w.n; i++)
        if (!w.items[i].indeg) heap_push(heap, &nheap, w.items, i);
    while (nheap) {
        int i = heap_pop(heap, &nheap, w.items);
        struct witem *x = &w.items[i];
        done++;
        for (int k = 0; k < x->nsucc; k++)
            if (--w.items[succ[x->succ0 + k]].indeg == 0) heap_push(heap, &nheap, w.items, succ[x->succ0 + k]);
        CUgraphNode node = (CUgraphNode)(uintptr_t)x->node;
        if (x->rank == W_ALLOC) {
            CUDA_MEM_ALLOC_NODE_PARAMS p;
            memset(&p, 0, sizeof p);
            if (CMT_DRV(cuGraphMemAllocNodeGetParams, node, &p) != CUDA_SUCCESS) goto fail;
            ops[nop++] = (struct cmt_gnode){
                .ptr = p.dptr,
                .size = p.bytesize,
                .stack = node_stack(x->node, (uint64_t)(uintptr_t)graph, p.dptr),
                .device = p.poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p.poolProps.location.id : -2};
        } else if (x->rank == W_FREE) {
            CUdeviceptr d = 0;
            if (CMT_DRV(cuGraphMemFreeNodeGetParams, node, &d) != CUDA_SUCCESS) goto fail;
            ops[nop++] = (struct cmt_gnode){.ptr = d, .is_free = true};
        }
    }
    if (done == w.n) goto out;
fail:
    free(ops);
    ops = NULL;
out:
    if (w.failed || !ops) nop = 0;
    struct wmap *m, *tmp;
    HASH_ITER(hh, w.map, m, tmp) {
        HASH_DEL(w.map, m);
        free(m);
    }
    free(w.items);
    free(w.edges);
    free(succ);
    free(heap);
    *nops = nop;
    return ops;
}

void cmt_graph_instantiate(uint64_t exec, uint64_t graph, unsigned long long flags) {
    int n = 0;
    struct cmt_gnode *ops = graph_order((CUgraph)(uintptr_t)graph, &n);
    if (!ops) {
        static atomic_int warned;
        cmt_warn_once(
            &warned,
            "warning: could not read a CUDA graph's nodes from the driver: its launches' memory is not tracked");
        cmt_counter_add(CMT_CTR_TABLE_FULL, 1);
    }
    pthread_mutex_lock(&lock);
    struct gexec *e = NULL;
    HASH_FIND(hh, execs, &exec, sizeof exec, e);
    if (!e && (e = calloc(1, sizeof *e))) {
        e->key = exec;
        graph_oom = 0;
        HASH_ADD(hh, execs, key, sizeof e->key, e);
        if (graph_oom) {
            free(e);
            e = NULL;
        }
    }
    if (e) {
        free(e->ops);
        e->ops = ops;
        e->n = n;
        e->flags = flags;
        ops = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(ops);
}

void cmt_graph_exec_destroy(uint64_t exec) {
    pthread_mutex_lock(&lock);
    struct gexec *e = NULL;
    HASH_FIND(hh, execs, &exec, sizeof exec, e);
    if (e) {
        HASH_DEL(execs, e);
        free(e->ops);
        free(e);
    }
    pthread_mutex_unlock(&lock);
}

struct cmt_gnode *cmt_graph_exec_nodes(uint64_t exec, int *n, unsigned long long *flags) {
    struct cmt_gnode *out = NULL;
    *n = 0;
    pthread_mutex_lock(&lock);
    struct gexec *e = NULL;
    HASH_FIND(hh, execs, &exec, sizeof exec, e);
    if (e && e->n && (out = malloc((size_t)e->n * sizeof *out))) {
        memcpy(out, e->ops, (size_t)e->n * sizeof *out);
        *n = e->n;
        *flags = e->flags;
    }
    pthread_mutex_unlock(&lock);
    return out;
}

void cmt_graph_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    stacks = NULL; /* abandoned: the parent's */
    execs = NULL;
}
CMT_LIFECYCLE(graph, 80, NULL, cmt_graph_fork_child);
