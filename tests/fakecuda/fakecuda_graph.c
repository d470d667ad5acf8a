/*
 * fakecuda_graph.c — the fake driver's graphs: node creation, queries, clone, instantiation, the
 * order a launch runs memory nodes in, upload, update. Not a translation unit of its own: it is
 * included by fakecuda.c (after the streams and capture), whose state and helpers it uses (the
 * allocation table, fk_lock, the graph node helpers).
 */

/* Graphs (CUDA Programming Guide, "Graph Memory Nodes"; driver API reference, Graph Management).
 * Nodes and edges are kept as made (cuGraphAdd*Node, cuGraphAddNode, stream capture, where an
 * operation depends on the capturing stream's dependencies and joined streams bring theirs through
 * events). An alloc node's address is fixed when the node is made; the memory is allocated
 * (counted against the device, alloc_calls) when a launch reaches the node and freed by a free
 * node of a launch, by cuMemFree / cuMemFreeAsync outside the graph, or, for an executable
 * instantiated with AUTO_FREE_ON_LAUNCH, at its next launch (without it, relaunching while the
 * memory is still allocated fails). A launch runs its graph's nodes in a topological order of
 * the edges, child graphs in place of their node; where the edges leave nodes unordered it takes
 * ready alloc nodes first, then other nodes, then free nodes (what the driver must back when
 * unordered branches run at once). Destroying the graph or the executable frees nothing. Graphs
 * with memory nodes: one executable at a time, no clone (cuGraphClone: NOT_SUPPORTED), a child
 * graph only when moved in (cuGraphAddNode, CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE), no device
 * launch (instantiation refused). cuGraphExecUpdate pairs top-level nodes in creation order and
 * refuses a changed topology, node type or memory node. cuGraphUpload has no effect on graph
 * memory (it is allocated when a launch reaches the node). This fake returns graph memory to the
 * device at once: cuDeviceGraphMemTrim has nothing to do, and reserved equals used in
 * cuDeviceGetGraphMemAttribute. */
static size_t fk_graph_high[FK_MAX_DEV];

static void fk_graph_free_nodes(struct fk_graph *g)
{
    for (int i = 0; i < g->n; i++) {
        struct fk_gnode *n = g->nodes[i];
        if (n->alloc)
            fk_graph_release(n->alloc);
        if (n->child) {
            fk_graph_free_nodes(n->child);
            free(n->child);
        }
        n->magic = 0;
        free(n->deps);
        free(n);
    }
    free(g->nodes);
    g->nodes = NULL;
    g->n = g->cap = 0;
    g->magic = 0;
}

