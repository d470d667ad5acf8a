/*
 * analysis.h — the model of one or many dumps that every renderer reads (render_text.c,
 * render_json.c, render_html.c) and every command builds (cmd_*.c):
 *   cmt_analysis_load()   reads and replays every dump (in parallel), merges them: leaks
 *                         symbolized, suppressed and sorted, GPUs merged by UUID, the imbalance
 *                         judged, the per-rank view built (ranks.h)
 *   cmt_analysis_stack()  symbolizes a stack of a process
 */
#ifndef CMT_ANALYSIS_H
#define CMT_ANALYSIS_H

#include <stdio.h>

#include "caching.h"
#include "cmt_format.h"
#include "heaps.h"
#include "ranks.h"
#include "replay.h"
#include "suppress.h"
#include "symbols.h"
#include "util.h"

/* A GPU (or rank) whose peak is at least this many times the mean of all stands out: the one
 * threshold of the text, JSON and HTML reports (the page reads it from its embedded data). */
#define CMT_IMBALANCE_OUTLIER 1.2

struct cmt_report_opts {
    size_t top_n;                          /* leak / peak / OOM stacks listed (0: 10) */
    int no_symbols;                        /* --no-symbols */
    const char *debug_dir;                 /* --debug-dir */
    struct cmt_suppressions *suppressions; /* may be NULL; hit counters are updated */
    const struct cmt_caching *caching;     /* --caching-allocator rules (may be NULL); the built-in
                                              ones (caching.h) always apply */
    /* told what every replay changes (timeline.h), on the loading threads: observer_begin first,
     * with the number of dumps; with observe_in_order, the dumps load one after the other */
    cmt_observer observer;
    int (*observer_begin)(void *arg, size_t nprocs);
    void *observer_arg;
    int observe_in_order;
};

struct cmt_process {
    char *path;
    struct cmt_file_header hdr; /* copy of the dump header */
    char *command;              /* cmdline joined with spaces */
    const char *exit;           /* "clean" | "exit-immediate" | "exec" | "died" */
    int truncated;
    unsigned writers, blocks;
    struct cmt_replay replay;
};

struct cmt_stack_sym {
    size_t n;
    struct cmt_sym_frame *frames; /* native and Python frames interleaved (reader.h), innermost
                                     first; strings owned by the analysis' symbolizer or replay */
};

struct cmt_rleak {
    size_t proc; /* index into procs */
    const struct cmt_leak *leak;
    const char *uuid; /* "GPU-..." or NULL (host / unknown device) */
    struct cmt_stack_sym stack;
    const char *allocator; /* cached: the caching allocator holding it (caching.h); NULL in leaks */
};

struct cmt_gpu { /* one physical GPU, merged over processes by uuid */
    char uuid[48];
    char name[256], pci[64];
    uint64_t peak_bytes; /* sum of the per-process peaks on it */
    uint64_t leaked_bytes;
    unsigned processes;
};

struct cmt_peak { /* a GPU of a process whose live bytes peaked above zero */
    size_t proc;  /* index into procs */
    const struct cmt_devstate *dev;
};

struct cmt_analysis {
    struct cmt_report_opts opts;
    struct cmt_symbolizer *sym;
    struct cmt_process *procs;
    size_t nprocs;
    struct cmt_rleak *leaks; /* unsuppressed, bytes desc; not held by a caching allocator */
    size_t nleaks;
    uint64_t leaked_bytes, leaked_allocations, suppressed_bytes;
    /* live at the end but held by a caching allocator: its cache, not a leak verdict (the device
     * figures, peaks, OOMs, timelines and growth per marker still count it: it is device memory) */
    struct cmt_rleak *cached; /* bytes desc */
    size_t ncached;
    uint64_t cached_bytes, cached_allocations;
    struct cmt_caching builtin_caching;
    size_t nooms;
    struct cmt_gpu *gpus;
    size_t ngpus;
    double peak_max_over_mean; /* 0 when fewer than 2 GPUs */
    int outlier;               /* index into gpus, -1: none */
    char verdict[512];
    struct cmt_peak *peaks; /* in process, then ordinal order */
    size_t npeaks;
    struct cmt_ranks *ranks; /* per-rank view of a job (ranks.h) */
    uint64_t anomalies[CMT_AN_COUNT];
    uint64_t out_of_memory; /* stacks left incomplete for lack of memory (cmt_analysis_stack) */
    char err[1024];
};

/* Loads and replays every dump. Returns 0; 3 when an input is unreadable or corrupt (a->err says
 * which file and where). Call cmt_analysis_free in every case. */
int cmt_analysis_load(struct cmt_analysis *a, const struct cmt_report_opts *opts, char **paths, size_t npaths);
void cmt_analysis_free(struct cmt_analysis *a);

/* Symbolizes stack id of process p (cached frames of the analysis; n == 0 for an unknown id). */
struct cmt_stack_sym cmt_analysis_stack(struct cmt_analysis *a, size_t proc, uint64_t stack_id);
void cmt_stack_sym_free(struct cmt_stack_sym *s);
/* Frames of s shown in the default views (not hidden, see enum cmt_hide). */
size_t cmt_stack_visible(const struct cmt_stack_sym *s);
/* Frame i of s is shown: not hidden, or every frame of s is hidden (then all are shown). */
#define CMT_FRAME_SHOWN(s, i, nvisible) (!(s)->frames[i].hidden || !(nvisible))

/* Hint for an anomaly (enum cmt_anomaly). */
const char *cmt_anomaly_hint(int an);
/* Anomalies of every kind but captured allocations (those are expected, not suspicious). */
uint64_t cmt_analysis_anomalies(const struct cmt_analysis *a);
/* The largest bytes_per_marker over all processes (0 when none); proc and index locate it. */
double cmt_growth_max(const struct cmt_analysis *a, size_t *proc, size_t *index);

#endif
