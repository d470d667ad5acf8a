/*
 * cmt_ranks.c — the per-rank view of a whole job; see cmt_ranks.h.
 */
#include "cmt_ranks.h"

#include <stdlib.h>
#include <string.h>

#include "cmt_json.h"
#include "cmt_report.h"

static const struct cmt_process *row_proc(const struct cmt_analysis *a, const struct cmt_rank_row *r) {
    return &a->procs[r->proc];
}

static const char *row_host(const struct cmt_analysis *a, const struct cmt_rank_row *r) {
    const char *h = row_proc(a, r)->hdr.host;
    return h[0] ? h : "?";
}

static const struct cmt_analysis *sort_a; /* qsort context (the analysis is built on one thread) */

static int cmp_row(const void *x, const void *y) {
    const struct cmt_rank_row *p = x, *q = y;
    if ((p->rank < 0) != (q->rank < 0)) return p->rank < 0 ? 1 : -1;
    if (p->rank != q->rank) return p->rank < q->rank ? -1 : 1;
    int c = strcmp(row_host(sort_a, p), row_host(sort_a, q));
    if (c) return c;
    return p->pid < q->pid ? -1 : p->pid > q->pid;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

struct group {
    size_t main;   /* row naming the group */
    uint64_t peak, leaked, ooms;
};

static void label(const struct cmt_analysis *a, const struct cmt_rank_row *r, char *buf, size_t cap) {
    if (r->rank >= 0) snprintf(buf, cap, "rank %d on host %s", r->rank, row_host(a, r));
    else snprintf(buf, cap, "pid %u on host %s", r->pid, row_host(a, r));
}

static int add_outlier(struct cmt_ranks *R, const char *line) {
    char (*n)[512] = realloc(R->outliers, (R->noutliers + 1) * sizeof *n);
    if (!n) return -1;
    R->outliers = n;
    snprintf(n[R->noutliers++], 512, "%s", line);
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
            if (d->has_info && (d->allocations || d->peak || d->leaked_bytes)) cmt_uuid_format(d->uuid, r->uuids[r->nuuids++]);
        }
    }
    sort_a = a;
    if (R->nrows > 1) qsort(R->rows, R->nrows, sizeof *R->rows, cmp_row);
    /* forked workers: same host and rank, parent among the dumps */
    for (size_t i = 0; i < R->nrows; i++)
        for (size_t k = 0; k < R->nrows; k++)
            if (k != i && R->rows[k].pid == R->rows[i].ppid && R->rows[k].rank == R->rows[i].rank &&
                !strcmp(row_host(a, &R->rows[k]), row_host(a, &R->rows[i]))) {
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
        if (r->rank >= 0 && i && R->rows[i - 1].rank == r->rank) gof[i] = gof[i - 1];
        else if (r->rank >= 0 || r->worker_of < 0) {
            gof[i] = ng;
            G[ng++].main = i;
        }
    }
    for (size_t i = 0; i < R->nrows; i++) {
        if (R->rows[i].rank >= 0 || R->rows[i].worker_of < 0) continue;
        size_t root = i, hops = 0;
        while (R->rows[root].worker_of >= 0 && hops++ < R->nrows) root = (size_t)R->rows[root].worker_of;
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
    char name[320], b1[32], b2[32], line[512];
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
            label(a, &R->rows[G[lmax].main], name, sizeof name);
            cmt_human_size(G[lmax].leaked, b1, sizeof b1);
            if (!median) {
                R->leak_max_over_median = -1;
                size_t leaking = 0;
                for (size_t g = 0; g < ng; g++) leaking += G[g].leaked != 0;
                snprintf(line, sizeof line, "%s leaks %s; %zu of %zu %s leak nothing", name, b1, ng - leaking, ng,
                         R->rows[0].rank >= 0 ? "ranks" : "processes");
                add_outlier(R, line);
            } else {
                double x = (double)G[lmax].leaked / (double)median;
                R->leak_max_over_median = x;
                if (x >= 2) {
                    snprintf(line, sizeof line, "%s leaks %s, %.*fx the median (%s)", name, b1, x < 10 ? 1 : 0, x,
                             cmt_human_size(median, b2, sizeof b2));
                    add_outlier(R, line);
                }
            }
        }
        if (used >= 2) {
            double mean = sum / (double)used, x = (double)G[pmax].peak / mean;
            R->peak_max_over_mean = x;
            if (x >= 1.2) {
                label(a, &R->rows[G[pmax].main], name, sizeof name);
                snprintf(line, sizeof line, "%s peaks %.1fx the mean (%s vs %s)", name, x,
                         cmt_human_size(G[pmax].peak, b1, sizeof b1), cmt_human_size((uint64_t)mean, b2, sizeof b2));
                add_outlier(R, line);
            }
        }
        size_t oom_groups = 0;
        for (size_t g = 0; g < ng; g++) oom_groups += G[g].ooms != 0;
        if (oom_groups && oom_groups < ng)
            for (size_t g = 0; g < ng; g++)
                if (G[g].ooms) {
                    label(a, &R->rows[G[g].main], name, sizeof name);
                    snprintf(line, sizeof line, "%s ran out of memory (%llu OOM%s)", name, (unsigned long long)G[g].ooms,
                             G[g].ooms == 1 ? "" : "s");
                    add_outlier(R, line);
                }
    }
    free(gof);
    free(G);
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
        const char *h = row_host(a, &R->rows[i]);
        size_t hi = 0;
        while (hi < R->nhosts && strcmp(R->hosts[hi].host, h)) hi++;
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
            if (strcmp(row_host(a, &R->rows[k]), h)) continue;
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
    for (size_t i = 0; i < R->nrows; i++) free(R->rows[i].uuids);
    free(R->rows);
    for (size_t i = 0; i < R->nshared; i++) free(R->shared[i].rows);
    free(R->shared);
    free(R->hosts);
    free(R->outliers);
    free(R);
}