FK_EXPORT CUresult cuGraphDestroy(CUgraph hg)
{
    ENTER();
    NEED_INIT();
    struct fk_graph *g = (struct fk_graph *)hg;
    if (!g || g->magic != FK_MAGIC_GRAPH || g->owned)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    fk_graph_free_nodes(g); /* live graph memory outlives its graph (Graph Memory Nodes) */
    int keep = g->nexec > 0; /* its executables still name it */
    pthread_mutex_unlock(&fk_lock);
    if (!keep)
        free(g);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphCreate(CUgraph *pg, unsigned int flags)
{
    ENTER();
    NEED_INIT();
    if (!pg || flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_graph *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->magic = FK_MAGIC_GRAPH;
    *pg = (CUgraph)g;
    return CUDA_SUCCESS;
}

static struct fk_graph *fk_graph_of(CUgraph hg)
{
    struct fk_graph *g = (struct fk_graph *)hg;
    return g && g->magic == FK_MAGIC_GRAPH ? g : NULL;
}

/* fk_lock held. */
static CUresult fk_add_alloc_node(struct fk_gnode **out, struct fk_graph *g, const CUgraphNode *deps, size_t ndeps,
                                  const CUmemPoolProps *props, size_t bytesize, CUdeviceptr *dptr)
{
    if (!g || g->owned || !bytesize || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fk_valid_dev(props->location.id))
        return CUDA_ERROR_INVALID_DEVICE;
    void *m = fk_mem(bytesize);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fk_gnode *n = fk_gnode_add(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, deps, ndeps);
    if (!n) {
        free(m);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct fk_alloc *a =
        fk_insert((uintptr_t)m, CMT_SPACE_ADDR, CMT_KIND_GRAPH, props->location.id, bytesize, NULL, m);
    if (!a) { /* (out of memory in a test fake: the node stays, allocating nothing) */
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->graph = g;
    a->owners = 1;
    n->alloc = a;
    *dptr = (CUdeviceptr)(uintptr_t)m;
    *out = n;
    return CUDA_SUCCESS;
}

/* fk_lock held. */
static CUresult fk_add_free_node(struct fk_gnode **out, struct fk_graph *g, const CUgraphNode *deps, size_t ndeps,
                                 CUdeviceptr dptr)
{
    if (!g || g->owned)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_alloc *a = fk_find((uintptr_t)dptr, CMT_SPACE_ADDR, NULL);
    if (!a || a->kind != CMT_KIND_GRAPH || fk_graph_find_free(g, (uintptr_t)dptr))
        return CUDA_ERROR_INVALID_VALUE; /* not an alloc node's address, or freed twice in g */
    struct fk_gnode *n = fk_gnode_add(g, CU_GRAPH_NODE_TYPE_MEM_FREE, deps, ndeps);
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    n->dptr = (uintptr_t)dptr;
    *out = n;
    return CUDA_SUCCESS;
}

/* A copy of src (no memory nodes): nodes, edges, child graphs. fk_lock held. */
static struct fk_graph *fk_graph_clone(const struct fk_graph *src)
{
    struct fk_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->magic = FK_MAGIC_GRAPH;
    for (int i = 0; i < src->n; i++) {
        const struct fk_gnode *o = src->nodes[i];
        CUgraphNode deps[o->ndeps + 1];
        for (int k = 0; k < o->ndeps; k++) {
            int j = 0;
            while (src->nodes[j] != o->deps[k])
                j++;
            deps[k] = (CUgraphNode)g->nodes[j];
        }
        struct fk_gnode *n = fk_gnode_add(g, o->type, deps, (size_t)o->ndeps);
        if (n) {
            n->host_fn = o->host_fn;
            n->host_data = o->host_data;
        }
        if (n && o->child && (n->child = fk_graph_clone(o->child)))
            n->child->owned = 1;
        if (!n || (o->child && !n->child)) {
            fk_graph_free_nodes(g);
            free(g);
            return NULL;
        }
    }
    return g;
}

/* fk_lock held. */
static CUresult fk_add_child_node(struct fk_gnode **out, struct fk_graph *g, const CUgraphNode *deps, size_t ndeps,
                                  struct fk_graph *child, CUgraphChildGraphNodeOwnership own)
{
    if (!g || !child || child == g || child->owned || (own != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE &&
                                                        own != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE))
        return CUDA_ERROR_INVALID_VALUE;
    if (own == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE && fk_graph_has_mem(child))
        return CUDA_ERROR_INVALID_VALUE; /* memory nodes only in a child graph moved in */
    if (own == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE && child->nexec)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_graph *c = own == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE ? child : fk_graph_clone(child);
    struct fk_gnode *n = c ? fk_gnode_add(g, CU_GRAPH_NODE_TYPE_GRAPH, deps, ndeps) : NULL;
    if (!n) {
        if (c && c != child) {
            fk_graph_free_nodes(c);
            free(c);
        }
        return c ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->owned = 1;
    n->child = c;
    *out = n;
    return CUDA_SUCCESS;
}

/* fk_lock held. */
static CUresult fk_add_plain_node(struct fk_gnode **out, struct fk_graph *g, const CUgraphNode *deps, size_t ndeps,
                                  CUgraphNodeType type)
{
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_gnode *n = fk_gnode_add(g, type, deps, ndeps);
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    *out = n;
    return CUDA_SUCCESS;
}

#define FK_ADD_NODE(call)                                                                          \
    do {                                                                                           \
        if (!node)                                                                                 \
            return CUDA_ERROR_INVALID_VALUE;                                                       \
        struct fk_gnode *n_ = NULL;                                                                \
        pthread_mutex_lock(&fk_lock);                                                              \
        CUresult r_ = call;                                                                        \
        pthread_mutex_unlock(&fk_lock);                                                            \
        if (r_ == CUDA_SUCCESS)                                                                    \
            *node = (CUgraphNode)n_;                                                               \
        return r_;                                                                                 \
    } while (0)

FK_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                          CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    ENTER();
    NEED_INIT();
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    FK_ADD_NODE(fk_add_alloc_node(&n_, fk_graph_of(hg), deps, ndeps, &p->poolProps, p->bytesize, &p->dptr));
}

FK_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                         CUdeviceptr dptr)
{
    ENTER();
    NEED_INIT();
    FK_ADD_NODE(fk_add_free_node(&n_, fk_graph_of(hg), deps, ndeps, dptr));
}

FK_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                        const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    (void)ctx;
    if (!p || !p->dst)
        return CUDA_ERROR_INVALID_VALUE;
    FK_ADD_NODE(fk_add_plain_node(&n_, fk_graph_of(hg), deps, ndeps, CU_GRAPH_NODE_TYPE_MEMSET));
}

/* Kernel and copy nodes: no code runs on this fake (a kernel node does nothing; a copy node is
 * not performed); they order the other nodes. */
FK_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                           const CUDA_KERNEL_NODE_PARAMS *p)
{
    ENTER();
    NEED_INIT();
    if (!p || (!p->func && !p->kern))
        return CUDA_ERROR_INVALID_VALUE;
    FK_ADD_NODE(fk_add_plain_node(&n_, fk_graph_of(hg), deps, ndeps, CU_GRAPH_NODE_TYPE_KERNEL));
}

FK_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                        const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    ENTER();
    NEED_INIT();
    (void)ctx;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    FK_ADD_NODE(fk_add_plain_node(&n_, fk_graph_of(hg), deps, ndeps, CU_GRAPH_NODE_TYPE_MEMCPY));
}

