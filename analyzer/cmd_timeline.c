/*
 * cmd_timeline.c — cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...: live device
 * bytes over time, one row per change (and per OOM and marker), streamed from the replay's observer
 * (timeline.h) while the dumps are read.
 *   text       a compact table (seconds since the process start, human sizes)
 *   --csv      time,wallclock,host,pid,device,uuid,live,event (time: seconds since the process
 *              start; wallclock: ISO-8601 UTC from the header's start_realtime_ns; live in bytes)
 *   --perfetto Chrome trace event JSON (Perfetto UI, chrome://tracing): a counter track ("ph":"C")
 *              per GPU of each process, instant events ("ph":"i") for OOMs and markers, process
 *              and thread names ("ph":"M"); ts in microseconds since the earliest process start.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "json.h"
#include "cli.h"
#include "timeline.h"

static const char timeline_help[] =
    "usage: cumemtrack timeline [--csv | --perfetto] [-o FILE] DUMP|DIR...\n"
    "Live device memory over time: one row per change of a device's live bytes, per OOM and per\n"
    "marker (cmt_mark), for every process (a DIR means every *.cmt* file in it).\n"
    "  --csv        CSV: time,wallclock,host,pid,device,uuid,live,event (time: seconds since the\n"
    "               process start; wallclock: ISO-8601 UTC; live: bytes)\n"
    "  --perfetto   Chrome trace event JSON for ui.perfetto.dev and chrome://tracing: a counter\n"
    "               track per GPU and process, instant events for OOMs and markers\n"
    "  -o FILE      write to FILE instead of stdout\n"
    "Without --csv or --perfetto: a compact text table.\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

enum { FMT_TEXT, FMT_CSV, FMT_PERFETTO };

struct tl_out {
    int fmt;
    FILE *f;
    struct cmt_analysis *a;
    struct cmt_json j;
    int64_t base_real;    /* earliest start_realtime_ns */
    unsigned char *named; /* per process: metadata written */
    size_t nnamed;
    uint64_t *tpid; /* per process: the trace pid */
    uint64_t rows;
    int out_of_memory; /* some metadata could not be written */
};