static int worth_showing(const struct cmt_analysis *a) {
    const struct cmt_ranks *R = a->ranks;
    if (!R || !R->nrows) return 0;
    return R->nrows >= 2 || R->rows[0].rank >= 0;
}

void cmt_ranks_text(const struct cmt_analysis *a, FILE *f) {
    const struct cmt_ranks *R = a->ranks;
    if (!worth_showing(a)) return;
    char b1[32], b2[32], rk[16], lr[16];
    fprintf(f, "\nranks\n  %-16s %5s %5s %8s %10s %10s %5s  %s\n", "HOST", "RANK", "LOCAL", "PID", "PEAK", "LEAKED", "OOMS",
            "GPUS");
    for (size_t i = 0; i < R->nrows; i++) {
        const struct cmt_rank_row *r = &R->rows[i];
        snprintf(rk, sizeof rk, "%d", r->rank);
        snprintf(lr, sizeof lr, "%d", r->local_rank);
        fprintf(f, "  %-16s %5s %5s %8u %10s %10s %5llu  ", row_host(a, r), r->rank >= 0 ? rk : "-",
                r->local_rank >= 0 ? lr : "-", r->pid, cmt_human_size(r->peak_bytes, b1, sizeof b1),
                cmt_human_size(r->leaked_bytes, b2, sizeof b2), (unsigned long long)r->ooms);
        for (size_t k = 0; k < r->nuuids; k++) fprintf(f, "%s%s", k ? "," : "", r->uuids[k]);
        if (!r->nuuids) fprintf(f, "-");
        if (r->worker_of >= 0) fprintf(f, "  (forked by pid %u)", R->rows[r->worker_of].pid);
        fprintf(f, "\n");
    }
    if (R->ngroups >= 2) {
        fprintf(f, "  across %zu %s: peak max/mean ", R->ngroups, R->rows[0].rank >= 0 ? "ranks" : "processes");
        if (R->peak_max_over_mean > 0) fprintf(f, "%.2f", R->peak_max_over_mean);
        else fprintf(f, "-");
        fprintf(f, ", leaked max/median ");
        if (R->leak_max_over_median > 0) fprintf(f, "%.1f\n", R->leak_max_over_median);
        else fprintf(f, "%s\n", R->leak_max_over_median < 0 ? "inf (median 0)" : "-");
    }
    for (size_t i = 0; i < R->noutliers; i++) fprintf(f, "  outlier: %s\n", R->outliers[i]);
    for (size_t h = 0; h < R->nhosts; h++)
        if (R->hosts[h].ngpus >= 2)
            fprintf(f, "  host %s: %zu GPUs, peak max/mean %.2f (%s highest)\n", R->hosts[h].host, R->hosts[h].ngpus,
                    R->hosts[h].peak_max_over_mean, R->hosts[h].max_uuid);
    for (size_t s = 0; s < R->nshared; s++) {
        const struct cmt_shared_gpu *sg = &R->shared[s];
        fprintf(f, "  shared GPU %s:", sg->uuid);
        for (size_t k = 0; k < sg->n; k++) {
            const struct cmt_rank_row *r = &R->rows[sg->rows[k]];
            if (r->rank >= 0) fprintf(f, " pid %u (rank %d)", r->pid, r->rank);
            else fprintf(f, " pid %u", r->pid);
            fprintf(f, k + 1 < sg->n ? "," : "\n");
        }
    }
}