/* A kernel launch: nothing runs; on a capturing stream it is a kernel node of the capture. */
static CUresult fk_launch_kernel(CUfunction f, CUstream s)
{
    NEED_INIT();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fk_stream *st = fk_stream_of(s);
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&fk_lock);
    if (st && st->capturing && !fk_capture_node(st, CU_GRAPH_NODE_TYPE_KERNEL))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    ENTER();
    (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shmem, (void)params, (void)extra;
    return fk_launch_kernel(f, s);
}

FK_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                       unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params,
                                       void **extra)
{
    ENTER();
    (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shmem, (void)params, (void)extra;
    return fk_launch_kernel(f, s);
}

FK_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                      const CUDA_HOST_NODE_PARAMS *p)
{
    ENTER();
    NEED_INIT();
    if (!p || !p->fn || !node)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_gnode *n = NULL;
    pthread_mutex_lock(&fk_lock);
    CUresult r = fk_add_plain_node(&n, fk_graph_of(hg), deps, ndeps, CU_GRAPH_NODE_TYPE_HOST);
    if (r == CUDA_SUCCESS) {
        n->host_fn = p->fn;
        n->host_data = p->userData;
        *node = (CUgraphNode)n;
    }
    pthread_mutex_unlock(&fk_lock);
    return r;
}

/* A host function in stream order: called now (this fake's streams have no pending work), or, on
 * a capturing stream, a host node of the capture. */
