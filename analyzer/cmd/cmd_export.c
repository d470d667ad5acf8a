/*
 * cmd_export.c — cumemtrack export --torch-snapshot [--pid PID | --rank R] -o FILE DUMP|DIR...: one
 * process of the dumps as PyTorch's memory snapshot (torch_snapshot.h), a pickle for PyTorch's
 * memory viewer. The process is picked from the dump headers before anything is replayed.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "reader.h"
#include "torch_snapshot.h"

/* device_traces has one list per ordinal from 0: a larger ordinal is no real device */
#define EXPORT_MAX_ORDINAL 4095

static const char export_help[] =
    "usage: cumemtrack export --torch-snapshot [--pid PID | --rank R] -o FILE.pickle DUMP|DIR...\n"
    "Writes one process of the dumps as PyTorch's memory snapshot (the dict\n"
    "torch.cuda.memory._snapshot() returns, pickled like torch.cuda.memory._dump_snapshot), to open\n"
    "in PyTorch's memory viewer (MemoryViz) or read with pickle: every device allocation the tracer\n"
    "saw as a segment with its stack (Python and native frames), its allocation and free in\n"
    "device_traces (per device ordinal), OOMs, and the segments live at the end; what a caching\n"
    "allocator holds is a segment only (\"Active Cached Segment Timeline\"), the rest are also\n"
    "blocks (\"Active Memory Timeline\").\n"
    "  --torch-snapshot     the format (the only one for now; required)\n"
    "  --pid PID            the process to export when the dumps hold several\n"
    "  --rank R             the same, by its rank (RANK / PMI_RANK / SLURM_PROCID ...)\n"
    "  -o FILE              the pickle to write (required; never a terminal)\n" CMT_CACHING_HELP
    "  --no-symbols         do not symbolize (module+offset frames; fast)\n"
    "  --debug-dir DIR      also look for debug files in DIR\n"
    "  --quiet              no progress line (shown on a terminal's stderr when reading takes over 1 s)\n"
    "exit: 0 ok, 2 usage (no format, no -o, several processes and none picked), 3 unreadable input\n";

struct export_opts {
    int torch;
    int64_t pid, rank; /* -1: not given */
};

static int parse_id(const char *what, const char *arg, int64_t *out) {
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (!*arg || *end || v < 0 || v > INT32_MAX) {
        cmt_msg("export: %s needs a number >= 0, not '%s'", what, arg);
        return -1;
    }
    *out = v;
    return 1;
}

static int export_option(struct cmt_cli *c, int opt, const char *arg) {
    struct export_opts *eo = c->arg;
    switch (opt) {
    case 'T':
        eo->torch = 1;
        return 1;
    case 'P':
        return parse_id("--pid", arg, &eo->pid);
    case 'R':
        return parse_id("--rank", arg, &eo->rank);
    default:
        return 0;
    }
}

struct candidate {
    const char *path;
    struct cmt_file_header h;
};

static void describe(FILE *f, const struct candidate *c) {
    fprintf(f, "  pid %u", c->h.pid);
    if (c->h.rank >= 0) fprintf(f, " rank %d", c->h.rank);
    fprintf(f, " on %.64s: %s\n", c->h.host[0] ? c->h.host : "?", c->path);
}

/* Picks the one dump to export among paths (headers only): its index, -1 when none is readable
 * (the load says why), or -2 after a usage message (several processes, or none matching). */
static long pick(char **paths, size_t n, const struct export_opts *eo) {
    struct candidate *all = calloc(n ? n : 1, sizeof *all), *match = calloc(n ? n : 1, sizeof *match);
    long pickedi = -1;
    size_t nall = 0, nmatch = 0;
    int bad = 0;
    if (!all || !match) {
        free(all);
        free(match);
        return -1;
    }
    long *idx = calloc(n ? n : 1, sizeof *idx);
    for (size_t i = 0; idx && i < n; i++) {
        struct cmt_file_header h;
        if (cmt_dump_read_header(paths[i], &h) != 0) {
            bad = 1; /* named below when another one is read */
            continue;
        }
        h.host[sizeof h.host - 1] = 0;
        all[nall++] = (struct candidate){paths[i], h};
        if ((eo->pid < 0 || h.pid == eo->pid) && (eo->rank < 0 || h.rank == eo->rank)) {
            idx[nmatch] = (long)i;
            match[nmatch++] = (struct candidate){paths[i], h};
        }
    }
    if (nmatch == 1)
        pickedi = idx[0];
    else if (nall && (nmatch > 1 || eo->pid >= 0 || eo->rank >= 0)) {
        pickedi = -2;
        if (nmatch > 1 && eo->pid >= 0) /* the same pid on several hosts */
            cmt_msg("export: %zu processes with pid %lld in these dumps, a snapshot holds one: give its dump alone",
                    nmatch, (long long)eo->pid);
        else if (nmatch > 1)
            cmt_msg("export: %zu processes%s in these dumps, a snapshot holds one: pick it with --pid PID", nmatch,
                    eo->rank >= 0 ? " with that rank" : "");
        else if (eo->pid >= 0 && eo->rank >= 0)
            cmt_msg("export: no process with pid %lld and rank %lld in these dumps; they hold:", (long long)eo->pid,
                    (long long)eo->rank);
        else
            cmt_msg("export: no process with %s %lld in these dumps; they hold:", eo->pid >= 0 ? "pid" : "rank",
                    (long long)(eo->pid >= 0 ? eo->pid : eo->rank));
        const struct candidate *list = nmatch > 1 ? match : all;
        size_t nl = nmatch > 1 ? nmatch : nall;
        FILE *out = cmt_msg_out ? cmt_msg_out : stderr;
        for (size_t i = 0; i < nl; i++)
            describe(out, &list[i]);
    }
    for (size_t i = 0; bad && nall && idx && i < n; i++) { /* none readable: the load names them */
        struct cmt_file_header h;
        char why[1024];
        if (cmt_dump_read_header(paths[i], &h) == 0) continue;
        struct cmt_dump *d = cmt_dump_open(paths[i], why, sizeof why); /* says why */
        if (d) {
            cmt_dump_close(d);
            snprintf(why, sizeof why, "%s: no dump header", paths[i]);
        }
        cmt_msg("unreadable, left out: %s", why);
    }
    free(all);
    free(match);
    free(idx);
    return pickedi;
}