void cmt_ranks_json(const struct cmt_analysis *a, struct cmt_json *j) {
    const struct cmt_ranks *R = a->ranks;
    size_t n = R ? R->nrows : 0;
    cmt_json_array(j, "ranks");
    for (size_t i = 0; i < n; i++) {
        const struct cmt_rank_row *r = &R->rows[i];
        const struct cmt_process *p = row_proc(a, r);
        cmt_json_object(j, NULL);
        cmt_json_str(j, "host", p->hdr.host);
        if (r->rank >= 0) cmt_json_i64(j, "rank", r->rank);
        else cmt_json_null(j, "rank");
        if (r->local_rank >= 0) cmt_json_i64(j, "local_rank", r->local_rank);
        else cmt_json_null(j, "local_rank");
        if (p->hdr.world_size >= 0) cmt_json_i64(j, "world_size", p->hdr.world_size);
        else cmt_json_null(j, "world_size");
        cmt_json_str(j, "job_id", p->hdr.job_id[0] ? p->hdr.job_id : NULL);
        cmt_json_u64(j, "pid", r->pid);
        if (r->worker_of >= 0) cmt_json_u64(j, "forked_by", R->rows[r->worker_of].pid);
        else cmt_json_null(j, "forked_by");
        cmt_json_array(j, "uuids");
        for (size_t k = 0; k < r->nuuids; k++) cmt_json_str(j, NULL, r->uuids[k]);
        cmt_json_array_end(j);
        cmt_json_u64(j, "peak_bytes", r->peak_bytes);
        cmt_json_u64(j, "leaked_bytes", r->leaked_bytes);
        cmt_json_u64(j, "ooms", r->ooms);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "shared_gpus");
    for (size_t s = 0; R && s < R->nshared; s++) {
        const struct cmt_shared_gpu *sg = &R->shared[s];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", sg->uuid);
        cmt_json_array(j, "pids");
        for (size_t k = 0; k < sg->n; k++) cmt_json_u64(j, NULL, R->rows[sg->rows[k]].pid);
        cmt_json_array_end(j);
        cmt_json_array(j, "ranks");
        for (size_t k = 0; k < sg->n; k++) {
            int32_t rk = R->rows[sg->rows[k]].rank;
            if (rk >= 0) cmt_json_i64(j, NULL, rk);
            else cmt_json_null(j, NULL);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "rank_imbalance");
    cmt_json_u64(j, "ranks_compared", R ? R->ngroups : 0);
    if (R && R->peak_max_over_mean > 0) cmt_json_double(j, "peak_max_over_mean", R->peak_max_over_mean);
    else cmt_json_null(j, "peak_max_over_mean");
    if (R && R->leak_max_over_median > 0) cmt_json_double(j, "leak_max_over_median", R->leak_max_over_median);
    else cmt_json_null(j, "leak_max_over_median");
    cmt_json_array(j, "outliers");
    for (size_t i = 0; R && i < R->noutliers; i++) cmt_json_str(j, NULL, R->outliers[i]);
    cmt_json_array_end(j);
    cmt_json_array(j, "hosts");
    for (size_t h = 0; R && h < R->nhosts; h++) {
        const struct cmt_host_balance *hb = &R->hosts[h];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "host", hb->host);
        cmt_json_u64(j, "gpus", hb->ngpus);
        if (hb->ngpus >= 2) {
            cmt_json_double(j, "peak_max_over_mean", hb->peak_max_over_mean);
            cmt_json_str(j, "max_uuid", hb->max_uuid);
        } else {
            cmt_json_null(j, "peak_max_over_mean");
            cmt_json_null(j, "max_uuid");
        }
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
}
