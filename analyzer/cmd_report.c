/*
 * cmd_report.c — cumemtrack report [--json] [--top N] [--suppressions FILE] [--no-symbols]
 * [--debug-dir DIR] [--html] [-o FILE] DUMP|DIR...  (--html: cmt_html.h)
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "render_html.h"
#include "cli.h"
#include "render.h"

static const char report_help[] =
    "usage: cumemtrack report [OPTIONS] DUMP|DIR...\n"
    "Reads dumps (a DIR means every *.cmt* file in it; many processes are merged) and reports leaks,\n"
    "peaks with the stacks live then, OOMs, GPU imbalance and anomalies.\n"
    "  --json               JSON output (schema: PREFIX/share/cumemtrack/report-schema.json)\n"
    "  --html               one self-contained HTML file (charts per GPU, tables, icicle graphs);\n"
    "                       use with -o OUT.html\n"
    "  --top N              stacks listed per leak/peak/OOM section (default 10)\n"
    "  --suppressions FILE  LSan-style leak:PATTERN lines; matching leaks are left out and counted\n"
    "  --no-symbols         do not symbolize (module+offset only; fast)\n"
    "  --debug-dir DIR      also look for debug files in DIR (DIR/.build-id/xx/yyyy.debug, DIR/NAME)\n"
    "  -o FILE              write the report to FILE instead of stdout\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

int cmt_cmd_report(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"html", no_argument, 0, 'H'}, CMT_COMMON_OPTIONS,
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    int json = 0, html = 0, c;
    const char *out = NULL;
    struct cmt_report_opts ro = {0};
    struct cmt_suppressions supp = {0};
    char err[1024];
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'H': html = 1; break;
        case 'o': out = optarg; break;
        case 'h': fputs(report_help, stdout); cmt_suppress_free(&supp); return 0;
        default: {
            int r = cmt_common_option("report", c, optarg, &ro, &supp, NULL);
            if (r > 0) break;
            if (r == 0) cmt_msg("report: unknown or incomplete option '%s'\n%s", argv[optind - 1], report_help);
            cmt_suppress_free(&supp);
            return 2;
        }
        }
    }
    if (optind >= argc) {
        cmt_msg("report: no dump given\n%s", report_help);
        cmt_suppress_free(&supp);
        return 2;
    }
    char **paths;
    size_t npaths;
    if (cmt_expand_paths(argv + optind, argc - optind, &paths, &npaths, err, sizeof err) != 0) {
        cmt_msg("%s", err);
        cmt_suppress_free(&supp);
        return 3;
    }
    struct cmt_analysis a;
    struct cmt_tl tl;
    size_t top = ro.top_n ? ro.top_n : 10;
    cmt_tl_init(&tl, &a, html ? CMT_HTML_BUCKETS : 0);
    if (html) { /* the timeline through the hook; every stack of the peaks for the icicle graph */
        ro.hook = cmt_tl_hook;
        ro.hook_arg = &tl;
        ro.top_n = 65536;
    }
    int rc = cmt_analysis_load(&a, &ro, paths, npaths);
    if (rc) {
        cmt_msg("%s", a.err);
    } else {
        FILE *f = cmt_open_output(out);
        if (!f) rc = 3;
        else {
            if (html) rc = cmt_report_html(&a, &tl, top, f);
            else if (json) cmt_render_json(&a, f);
            else cmt_render_text(&a, f);
            int crc = cmt_close_output(f, out);
            if (!rc) rc = crc;
        }
    }
    cmt_analysis_free(&a);
    cmt_tl_free(&tl);
    cmt_free_paths(paths, npaths);
    cmt_suppress_free(&supp);
    return rc;
}