static CUresult fk_launch_host_func(CUstream s, CUhostFn fn, void *data)
{
    NEED_INIT();
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_stream *st = fk_stream_of(s);
    pthread_mutex_lock(&fk_lock);
    int captured = st && st->capturing;
    struct fk_gnode *n = captured ? fk_capture_node(st, CU_GRAPH_NODE_TYPE_HOST) : NULL;
    if (n) {
        n->host_fn = fn;
        n->host_data = data;
    }
    pthread_mutex_unlock(&fk_lock);
    if (captured)
        return n ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    fn(data);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *data) { ENTER(); return fk_launch_host_func(s, fn, data); }
FK_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void *data) { ENTER(); return fk_launch_host_func(s, fn, data); }

FK_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps)
{
    ENTER();
    NEED_INIT();
    FK_ADD_NODE(fk_add_plain_node(&n_, fk_graph_of(hg), deps, ndeps, CU_GRAPH_NODE_TYPE_EMPTY));
}

FK_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                            CUgraph child)
{
    ENTER();
    NEED_INIT();
    FK_ADD_NODE(fk_add_child_node(&n_, fk_graph_of(hg), deps, ndeps, fk_graph_of(child),
                                  CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE));
}

/* cuGraphAddNode: memory alloc/free, child graph (cloned or moved in), memset and empty nodes. */
static CUresult fk_add_node(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                            CUgraphNodeParams *p)
{
    NEED_INIT();
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        FK_ADD_NODE(fk_add_alloc_node(&n_, fk_graph_of(hg), deps, ndeps, &p->alloc.poolProps, p->alloc.bytesize,
                                      &p->alloc.dptr));
    case CU_GRAPH_NODE_TYPE_MEM_FREE: FK_ADD_NODE(fk_add_free_node(&n_, fk_graph_of(hg), deps, ndeps, p->free.dptr));
    case CU_GRAPH_NODE_TYPE_GRAPH:
        FK_ADD_NODE(fk_add_child_node(&n_, fk_graph_of(hg), deps, ndeps, fk_graph_of(p->graph.graph),
                                      p->graph.ownership));
    case CU_GRAPH_NODE_TYPE_MEMSET:
    case CU_GRAPH_NODE_TYPE_EMPTY: FK_ADD_NODE(fk_add_plain_node(&n_, fk_graph_of(hg), deps, ndeps, p->type));
    default: return CUDA_ERROR_NOT_SUPPORTED; /* node types this fake does not model */
    }
}

FK_EXPORT CUresult cuGraphAddNode(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                  CUgraphNodeParams *p)
{
    ENTER();
    return fk_add_node(node, hg, deps, ndeps, p);
}

FK_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *node, CUgraph hg, const CUgraphNode *deps,
                                     const CUgraphEdgeData *data, size_t ndeps, CUgraphNodeParams *p)
{
    ENTER();
    (void)data;
    return fk_add_node(node, hg, deps, ndeps, p);
}

FK_EXPORT CUresult cuGraphClone(CUgraph *pg, CUgraph orig)
{
    ENTER();
    NEED_INIT();
    struct fk_graph *o = fk_graph_of(orig);
    if (!pg || !o)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    int mem = fk_graph_has_mem(o);
    struct fk_graph *g = mem ? NULL : fk_graph_clone(o);
    pthread_mutex_unlock(&fk_lock);
    if (mem)
        return CUDA_ERROR_NOT_SUPPORTED; /* "not supported for graphs which contain memory nodes" */
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pg = (CUgraph)g;
    return CUDA_SUCCESS;
}

/* ---- queries ---- */

