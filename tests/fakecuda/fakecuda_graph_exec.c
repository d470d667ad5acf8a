/*
 * fakecuda_graph_exec.c — the fake driver's executable graphs: instantiation (the order a launch
 * runs memory nodes in), launch, upload, update, destroy, the graph memory attributes. Not a
 * translation unit of its own: included by fakecuda_graph.c, whose nodes it reads.
 */

/* ---- instantiation: the order a launch runs the memory nodes in ---- */

struct fk_item {
    struct fk_gnode *n; /* NULL: the end of a child graph */
    int *preds, npreds, done;
};
struct fk_items {
    struct fk_item *v;
    int n, cap, failed;
};

static int fk_item_new(struct fk_items *it, struct fk_gnode *n)
{
    if (!fk_grow((void **)&it->v, &it->cap, it->n, sizeof *it->v)) {
        it->failed = 1;
        return -1;
    }
    it->v[it->n] = (struct fk_item){.n = n};
    return it->n++;
}

static void fk_item_pred(struct fk_items *it, int i, int pred)
{
    if (i < 0 || pred < 0)
        return;
    int *p = realloc(it->v[i].preds, (size_t)(it->v[i].npreds + 1) * sizeof *p);
    if (!p) {
        it->failed = 1;
        return;
    }
    p[it->v[i].npreds++] = pred;
    it->v[i].preds = p;
}

/* Items of g's nodes (a child graph node: its start, the child's nodes, its end); a root of g
 * depends on start (the child graph node that holds g, -1 at the top). */
static void fk_items_of(struct fk_items *it, struct fk_graph *g, int start)
{
    for (int i = 0; i < g->n; i++) {
        struct fk_gnode *n = g->nodes[i];
        n->item = n->item_end = fk_item_new(it, n);
        if (n->child) {
            fk_items_of(it, n->child, n->item);
            n->item_end = fk_item_new(it, NULL);
            for (int k = 0; k < n->child->n; k++)
                fk_item_pred(it, n->item_end, n->child->nodes[k]->item_end);
        }
    }
    for (int i = 0; i < g->n; i++) {
        struct fk_gnode *n = g->nodes[i];
        if (!n->ndeps)
            fk_item_pred(it, n->item, start);
        for (int d = 0; d < n->ndeps; d++)
            fk_item_pred(it, n->item, n->deps[d]->item_end);
    }
}

static int fk_item_rank(const struct fk_item *x)
{
    if (x->n && x->n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
        return 0;
    return x->n && x->n->type == CU_GRAPH_NODE_TYPE_MEM_FREE ? 2 : 1;
}

/* The memory and host operations of a launch of g in order (malloc'd; *nops of them). fk_lock held. */
static struct fk_gop *fk_graph_order(struct fk_graph *g, int *nops)
{
    struct fk_items it = {0};
    fk_items_of(&it, g, -1);
    struct fk_gop *ops = it.failed ? NULL : calloc((size_t)it.n + 1, sizeof *ops);
    int nop = 0, left = it.n;
    while (ops && left > 0) {
        int best = -1;
        for (int i = 0; i < it.n; i++) { /* ready: every predecessor ran */
            struct fk_item *x = &it.v[i];
            int ready = !x->done;
            for (int k = 0; ready && k < x->npreds; k++)
                ready = it.v[x->preds[k]].done;
            if (ready && (best < 0 || fk_item_rank(x) < fk_item_rank(&it.v[best])))
                best = i;
        }
        if (best < 0) { /* a cycle */
            free(ops);
            ops = NULL;
            break;
        }
        struct fk_item *x = &it.v[best];
        x->done = 1;
        left--;
        if (x->n && x->n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && x->n->alloc)
            ops[nop++].alloc = x->n->alloc;
        else if (x->n && x->n->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
            ops[nop++].dptr = x->n->dptr;
        else if (x->n && x->n->type == CU_GRAPH_NODE_TYPE_HOST) {
            ops[nop].host_fn = x->n->host_fn;
            ops[nop++].host_data = x->n->host_data;
        }
    }
    for (int i = 0; i < it.n; i++)
        free(it.v[i].preds);
    free(it.v);
    *nops = nop;
    return ops;
}

static int fk_graph_has_type(const struct fk_graph *g, CUgraphNodeType t)
{
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i]->type == t || (g->nodes[i]->child && fk_graph_has_type(g->nodes[i]->child, t)))
            return 1;
    return 0;
}

static struct fk_gshape fk_shape_of(const struct fk_gnode *n)
{
    struct fk_gshape sh = {.type = n->type, .ndeps = n->ndeps};
    if (n->alloc) {
        sh.dptr = n->alloc->key;
        sh.size = n->alloc->size;
    } else if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
        sh.dptr = n->dptr;
    }
    return sh;
}