struct export_job {
    struct cmt_analysis *a;
    struct cmt_torch_trace *t;
    struct cmt_torch_summary sum;
};

static int write_snapshot(void *arg, FILE *f) {
    struct export_job *j = arg;
    if (cmt_torch_write(f, j->a, 0, j->t, &j->sum) != 0) {
        cmt_msg("export: out of memory: the snapshot is incomplete");
        return 3;
    }
    return 0;
}

int cmt_cmd_export(int argc, char **argv) {
    static const struct option opts[] = {
        {"torch-snapshot", no_argument, 0, 'T'}, {"pid", required_argument, 0, 'P'},
        {"rank", required_argument, 0, 'R'},     {"caching-allocator", required_argument, 0, 'C'},
        {"no-symbols", no_argument, 0, 'n'},     {"debug-dir", required_argument, 0, 'd'},
        {"quiet", no_argument, 0, 'q'},          {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
    };
    struct export_opts eo = {0, -1, -1};
    struct cmt_cli cli = {.cmd = "export", .help = export_help, .need_dumps = 1, .arg = &eo};
    int prc = cmt_cli_parse(&cli, argc, argv, "+o:h", opts, export_option);
    if (prc >= 0) return prc;
    int rc = 2;
    if (!eo.torch)
        cmt_msg("export: name the format: --torch-snapshot (PyTorch's memory snapshot); see export --help");
    else if (!cli.out || (!strcmp(cli.out, "-") && isatty(STDOUT_FILENO)))
        cmt_msg("export: a snapshot is binary: write it with -o FILE.pickle (see export --help)");
    else
        rc = 0;
    if (rc) {
        cmt_cli_free(&cli);
        return rc;
    }
    char **paths, err[1024];
    size_t np;
    if (cmt_expand_paths(argv + optind, argc - optind, &paths, &np, err, sizeof err) != 0) {
        cmt_msg("%s", err);
        cmt_cli_free(&cli);
        return 3;
    }
    long k = pick(paths, np, &eo);
    if (k == -2) {
        cmt_free_paths(paths, np);
        cmt_cli_free(&cli);
        return 2;
    }
    struct cmt_torch_trace trace;
    cmt_torch_trace_init(&trace);
    struct cmt_report_opts ro = cli.ro;
    ro.top_n = 1;
    ro.observer = cmt_torch_observe;
    ro.observer_arg = &trace;
    ro.observe_in_order = 1;
    struct cmt_analysis a;
    /* none readable (k -1): load them all, so that the load names every one and why */
    rc = k >= 0 ? cmt_analysis_load(&a, &ro, &paths[k], 1) : cmt_analysis_load(&a, &ro, paths, np);
    if (rc)
        cmt_msg("%s", a.err);
    else if (k < 0) { /* the headers could not be read, yet a dump loaded: which one is meant is unknown */
        cmt_msg("export: could not tell the dumps' processes apart (their headers did not read); name one dump");
        rc = 3;
    } else if (trace.lost) {
        cmt_msg("export: out of memory while replaying %s", paths[k]);
        rc = 3;
    } else {
        const struct cmt_process *p = &a.procs[0];
        const struct cmt_replay *r = &p->replay;
        int64_t top = r->ndevs ? r->devs[r->ndevs - 1].ordinal : -1;
        if (top > EXPORT_MAX_ORDINAL) {
            cmt_msg("%s: device ordinal %lld: more than a snapshot's device list can hold (0..%d)", p->path,
                    (long long)top, EXPORT_MAX_ORDINAL);
            rc = 3;
        } else {
            struct export_job job = {&a, &trace, {0}};
            cmt_report_notes(&a);
            rc = cmt_write_output(cli.out, write_snapshot, &job);
            if (!rc) rc = cmt_analysis_status(&a);
            if (!rc && !job.sum.allocations)
                cmt_msg("export: pid %u made no device allocation: %s holds an empty snapshot", p->hdr.pid, cli.out);
            else if (!rc && !cli.quiet)
                cmt_msg("export: pid %u: %llu allocation%s, %zu segment%s (%llu bytes) live at the end, %llu OOM%s, "
                        "%zu device trace%s -> %s",
                        p->hdr.pid, (unsigned long long)job.sum.allocations, job.sum.allocations == 1 ? "" : "s",
                        job.sum.segments, job.sum.segments == 1 ? "" : "s", (unsigned long long)job.sum.live_bytes,
                        (unsigned long long)job.sum.ooms, job.sum.ooms == 1 ? "" : "s", job.sum.devices,
                        job.sum.devices == 1 ? "" : "s", cli.out);
        }
    }
    cmt_analysis_free(&a);
    cmt_torch_trace_free(&trace);
    cmt_free_paths(paths, np);
    cmt_cli_free(&cli);
    return rc;
}
