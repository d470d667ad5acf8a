/*
 * gpumerge.h — the live bytes of one physical GPU (a UUID) over time, summed over its processes:
 * the one merge of the per-process series (struct cmt_live_series, dump clock) that the
 * analysis' simultaneous peak (analysis.c: imbalance.gpus[].peak_bytes), the HTML per-GPU chart
 * (render_html.c) and `timeline` (render_timeline.c, cmd_timeline.c) read.
 *   Processes of one host share its monotonic clock (the dumps' record clock): their series are
 *   merged in time, evaluated after every change. Processes on different hosts cannot share a
 *   physical GPU (a UUID seen on two hosts is two GPUs to compare, not one to merge): each host
 *   is its own group and the GPU's peak is the sum of the hosts' peaks.
 *   A process without a series (one dump loaded without cmt_report_opts.gpu_series, or out of
 *   memory while recording it) counts with its own peak at every moment: an upper bound.
 */
#ifndef CMT_GPUMERGE_H
#define CMT_GPUMERGE_H

#include <stddef.h>
#include <stdint.h>

struct cmt_analysis;

struct cmt_live_series;

struct cmt_gm_member {                    /* a process using the GPU on this host */
    size_t proc;                          /* index into the analysis' procs */
    int64_t device;                       /* the ordinal it saw the GPU as */
    uint64_t own_peak;                    /* its own peak on it */
    const struct cmt_live_series *series; /* its live bytes over time (NULL: own_peak throughout) */
};

struct cmt_gm_point { /* one change of one member's live bytes */
    int64_t t;        /* the host's monotonic clock (dump clock, not since a process start) */
    uint64_t total;   /* the GPU's live bytes on this host after the change (every member) */
    uint64_t live;    /* the member's live bytes after it */
    size_t member;    /* index into the host's members */
    size_t order;     /* index of the change in the member's series */
};

struct cmt_gm_host {
    const char *host;        /* the processes' header host (owned by the analysis) */
    struct cmt_gm_member *m; /* in process order */
    size_t nm;
    uint64_t base;          /* the members without a series, at their own peaks */
    struct cmt_gm_point *v; /* in time order (ties: member, then order) */
    size_t n;
    uint64_t peak;       /* the most bytes live at one moment: base, or some v[].total */
    size_t peak_at;      /* the first point reaching it; (size_t)-1: before any point */
    uint64_t *peak_live; /* per member: its live bytes at that moment */
    int64_t t0;          /* the earliest start_clock_ns of the members */
    size_t t0_member;    /* the member that started then (its header converts t0 to real time) */
};

struct cmt_gm { /* one GPU: its hosts, in the order of their first process */
    struct cmt_gm_host *h;
    size_t nh;
};

/* Merges the series of every process using GPU uuid (those whose peak on it is above zero).
 * 0, or -1 out of memory (out is then empty). Free with cmt_gm_free. */
int cmt_gm_build(const struct cmt_analysis *a, const char *uuid, struct cmt_gm *out);
void cmt_gm_free(struct cmt_gm *g);

/* The sum of the hosts' peaks: the GPU's peak (processes on different hosts add up). */
uint64_t cmt_gm_peak(const struct cmt_gm *g);

#endif