static CUresult fk_instantiate(CUgraphExec *pe, CUgraph hg, unsigned long long flags,
                               CUgraphInstantiateResult *result)
{
    NEED_INIT();
    struct fk_graph *g = fk_graph_of(hg);
    *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    if (!pe || !g || g->owned ||
        (flags & ~(unsigned long long)(CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                                       CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
                                       CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) && (flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    int mem = fk_graph_has_mem(g);
    CUresult r = CUDA_SUCCESS;
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) && mem) {
        *result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED; /* device graphs: no memory nodes */
        r = CUDA_ERROR_INVALID_VALUE;
    } else if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) && !fk_graph_has_type(g, CU_GRAPH_NODE_TYPE_MEMSET)) {
        *result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE; /* needs a kernel, memcpy or memset node */
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (mem && g->nexec) {
        r = CUDA_ERROR_INVALID_VALUE; /* one executable at a time for a graph with memory nodes */
    }
    struct fk_exec *e = r == CUDA_SUCCESS ? calloc(1, sizeof *e) : NULL;
    if (e) {
        *e = (struct fk_exec){.magic = FK_MAGIC_EXEC, .g = g, .flags = flags};
        e->ops = fk_graph_order(g, &e->nops);
        e->shape = calloc((size_t)g->n + 1, sizeof *e->shape);
        if (!e->ops || !e->shape) {
            free(e->ops);
            free(e->shape);
            free(e);
            e = NULL;
        }
    }
    if (r == CUDA_SUCCESS && !e)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (e) {
        for (int i = 0; i < g->n; i++)
            e->shape[e->nshape++] = fk_shape_of(g->nodes[i]);
        for (int i = 0; i < e->nops; i++)
            if (e->ops[i].alloc)
                e->ops[i].alloc->owners++; /* the executable keeps the address */
        g->nexec++;
        *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
        *pe = (CUgraphExec)e;
    }
    pthread_mutex_unlock(&fk_lock);
    return r;
}

FK_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph hg, unsigned long long flags)
{
    ENTER();
    CUgraphInstantiateResult res;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)
        return CUDA_ERROR_INVALID_VALUE; /* only through cuGraphInstantiateWithParams */
    return fk_instantiate(pe, hg, flags, &res);
}

static CUresult fk_instantiate_log(CUgraphExec *pe, CUgraph hg, CUgraphNode *err, char *log, size_t size)
{
    CUgraphInstantiateResult res;
    if (err)
        *err = NULL;
    if (log && size)
        log[0] = 0;
    return fk_instantiate(pe, hg, 0, &res);
}

FK_EXPORT CUresult cuGraphInstantiate(CUgraphExec *pe, CUgraph g, CUgraphNode *err, char *log, size_t size)
{
    ENTER();
    return fk_instantiate_log(pe, g, err, log, size);
}

FK_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *pe, CUgraph g, CUgraphNode *err, char *log, size_t size)
{
    ENTER();
    return fk_instantiate_log(pe, g, err, log, size);
}

static CUresult fk_instantiate_params(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    p->hErrNode_out = NULL;
    CUresult r = fk_instantiate(pe, g, p->flags, &p->result_out);
    if (r == CUDA_SUCCESS && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD))
        ((struct fk_exec *)*pe)->uploaded = 1;
    return r;
}

FK_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    ENTER();
    return fk_instantiate_params(pe, g, p);
}

FK_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    ENTER();
    return fk_instantiate_params(pe, g, p);
}

static struct fk_exec *fk_exec_of(CUgraphExec he)
{
    struct fk_exec *e = (struct fk_exec *)he;
    return e && e->magic == FK_MAGIC_EXEC ? e : NULL;
}

static CUresult fk_graph_launch(CUgraphExec he, CUstream s)
{
    if (!fk_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    (void)s;
    struct fk_exec *e = fk_exec_of(he);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i].alloc && e->ops[i].alloc->glive &&
            !(e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)) {
            pthread_mutex_unlock(&fk_lock);
            return CUDA_ERROR_INVALID_VALUE; /* its memory from the last launch was not freed */
        }
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i].alloc && e->ops[i].alloc->glive)
            fk_graph_free(e->ops[i].alloc, NULL); /* AUTO_FREE_ON_LAUNCH */
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < e->nops && r == CUDA_SUCCESS; i++) {
        struct fk_alloc *a = e->ops[i].alloc;
        if (!a && e->ops[i].host_fn)
            continue; /* called below, outside the lock */
        if (!a) { /* a free node */
            struct fk_alloc *f = fk_find(e->ops[i].dptr, CMT_SPACE_ADDR, NULL);
            if (f && f->kind == CMT_KIND_GRAPH)
                fk_graph_free(f, NULL);
            continue;
        }
        if (!fk_reserve(a->ord, a->size)) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            for (int k = 0; k < i; k++)
                if (e->ops[k].alloc)
                    fk_graph_free(e->ops[k].alloc, NULL);
            break;
        }
        a->glive = 1;
        fk_alloc_calls++;
        fk_graph_used[a->ord] += a->size;
        if (fk_graph_used[a->ord] > fk_graph_high[a->ord])
            fk_graph_high[a->ord] = fk_graph_used[a->ord];
    }
    fk_changed();
    pthread_mutex_unlock(&fk_lock);
    for (int i = 0; i < e->nops && r == CUDA_SUCCESS; i++)
        if (e->ops[i].host_fn)
            e->ops[i].host_fn(e->ops[i].host_data);
    return r;
}

