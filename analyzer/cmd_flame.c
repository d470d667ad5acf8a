/*
 * cmd_flame.c — cumemtrack flame [--leaks | --peak] [-o FILE] DUMP|DIR...: folded stacks for
 * flamegraph.pl, speedscope and compatible viewers (the folding is compare.c's).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"
#include "compare.h"

#define FLAME_TOP 65536 /* stacks kept per peak snapshot: all of them in practice */

static const char flame_help[] =
    "usage: cumemtrack flame [--leaks | --peak] [OPTIONS] DUMP|DIR...\n"
    "Folded stacks (\"outer;...;inner BYTES\" per line, outermost frame first) for flamegraph.pl,\n"
    "speedscope and compatible viewers; many processes are merged.\n"
    "  --leaks              leaked bytes per stack (the default)\n"
    "  --peak               bytes live at each device's peak, per stack\n"
    "  --suppressions FILE  leave out leaks matching LSan-style leak:PATTERN lines\n"
    "  --no-symbols         module+offset frames only (fast)\n"
    "  --debug-dir DIR      also look for debug files in DIR\n"
    "  -o FILE              write to FILE instead of stdout\n"
    "Example: cumemtrack flame --peak run/ | flamegraph.pl --countname bytes > peak.svg\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

int cmt_cmd_flame(int argc, char **argv) {
    static const struct option opts[] = {
        {"leaks", no_argument, 0, 'l'},       {"peak", no_argument, 0, 'p'},
        {"suppressions", required_argument, 0, 's'}, {"no-symbols", no_argument, 0, 'n'},
        {"debug-dir", required_argument, 0, 'd'}, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    int peak = 0, c;
    const char *out = NULL;
    struct cmt_report_opts ro = {0};
    struct cmt_suppressions supp = {0};
    char err[1024];
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': peak = 0; break;
        case 'p': peak = 1; break;
        case 'o': out = optarg; break;
        case 'h': fputs(flame_help, stdout); cmt_suppress_free(&supp); return 0;
        default: {
            int r = cmt_common_option("flame", c, optarg, &ro, &supp, NULL);
            if (r > 0) break;
            if (r == 0) cmt_msg("flame: unknown or incomplete option '%s'\n%s", argv[optind - 1], flame_help);
            cmt_suppress_free(&supp);
            return 2;
        }
        }
    }
    if (optind >= argc) {
        cmt_msg("flame: no dump given\n%s", flame_help);
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
    ro.top_n = peak ? FLAME_TOP : 1;
    struct cmt_analysis a;
    int rc = cmt_analysis_load(&a, &ro, paths, npaths);
    if (rc) cmt_msg("%s", a.err);
    else {
        struct cmt_fold *v;
        size_t n;
        if (cmt_fold_collect(&a, peak, &v, &n) != 0) {
            cmt_msg("flame: out of memory");
            rc = 3;
        } else {
            FILE *f = cmt_open_output(out);
            if (!f) rc = 3;
            else {
                for (size_t i = 0; i < n; i++) fprintf(f, "%s %llu\n", v[i].stack, (unsigned long long)v[i].bytes);
                rc = cmt_close_output(f, out);
            }
            if (!rc) rc = cmt_analysis_status(&a);
            cmt_fold_free(v, n);
        }
    }
    cmt_analysis_free(&a);
    cmt_free_paths(paths, npaths);
    cmt_suppress_free(&supp);
    return rc;
}
