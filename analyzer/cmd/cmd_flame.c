/*
 * cmd_flame.c — cumemtrack flame [--leaks | --peak] [--no-device] [-o FILE] DUMP|DIR...: folded stacks for
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
    "Folded stacks (\"outer;...;inner BYTES\" per line, outermost frame first, frames as\n"
    "\"function (file:line)\" where the line is known, Python frames included) for flamegraph.pl,\n"
    "speedscope and compatible viewers; many processes are merged.\n"
    "  --leaks              leaked bytes per stack (the default)\n"
    "  --peak               bytes live at each device's peak, per stack\n"
    "  --no-device          no device root frame (by default every stack starts with its physical\n"
    "                       GPU, \"GPU-uuid\", so GPUs do not merge, whatever their ordinals)\n"
    "  --suppressions FILE  leave out leaks matching LSan-style leak:PATTERN lines\n"
    "  --no-symbols         module+offset frames only (fast)\n"
    "  --debug-dir DIR      also look for debug files in DIR\n"
    "  --quiet              no progress line (shown on a terminal's stderr when reading takes over 1 s)\n"
    "  -o FILE              write to FILE instead of stdout\n"
    "Example: cumemtrack flame --peak run/ | flamegraph.pl --countname bytes > peak.svg\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

struct fold_list {
    const struct cmt_fold *v;
    size_t n;
};

static int write_folds(void *arg, FILE *f) {
    const struct fold_list *l = arg;
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "%s %llu\n", l->v[i].stack, (unsigned long long)l->v[i].bytes);
    return 0;
}

struct flame_opts {
    int peak, no_device;
};

static int flame_option(struct cmt_cli *c, int opt, const char *arg) {
    (void)arg;
    struct flame_opts *fo = c->arg; /* peak -1: neither --leaks nor --peak given yet */
    if (opt == 'D') {
        fo->no_device = 1;
        return 1;
    }
    if (opt != 'l' && opt != 'p') return 0;
    int want = opt == 'p';
    if (fo->peak >= 0 && fo->peak != want) {
        cmt_msg("flame: --leaks and --peak conflict: choose one");
        return -1;
    }
    fo->peak = want;
    return 1;
}

int cmt_cmd_flame(int argc, char **argv) {
    static const struct option opts[] = {
        {"leaks", no_argument, 0, 'l'},
        {"peak", no_argument, 0, 'p'},
        {"no-device", no_argument, 0, 'D'},
        {"suppressions", required_argument, 0, 's'},
        {"no-symbols", no_argument, 0, 'n'},
        {"debug-dir", required_argument, 0, 'd'},
        {"quiet", no_argument, 0, 'q'},
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct flame_opts fo = {-1, 0};
    struct cmt_cli cli = {.cmd = "flame", .help = flame_help, .need_dumps = 1, .arg = &fo};
    int prc = cmt_cli_parse(&cli, argc, argv, "+o:h", opts, flame_option);
    if (prc >= 0) return prc;
    if (fo.peak < 0) fo.peak = 0;
    const char *out = cli.out;
    struct cmt_report_opts ro = cli.ro;
    ro.top_n = fo.peak ? FLAME_TOP : 1;
    struct cmt_analysis a;
    int rc = cmt_load_dumps(&a, &ro, argv + optind, argc - optind);
    if (!rc) {
        cmt_report_notes(&a);
        struct cmt_fold *v;
        size_t n;
        if (cmt_fold_collect(&a, fo.peak, !fo.no_device, &v, &n) != 0) {
            cmt_msg("flame: out of memory");
            rc = 3;
        } else {
            struct fold_list list = {v, n};
            rc = cmt_write_output(out, write_folds, &list);
            if (!rc) rc = cmt_analysis_status(&a);
            cmt_fold_free(v, n);
        }
    }
    cmt_analysis_free(&a);
    cmt_cli_free(&cli);
    return rc;
}