FK_EXPORT CUresult cuGraphGetNodes(CUgraph hg, CUgraphNode *nodes, size_t *num)
{
    ENTER();
    NEED_INIT();
    struct fk_graph *g = fk_graph_of(hg);
    if (!g || !num)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    if (nodes) {
        for (size_t i = 0; i < *num; i++)
            nodes[i] = i < (size_t)g->n ? (CUgraphNode)g->nodes[i] : NULL;
        if (*num > (size_t)g->n)
            *num = (size_t)g->n;
    } else {
        *num = (size_t)g->n;
    }
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

static CUresult fk_get_edges(CUgraph hg, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *data, size_t *num)
{
    NEED_INIT();
    struct fk_graph *g = fk_graph_of(hg);
    if (!g || !num || (!from != !to))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    size_t k = 0;
    for (int i = 0; i < g->n; i++)
        for (int d = 0; d < g->nodes[i]->ndeps; d++, k++)
            if (from && k < *num) {
                from[k] = (CUgraphNode)g->nodes[i]->deps[d];
                to[k] = (CUgraphNode)g->nodes[i];
                if (data)
                    memset(&data[k], 0, sizeof data[k]);
            }
    if (from)
        for (size_t i = k; i < *num; i++)
            from[i] = to[i] = NULL;
    if (!from || *num > k)
        *num = k;
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *num)
{
    ENTER();
    return fk_get_edges(g, from, to, NULL, num);
}

FK_EXPORT CUresult cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *data,
                                      size_t *num)
{
    ENTER();
    return fk_get_edges(g, from, to, data, num);
}

FK_EXPORT CUresult cuGraphNodeGetType(CUgraphNode h, CUgraphNodeType *type)
{
    ENTER();
    NEED_INIT();
    struct fk_gnode *n = fk_gnode_of(h);
    if (!n || !type)
        return CUDA_ERROR_INVALID_VALUE;
    *type = n->type;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphMemAllocNodeGetParams(CUgraphNode h, CUDA_MEM_ALLOC_NODE_PARAMS *out)
{
    ENTER();
    NEED_INIT();
    struct fk_gnode *n = fk_gnode_of(h);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC || !out || !n->alloc)
        return CUDA_ERROR_INVALID_VALUE;
    memset(out, 0, sizeof *out);
    out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    out->poolProps.location.id = n->alloc->ord;
    out->bytesize = n->alloc->size;
    out->dptr = (CUdeviceptr)n->alloc->key;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphMemFreeNodeGetParams(CUgraphNode h, CUdeviceptr *dptr)
{
    ENTER();
    NEED_INIT();
    struct fk_gnode *n = fk_gnode_of(h);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_MEM_FREE || !dptr)
        return CUDA_ERROR_INVALID_VALUE;
    *dptr = (CUdeviceptr)n->dptr;
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode h, CUgraph *pg)
{
    ENTER();
    NEED_INIT();
    struct fk_gnode *n = fk_gnode_of(h);
    if (!n || n->type != CU_GRAPH_NODE_TYPE_GRAPH || !pg)
        return CUDA_ERROR_INVALID_VALUE;
    *pg = (CUgraph)n->child;
    return CUDA_SUCCESS;
}

static CUresult fk_capture_info(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                                const CUgraphNode **deps, size_t *ndeps)
{
    NEED_INIT();
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    struct fk_stream *st = fk_stream_of(s);
    pthread_mutex_lock(&fk_lock);
    int on = st && st->capturing;
    *status = on ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    if (id)
        *id = on ? (cuuint64_t)(uintptr_t)st->graph : 0;
    if (graph)
        *graph = on ? (CUgraph)st->graph : NULL;
    if (deps)
        *deps = on ? (const CUgraphNode *)st->cdeps : NULL;
    if (ndeps)
        *ndeps = on ? (size_t)st->ncdeps : 0;
    pthread_mutex_unlock(&fk_lock);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                             const CUgraphNode **deps, size_t *n)
{
    ENTER();
    return fk_capture_info(s, st, id, g, deps, n);
}

FK_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream s, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                                  const CUgraphNode **deps, size_t *n)
{
    ENTER();
    return fk_capture_info(s, st, id, g, deps, n);
}

#include "fakecuda_graph_exec.c" /* executable graphs: see that file */
