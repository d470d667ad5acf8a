/*
 * cmd_timeline.c — cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...: live device
 * bytes over time, one row per change (and per OOM and marker), streamed from the replay's observer
 * (timeline.h) while the dumps are read, written by render_timeline.c.
 *   text       a compact table (seconds since the process start, human sizes)
 *   --csv      time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label (numbers
 *              only in the numeric columns; README.md's table says what each holds)
 *   --perfetto Chrome trace event JSON (Perfetto UI, chrome://tracing): a counter track ("ph":"C")
 *              per GPU of each process, NVTX ranges as slices ("ph":"B"/"E"), instant events
 *              ("ph":"i") for OOMs and marks, process and thread names ("ph":"M"); ts in
 *              microseconds since the earliest process start.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"
#include "render.h"
#include "timeline.h"

static const char timeline_help[] =
    "usage: cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...\n"
    "Live device memory over time: one row per change of a device's live bytes, per OOM and per\n"
    "marker (cmt_mark), for every process (a DIR means every *.cmt* file in it).\n"
    "  --csv        CSV: time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label\n"
    "               (numeric columns hold numbers only; see the man page cumemtrack(1))\n"
    "  --perfetto   Chrome trace event JSON for ui.perfetto.dev and chrome://tracing: a counter\n"
    "               track per GPU and process, NVTX ranges as slices, OOMs and marks as instants; each\n"
    "               allocation and free is also an instant (cat \"stack\") whose args.stack lists\n"
    "               its frames (Python frames included), as OOMs do\n"
    "  -o FILE      write to FILE instead of stdout\n"
    "  --quiet      no progress line on a terminal's stderr\n"
    "Without --csv or --perfetto: a compact text table.\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

int cmt_cmd_timeline(int argc, char **argv) {
    static const struct option opts[] = {
        {"csv", no_argument, 0, 'c'},
        {"perfetto", no_argument, 0, 'p'},
        {"quiet", no_argument, 0, 'q'},
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int fmt = CMT_TL_TEXT, c, quiet = 0;
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
    struct cmt_tl tl;
    cmt_tl_init(&tl, &a, 0);
    tl.row = cmt_tl_write_row;
    tl.row_arg = w;
    struct cmt_report_opts ro = {0};
    ro.no_symbols = 1;
    ro.observer = cmt_tl_observe;
    ro.observer_begin = cmt_tl_begin;
    ro.observer_arg = &tl;
    ro.observe_in_order = 1; /* rows stream out in record order, process after process */
    cmt_cli_progress(&ro, quiet);
    int rc = cmt_analysis_load(&a, &ro, paths, npaths);
    int wrc = cmt_tl_writer_end(w, !rc);
    cmt_report_unreadable(&a);
    if (rc)
        cmt_msg("%s", a.err);
    else if (cmt_tl_finish(&tl) != 0 || wrc != 0) {
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
