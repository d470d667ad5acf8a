/*
 * cmd_check.c — cumemtrack check: a CI gate. Fails (exit 1) when unsuppressed leaks exceed the
 * budget (--max-leak-bytes, default 0; with --baseline the budget applies only when given), or,
 * against --baseline OLD (dumps or a directory of a previous run), when leaked bytes grew or the
 * peak of a physical GPU (matched by uuid; the largest per-GPU peak when no uuid matches) grew by
 * more than --max-peak-growth PCT. Baseline leaks are matched by symbolized function chains, never
 * by addresses. --max-growth-per-marker BYTES fails when a stack's live bytes grow by more than
 * BYTES per marker of one label (cmt_mark / NVTX). Reasons and the top offending stacks go to
 * stderr.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"
#include "compare.h"
#include "render.h"

static const char check_help[] =
    "usage: cumemtrack check [OPTIONS] DUMP|DIR...\n"
    "  --max-leak-bytes N     leak budget (suffixes K M G KiB MiB GiB; default 0)\n"
    "  --suppressions FILE    LSan-style leak:PATTERN lines\n"
    "  --baseline OLD         dump or directory of a previous run: fail when leaked bytes grew\n"
    "  --max-peak-growth PCT  with --baseline: fail when a GPU's peak grew by more than PCT percent\n"
    "  --max-growth-per-marker N  fail when a stack's live bytes grow by more than N bytes per\n"
    "                         marker of one label (cmt_mark, NVTX): the leak-per-iteration gate\n"
    "  --no-symbols, --debug-dir DIR, --top N   as for report\n"
    "exit: 0 pass, 1 leaks over budget or regression, 2 usage, 3 unreadable or corrupt input\n";

/* The top stacks live at the peak of GPU uuid, from the first process on it. */
static void print_peak_stacks(struct cmt_analysis *a, const char *uuid) {
    char s1[32], u[48];
    for (size_t p = 0; p < a->nprocs; p++) {
        const struct cmt_replay *r = &a->procs[p].replay;
        for (size_t d = 0; d < r->ndevs; d++) {
            const char *du = cmt_device_uuid(&r->devs[d], u);
            if (!du || strcmp(du, uuid)) continue;
            for (size_t s = 0; s < r->devs[d].npeak_top && s < 3; s++) {
                fprintf(stderr, "    %s live at the peak (pid %u):\n",
                        cmt_human_size(r->devs[d].peak_top[s].bytes, s1, sizeof s1), a->procs[p].hdr.pid);
                struct cmt_stack_sym st = cmt_analysis_stack(a, p, r->devs[d].peak_top[s].stack);
                cmt_print_frames(stderr, &st, "        ", 8);
                cmt_stack_sym_free(&st);
            }
            return;
        }
    }
}

