/*
 * cmt_report.h — the analysis of one or many dumps and the report built from it (text and JSON,
 * schema in docs/report-schema.json). Other subcommands (run, diff, timeline, flame) reuse it:
 *   cmt_expand_paths()    DUMP|DIR arguments -> sorted dump paths (a DIR means its *.cmt* files)
 *   cmt_analysis_load()   reads and replays every dump (per-event hook available), merges
 *   cmt_analysis_stack()  symbolizes a stack of a process
 *   cmt_report_text/json  writes the report
 */
#ifndef CMT_REPORT_H
#define CMT_REPORT_H

#include <stdio.h>

#include "cmt_format.h"
#include "cmt_markers.h"
#include "cmt_pools.h"
#include "cmt_ranks.h"
#include "cmt_replay.h"
#include "cmt_suppress.h"
#include "cmt_symbols.h"

struct cmt_report_opts {
    size_t top_n;               /* leak / peak / OOM stacks listed (0: 10) */
    int no_symbols;             /* --no-symbols */
    const char *debug_dir;      /* --debug-dir */
    struct cmt_suppressions *suppressions; /* may be NULL; hit counters are updated */
    /* called for every event of every process, after it is applied (timeline, flame...) */
    void (*hook)(void *arg, const struct cmt_event *ev, const struct cmt_replay *r);
    void *hook_arg;
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
    struct cmt_sym_frame *frames; /* strings owned by the analysis' symbolizer */
};

struct cmt_rleak {
    size_t proc;               /* index into procs */
    const struct cmt_leak *leak;
    const char *uuid;          /* "GPU-..." or NULL (host / unknown device) */
    struct cmt_stack_sym stack;
};

struct cmt_gpu {               /* one physical GPU, merged over processes by uuid */
    char uuid[48];
    char name[256], pci[64];
    uint64_t peak_bytes;       /* sum of the per-process peaks on it */
    uint64_t leaked_bytes;
    unsigned processes;
};

struct cmt_analysis {
    struct cmt_report_opts opts;
    struct cmt_symbolizer *sym;
    struct cmt_process *procs;
    size_t nprocs;
    struct cmt_rleak *leaks;   /* unsuppressed, bytes desc */
    size_t nleaks;
    uint64_t leaked_bytes, leaked_allocations, suppressed_bytes;
    size_t nooms;
    struct cmt_gpu *gpus;
    size_t ngpus;
    double peak_max_over_mean; /* 0 when fewer than 2 GPUs */
    int outlier;               /* index into gpus, -1: none */
    char verdict[512];
    struct cmt_ranks *ranks;   /* per-rank view of a job (cmt_ranks.h) */
    uint64_t anomalies[CMT_AN_COUNT];
    char err[1024];
};

/* Expands DUMP|DIR arguments into a malloc'd array of malloc'd paths (dirs: regular files whose
 * name contains ".cmt", sorted). Returns 0, or -1 with err set. */
int cmt_expand_paths(char **args, int nargs, char ***paths, size_t *npaths, char *err, size_t errlen);
void cmt_free_paths(char **paths, size_t n);

/* Loads and replays every dump. Returns 0; 3 when an input is unreadable or corrupt (a->err says
 * which file and where). Call cmt_analysis_free in every case. */
int cmt_analysis_load(struct cmt_analysis *a, const struct cmt_report_opts *opts, char **paths, size_t npaths);
void cmt_analysis_free(struct cmt_analysis *a);

/* Symbolizes stack id of process p (cached frames of the analysis; n == 0 for an unknown id). */
struct cmt_stack_sym cmt_analysis_stack(struct cmt_analysis *a, size_t proc, uint64_t stack_id);
void cmt_stack_sym_free(struct cmt_stack_sym *s);
/* "function;function;..." of a symbolized stack (module+0xoff where unresolved, never addresses
 * when a function is known), for matching stacks across runs. malloc'd. */
char *cmt_stack_chain(const struct cmt_stack_sym *s);

/* Human-readable size ("1.5 MiB") into buf. */
const char *cmt_human_size(uint64_t bytes, char *buf, size_t cap);
/* Parses "123", "4K", "10MiB", "1G"...; returns 0 or -1. */
int cmt_parse_size(const char *s, uint64_t *out);
/* Hint for an anomaly (enum cmt_anomaly). */
const char *cmt_anomaly_hint(int an);

void cmt_report_text(struct cmt_analysis *a, FILE *f);
void cmt_report_json(struct cmt_analysis *a, FILE *f);

/* Frame printers shared by the report sections. */
void cmt_report_text_frames(FILE *f, const struct cmt_stack_sym *s, const char *indent);
void cmt_report_json_frames(struct cmt_json *j, const struct cmt_stack_sym *s);

/* The options every analysis command shares, for getopt_long tables: --top N, --suppressions
 * FILE, --no-symbols, --debug-dir DIR (codes 't', 's', 'n', 'd'). */
#define CMT_COMMON_OPTIONS                                                                         \
    {"top", required_argument, 0, 't'}, {"suppressions", required_argument, 0, 's'},              \
        {"no-symbols", no_argument, 0, 'n'}, {"debug-dir", required_argument, 0, 'd'}
/* Handles option c when it is one of those: returns 1 (handled), 0 (not one of them), or -1 after
 * printing a usage error for cmd (exit 2). --top goes to *top when given, else to ro->top_n. */
int cmt_common_option(const char *cmd, int c, const char *arg, struct cmt_report_opts *ro,
                      struct cmt_suppressions *supp, size_t *top);
/* Expands DUMP|DIR arguments and loads them into a: 0, or 3 after printing why. a must be freed
 * with cmt_analysis_free either way. */
int cmt_load_dumps(struct cmt_analysis *a, const struct cmt_report_opts *ro, char **args, int nargs);

#endif
