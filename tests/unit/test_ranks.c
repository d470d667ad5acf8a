/*
 * test_ranks.c — unit tests of the analyzer's per-rank view (analyzer/model/ranks.c): rows sorted
 * by rank, a forked worker counted with its rank, the peak imbalance across ranks and the outlier
 * named, a leak outlier against a zero median, GPUs shared by two processes. Exit 0 when every
 * check holds.
 */
#include <stdlib.h>

#include "an_events.h"
#include "analysis.h"

struct proc_spec {
    int32_t rank;
    uint32_t pid, ppid;
    uint8_t uuid; /* the GPU it allocates on (device 0) */
    uint64_t peak, leak;
};

static void make_proc(struct cmt_process *p, const struct proc_spec *s) {
    memset(p, 0, sizeof *p);
    p->hdr.rank = s->rank;
    p->hdr.local_rank = s->rank;
    p->hdr.pid = s->pid;
    p->hdr.ppid = s->ppid;
    snprintf(p->hdr.host, sizeof p->hdr.host, "node1");
    cmt_replay_init(&p->replay, 10);
    an_device(&p->replay, 0, s->uuid);
    an_alloc(&p->replay, 0, 0x1000, s->peak - s->leak, 1, 0);
    if (s->leak) an_alloc(&p->replay, 0, 0x2000, s->leak, 2, 0);
    an_free(&p->replay, 0x1000);
    an_exit(&p->replay);
    cmt_replay_finish(&p->replay);
}

static void add_gpu(struct cmt_analysis *a, uint8_t uuid_byte, uint64_t peak) {
    uint8_t u[16];
    memset(u, uuid_byte, sizeof u);
    for (size_t g = 0; g < a->ngpus; g++) {
        char s[48];
        cmt_uuid_format(u, s);
        if (!strcmp(s, a->gpus[g].uuid)) {
            a->gpus[g].peak_bytes += peak;
            return;
        }
    }
    struct cmt_gpu *g = &a->gpus[a->ngpus++];
    memset(g, 0, sizeof *g);
    cmt_uuid_format(u, g->uuid);
    g->peak_bytes = peak;
}

static void build(struct cmt_analysis *a, const struct proc_spec *s, size_t n) {
    memset(a, 0, sizeof *a);
    a->procs = calloc(n, sizeof *a->procs);
    a->gpus = calloc(n, sizeof *a->gpus);
    a->nprocs = n;
    for (size_t i = 0; i < n; i++) {
        make_proc(&a->procs[i], &s[i]);
        add_gpu(a, s[i].uuid, s[i].peak);
    }
    CHECK(cmt_ranks_build(a) == 0);
}

static void done(struct cmt_analysis *a) {
    for (size_t i = 0; i < a->nprocs; i++)
        cmt_replay_free(&a->procs[i].replay);
    cmt_ranks_free(a->ranks);
    free(a->procs);
    free(a->gpus);
}

static void test_peak_outlier(void) {
    /* given out of order; rank 2 peaks at 2x the others (1.5x the mean) */
    const struct proc_spec s[] = {{2, 30, 1, 3, 2000, 0}, {0, 10, 1, 1, 1000, 0}, {1, 20, 1, 2, 1000, 0}};
    struct cmt_analysis a;
    build(&a, s, 3);
    const struct cmt_ranks *R = a.ranks;
    CHECK(R->nrows == 3 && R->ngroups == 3);
    CHECK(R->rows[0].rank == 0 && R->rows[1].rank == 1 && R->rows[2].rank == 2);
    CHECK(R->rows[2].peak_bytes == 2000 && R->rows[2].nuuids == 1);
    CHECK(R->peak_max_over_mean > 1.49 && R->peak_max_over_mean < 1.51);
    CHECK(R->leak_max_over_median == 0); /* nothing leaked */
    CHECK(R->noutliers == 1 && R->outliers[0].kind == CMT_OUTLIER_PEAK && R->outliers[0].row == 2);
    CHECK(R->noutliers == 1 && R->outliers[0].bytes == 2000 && R->outliers[0].reference == 1333);
    CHECK(!strcmp(R->rows[2].host, "node1"));
    CHECK(R->nshared == 0);
    CHECK(R->nhosts == 1 && R->hosts[0].ngpus == 3);
    done(&a);
}

static void test_balanced_with_worker_and_shared_gpu(void) {
    /* rank 0 forked a worker (pid 11) on the same GPU; ranks 0 and 1 peak alike; rank 1 leaks */
    const struct proc_spec s[] = {{0, 10, 1, 1, 900, 0}, {0, 11, 10, 1, 100, 0}, {1, 20, 1, 2, 1000, 300}};
    struct cmt_analysis a;
    build(&a, s, 3);
    const struct cmt_ranks *R = a.ranks;
    CHECK(R->nrows == 3 && R->ngroups == 2);
    CHECK(R->rows[1].pid == 11 && R->rows[1].worker_of == 0);
    CHECK(R->peak_max_over_mean == 1.0);
    CHECK(R->leak_max_over_median == 2.0); /* 300 against a median of (0 + 300) / 2 */
    CHECK(R->noutliers == 1 && R->outliers[0].kind == CMT_OUTLIER_LEAK && R->outliers[0].row == 2);
    CHECK(R->noutliers == 1 && R->outliers[0].bytes == 300 && R->outliers[0].reference == 150);
    CHECK(R->nshared == 1 && R->shared[0].n == 2 && R->shared[0].rows[0] == 0 && R->shared[0].rows[1] == 1);
    done(&a);
}

int main(void) {
    test_peak_outlier();
    test_balanced_with_worker_and_shared_gpu();
    if (an_failures)
        fprintf(stderr, "test_ranks: %d check(s) failed\n", an_failures);
    else
        printf("test_ranks: ok\n");
    return an_failures != 0;
}
