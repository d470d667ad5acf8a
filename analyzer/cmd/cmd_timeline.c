/*
 * cmd_timeline.c — cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...: live device
 * bytes over time, one row per change (and per OOM and marker), streamed from the replay's observer
 * (timeline.h) while the dumps are read, written by render_timeline.c.
 *   text       a compact table (seconds since the process start, human sizes)
 *   --csv      time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label,
 *              gpu_live_bytes (numbers only in the numeric columns; README.md's table says what each
 *              holds; gpu_live_bytes, the GPU's total over its processes, needs a first load of
 *              several dumps: gpumerge.h)
 *   --perfetto Chrome trace event JSON (Perfetto UI, chrome://tracing): a counter track ("ph":"C")
 *              per GPU of each process and one per physical GPU (every process of a host), NVTX ranges as slices
 * ("ph":"B"/"E"), instant events
 *              ("ph":"i") for OOMs and marks, process and thread names ("ph":"M"); ts in
 *              microseconds since the earliest process start.
 *   --follow   dumps being written (live.h, follow-mode reads): the rows of each refresh, in time order
 *              with the GPU totals then (render.h cmt_tl_writer_flush), until every
 *              process has exited or died, or the user interrupts; a DIR is watched for new dumps
 *   --interval SECONDS  (with --follow) one row per GPU per interval instead of one per event, in the
 *              shape of `nvidia-smi --query-gpu=timestamp,uuid,pci.bus_id,memory.used,memory.total
 *              --format=csv -l SECONDS` plus the exact byte counts and the process count
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "cli.h"
#include "live.h"
#include "render.h"
#include "timeline.h"

static const char timeline_help[] =
    "usage: cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...\n"
    "       cumemtrack timeline --follow [--csv] [--interval SECONDS] [-o FILE] DUMP|DIR...\n"
    "Live device memory over time: one row per change of a device's live bytes, per OOM and per\n"
    "marker (cmt_mark), for every process (a DIR means every *.cmt* file in it).\n"
    "  --csv        CSV: time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label,\n"
    "               gpu_live_bytes (the GPU's live bytes summed over the processes of the host at\n"
    "               the row's time: after the change, at an OOM, at a marker of a process on one\n"
    "               GPU); numeric columns hold numbers only; see cumemtrack(1)\n"
    "  --perfetto   Chrome trace event JSON for ui.perfetto.dev and chrome://tracing: a counter\n"
    "               track per GPU and process and one per physical GPU (all its processes), NVTX\n"
    "               ranges as slices, OOMs and marks as instants; each\n"
    "               allocation and free is also an instant (cat \"stack\") whose args.stack lists\n"
    "               its frames (Python frames included), as OOMs do\n"
    "  -o FILE      write to FILE instead of stdout\n"
    "  --quiet      no progress line on a terminal's stderr\n"
    "  --follow     the dumps of running processes: rows as records arrive, until every process\n"
    "               has exited or died (or an interrupt); a DIR is watched for dumps that appear\n"
    "  --interval SECONDS  with --follow: one CSV row per GPU per interval instead of one per event:\n"
    "               timestamp, uuid, pci.bus_id, memory.used [MiB], memory.total [MiB], live_bytes,\n"
    "               total_bytes, processes (the shape of nvidia-smi --format=csv -l)\n"
    "Without --csv or --perfetto: a compact text table, then each GPU's peak (all its processes\n"
    "at one moment).\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

/* ---- --follow ---- */

#define FOLLOW_MAX_PROCS 4096

struct follow {
    struct cmt_analysis a; /* a shell: procs[] holds the headers the row writer prints */
    struct cmt_tl tl;
};

static int follow_new_proc(void *arg, size_t proc, const struct cmt_file_header *h) {
    struct follow *F = arg;
    if (proc >= FOLLOW_MAX_PROCS) return -1;
    F->a.procs[proc].hdr = *h;
    F->a.nprocs = proc + 1;
    return 0;
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One row per GPU: nvidia-smi's timestamp ("2026/12/01 09:30:00.123", local time), then its
 * memory.used / memory.total in MiB (here: the tracked live bytes), then exact bytes. */
static void interval_rows(const struct cmt_live *L, FILE *f) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    time_t s = tv.tv_sec;
    localtime_r(&s, &tm);
    char ts[64];
    strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
    for (size_t g = 0; g < L->ngpus; g++) {
        const struct cmt_live_gpu *G = &L->gpus[g];
        unsigned procs = 0;
        for (size_t i = 0; i < L->nprocs; i++)
            for (size_t k = 0; k < L->procs[i].r.ndevs; k++) {
                char ub[48];
                const char *u = cmt_device_uuid(&L->procs[i].r.devs[k], ub);
                if (u && !strcmp(u, G->uuid)) procs++;
            }
        fprintf(f, "%s.%03ld, %s, %s, %llu MiB, %llu MiB, %llu, %llu, %u\n", ts, (long)(tv.tv_usec / 1000), G->uuid,
                G->pci[0] ? G->pci : "", (unsigned long long)(G->live >> 20), (unsigned long long)(G->total >> 20),
                (unsigned long long)G->live, (unsigned long long)G->total, procs);
    }
}

