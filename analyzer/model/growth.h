/*
 * growth.h — the markers of one process (cmt_mark, the marker signal, NVTX marks and ranges) with
 * the live bytes of every device at each, and the stacks whose live bytes grow across consecutive
 * markers of one label: the leak-per-iteration finder. Fed by the replay (replay.c) with its
 * (stack, device) counters; read by the renderers and `check --max-growth-per-marker`.
 */
#ifndef CMT_GROWTH_H
#define CMT_GROWTH_H

#include <stddef.h>
#include <stdint.h>

struct cmt_event;

/* The bytes live for one (stack, device): the replay's counters, which every marker observes. */
struct cmt_stack_live {
    uint64_t stack;
    int64_t device;
    uint64_t bytes, count;
};

/* A marker (cmt_mark, the marker signal, an NVTX mark or range push) with the live bytes of every
 * device of the process at that moment (device -1: host memory). */
struct cmt_marker_rec {
    char *label, *domain;
    uint64_t flags; /* enum cmt_marker_flags */
    int64_t time_ns;
    uint64_t seq;
    size_t ndev;
    int64_t *dev;
    uint64_t *live;
};

/* A stack whose live bytes grow across consecutive markers of one label: the leak-per-iteration
 * finder. bytes_per_marker = (last - first) / (markers - 1). */
struct cmt_growth {
    const char *label; /* owned by the marker log */
    uint64_t flags;    /* the markers' kind */
    uint64_t stack;
    int64_t device;
    uint64_t first_bytes, last_bytes, markers;
    double bytes_per_marker;
    /* the stack's own series: its live bytes at markers 0, hist_stride, 2 * hist_stride, ... of
     * the label (hist_n values, at most CMT_GROWTH_HIST; owned by the log, allocated at the
     * counter's first non-zero value: 128 bytes per such counter and label), then last_bytes at
     * marker markers - 1 */
    const uint64_t *hist;
    uint32_t hist_n, hist_stride;
};
#define CMT_GROWTH_HIST 16
#define CMT_MAX_MARKERS 100000

struct cmt_series; /* per label and kind: every counter observed at each marker */

struct cmt_marker_log {
    struct cmt_marker_rec *markers; /* in order; at most CMT_MAX_MARKERS kept */
    size_t nmarkers, capmarkers;
    uint64_t dropped;          /* markers past CMT_MAX_MARKERS */
    struct cmt_growth *growth; /* after cmt_marker_log_finish: by bytes_per_marker, largest first */
    size_t ngrowth, capgrowth;
    struct cmt_series *series;
    size_t nseries, capseries;
};

/* Records MARKER e (a range pop is no marker): the live bytes then of the ndev devices dev[] (-1:
 * the host) are live[] (both taken over, malloc'd), and every counter is observed for the series
 * of its label. Returns 0, or -1 when out of memory (something was lost). */
int cmt_marker_log_add(struct cmt_marker_log *g, const struct cmt_event *e, int64_t *dev, uint64_t *live, size_t ndev,
                       const struct cmt_stack_live *counters, size_t ncounters);
/* Ends the stream: the growing stacks. 0, or -1 when out of memory. */
int cmt_marker_log_finish(struct cmt_marker_log *g, const struct cmt_stack_live *counters, size_t ncounters);
void cmt_marker_log_free(struct cmt_marker_log *g);

#endif
