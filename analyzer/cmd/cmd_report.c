/*
 * cmd_report.c — cumemtrack report [--json] [--top N] [--suppressions FILE] [--no-symbols]
 * [--debug-dir DIR] [--html] [-o FILE] DUMP|DIR...  (--html: render_html.h)
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "render_html.h"
#include "cli.h"
#include "render.h"

static const char report_help[] =
    "usage: cumemtrack report [OPTIONS] DUMP|DIR...\n"
    "Reads dumps (a DIR means every *.cmt and *.cmt.N file in it; many processes are merged; a copy\n"
    "of a dump is counted once) and reports leaks,\n"
    "peaks with the stacks live then, OOMs, GPU imbalance, the tests of test runners (per test:\n"
    "GPU memory leaked, cached and peak) and anomalies.\n"
    "  --json               JSON output (schema: PREFIX/share/cumemtrack/report-schema.json)\n"
    "  --html               one self-contained HTML file (charts per GPU, tables, icicle graphs);\n"
    "                       use with -o OUT.html (never written to a terminal; not with --json)\n"
    "  --top N              stacks listed per leak/peak/OOM section, tests in the per-test table\n"
    "                       (default 10; --json: all)\n"
    "  --suppressions FILE  LSan-style leak:PATTERN lines; matching leaks are left out and counted\n"
    CMT_CACHING_HELP
    "  --no-symbols         do not symbolize (module+offset only; fast)\n"
    "  --debug-dir DIR      also look for debug files in DIR (DIR/.build-id/xx/yyyy.debug, DIR/NAME)\n"
    "  --quiet              no progress line (shown on a terminal's stderr when reading takes over 1 s)\n"
    "  -o FILE              write the report to FILE instead of stdout\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

struct report_flags {
    int json, html;
};

static int report_option(struct cmt_cli *c, int opt, const char *arg) {
    (void)arg;
    struct report_flags *fl = c->arg;
    if (opt == 'j')
        fl->json = 1;
    else if (opt == 'H')
        fl->html = 1;
    else
        return 0;
    return 1;
}

struct report_job {
    struct cmt_analysis *a;
    const struct cmt_tl *tl;
    size_t top;
    int json, html;
};

static int write_report(void *arg, FILE *f) {
    struct report_job *j = arg;
    if (j->html) return cmt_render_html(j->a, j->tl, j->top, f);
    if (j->json)
        cmt_render_json(j->a, f);
    else
        cmt_render_text(j->a, f);
    return 0;
}

int cmt_cmd_report(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'},         {"html", no_argument, 0, 'H'}, CMT_COMMON_OPTIONS,
        {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    struct report_flags fl = {0, 0};
    struct cmt_cli cli = {.cmd = "report", .help = report_help, .need_dumps = 1, .arg = &fl};
    int prc = cmt_cli_parse(&cli, argc, argv, "+o:h", opts, report_option);
    if (prc >= 0) return prc;
    int json = fl.json, html = fl.html;
    const char *out = cli.out;
    if (json && html) {
        cmt_msg("report: --json and --html conflict: choose one\n%s", report_help);
        cmt_suppress_free(&cli.supp);
        return 2;
    }
    if (html && (!out || !strcmp(out, "-")) && isatty(STDOUT_FILENO)) {
        cmt_msg("report: --html writes one HTML file: give -o OUT.html (or redirect stdout), not a terminal");
        cmt_suppress_free(&cli.supp);
        return 2;
    }
    struct cmt_report_opts ro = cli.ro;
    struct cmt_analysis a;
    struct cmt_tl tl;
    size_t top = ro.top_n ? ro.top_n : 10;
    if (json && !ro.top_n) ro.top_n = CMT_TOP_ALL; /* JSON lists every leak, peak stack and OOM stack */
    cmt_tl_init(&tl, &a, html ? CMT_HTML_BUCKETS : 0);
    if (html) { /* the timeline told by the replays; every stack of the peaks for the icicle graph */
        ro.observer = cmt_tl_observe;
        ro.observer_begin = cmt_tl_begin;
        ro.observer_arg = &tl;
        ro.top_n = 65536;
    }
    int rc = cmt_load_dumps(&a, &ro, argv + optind, argc - optind);
    if (!rc && html && cmt_tl_finish(&tl) != 0) {
        cmt_msg("out of memory while building the timeline");
        rc = 3;
    }
    struct report_job job = {&a, &tl, top, json, html};
    if (!rc) rc = cmt_write_output(out, write_report, &job);
    if (!rc) rc = cmt_analysis_status(&a);
    cmt_analysis_free(&a);
    cmt_tl_free(&tl);
    cmt_cli_free(&cli);
    return rc;
}
