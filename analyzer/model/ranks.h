/*
 * ranks.h — the job view of a report over many dumps (torchrun, mpirun, srun): one row per
 * process with its rank identity (host, rank, local rank, GPU UUIDs, peak, leaked, OOMs), the
 * imbalance across ranks and across the GPUs of each host, the GPUs shared by several processes,
 * and the outlier ranks, as data (render_text.c words them). Built by cmt_analysis_load
 * (analysis.h) after the per-GPU merge; GPUs are matched by UUID, never by ordinal.
 */
#ifndef CMT_RANKS_H
#define CMT_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cmt_analysis;

struct cmt_rank_row {
    size_t proc;              /* index into cmt_analysis.procs */
    const char *host;         /* the process' host ("?" when unknown), owned by the analysis */
    int32_t rank, local_rank; /* -1: unknown */
    uint32_t pid, ppid;
    int worker_of;     /* row index of the same-rank parent (forked worker), -1: none */
    char (*uuids)[48]; /* GPUs it used (allocated on), ordinal order */
    size_t nuuids;
    uint64_t peak_bytes;   /* sum of its per-GPU peaks */
    uint64_t leaked_bytes; /* device memory live at exit / teardown / death */
    uint64_t ooms;
};

struct cmt_shared_gpu {
    char uuid[48];
    size_t n;
    size_t *rows; /* indexes into rows */
};

struct cmt_host_balance {
    const char *host;
    size_t ngpus;              /* GPUs of this host with a peak */
    double peak_max_over_mean; /* 0: fewer than 2 GPUs */
    char max_uuid[48];
};

/* A group (a rank with its forked workers, or a rankless process) that stands out. */
enum cmt_outlier_kind {
    CMT_OUTLIER_LEAK_ALONE, /* leaks bytes while the median group leaks nothing (count: groups leaking nothing) */
    CMT_OUTLIER_LEAK,       /* leaks ratio (>= CMT_LEAK_OUTLIER) x the median (reference) */
    CMT_OUTLIER_PEAK,       /* peaks ratio (>= CMT_IMBALANCE_OUTLIER) x the mean (reference) */
    CMT_OUTLIER_OOM,        /* ran out of memory count times while others did not */
};
#define CMT_LEAK_OUTLIER 2.0

struct cmt_rank_outlier {
    enum cmt_outlier_kind kind;
    size_t row;     /* the row naming the group */
    uint64_t bytes; /* leaked (LEAK*) or peak (PEAK) bytes of the group */
    double ratio;
    uint64_t reference; /* median (LEAK) or mean (PEAK) bytes */
    uint64_t count;
};

struct cmt_ranks {
    struct cmt_rank_row *rows; /* sorted by rank (unknown last), host, pid */
    size_t nrows;
    size_t ngroups;              /* ranks compared (a rank's forked workers count with it) */
    double peak_max_over_mean;   /* across ranks; 0: fewer than 2 */
    double leak_max_over_median; /* across ranks; 0: nothing leaked or fewer than 2; -1: median 0 */
    struct cmt_shared_gpu *shared;
    size_t nshared;
    struct cmt_host_balance *hosts;
    size_t nhosts;
    struct cmt_rank_outlier *outliers; /* in this order: leaks, peak, OOMs */
    size_t noutliers;
};

/* Builds a->ranks from a->procs and a->gpus; returns 0 or -1 (out of memory). */
int cmt_ranks_build(struct cmt_analysis *a);
void cmt_ranks_free(struct cmt_ranks *r);

#endif
