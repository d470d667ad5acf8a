/*
 * gpumerge.c — one physical GPU's live bytes over time, merged over the processes of each host.
 * See gpumerge.h.
 */
#include "gpumerge.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int cmp_point(const void *x, const void *y) {
    const struct cmt_gm_point *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->member != b->member) return a->member < b->member ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static const struct cmt_live_series *series_of(const struct cmt_process *p, int64_t device) {
    if (p->series_lost) return NULL;
    for (size_t k = 0; k < p->nseries; k++)
        if (p->series[k].device == device) return &p->series[k];
    return NULL;
}

static struct cmt_gm_host *host_of(struct cmt_gm *g, const char *host) {
    for (size_t h = 0; h < g->nh; h++)
        if (!strcmp(g->h[h].host, host)) return &g->h[h];
    struct cmt_gm_host *n = realloc(g->h, (g->nh + 1) * sizeof *n);
    if (!n) return NULL;
    g->h = n;
    memset(&n[g->nh], 0, sizeof n[g->nh]);
    n[g->nh].host = host;
    return &n[g->nh++];
}

/* Fills h->v (sorted, with totals), peak, peak_at, peak_live. */
static int merge_host(const struct cmt_analysis *a, struct cmt_gm_host *h) {
    size_t np = 0;
    for (size_t k = 0; k < h->nm; k++)
        np += h->m[k].series ? h->m[k].series->n : 0;
    h->v = calloc(np + 1, sizeof *h->v);
    h->peak_live = calloc(h->nm + 1, sizeof *h->peak_live);
    uint64_t *cur = calloc(h->nm + 1, sizeof *cur);
    if (!h->v || !h->peak_live || !cur) {
        free(cur);
        return -1;
    }
    h->t0 = INT64_MAX;
    for (size_t k = 0; k < h->nm; k++) {
        const struct cmt_process *p = &a->procs[h->m[k].proc];
        if (p->hdr.start_clock_ns < h->t0) {
            h->t0 = p->hdr.start_clock_ns;
            h->t0_member = k;
        }
        const struct cmt_live_series *s = h->m[k].series;
        if (!s) {
            cur[k] = h->m[k].own_peak; /* no series: its own peak throughout */
            h->base += cur[k];
        }
        for (size_t i = 0; s && i < s->n; i++)
            h->v[h->n++] = (struct cmt_gm_point){s->v[i].t, 0, s->v[i].live, k, i};
    }
    qsort(h->v, h->n, sizeof *h->v, cmp_point);
    uint64_t sum = h->base;
    h->peak = sum;
    h->peak_at = (size_t)-1;
    memcpy(h->peak_live, cur, h->nm * sizeof *cur);
    for (size_t i = 0; i < h->n; i++) {
        struct cmt_gm_point *pt = &h->v[i];
        sum = sum - cur[pt->member] + pt->live;
        cur[pt->member] = pt->live;
        pt->total = sum;
        if (sum > h->peak) {
            h->peak = sum;
            h->peak_at = i;
            memcpy(h->peak_live, cur, h->nm * sizeof *cur);
        }
    }
    free(cur);
    return 0;
}

int cmt_gm_build(const struct cmt_analysis *a, const char *uuid, struct cmt_gm *out) {
    memset(out, 0, sizeof *out);
    for (size_t p = 0; p < a->nprocs; p++) {
        const struct cmt_replay *r = &a->procs[p].replay;
        for (size_t i = 0; i < r->ndevs; i++) {
            char u[48];
            if (!r->devs[i].peak || !cmt_device_uuid(&r->devs[i], u) || strcmp(u, uuid)) continue;
            struct cmt_gm_host *h = host_of(out, a->procs[p].hdr.host);
            struct cmt_gm_member *nm = h ? realloc(h->m, (h->nm + 1) * sizeof *nm) : NULL;
            if (!nm) goto oom;
            h->m = nm;
            const struct cmt_live_series *s = series_of(&a->procs[p], r->devs[i].ordinal);
            nm[h->nm++] = (struct cmt_gm_member){p, r->devs[i].ordinal, r->devs[i].peak, s};
        }
    }
    for (size_t h = 0; h < out->nh; h++)
        if (merge_host(a, &out->h[h]) != 0) goto oom;
    return 0;
oom:
    cmt_gm_free(out);
    return -1;
}

void cmt_gm_free(struct cmt_gm *g) {
    for (size_t h = 0; h < g->nh; h++) {
        free(g->h[h].m);
        free(g->h[h].v);
        free(g->h[h].peak_live);
    }
    free(g->h);
    memset(g, 0, sizeof *g);
}

uint64_t cmt_gm_peak(const struct cmt_gm *g) {
    uint64_t s = 0;
    for (size_t h = 0; h < g->nh; h++)
        s += g->h[h].peak;
    return s;
}
