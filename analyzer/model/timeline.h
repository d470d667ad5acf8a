/*
 * timeline.h — live device bytes over time, told by the replay (struct cmt_report_opts:
 * observer = cmt_tl_observe, observer_begin = cmt_tl_begin, observer_arg = the cmt_tl), then
 * cmt_tl_finish once the analysis is loaded.
 *
 * Two ways to use it, together or apart:
 *   rows     a callback gets one row per change of a device's live bytes (and per OOM / MARKER),
 *            streamed while the dumps are replayed (timeline --csv, --perfetto);
 *   series   with nbuckets > 0, every (process, device) keeps a downsampled series: nbuckets time
 *            buckets (min, max, last value, each with its time) whose width doubles (neighbours
 *            merged) whenever the process runs past the last one, so memory never grows with the
 *            number of events and the global peak is always one bucket's max. Each bucket's max
 *            carries the stack with the most bytes live on that device at that moment (followed
 *            from the replay's (stack, device) counters). OOMs and markers are all kept (not
 *            downsampled). Series need no order: the dumps load in parallel.
 * Rows come in the order of the records, process after process: the analysis loads the dumps
 * one at a time for them (observe_in_order).
 * Times are ns since the process start (header start_clock_ns).
 */
#ifndef CMT_TIMELINE_H
#define CMT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

struct cmt_tl_bucket {
    int has;
    uint64_t min, max, last;
    int64_t tmin, tmax, tlast;
    uint64_t top_stack, top_bytes; /* at tmax */
};

struct cmt_tl_series {
    size_t proc;    /* index into the analysis' procs */
    int64_t device; /* ordinal as the process saw it */
    uint64_t peak;
    int64_t peak_t;
    uint64_t peak_top_stack, peak_top_bytes;
    uint64_t last;
    int64_t tlast;
    int64_t width;           /* ns per bucket */
    struct cmt_tl_bucket *b; /* nbuckets */
};

enum cmt_tl_mark_kind { CMT_TL_OOM = 1, CMT_TL_MARKER = 2 };

struct cmt_tl_mark {
    int kind;
    size_t proc;
    int64_t t, device;               /* device: OOM only (-1 host) */
    uint64_t requested, live, stack; /* OOM: request, that device's live bytes then, stack id */
    char *label;                     /* MARKER label (malloc'd), OOM api name or NULL */
    uint64_t mark_kind;              /* MARKER: CMT_MARK_POINT, _RANGE_PUSH or _SIGNAL (a pop is no mark) */
    int64_t t_end;                   /* MARKER of a range: when its pop closed it, -1: still open */
};

/* A row's event: its name is the CSV's event column (README.md), one list for every printer. */
#define CMT_TL_EVENTS(X)                                                                                               \
    X(CMT_TL_EV_ALLOC, "alloc")                                                                                        \
    X(CMT_TL_EV_FREE, "free")                                                                                          \
    X(CMT_TL_EV_RETRACK, "retrack")                                                                                    \
    X(CMT_TL_EV_TEARDOWN, "teardown")                                                                                  \
    X(CMT_TL_EV_OOM, "oom")                                                                                            \
    X(CMT_TL_EV_MARKER, "marker")           /* a point: cmt_mark, NVTX mark, the marker signal */                      \
    X(CMT_TL_EV_RANGE_BEGIN, "range_begin") /* an NVTX range push */                                                   \
    X(CMT_TL_EV_RANGE_END, "range_end")     /* the pop that closes it */
#define CMT_TL_EV_ENUM(id, name) id,
enum cmt_tl_event { CMT_TL_EVENTS(CMT_TL_EV_ENUM) };
#undef CMT_TL_EV_ENUM
const char *cmt_tl_event_name(enum cmt_tl_event e);
/* marker, range_begin, range_end: the rows with a label */
static inline int cmt_tl_event_labelled(enum cmt_tl_event e) {
    return e == CMT_TL_EV_MARKER || e == CMT_TL_EV_RANGE_BEGIN || e == CMT_TL_EV_RANGE_END;
}

struct cmt_tl_row {
    size_t proc;
    int64_t t;        /* ns since the process start */
    int64_t device;   /* -1: none (a marker applies to the process) */
    const char *uuid; /* "GPU-..." or NULL */
    uint64_t live;    /* that device's live bytes after the event */
    enum cmt_tl_event event;
    const char *label; /* marker label (range_end: its push's label) / OOM api, may be NULL */
    size_t label_len;
    uint64_t size;   /* alloc: its size; OOM: the request; else 0 */
    const char *api; /* alloc, free, retrack, oom: the API name (NULL: unknown) */
    int unmatched;   /* range_end: no push of its thread was open (a pop without its push) */
    uint32_t writer; /* marker, range_begin, range_end: the thread (dump stream, from 1) */
    uint64_t stack;  /* alloc/free/retrack/teardown: the allocation's stack; OOM: the request's (0: none) */
    int live_change; /* alloc/free/retrack/teardown: a change of the device's live bytes (one point of the
                        process' series of that device, cmt_process.series, in the same order) */
};

typedef void (*cmt_tl_row_fn)(void *arg, const struct cmt_tl_row *row);

struct cmt_tl_proc; /* internal per-process state */

struct cmt_tl {
    struct cmt_analysis *a; /* the analysis being loaded (procs[] is filled as dumps are read) */
    size_t nbuckets;        /* 0: no series */
    cmt_tl_row_fn row;      /* may be NULL */
    void *row_arg;
    struct cmt_tl_series *series;
    size_t nseries, capseries;
    struct cmt_tl_mark *marks;
    size_t nmarks, capmarks;
    struct cmt_tl_proc *pst; /* per process, until cmt_tl_finish */
    size_t npst;
    int out_of_memory; /* something was lost: the series or marks are incomplete */
};

void cmt_tl_init(struct cmt_tl *tl, struct cmt_analysis *a, size_t nbuckets);
/* The observer: arg is the struct cmt_tl. cmt_tl_begin is told the number of processes first. */
int cmt_tl_begin(void *arg, size_t nprocs);
void cmt_tl_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c);
/* After the load: the series and marks in process order. 0, or -1 when out of memory (then
 * the timeline is incomplete). */
int cmt_tl_finish(struct cmt_tl *tl);
void cmt_tl_free(struct cmt_tl *tl);

/* A downsampled series of its own (the HTML chart's merged GPU series, gpumerge.h), built like the
 * per-process ones: init (0, -1 out of memory; free s->b), then for each point in time order the
 * bucket of t (>= 0; widening the buckets as needed) and the value put into it. */
int cmt_tl_series_init(struct cmt_tl_series *s, size_t nbuckets);
struct cmt_tl_bucket *cmt_tl_bucket_at(struct cmt_tl_series *s, size_t nbuckets, int64_t t);
void cmt_tl_bucket_put(struct cmt_tl_series *s, struct cmt_tl_bucket *b, int64_t t, uint64_t v, uint64_t top_stack,
                       uint64_t top_bytes);

/* Seconds since the process start of t. */
double cmt_tl_seconds(int64_t t);

#endif
