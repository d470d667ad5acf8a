/*
 * ranks.c — the per-rank view of a whole job; see ranks.h.
 */
#include "ranks.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int cmp_row(const void *x, const void *y) {
    const struct cmt_rank_row *p = x, *q = y;
    if ((p->rank < 0) != (q->rank < 0)) return p->rank < 0 ? 1 : -1;
    if (p->rank != q->rank) return p->rank < q->rank ? -1 : 1;
    int c = strcmp(p->host, q->host);
    if (c) return c;
    return p->pid < q->pid ? -1 : p->pid > q->pid;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

struct group {
    size_t main; /* row naming the group */
    uint64_t peak, leaked, ooms;
};

static int add_outlier(struct cmt_ranks *R, struct cmt_rank_outlier o) {
    struct cmt_rank_outlier *n = realloc(R->outliers, (R->noutliers + 1) * sizeof *n);
    if (!n) return -1;
    R->outliers = n;
    n[R->noutliers++] = o;
    return 0;
}

static size_t gpu_index(const struct cmt_analysis *a, const char *uuid) {
    for (size_t g = 0; g < a->ngpus; g++)
        if (!strcmp(a->gpus[g].uuid, uuid)) return g;
    return (size_t)-1;
}

int cmt_ranks_build(struct cmt_analysis *a) {
    struct cmt_ranks *R = calloc(1, sizeof *R);
    if (!R) return -1;
    a->ranks = R;
    if (!a->nprocs) return 0;
    R->rows = calloc(a->nprocs, sizeof *R->rows);
    if (!R->rows) return -1;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        const struct cmt_replay *rp = &p->replay;
        struct cmt_rank_row *r = &R->rows[R->nrows++];
        r->proc = i;
        r->host = p->hdr.host[0] ? p->hdr.host : "?";
        r->rank = p->hdr.rank;
        r->local_rank = p->hdr.local_rank;
        r->pid = p->hdr.pid;
        r->ppid = p->hdr.ppid;
        r->worker_of = -1;
        r->ooms = rp->nooms;
        r->uuids = calloc(rp->ndevs ? rp->ndevs : 1, sizeof *r->uuids);
        if (!r->uuids) return -1;
        for (size_t k = 0; k < rp->ndevs; k++) {
            const struct cmt_devstate *d = &rp->devs[k];
            r->peak_bytes += d->peak;
            r->leaked_bytes += d->leaked_bytes;
            if ((d->allocations || d->peak || d->leaked_bytes) && cmt_device_uuid(d, r->uuids[r->nuuids])) r->nuuids++;
        }
    }
    if (R->nrows > 1) qsort(R->rows, R->nrows, sizeof *R->rows, cmp_row);
    /* forked workers: same host and rank, parent among the dumps */
    for (size_t i = 0; i < R->nrows; i++)
        for (size_t k = 0; k < R->nrows; k++)
            if (k != i && R->rows[k].pid == R->rows[i].ppid && R->rows[k].rank == R->rows[i].rank &&
                !strcmp(R->rows[k].host, R->rows[i].host)) {
                R->rows[i].worker_of = (int)k;
                break;
            }
    /* groups: a rank (all its processes), or a rankless process with its forked workers */
    size_t *gof = calloc(R->nrows, sizeof *gof);
    struct group *G = calloc(R->nrows, sizeof *G);
    if (!gof || !G) {
        free(gof);
        free(G);
        return -1;
    }
    size_t ng = 0;
    for (size_t i = 0; i < R->nrows; i++) {
        const struct cmt_rank_row *r = &R->rows[i];
        if (r->rank >= 0 && i && R->rows[i - 1].rank == r->rank)
            gof[i] = gof[i - 1];
        else if (r->rank >= 0 || r->worker_of < 0) {
            gof[i] = ng;
            G[ng++].main = i;
        }
    }
    for (size_t i = 0; i < R->nrows; i++) {
        if (R->rows[i].rank >= 0 || R->rows[i].worker_of < 0) continue;
        size_t root = i, hops = 0;
        while (R->rows[root].worker_of >= 0 && hops++ < R->nrows)
            root = (size_t)R->rows[root].worker_of;
        gof[i] = gof[root];
    }
    for (size_t i = 0; i < R->nrows; i++) {
        struct group *g = &G[gof[i]];
        g->peak += R->rows[i].peak_bytes;
        g->leaked += R->rows[i].leaked_bytes;
        g->ooms += R->rows[i].ooms;
        if (R->rows[g->main].worker_of >= 0 && R->rows[i].worker_of < 0) g->main = i;
    }
    R->ngroups = ng;
    int oom = 0;
    if (ng >= 2) {
        size_t pmax = 0, lmax = 0, used = 0;
        double sum = 0;
        uint64_t *lv = malloc(ng * sizeof *lv);
        if (!lv) {
            free(gof);
            free(G);
            return -1;
        }
        for (size_t g = 0; g < ng; g++) {
            lv[g] = G[g].leaked;
            if (G[g].peak) {
                used++;
                sum += (double)G[g].peak;
            }
            if (G[g].peak > G[pmax].peak) pmax = g;
            if (G[g].leaked > G[lmax].leaked) lmax = g;
        }
        if (ng > 1) qsort(lv, ng, sizeof *lv, cmp_u64);
        uint64_t median = ng % 2 ? lv[ng / 2] : (lv[ng / 2 - 1] + lv[ng / 2]) / 2;
        free(lv);
        if (G[lmax].leaked) {
            struct cmt_rank_outlier o = {CMT_OUTLIER_LEAK, G[lmax].main, G[lmax].leaked, 0, median, 0};
            if (!median) {
                R->leak_max_over_median = -1;
                o.kind = CMT_OUTLIER_LEAK_ALONE;
                for (size_t g = 0; g < ng; g++)
                    o.count += G[g].leaked == 0;
                oom |= add_outlier(R, o);
            } else {
                o.ratio = R->leak_max_over_median = (double)G[lmax].leaked / (double)median;
                if (o.ratio >= CMT_LEAK_OUTLIER) oom |= add_outlier(R, o);
            }
        }
        if (used >= 2) {
            double mean = sum / (double)used, x = (double)G[pmax].peak / mean;
            R->peak_max_over_mean = x;
            if (x >= CMT_IMBALANCE_OUTLIER)
                oom |= add_outlier(
                    R, (struct cmt_rank_outlier){CMT_OUTLIER_PEAK, G[pmax].main, G[pmax].peak, x, (uint64_t)mean, 0});
        }
        size_t oom_groups = 0;
        for (size_t g = 0; g < ng; g++)
            oom_groups += G[g].ooms != 0;
        if (oom_groups && oom_groups < ng)
            for (size_t g = 0; g < ng; g++)
                if (G[g].ooms)
                    oom |= add_outlier(R, (struct cmt_rank_outlier){CMT_OUTLIER_OOM, G[g].main, 0, 0, 0, G[g].ooms});
    }
    free(gof);
    free(G);
    if (oom) return -1;
    /* GPUs shared by several processes */
    for (size_t g = 0; g < a->ngpus; g++) {
        size_t n = 0;
        for (size_t i = 0; i < R->nrows; i++)
            for (size_t k = 0; k < R->rows[i].nuuids; k++)
                if (!strcmp(R->rows[i].uuids[k], a->gpus[g].uuid)) {
                    n++;
                    break;
                }
        if (n < 2) continue;
        struct cmt_shared_gpu *ns = realloc(R->shared, (R->nshared + 1) * sizeof *ns);
        if (!ns) return -1;
        R->shared = ns;
        struct cmt_shared_gpu *s = &ns[R->nshared++];
        snprintf(s->uuid, sizeof s->uuid, "%s", a->gpus[g].uuid);
        s->n = 0;
        s->rows = malloc(n * sizeof *s->rows);
        if (!s->rows) return -1;
        for (size_t i = 0; i < R->nrows; i++)
            for (size_t k = 0; k < R->rows[i].nuuids; k++)
                if (!strcmp(R->rows[i].uuids[k], a->gpus[g].uuid)) {
                    s->rows[s->n++] = i;
                    break;
                }
    }
    /* the GPUs of each host */
    char *seen = calloc(a->ngpus ? a->ngpus : 1, 1);
    if (!seen) return -1;
    for (size_t i = 0; i < R->nrows; i++) {
        const char *h = R->rows[i].host;
        size_t hi = 0;
        while (hi < R->nhosts && strcmp(R->hosts[hi].host, h))
            hi++;
        if (hi < R->nhosts) continue;
        struct cmt_host_balance *nh = realloc(R->hosts, (R->nhosts + 1) * sizeof *nh);
        if (!nh) {
            free(seen);
            return -1;
        }
        R->hosts = nh;
        struct cmt_host_balance *hb = &nh[R->nhosts++];
        memset(hb, 0, sizeof *hb);
        hb->host = h;
        memset(seen, 0, a->ngpus ? a->ngpus : 1);
        for (size_t k = i; k < R->nrows; k++) {
            if (strcmp(R->rows[k].host, h)) continue;
            for (size_t u = 0; u < R->rows[k].nuuids; u++) {
                size_t g = gpu_index(a, R->rows[k].uuids[u]);
                if (g != (size_t)-1) seen[g] = 1;
            }
        }
        double sum = 0;
        size_t maxg = (size_t)-1;
        for (size_t g = 0; g < a->ngpus; g++) {
            if (!seen[g] || !a->gpus[g].peak_bytes) continue;
            hb->ngpus++;
            sum += (double)a->gpus[g].peak_bytes;
            if (maxg == (size_t)-1 || a->gpus[g].peak_bytes > a->gpus[maxg].peak_bytes) maxg = g;
        }
        if (hb->ngpus >= 2) {
            hb->peak_max_over_mean = (double)a->gpus[maxg].peak_bytes / (sum / (double)hb->ngpus);
            snprintf(hb->max_uuid, sizeof hb->max_uuid, "%s", a->gpus[maxg].uuid);
        }
    }
    free(seen);
    return 0;
}

void cmt_ranks_free(struct cmt_ranks *R) {
    if (!R) return;
    for (size_t i = 0; i < R->nrows; i++)
        free(R->rows[i].uuids);
    free(R->rows);
    for (size_t i = 0; i < R->nshared; i++)
        free(R->shared[i].rows);
    free(R->shared);
    free(R->hosts);
    free(R->outliers);
    free(R);
}
