/*
 * cmd_diff.c — cumemtrack diff [--json] [OPTIONS] OLD NEW: compares two runs (each a dump or a
 * directory of dumps). Totals (leaked bytes, OOMs, peaks), devices matched by UUID (never by
 * ordinal: CUDA_VISIBLE_DEVICES may number them differently), and the stacks whose leaked bytes or
 * bytes live at the peak grew, shrank, appeared or disappeared. Stacks are matched by their
 * symbolized function chains (compare.h), never by addresses, so a rebuilt binary still
 * compares with its baseline.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"
#include "compare.h"
#include "render.h"

#define DIFF_TOP 65536 /* stacks kept per peak snapshot: all of them in practice */

static const char diff_help[] =
    "usage: cumemtrack diff [OPTIONS] OLD NEW\n"
    "Compares two runs (OLD and NEW: a dump or a directory of dumps each): leaked bytes, OOMs, the\n"
    "peak and leaked bytes of every GPU (matched by UUID), and the stacks whose leaked bytes or bytes\n"
    "live at the peak grew, shrank, appeared or disappeared. Stacks are matched by their symbolized\n"
    "function chains, so a rebuilt binary still compares with its baseline.\n"
    "  --json               JSON output\n"
    "  --top N              changed stacks listed per section in text (default 10; JSON lists all)\n"
    "  --suppressions FILE  LSan-style leak:PATTERN lines; matching leaks are left out\n"
    CMT_CACHING_HELP
    "  --no-symbols         do not symbolize (stacks then match only within the same binary)\n"
    "  --debug-dir DIR      also look for debug files in DIR\n"
    "  --quiet              no progress line (shown on a terminal's stderr when reading takes over 1 s)\n"
    "  -o FILE              write to FILE instead of stdout\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

struct diff_job {
    const struct cmt_comparison *cmp;
    size_t top;
    int json;
};

static int write_diff(void *arg, FILE *f) {
    struct diff_job *j = arg;
    if (j->json)
        cmt_render_diff_json(j->cmp, f);
    else
        cmt_render_diff_text(j->cmp, j->top, f);
    return 0;
}

static int diff_option(struct cmt_cli *c, int opt, const char *arg) {
    (void)arg;
    if (opt != 'j') return 0;
    *(int *)c->arg = 1;
    return 1;
}

int cmt_cmd_diff(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, CMT_COMMON_OPTIONS, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    int json = 0;
    size_t top = 10;
    char err[1024];
    struct cmt_cli cli = {.cmd = "diff", .help = diff_help, .top = &top, .arg = &json};
    int prc = cmt_cli_parse(&cli, argc, argv, "+o:h", opts, diff_option);
    if (prc >= 0) return prc;
    const char *out = cli.out;
    struct cmt_report_opts ro = cli.ro;
    if (argc - optind != 2) {
        cmt_msg("diff: needs exactly two arguments, OLD and NEW (got %d)\n%s", argc - optind, diff_help);
        cmt_cli_free(&cli);
        return 2;
    }
    ro.top_n = DIFF_TOP;
    struct cmt_analysis s[2];
    memset(s, 0, sizeof s);
    char **paths[2] = {NULL, NULL};
    size_t npaths[2] = {0, 0};
    int rc = 0, loaded = 0;
    for (int side = 0; side < 2 && !rc; side++) {
        if (cmt_expand_paths(argv + optind + side, 1, &paths[side], &npaths[side], err, sizeof err) != 0) {
            cmt_msg("%s", err);
            rc = 3;
            break;
        }
        loaded = side + 1;
        if (cmt_analysis_load(&s[side], &ro, paths[side], npaths[side]) != 0) {
            cmt_msg("%s", s[side].err);
            rc = 3;
        }
    }
    struct cmt_comparison cmp = {0};
    if (!rc && cmt_compare(&s[0], &s[1], &cmp) != 0) {
        cmt_msg("diff: out of memory");
        rc = 3;
    }
    for (int side = 0; side < 2; side++) {
        cmp.arg[side] = argv[optind + side];
        cmp.paths[side] = paths[side];
        cmp.npaths[side] = npaths[side];
    }
    struct diff_job job = {&cmp, top, json};
    if (!rc) {
        rc = cmt_write_output(out, write_diff, &job);
        if (!rc) rc = cmt_analysis_status(&s[0]);
        if (!rc) rc = cmt_analysis_status(&s[1]);
    }
    cmt_comparison_free(&cmp);
    for (int side = 0; side < loaded; side++) {
        cmt_analysis_free(&s[side]);
        cmt_free_paths(paths[side], npaths[side]);
    }
    cmt_cli_free(&cli);
    return rc;
}
