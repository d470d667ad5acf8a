/*
 * live.h — the model of running jobs that `top` renders (render_top.c) and refreshes (cmd_top.c):
 * dumps read in follow mode (reader.h: only what was written since the last refresh), each replayed
 * incrementally (replay.h, never finished while the process runs), merged per physical GPU by UUID;
 * per (process, device, stack) live bytes with a ring of samples for the growth over a window; the
 * stacks symbolized by the report's one frame path (analysis.h cmt_stack_symbolize: Python frames
 * interleaved, the hiding rule); the driver's view (cmt_nvml.h) when NVML is present. A watched
 * directory is scanned for dumps that appear later.
 */
#ifndef CMT_LIVE_H
#define CMT_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "cmt_nvml.h"
#include "reader.h"
#include "replay.h"
#include "symbols.h"
#include "util.h"

#define CMT_LIVE_SPARK 60 /* GPU samples kept for the sparkline (one per refresh) */

struct cmt_live_proc {
    char *path;
    struct cmt_dump *d;
    struct cmt_replay r;
    const struct cmt_file_header *hdr; /* the dump's header (counters live) */
    const char *state;                 /* "running" | "exited" | "died" | "unknown" (another host) */
    int corrupt;
    int drained;            /* its process was gone before the last poll: every record is read */
    uint64_t first_refresh; /* the refresh that reads its records first (reader.h: a follower lags
                             * one poll; the one that opens it reads nothing unless final): its
                             * growth and rate count from there */
    char err[512];
    uint64_t live, peak;      /* GPU bytes, all its devices (peak: the most at one moment, replay.h gpu_peak) */
    uint64_t live_prev;       /* at the previous refresh */
    double rate;              /* bytes/s over the last interval */
    /* the driver's view: bytes NVML charges to the pid over the GPUs it uses (-1: n/a) */
    int driver_known;
    uint64_t driver_bytes;
};

struct cmt_live_gpu { /* one physical GPU, by UUID */
    char uuid[48], name[256], pci[64];
    uint64_t total, live, peak;
    uint64_t spark[CMT_LIVE_SPARK];
    size_t nspark;            /* samples taken (the last min(nspark, CMT_LIVE_SPARK) are in the ring) */
    uint64_t alerts;          /* ALERT records (CUMEMTRACK_ALERT crossings) on it */
    uint64_t alert_threshold; /* of the last one */
    int driver_known;         /* NVML: used/total */
    uint64_t driver_used, driver_total;
};

struct cmt_live_row { /* a (process, device, stack) counter: top stacks */
    size_t proc;
    int64_t device;
    uint64_t stack, bytes;
    int64_t growth; /* bytes over the window */
};

struct cmt_live {
    double window_s;
    int no_symbols;
    char **dirs; /* watched directories */
    size_t ndirs;
    struct cmt_live_proc *procs;
    size_t nprocs;
    char **skipped; /* "PATH: why" of files that are not (yet) readable dumps */
    size_t nskipped;
    struct cmt_live_gpu *gpus;
    size_t ngpus;
    struct cmt_htab stacks; /* (proc << 32 | device + 1, stack) -> bytes, then the ring */
    size_t ring;            /* samples per counter */
    double *times;          /* ring of refresh times (s) */
    uint64_t refreshes;
    double now, prev;
    uint64_t events; /* records replayed so far */
    int snapshot;    /* one refresh only (top --once): read every dump to its end, as if final (no later
                      * refresh to order a record still being written against the others) */
    struct cmt_nvml nvml;
    struct cmt_symbolizer *sym;
    uint64_t out_of_memory; /* stacks left incomplete (cmt_live_stack) */
    char host[256];
    /* optional: told every change of every replay (c->proc: the index in procs), and each new
     * process (index) before its first change (timeline --follow) */
    cmt_observer observer;
    void *observer_arg;
    int (*on_new_proc)(void *arg, size_t proc, const struct cmt_file_header *h);
    void *on_new_proc_arg;
};

/* Sets up (window: seconds of growth; interval: the refresh, for the ring size; nvml_lib: NULL for
 * the default soname). Returns 0 or -1 (out of memory). */
int cmt_live_init(struct cmt_live *L, double window_s, double interval_s, int no_symbols, const char *nvml_lib);
/* Watches a directory or reads a dump. Returns 0 or -1 with err (a file that is not a dump). */
int cmt_live_add(struct cmt_live *L, const char *path, char *err, size_t errlen);
/* Reads what every dump gained, looks for new dumps, samples. now: seconds (a monotonic clock). */
void cmt_live_refresh(struct cmt_live *L, double now);
/* 1 when there is at least one process and every one is drained (gone before the last poll, every
 * record read) or corrupt. */
int cmt_live_all_done(const struct cmt_live *L);
/* The rows with the most live bytes (by_growth 0) or the most growth over the window (1): at most
 * max into out; returns how many. */
size_t cmt_live_top(const struct cmt_live *L, int by_growth, struct cmt_live_row *out, size_t max);
/* A stack of a process by the report's one frame path (analysis.h cmt_stack_symbolize): free it
 * with cmt_stack_sym_free; n == 0 for an unknown id. */
struct cmt_stack_sym cmt_live_stack(struct cmt_live *L, size_t proc, uint64_t stack);
void cmt_live_free(struct cmt_live *L);

/* 1 when one of the followed dumps is that of process pid (NVML's processes are this host's). */
int cmt_live_tracks_pid(const struct cmt_live *L, unsigned pid);

#endif