static void csv_field(FILE *f, const char *s, size_t n) {
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') q = 1;
    if (!q) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void event_text(char *buf, size_t cap, const struct cmt_tl_row *row) {
    char b[32];
    if (!strcmp(row->event, "marker"))
        snprintf(buf, cap, "marker:%.*s", (int)(row->label_len > 1000 ? 1000 : row->label_len),
                 row->label ? row->label : "");
    else if (!strcmp(row->event, "oom"))
        snprintf(buf, cap, "oom:%s:%s", row->label ? row->label : "?", cmt_human_size(row->size, b, sizeof b));
    else
        snprintf(buf, cap, "%s", row->event);
}

/* A metadata event ("ph":"M") of process proc: args {"name": str}, or {"sort_index": index}. */
static void meta_event(struct tl_out *o, size_t proc, const char *what, const char *str, int64_t index) {
    struct cmt_json *j = &o->j;
    cmt_json_object(j, NULL);
    cmt_json_str(j, "name", what);
    cmt_json_str(j, "ph", "M");
    cmt_json_u64(j, "ts", 0);
    cmt_json_u64(j, "pid", o->tpid[proc]);
    cmt_json_u64(j, "tid", 0);
    cmt_json_object(j, "args");
    if (str)
        cmt_json_str(j, "name", str);
    else
        cmt_json_i64(j, "sort_index", index);
    cmt_json_object_end(j);
    cmt_json_object_end(j);
}

static void perfetto_meta(struct tl_out *o, size_t proc) {
    if (proc < o->nnamed && o->named[proc]) return;
    if (proc >= o->nnamed) {
        size_t nn = proc + 1;
        unsigned char *n = realloc(o->named, nn);
        if (!n) {
            o->out_of_memory = 1;
            return;
        }
        memset(n + o->nnamed, 0, nn - o->nnamed);
        o->named = n;
        o->nnamed = nn;
    }
    o->named[proc] = 1;
    const struct cmt_process *p = &o->a->procs[proc];
    char name[512];
    if (p->hdr.rank >= 0)
        snprintf(name, sizeof name, "rank %d pid %u on %s: %.300s", p->hdr.rank, p->hdr.pid,
                 p->hdr.host[0] ? p->hdr.host : "?", p->command ? p->command : "");
    else
        snprintf(name, sizeof name, "pid %u on %s: %.300s", p->hdr.pid, p->hdr.host[0] ? p->hdr.host : "?",
                 p->command ? p->command : "");
    meta_event(o, proc, "process_name", name, 0);
    meta_event(o, proc, "process_sort_index", NULL, p->hdr.rank >= 0 ? p->hdr.rank : (int64_t)proc + 100000);
    meta_event(o, proc, "thread_name", "CUDA memory events", 0);
}

static void row_out(void *arg, const struct cmt_tl_row *row) {
    struct tl_out *o = arg;
    const struct cmt_process *p = &o->a->procs[row->proc];
    char ev[1100], iso[48], b[32];
    o->rows++;
    event_text(ev, sizeof ev, row);
    if (o->fmt == FMT_CSV) {
        fprintf(o->f, "%.9f,%s,", cmt_tl_seconds(row->t), cmt_tl_iso(p, row->t, iso, sizeof iso));
        csv_field(o->f, p->hdr.host, strlen(p->hdr.host));
        fprintf(o->f, ",%u,", p->hdr.pid);
        if (row->device >= 0) fprintf(o->f, "%lld", (long long)row->device);
        fprintf(o->f, ",%s,", row->uuid ? row->uuid : "");
        if (row->device >= 0) fprintf(o->f, "%llu", (unsigned long long)row->live);
        fputc(',', o->f);
        csv_field(o->f, ev, strlen(ev));
        fputc('\n', o->f);
    } else if (o->fmt == FMT_TEXT) {
        char dev[24];
        if (row->device >= 0)
            snprintf(dev, sizeof dev, "%lld", (long long)row->device);
        else
            snprintf(dev, sizeof dev, "-");
        for (char *c = ev; *c; c++)
            if ((unsigned char)*c < 0x20) *c = '?';
        fprintf(o->f, "%12.6f  %-7u %-3s %-40s %10s  %s\n", cmt_tl_seconds(row->t), p->hdr.pid, dev,
                row->uuid ? row->uuid : "-", row->device >= 0 ? cmt_human_size(row->live, b, sizeof b) : "-", ev);
    } else {
        perfetto_meta(o, row->proc);
        struct cmt_json *j = &o->j;
        int64_t ts = (p->hdr.start_realtime_ns - o->base_real + row->t) / 1000; /* integer microseconds */
        char nm[128];
        const char *cat = "memory", *ph = "C";
        if (!strcmp(row->event, "oom")) {
            snprintf(nm, sizeof nm, "OOM %s %s", row->label ? row->label : "?", cmt_human_size(row->size, b, sizeof b));
            cat = "oom";
            ph = "i";
        } else if (!strcmp(row->event, "marker")) {
            cat = "marker";
            ph = "i";
        } else
            snprintf(nm, sizeof nm, "GPU %lld %s", (long long)row->device, row->uuid ? row->uuid : "");
        cmt_json_object(j, NULL);
        if (!strcmp(cat, "marker"))
            cmt_json_strn(j, "name", row->label ? row->label : "", row->label_len);
        else
            cmt_json_str(j, "name", nm);
        cmt_json_str(j, "cat", cat);
        cmt_json_str(j, "ph", ph);
        if (*ph == 'i') cmt_json_str(j, "s", "p");
        cmt_json_i64(j, "ts", ts);
        cmt_json_u64(j, "pid", o->tpid[row->proc]);
        cmt_json_u64(j, "tid", 0);
        cmt_json_object(j, "args");
        if (!strcmp(cat, "oom")) {
            cmt_json_i64(j, "device", row->device);
            cmt_json_str(j, "uuid", row->uuid);
            cmt_json_u64(j, "requested_bytes", row->size);
            cmt_json_u64(j, "live_bytes", row->live);
        } else if (*ph == 'C')
            cmt_json_u64(j, "live_bytes", row->live);
        cmt_json_object_end(j);
        cmt_json_object_end(j);
    }
}

int cmt_cmd_timeline(int argc, char **argv) {
    static const struct option opts[] = {
        {"csv", no_argument, 0, 'c'},
        {"perfetto", no_argument, 0, 'p'},
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int fmt = FMT_TEXT, c;
    const char *out = NULL;
    char err[1024];
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            fmt = FMT_CSV;
            break;
        case 'p':
            fmt = FMT_PERFETTO;
            break;
        case 'o':
            out = optarg;
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
    struct tl_out o = {0};
    o.fmt = fmt;
    o.tpid = calloc(npaths + 1, sizeof *o.tpid);
    if (!o.tpid) {
        cmt_free_paths(paths, npaths);
        return 3;
    }
    /* headers first: the trace's time base and pids */
    for (size_t i = 0; i < npaths; i++) {
        struct cmt_dump *d = cmt_dump_open(paths[i], err, sizeof err);
        if (!d) {
            cmt_msg("%s", err);
            free(o.tpid);
            cmt_free_paths(paths, npaths);
            return 3;
        }
        const struct cmt_file_header *h = cmt_dump_header(d);
        if (!i || h->start_realtime_ns < o.base_real) o.base_real = h->start_realtime_ns;
        uint64_t pid = h->pid;
        for (size_t k = 0; k < i; k++)
            if (o.tpid[k] == pid) pid += 1000000; /* same pid on another host */
        o.tpid[i] = pid;
        cmt_dump_close(d);
    }
    FILE *f = cmt_open_output(out);
    if (!f) {
        free(o.tpid);
        cmt_free_paths(paths, npaths);
        return 3;
    }
    o.f = f;
    struct cmt_analysis a;
    struct cmt_tl tl;
    cmt_tl_init(&tl, &a, 0);
    tl.row = row_out;
    tl.row_arg = &o;
    o.a = &a;
    struct cmt_report_opts ro = {0};
    ro.no_symbols = 1;
    ro.observer = cmt_tl_observe;
    ro.observer_begin = cmt_tl_begin;
    ro.observer_arg = &tl;
    ro.observe_in_order = 1; /* rows stream out in record order, process after process */
    if (fmt == FMT_CSV)
        fprintf(f, "time,wallclock,host,pid,device,uuid,live,event\n");
    else if (fmt == FMT_TEXT)
        fprintf(f, "%12s  %-7s %-3s %-40s %10s  %s\n", "TIME(s)", "PID", "DEV", "UUID", "LIVE", "EVENT");
    else {
        cmt_json_init(&o.j, f, 0);
        cmt_json_object(&o.j, NULL);
        cmt_json_str(&o.j, "displayTimeUnit", "ms");
        cmt_json_array(&o.j, "traceEvents");
    }
    int rc = cmt_analysis_load(&a, &ro, paths, npaths);
    if (fmt == FMT_PERFETTO) {
        for (size_t i = 0; i < a.nprocs; i++)
            perfetto_meta(&o, i); /* processes without a row */
        cmt_json_array_end(&o.j);
        cmt_json_object_end(&o.j);
        cmt_json_finish(&o.j);
    } else if (fmt == FMT_TEXT && !rc && !o.rows)
        fprintf(f, "(no device memory recorded)\n");
    if (rc)
        cmt_msg("%s", a.err);
    else if (cmt_tl_finish(&tl) != 0 || o.out_of_memory) {
        cmt_msg("out of memory while building the timeline");
        rc = 3;
    }
    int crc = cmt_close_output(f, out);
    if (!rc) rc = crc;
    cmt_analysis_free(&a);
    cmt_tl_free(&tl);
    free(o.named);
    free(o.tpid);
    cmt_free_paths(paths, npaths);
    return rc;
}