FK_EXPORT CUresult cuGraphLaunch(CUgraphExec e, CUstream s) { ENTER(); return fk_graph_launch(e, s); }
FK_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s) { ENTER(); return fk_graph_launch(e, s); }

static CUresult fk_graph_upload(CUgraphExec he, CUstream s)
{
    NEED_INIT();
    struct fk_stream *st = fk_stream_of(s);
    struct fk_exec *e = fk_exec_of(he);
    if (!e || (s && (uintptr_t)s > 2 && !st))
        return CUDA_ERROR_INVALID_VALUE;
    if (st && st->capturing)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    e->uploaded = 1; /* graph memory is still allocated by the launch that reaches its node */
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuGraphUpload(CUgraphExec e, CUstream s) { ENTER(); return fk_graph_upload(e, s); }
FK_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec e, CUstream s) { ENTER(); return fk_graph_upload(e, s); }

/* cuGraphExecUpdate: g must be topologically identical (top-level nodes paired in creation
 * order); the parameters of memory nodes cannot change (cuGraphExecNodeSetParams does not support
 * them), so an update never changes what a launch allocates. */
static CUresult fk_exec_update(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResult *res, CUgraphNode *err)
{
    NEED_INIT();
    struct fk_exec *e = fk_exec_of(he);
    struct fk_graph *g = fk_graph_of(hg);
    *res = CU_GRAPH_EXEC_UPDATE_ERROR;
    *err = NULL;
    if (!e || !g || g->owned)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    *res = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    if (g->n != e->nshape)
        *res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    for (int i = 0; i < g->n && *res == CU_GRAPH_EXEC_UPDATE_SUCCESS; i++) {
        struct fk_gshape now = fk_shape_of(g->nodes[i]), was = e->shape[i];
        if (now.type != was.type)
            *res = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
        else if (now.ndeps != was.ndeps)
            *res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        else if (now.dptr != was.dptr || now.size != was.size ||
                 (g->nodes[i]->child && fk_graph_has_mem(g->nodes[i]->child)))
            *res = CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
        if (*res != CU_GRAPH_EXEC_UPDATE_SUCCESS)
            *err = (CUgraphNode)g->nodes[i];
    }
    pthread_mutex_unlock(&fk_lock);
    return *res == CU_GRAPH_EXEC_UPDATE_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
}

FK_EXPORT CUresult cuGraphExecUpdate(CUgraphExec e, CUgraph g, CUgraphNode *err, CUgraphExecUpdateResult *res)
{
    ENTER();
    CUgraphNode n;
    CUgraphExecUpdateResult r;
    CUresult rc = fk_exec_update(e, g, &r, &n);
    if (err)
        *err = n;
    if (res)
        *res = r;
    return rc;
}

FK_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
    ENTER();
    if (!info)
        return CUDA_ERROR_INVALID_VALUE;
    info->errorFromNode = NULL;
    return fk_exec_update(e, g, &info->result, &info->errorNode);
}

FK_EXPORT CUresult cuGraphExecDestroy(CUgraphExec he)
{
    ENTER();
    NEED_INIT();
    struct fk_exec *e = fk_exec_of(he);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i].alloc)
            fk_graph_release(e->ops[i].alloc);
    struct fk_graph *g = e->g;
    if (--g->nexec == 0 && g->magic != FK_MAGIC_GRAPH)
        free(g); /* destroyed before its last executable */
    pthread_mutex_unlock(&fk_lock);
    e->magic = 0;
    free(e->ops);
    free(e->shape);
    free(e);
    return CUDA_SUCCESS;
}

FK_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice d)
{
    ENTER();
    NEED_INIT();
    return fk_valid_dev(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FK_EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice d, CUgraphMem_attribute attr, void *value)
{
    ENTER();
    NEED_INIT();
    if (!fk_valid_dev(d))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fk_lock);
    cuuint64_t v = attr == CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT || attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT
                       ? fk_graph_used[d]
                       : fk_graph_high[d];
    pthread_mutex_unlock(&fk_lock);
    *(cuuint64_t *)value = v;
    return CUDA_SUCCESS;
}