int cmt_cmd_check(int argc, char **argv) {
    static const struct option opts[] = {
        {"max-leak-bytes", required_argument, 0, 'm'}, {"baseline", required_argument, 0, 'b'},
        {"max-peak-growth", required_argument, 0, 'p'}, CMT_COMMON_OPTIONS,
        {"help", no_argument, 0, 'h'},
        {"max-growth-per-marker", required_argument, 0, 'g'},
        {0, 0, 0, 0},
    };
    struct cmt_report_opts ro = {0};
    struct cmt_suppressions supp = {0};
    uint64_t budget = 0;
    int have_budget = 0, have_growth = 0, have_marker_growth = 0, c, rc = 0;
    uint64_t marker_growth = 0;
    double growth = 0;
    const char *baseline = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (cmt_parse_size(optarg, &budget) != 0) {
                cmt_msg("check: --max-leak-bytes: not a size: '%s'", optarg);
                rc = 2;
                goto out;
            }
            have_budget = 1;
            break;
        case 'b': baseline = optarg; break;
        case 'g':
            if (cmt_parse_size(optarg, &marker_growth) != 0) {
                cmt_msg("check: --max-growth-per-marker: not a size: '%s'", optarg);
                rc = 2;
                goto out;
            }
            have_marker_growth = 1;
            break;
        case 'p': {
            char *end;
            growth = strtod(optarg, &end);
            if (end == optarg || (*end && strcmp(end, "%")) || growth < 0) {
                cmt_msg("check: --max-peak-growth: not a percentage: '%s'", optarg);
                rc = 2;
                goto out;
            }
            have_growth = 1;
            break;
        }
        case 'h': fputs(check_help, stdout); goto out;
        default: {
            int r = cmt_common_option("check", c, optarg, &ro, &supp, NULL);
            if (r > 0) break;
            if (r == 0) cmt_msg("check: unknown or incomplete option '%s'\n%s", argv[optind - 1], check_help);
            rc = 2;
            goto out;
        }
        }
    }
    if (optind >= argc) {
        cmt_msg("check: no dump given\n%s", check_help);
        rc = 2;
        goto out;
    }
    if (have_growth && !baseline) {
        cmt_msg("check: --max-peak-growth needs --baseline");
        rc = 2;
        goto out;
    }
    struct cmt_analysis a, b;
    memset(&b, 0, sizeof b);
    rc = cmt_load_dumps(&a, &ro, argv + optind, argc - optind);
    if (rc) {
        cmt_analysis_free(&a);
        goto out;
    }
    char s1[32], s2[32];
    int failed = 0;
    if (have_budget || !baseline) {
        if (a.leaked_bytes > budget) {
            failed = 1;
            cmt_msg("check failed: %s leaked at %zu site%s, budget %s", cmt_human_size(a.leaked_bytes, s1, sizeof s1), a.nleaks,
                    a.nleaks == 1 ? "" : "s", cmt_human_size(budget, s2, sizeof s2));
            for (size_t i = 0; i < a.nleaks && i < 5; i++) {
                fprintf(stderr, "    %s in %llu allocation%s (pid %u, at %s):\n", cmt_human_size(a.leaks[i].leak->bytes, s1, sizeof s1),
                        (unsigned long long)a.leaks[i].leak->allocations, a.leaks[i].leak->allocations == 1 ? "" : "s",
                        a.procs[a.leaks[i].proc].hdr.pid, cmt_leak_at_name(a.leaks[i].leak->at));
                cmt_print_frames(stderr, &a.leaks[i].stack, "        ", 8);
            }
        }
    }
    if (have_marker_growth) {
        size_t gp = 0, gi = 0;
        double worst = cmt_growth_max(&a, &gp, &gi);
        if (worst > (double)marker_growth) {
            failed = 1;
            cmt_msg("check failed: live bytes grow by %s per marker \"%s\", limit %s per marker",
                    cmt_human_size((uint64_t)(worst + 0.5), s1, sizeof s1), a.procs[gp].replay.marks.growth[gi].label,
                    cmt_human_size(marker_growth, s2, sizeof s2));
            cmt_growth_print_over(&a, (double)marker_growth, stderr, 5);
        }
    }
    if (baseline) {
        struct cmt_report_opts bo = ro;
        struct cmt_suppressions bsupp = {0};
        if (ro.suppressions) { /* the same patterns, separate counters */
            for (size_t i = 0; i < supp.n; i++) {
                struct cmt_suppression *nv = realloc(bsupp.v, (bsupp.n + 1) * sizeof *nv);
                if (!nv) break;
                bsupp.v = nv;
                nv[bsupp.n].pattern = strdup(supp.v[i].pattern);
                nv[bsupp.n].leaks = nv[bsupp.n].bytes = 0;
                if (nv[bsupp.n].pattern) bsupp.n++;
            }
            bo.suppressions = &bsupp;
        }
        char *bargs[1] = {(char *)baseline};
        rc = cmt_load_dumps(&b, &bo, bargs, 1);
        if (rc) {
            cmt_analysis_free(&a);
            cmt_analysis_free(&b);
            cmt_suppress_free(&bsupp);
            goto out;
        }
        struct cmt_comparison cmp;
        if (cmt_compare(&b, &a, &cmp) != 0) {
            cmt_msg("check: out of memory");
            cmt_analysis_free(&a);
            cmt_analysis_free(&b);
            cmt_suppress_free(&bsupp);
            rc = 3;
            goto out;
        }
        if (a.leaked_bytes > b.leaked_bytes) {
            failed = 1;
            cmt_msg("check failed: leaked bytes grew from %s to %s against the baseline", cmt_human_size(b.leaked_bytes, s1, sizeof s1),
                    cmt_human_size(a.leaked_bytes, s2, sizeof s2));
            size_t n;
            size_t *ix = cmt_compare_order(&cmp, 1, &n);
            int shown = 0;
            for (size_t i = 0; ix && i < n && shown < 5; i++) {
                const struct cmt_chain_delta *e = &cmp.chains[ix[i]];
                if (e->leak[CMT_NEW] <= e->leak[CMT_OLD]) continue;
                shown++;
                fprintf(stderr, "    %s %s -> %s: %s\n", e->leak[CMT_OLD] ? "grew" : "new",
                        cmt_human_size(e->leak[CMT_OLD], s1, sizeof s1), cmt_human_size(e->leak[CMT_NEW], s2, sizeof s2),
                        e->chain[0] ? e->chain : "(no stack)");
            }
            free(ix);
        }
        if (have_growth) {
            for (size_t k = 0; k < cmp.ngpus; k++) {
                const struct cmt_gpu *go = cmp.gpus[k].g[CMT_OLD], *gn = cmp.gpus[k].g[CMT_NEW];
                if (!go || !gn) continue;
                double old = (double)go->peak_bytes, now = (double)gn->peak_bytes;
                if (now > old * (1 + growth / 100) && now > old) {
                    failed = 1;
                    cmt_msg("check failed: peak on %s grew %.1f%% (%s -> %s), limit %g%%", gn->uuid,
                            old > 0 ? (now - old) / old * 100 : 100.0, cmt_human_size(go->peak_bytes, s1, sizeof s1),
                            cmt_human_size(gn->peak_bytes, s2, sizeof s2), growth);
                    print_peak_stacks(&a, gn->uuid);
                }
            }
            if (!cmp.gpus_matched) {
                uint64_t ma = 0, mb = 0;
                for (size_t g = 0; g < a.ngpus; g++)
                    if (a.gpus[g].peak_bytes > ma) ma = a.gpus[g].peak_bytes;
                for (size_t g = 0; g < b.ngpus; g++)
                    if (b.gpus[g].peak_bytes > mb) mb = b.gpus[g].peak_bytes;
                if ((double)ma > (double)mb * (1 + growth / 100) && ma > mb) {
                    failed = 1;
                    cmt_msg("check failed: largest per-GPU peak grew %.1f%% (%s -> %s), limit %g%% (no GPU uuid in common)",
                            mb ? ((double)ma - (double)mb) / (double)mb * 100 : 100.0, cmt_human_size(mb, s1, sizeof s1),
                            cmt_human_size(ma, s2, sizeof s2), growth);
                }
            }
        }
        cmt_comparison_free(&cmp);
        cmt_analysis_free(&b);
        cmt_suppress_free(&bsupp);
    }
    if (!failed)
        cmt_msg("check passed: %s leaked (%s suppressed) in %zu process%s", cmt_human_size(a.leaked_bytes, s1, sizeof s1),
                cmt_human_size(a.suppressed_bytes, s2, sizeof s2), a.nprocs, a.nprocs == 1 ? "" : "es");
    rc = cmt_analysis_status(&a);
    if (!rc) rc = failed ? 1 : 0;
    cmt_analysis_free(&a);
out:
    cmt_suppress_free(&supp);
    return rc;
}
