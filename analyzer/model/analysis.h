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
#include "stack.h"
#include "suppress.h"
#include "symbols.h"
#include "util.h"

/* A GPU (or rank) whose peak is at least this many times the mean of all stands out: the one
 * threshold of the text, JSON and HTML reports (the page reads it from its embedded data). */
#define CMT_IMBALANCE_OUTLIER 1.2

struct cmt_report_opts {
    size_t top_n;                          /* leak / peak / OOM stacks listed (0: 10; CMT_TOP_ALL: all) */
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
    /* a progress line (dumps read, events replayed, rate) goes here, rewritten in place, once the
     * load has taken more than a second; NULL: none (the CLI sets it to a terminal's stderr) */
    FILE *progress;
    /* record every process's GPU series (cmt_process.series) even when one dump loads: several
     * dumps always record them (the simultaneous peak); timeline's per-GPU track wants them too */
    int gpu_series;
};

struct cmt_live_point { /* a GPU's live bytes in one process from time t (dump clock) */
    int64_t t;
    uint64_t live;
};

struct cmt_live_series { /* every change of one GPU's live bytes in one process */
    int64_t device;
    struct cmt_live_point *v;
    size_t n, cap;
};

struct cmt_process {
    size_t input; /* index of its path in cmt_analysis_load's paths */
    char *path;
    struct cmt_file_header hdr; /* copy of the dump header */
    char *command;              /* cmdline joined with spaces */
    const char *exit;           /* "clean" | "exit-immediate" | "exec" | "died" | "running" */
    int running;                /* still running on this host (running.h): its live memory is live now */
    uint64_t live_now_bytes, live_now_allocations; /* running: what is live, not leaked */
    /* live bytes over time per GPU (several dumps, or gpu_series: they make the simultaneous peak
     * of a GPU shared by processes of one host, whose monotonic clock they share; gpumerge.h) */
    struct cmt_live_series *series;
    size_t nseries;
    const struct cmt_report_opts *fwd; /* while loading: the caller's observer */
    int series_lost;                   /* out of memory while recording them */
    int truncated;
    unsigned writers, blocks;
    struct cmt_replay replay;
};


struct cmt_rleak {
    size_t proc; /* index into procs */
    const struct cmt_leak *leak;
    const char *uuid; /* "GPU-..." or NULL (host / unknown device) */
    struct cmt_stack_sym stack;
    const char *allocator; /* cached: the caching allocator holding it (caching.h); NULL in leaks */
};

/* A test of a test runner (pertest.h), its stacks live at its end symbolized and told apart. */
struct cmt_rtest_stack {
    uint64_t id; /* the stack's id in its process */
    int64_t device;
    char *uuid; /* "GPU-..." or NULL */
    uint64_t bytes, allocations;
    const char *allocator; /* a caching allocator holds it (caching.h): not leaked; else NULL */
    int suppressed;        /* --suppressions matches it: not leaked */
    struct cmt_stack_sym stack;
};

struct cmt_rtest {
    size_t proc; /* index into procs */
    const struct cmt_test_rec *t;
    uint64_t leaked_bytes, leaked_allocations; /* live at its end, neither cached nor suppressed */
    uint64_t cached_bytes, cached_allocations; /* held by a caching allocator at its end */
    uint64_t suppressed_bytes;
    struct cmt_rtest_stack *stacks; /* leaked ones first, then cached, then suppressed; bytes desc */
    size_t nstacks;
};

struct cmt_gpu_proc { /* a process live on a GPU at its peak */
    size_t proc;      /* index into procs */
    uint64_t bytes;
};

struct cmt_gpu { /* one physical GPU, merged over processes by uuid */
    char uuid[48];
    char name[256], pci[64];
    uint64_t peak_bytes;             /* the most bytes live on it at one moment: the processes of a host merged in
                                        time (their shared monotonic clock); processes on different hosts cannot
                                        share a GPU, so their peaks add up */
    struct cmt_gpu_proc *peak_procs; /* the processes live at that moment, bytes desc */
    size_t npeak_procs;
    uint64_t leaked_bytes;
    unsigned processes;
};

struct cmt_peak { /* a GPU of a process whose live bytes peaked above zero */
    size_t proc;  /* index into procs */
    const struct cmt_devstate *dev;
};

/* Imported memory (kind imported) of one process on one device: never in its leaks or peaks. */
struct cmt_imported_row {
    size_t proc;
    int64_t device;
    uint64_t imports, open, open_bytes; /* open: not released at the end */
};

struct cmt_unreadable { /* a dump left out of the analysis */
    char *path;
    int64_t offset; /* where it stopped making sense; -1: none (cannot open, out of memory) */
    char *reason;
};