static int follow_timeline(int fmt, double interval, const char *out, char **args, int nargs) {
    struct follow *F = calloc(1, sizeof *F);
    struct cmt_live L;
    int rc = 0;
    if (!F || !(F->a.procs = calloc(FOLLOW_MAX_PROCS, sizeof *F->a.procs))) {
        free(F);
        cmt_msg("timeline: out of memory");
        return 3;
    }
    if (cmt_live_init(&L, 60, interval > 0 ? interval : 0.2, 1, "/nonexistent/no-nvml-for-timeline") != 0) rc = 3;
    L.on_new_proc = follow_new_proc;
    L.on_new_proc_arg = F;
    char err[1024];
    FILE *f = rc ? NULL : cmt_open_output(out);
    struct cmt_tl_writer *w = NULL;
    if (f && interval <= 0) {
        uint64_t *tpid = calloc(FOLLOW_MAX_PROCS, sizeof *tpid);
        w = tpid ? cmt_tl_writer_new(fmt, f, &F->a, 0, tpid, FOLLOW_MAX_PROCS) : NULL;
        free(tpid);
        if (w) cmt_tl_writer_gpu_totals(w, NULL, 1);
        cmt_tl_init(&F->tl, &F->a, 0);
        F->tl.row = cmt_tl_write_row;
        F->tl.row_arg = w;
        if (!w || cmt_tl_begin(&F->tl, FOLLOW_MAX_PROCS) != 0) rc = 3;
        L.observer = cmt_tl_observe;
        L.observer_arg = &F->tl;
    } else if (f) {
        fprintf(f, "timestamp, uuid, pci.bus_id, memory.used [MiB], memory.total [MiB], live_bytes, total_bytes, "
                   "processes\n");
    }
    if (!f) rc = 3;
    for (int i = 0; !rc && i < nargs; i++)
        if (cmt_live_add(&L, args[i], err, sizeof err) != 0) {
            cmt_msg("%s", err);
            rc = 3;
        }
    int64_t polled[2] = {INT64_MIN, INT64_MIN}; /* the last two refreshes, CLOCK_MONOTONIC ns */
    while (!rc) {
        double now = mono_s();
        cmt_live_refresh(&L, now);
        /* a follower lags one refresh (reader.h): every record older than the one before the last
         * was read; the rows of this refresh out in time order, each with the GPU's total then */
        if (w && cmt_tl_writer_flush(w, polled[0], L.host) != 0) {
            cmt_msg("timeline: out of memory while following");
            rc = 3;
        }
        polled[0] = polled[1];
        polled[1] = (int64_t)(now * 1e9);
        if (interval > 0) interval_rows(&L, f);
        fflush(f);
        if (ferror(f)) rc = 3;
        int done = cmt_live_all_done(&L);
        for (size_t i = 0; i < L.nprocs; i++)
            if (L.procs[i].corrupt) {
                cmt_msg("%s", L.procs[i].err);
                rc = 3;
            }
        if (done || rc) break;
        struct timespec ts = {0, 0};
        double s = interval > 0 ? interval : 0.2;
        ts.tv_sec = (time_t)s;
        ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    if (w) cmt_tl_writer_end(w, 1);
    if (f) {
        int crc = cmt_close_output(f, out);
        if (!rc) rc = crc;
    }
    cmt_tl_writer_free(w);
    if (interval <= 0) cmt_tl_free(&F->tl);
    cmt_live_free(&L);
    free(F->a.procs);
    free(F);
    return rc;
}

int cmt_cmd_timeline(int argc, char **argv) {
    static const struct option opts[] = {
        {"csv", no_argument, 0, 'c'},    {"perfetto", no_argument, 0, 'p'},
        {"quiet", no_argument, 0, 'q'},  {"output", required_argument, 0, 'o'},
        {"follow", no_argument, 0, 'f'}, {"interval", required_argument, 0, 'i'},
        {"help", no_argument, 0, 'h'},   {0, 0, 0, 0},
    };
    int fmt = CMT_TL_TEXT, c, quiet = 0, follow = 0;
    double interval = 0;
    const char *out = NULL;
    char err[1024];
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
        case 'p': {
            int want = c == 'c' ? CMT_TL_CSV : CMT_TL_PERFETTO;
            if (fmt != CMT_TL_TEXT && fmt != want) {
                cmt_msg("timeline: --csv and --perfetto conflict: choose one\n%s", timeline_help);
                return 2;
            }
            fmt = want;
            break;
        }
        case 'o':
            out = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'f':
            follow = 1;
            break;
        case 'i': {
            char *end;
            errno = 0;
            interval = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(interval > 0) || interval > 86400) {
                cmt_msg("timeline: --interval wants a positive number of seconds, not \"%s\"", optarg);
                return 2;
            }
            break;
        }
        case 'h':
            fputs(timeline_help, stdout);
            return 0;
        default:
            cmt_msg("timeline: unknown or incomplete option '%s'\n%s", argv[optind - 1], timeline_help);
            return 2;
        }
    }
    if (optind >= argc) {
        cmt_msg("timeline: no dump given\n%s", timeline_help);
        return 2;
    }
    if (interval > 0 && !follow) {
        cmt_msg("timeline: --interval needs --follow");
        return 2;
    }
    if (follow && fmt == CMT_TL_PERFETTO) {
        cmt_msg("timeline: --follow writes text or CSV rows (a Perfetto trace is one document: run it after)");
        return 2;
    }
    if (follow) return follow_timeline(fmt, interval, out, argv + optind, argc - optind);
    char **paths;
    size_t npaths;
    if (cmt_expand_paths(argv + optind, argc - optind, &paths, &npaths, err, sizeof err) != 0) {
        cmt_msg("%s", err);
        return 3;
    }
    uint64_t *tpid = calloc(npaths + 1, sizeof *tpid);
    int64_t base_real = 0;
    int have_base = 0;
    if (!tpid) {
        cmt_msg("timeline: out of memory");
        cmt_free_paths(paths, npaths);
        return 3;
    }
    /* headers first: the trace's time base and pids */
    for (size_t i = 0; i < npaths; i++) {
        struct cmt_dump *d = cmt_dump_open(paths[i], err, sizeof err);
        if (!d) continue; /* the analysis leaves it out and names it */
        const struct cmt_file_header *h = cmt_dump_header(d);
        if (!have_base || h->start_realtime_ns < base_real) base_real = h->start_realtime_ns;
        have_base = 1;
        uint64_t pid = h->pid;
        for (size_t k = 0; k < i; k++)
            if (tpid[k] == pid) pid += 1000000; /* same pid on another host */
        tpid[i] = pid;
        cmt_dump_close(d);
    }
    FILE *f = cmt_open_output(out);
    struct cmt_analysis a;
    struct cmt_tl_writer *w = f ? cmt_tl_writer_new(fmt, f, &a, base_real, tpid, npaths) : NULL;
    free(tpid);
    if (!w) {
        if (f) {
            cmt_msg("timeline: out of memory");
            cmt_close_output(f, out);
        }
        cmt_free_paths(paths, npaths);
        return 3;
    }
    /* CSV's gpu_live_bytes: a row's GPU total needs every process's series first (rows stream out
     * process after process), so several dumps are loaded twice: first for the merged series */
    int grc = 0;
    if (fmt == CMT_TL_CSV && npaths > 1) {
        struct cmt_analysis pre;
        struct cmt_report_opts po = {0};
        po.no_symbols = 1;
        cmt_cli_progress(&po, quiet);
        if (cmt_analysis_load(&pre, &po, paths, npaths) == 0) grc = cmt_tl_writer_gpu_totals(w, &pre, 0);
        cmt_analysis_free(&pre);
    } else if (fmt == CMT_TL_CSV)
        grc = cmt_tl_writer_gpu_totals(w, NULL, 0);
    struct cmt_tl tl;
    cmt_tl_init(&tl, &a, 0);
    tl.row = cmt_tl_write_row;
    tl.row_arg = w;
    struct cmt_report_opts ro = {0};
    ro.no_symbols = fmt != CMT_TL_PERFETTO; /* its stacks are symbolized, as every report's frames */
    ro.observer = cmt_tl_observe;
    ro.observer_begin = cmt_tl_begin;
    ro.observer_arg = &tl;
    ro.observe_in_order = 1;                /* rows stream out in record order, process after process */
    ro.gpu_series = fmt == CMT_TL_PERFETTO; /* its per-GPU tracks, one dump too */
    cmt_cli_progress(&ro, quiet);
    int rc = cmt_analysis_load(&a, &ro, paths, npaths);
    int wrc = cmt_tl_writer_end(w, !rc);
    cmt_report_unreadable(&a);
    if (rc)
        cmt_msg("%s", a.err);
    else if (cmt_tl_finish(&tl) != 0 || wrc != 0 || grc != 0) {
        cmt_msg("out of memory while building the timeline");
        rc = 3;
    }
    int crc = cmt_close_output(f, out);
    if (!rc) rc = crc;
    cmt_analysis_free(&a);
    cmt_tl_free(&tl);
    cmt_tl_writer_free(w);
    cmt_free_paths(paths, npaths);
    return rc;
}