/* What a reader of the report should know that is no anomaly (the byte figures are right) but
 * changes what the stacks can tell: every output says it (text, JSON notes[], HTML, run, flame). */
enum cmt_note_kind {
    CMT_NOTE_PYTHON_OFF,    /* CPython ran but the tracer recorded no Python frames (its INFO note) */
    CMT_NOTE_PYTHON_FAILED, /* Python frame walks failed (header counter python_walk_failed) */
    CMT_NOTE_KIND_COUNT
};
extern const char *const cmt_note_kind_names[CMT_NOTE_KIND_COUNT];

struct cmt_note {  /* one kind and cause, the processes it applies to merged */
    int kind;      /* enum cmt_note_kind */
    size_t *procs; /* indices into procs, in order */
    size_t nprocs;
    uint64_t count; /* PYTHON_FAILED: walks failed, over those processes */
    char why[256];  /* PYTHON_OFF: the cause, from the tracer's note ("CPython 3.7.16 has ...") */
    char text[768]; /* the whole note in words, "Python frames: ..." (why, 4 pids and the rest fit) */
};

/* The tracker's tables whose overflow is the table_full anomaly (include/cmt_format.h counters). */
#define CMT_TABLES(X)                                                                                                  \
    X(CMT_TABLE_POINTERS, TABLE_FULL, "allocations the pointer table could not hold (their frees looked unknown)")     \
    X(CMT_TABLE_CONTEXTS, CTX_TABLE_FULL,                                                                              \
      "contexts the context table could not hold (a teardown of one ends nothing)")                                    \
    X(CMT_TABLE_POOLS, POOL_TABLE_FULL,                                                                                \
      "memory pools the pool table could not hold (their allocations' device unknown)")                                \
    X(CMT_TABLE_VMM_UNDO, VMM_UNDO_FULL, "VMM releases or unmaps a refusal could not undo")
#define CMT_TABLE_ENUM(id, ctr, what) id,
enum cmt_table { CMT_TABLES(CMT_TABLE_ENUM) CMT_TABLE_COUNT };
#undef CMT_TABLE_ENUM

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
    struct cmt_ranks *ranks;           /* per-rank view of a job (ranks.h) */
    struct cmt_imported_row *imported; /* in process, then first-import order */
    size_t nimported;
    uint64_t anomalies[CMT_AN_COUNT];
    uint64_t table_full[CMT_TABLE_COUNT]; /* anomalies[CMT_AN_TABLE_FULL] by table (header counters) */
    struct cmt_unreadable *unreadable;    /* in argument order */
    size_t nunreadable;
    uint64_t out_of_memory; /* stacks left incomplete for lack of memory (cmt_analysis_stack) */
    struct cmt_note *notes; /* in kind order, then first process */
    size_t nnotes;
    struct cmt_rtest *tests;    /* every test of every process (pertest.h): leaked, cached, peak desc */
    size_t ntests, tests_procs; /* tests_procs: processes with a test */
    char err[1024];
};

/* Loads and replays every dump it can read: one that cannot be read or is corrupt is left out and
 * listed in unreadable[] (a truncated one is read up to its last intact record). Returns 0; 3 when
 * no dump could be read (a->err says the first file and why) or out of memory. Call
 * cmt_analysis_free in every case. */
int cmt_analysis_load(struct cmt_analysis *a, const struct cmt_report_opts *opts, char **paths, size_t npaths);
void cmt_analysis_free(struct cmt_analysis *a);

/* Symbolizes stack id of process p (cached frames of the analysis; n == 0 for an unknown id). */
struct cmt_stack_sym cmt_analysis_stack(struct cmt_analysis *a, size_t proc, uint64_t stack_id);

/* notes.c: the notes under a report's first line (a->notes), built once the dumps are loaded. */
int cmt_notes_build(struct cmt_analysis *a);
/* Hint for an anomaly (enum cmt_anomaly). */
const char *cmt_anomaly_hint(int an);
/* The same, with what this analysis counted where the hint has parts (table_full: which tables
 * were full, and what that left unfollowed); written into buf (cap bytes), returns buf. */
const char *cmt_anomaly_text(const struct cmt_analysis *a, int an, char *buf, size_t cap);
/* 1 when anomaly an means the figures may be wrong (unreadable or truncated dumps, dropped events,
 * full tables, unknown frees): `check` refuses to judge them without --allow-anomalies. */
int cmt_anomaly_distrusts(int an);
/* Anomalies of every kind but captured allocations (those are expected, not suspicious). */
uint64_t cmt_analysis_anomalies(const struct cmt_analysis *a);
/* The largest bytes_per_marker over all processes (0 when none); proc and index locate it. */
double cmt_growth_max(const struct cmt_analysis *a, size_t *proc, size_t *index);

#endif
