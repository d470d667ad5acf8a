/*
 * cmd_check.c — cumemtrack check: a CI gate. Fails (exit 1) when unsuppressed leaks exceed the
 * budget (--max-leak-bytes, default 0; with --baseline the budget applies only when given), or,
 * against --baseline OLD (dumps or a directory of a previous run), when leaked bytes grew or the
 * peak of a physical GPU (matched by uuid; the largest per-GPU peak when no uuid matches) grew by
 * more than --max-peak-growth PCT. Baseline leaks are matched by symbolized function chains, never
 * by addresses. --max-growth-per-marker BYTES fails when a stack's live bytes grow by more than
 * BYTES per marker of one label (cmt_mark / NVTX). --per-marker judges each test of a test runner
 * instead of the whole run (the ranges of cmt_test_begin / cmt_test_end, pertest.h): the leak
 * budget applies to what each test left live at its end, --max-peak-bytes to each test's peak; the
 * per-test table goes to stderr. Reasons and the top offending stacks go to stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"
#include "compare.h"
#include "render.h"

static const char check_help[] =
    "usage: cumemtrack check [OPTIONS] DUMP|DIR...\n"
    "  --max-leak-bytes N     leak budget (suffixes K M G KiB MiB GiB, \"512 MiB\"; default 0)\n"
    "  --suppressions FILE    LSan-style leak:PATTERN lines\n"
    "  --baseline OLD         dump or directory of a previous run: fail when leaked bytes grew\n"
    "  --max-peak-growth PCT  with --baseline: fail when a GPU's peak grew by more than PCT percent\n"
    "  --max-growth-per-marker N  fail when a stack's live bytes grow by more than N bytes per\n"
    "                         marker of one label (cmt_mark, NVTX): the leak-per-iteration gate\n"
    "  --per-marker           judge each test (cmt_test_begin/cmt_test_end ranges: the pytest\n"
    "                         plugin, the GoogleTest listener) instead of the whole run: fail\n"
    "                         when a test leaves more than --max-leak-bytes live at its end or\n"
    "                         peaks above --max-peak-bytes; prints the per-test table\n"
    "  --max-peak-bytes N     with --per-marker: the most GPU memory one test may have live\n"
    "                         (what it allocated itself) at one moment\n"
    "  --allow-running        judge dumps of processes still running (their live memory is\n"
    "                         live now, not leaked); without it check fails on them\n"
    "  --allow-anomalies      judge even when an anomaly means the figures may be wrong\n"
    "                         (unreadable or truncated dumps, dropped events, full tables,\n"
    "                         unknown frees); without it check fails on them\n"
    "  --count-cached         count what caching allocators hold at exit (PyTorch, CuPy, RMM, BFC,\n"
    "                         --caching-allocator) in --max-leak-bytes; by default it is not a leak\n"
    CMT_CACHING_HELP
    "  --no-symbols, --debug-dir DIR, --top N, --quiet   as for report\n"
    "exit: 0 pass, 1 leaks over budget, regression, or figures it cannot trust, 2 usage,\n"
    "      3 no dump could be read\n";

/* The top stacks live at the peak of GPU uuid, from the first process on it. */
static void print_peak_stacks(struct cmt_analysis *a, const char *uuid) {
    char s1[32], u[48];
    for (size_t k = 0; k < a->npeaks; k++) {
        const struct cmt_devstate *d = a->peaks[k].dev;
        const char *du = cmt_device_uuid(d, u);
        if (!du || strcmp(du, uuid)) continue;
        for (size_t s = 0; s < d->npeak_top && s < 3; s++) {
            fprintf(stderr, "    %s live at the peak (pid %u):\n", cmt_human_size(d->peak_top[s].bytes, s1, sizeof s1),
                    a->procs[a->peaks[k].proc].hdr.pid);
            struct cmt_stack_sym st = cmt_analysis_stack(a, a->peaks[k].proc, d->peak_top[s].stack);
            cmt_print_frames(stderr, &st, "        ", 8);
            cmt_stack_sym_free(&st);
        }
        return;
    }
}

struct check_limits {
    uint64_t budget, marker_growth, max_peak;
    int have_budget, have_growth, have_marker_growth, allow_anomalies, allow_running, count_cached;
    int per_marker, have_max_peak;
    double growth;
    const char *baseline;
};

static int check_option(struct cmt_cli *c, int opt, const char *arg) {
    struct check_limits *L = c->arg;
    switch (opt) {
    case 'm':
        if (cmt_parse_size(arg, &L->budget) != 0) {
            cmt_msg("check: --max-leak-bytes: not a size: '%s'", arg);
            return -1;
        }
        L->have_budget = 1;
        return 1;
    case 'b':
        L->baseline = arg;
        return 1;
    case 'A':
        L->allow_anomalies = 1;
        return 1;
    case 'R':
        L->allow_running = 1;
        return 1;
    case 'c':
        L->count_cached = 1;
        return 1;
    case 'T':
        L->per_marker = 1;
        return 1;
    case 'P':
        if (cmt_parse_size(arg, &L->max_peak) != 0) {
            cmt_msg("check: --max-peak-bytes: not a size: '%s'", arg);
            return -1;
        }
        L->have_max_peak = 1;
        return 1;
    case 'g':
        if (cmt_parse_size(arg, &L->marker_growth) != 0) {
            cmt_msg("check: --max-growth-per-marker: not a size: '%s'", arg);
            return -1;
        }
        L->have_marker_growth = 1;
        return 1;
    case 'p': {
        char *end;
        errno = 0;
        L->growth = strtod(arg, &end);
        /* NaN or infinity would turn the gate off without a word */
        if (errno || end == arg || (*end && strcmp(end, "%")) || !(L->growth >= 0) || !isfinite(L->growth)) {
            cmt_msg("check: --max-peak-growth: not a percentage: '%s'", arg);
            return -1;
        }
        L->have_growth = 1;
        return 1;
    }
    default:
        return 0;
    }
}

/* --per-marker: every test against the leak budget and --max-peak-bytes. 1 when one fails. */
static int check_per_marker(struct cmt_analysis *a, const struct check_limits *L) {
    char s1[32], s2[32];
    if (!a->ntests) {
        cmt_msg("check failed: --per-marker: the dumps hold no test (no cmt_test_begin/cmt_test_end range: run the "
                "tests with the pytest plugin or the GoogleTest listener)");
        return 1;
    }
    cmt_tests_print(a, stderr, a->opts.top_n);
    size_t bad = 0;
    for (size_t i = 0; i < a->ntests; i++) {
        const struct cmt_rtest *t = &a->tests[i];
        uint64_t counted = t->leaked_bytes + (L->count_cached ? t->cached_bytes : 0);
        int leak = counted > L->budget, peak = L->have_max_peak && t->t->peak_bytes > L->max_peak;
        if (!leak && !peak) continue;
        if (bad++ >= 20) continue; /* counted, not all named */
        if (leak) {
            cmt_msg("check failed: test %s leaked %s (live at its end%s), budget %s", t->t->name,
                    cmt_human_size(counted, s1, sizeof s1),
                    L->count_cached && t->cached_bytes ? ", held by caching allocators included" : "",
                    cmt_human_size(L->budget, s2, sizeof s2));
            for (size_t s = 0, shown = 0; s < t->nstacks && shown < 3; s++) {
                const struct cmt_rtest_stack *st = &t->stacks[s];
                if (st->suppressed || (st->allocator && !L->count_cached)) continue;
                shown++;
                fprintf(stderr, "    %s in %llu allocation%s%s%s (pid %u):\n", cmt_human_size(st->bytes, s1, sizeof s1),
                        (unsigned long long)st->allocations, st->allocations == 1 ? "" : "s",
                        st->allocator ? " held by " : "", st->allocator ? st->allocator : "",
                        a->procs[t->proc].hdr.pid);
                cmt_print_frames(stderr, &st->stack, "        ", 8);
            }
        }
        if (peak)
            cmt_msg("check failed: test %s peaked at %s, limit %s", t->t->name,
                    cmt_human_size(t->t->peak_bytes, s1, sizeof s1), cmt_human_size(L->max_peak, s2, sizeof s2));
    }
    if (bad > 20) cmt_msg("check failed: %zu tests over their limits in all", bad);
    return bad > 0;
}

int cmt_cmd_check(int argc, char **argv) {
    static const struct option opts[] = {
        {"max-leak-bytes", required_argument, 0, 'm'},
        {"baseline", required_argument, 0, 'b'},
        {"max-peak-growth", required_argument, 0, 'p'},
        CMT_COMMON_OPTIONS,
        {"help", no_argument, 0, 'h'},
        {"max-growth-per-marker", required_argument, 0, 'g'},
        {"allow-anomalies", no_argument, 0, 'A'},
        {"allow-running", no_argument, 0, 'R'},
        {"count-cached", no_argument, 0, 'c'},
        {"per-marker", no_argument, 0, 'T'},
        {"max-peak-bytes", required_argument, 0, 'P'},
        {0, 0, 0, 0},
    };
    struct check_limits L = {0};
    struct cmt_cli cli = {.cmd = "check", .help = check_help, .need_dumps = 1, .arg = &L};
    int rc = cmt_cli_parse(&cli, argc, argv, "+h", opts, check_option);
    struct cmt_report_opts ro = cli.ro;
    uint64_t budget = L.budget, marker_growth = L.marker_growth;
    int have_budget = L.have_budget, have_growth = L.have_growth, have_marker_growth = L.have_marker_growth;
    double growth = L.growth;
    const char *baseline = L.baseline;
    if (rc >= 0) return rc;
    if (have_growth && !baseline) {
        cmt_msg("check: --max-peak-growth needs --baseline");
        rc = 2;
        goto out;
    }
    if (L.have_max_peak && !L.per_marker) {
        cmt_msg("check: --max-peak-bytes needs --per-marker");
        rc = 2;
        goto out;
    }
    if (L.per_marker && baseline) {
        cmt_msg("check: --per-marker and --baseline do not go together");
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
    cmt_report_notes(&a); /* Python frames missing: said, never a failure (the byte figures are right) */
    for (size_t i = 0; i < a.nprocs; i++) {
        if (!a.procs[i].running) continue;
        if (!L.allow_running) failed = 1;
        cmt_msg("check %s: pid %u on %s is still running (%s): cannot judge a running process (%s live now)%s",
                L.allow_running ? "warning" : "failed", a.procs[i].hdr.pid, a.procs[i].hdr.host, a.procs[i].path,
                cmt_human_size(a.procs[i].live_now_bytes, s1, sizeof s1),
                L.allow_running ? "" : "; --allow-running judges it anyway");
    }
    for (int k = 0; k < CMT_AN_COUNT; k++) {
        char hint[512];
        if (!a.anomalies[k] || !cmt_anomaly_distrusts(k)) continue;
        if (!L.allow_anomalies) failed = 1;
        cmt_msg("check %s: %llu %s: the figures may be wrong (%s)%s", L.allow_anomalies ? "warning" : "failed",
                (unsigned long long)a.anomalies[k], cmt_anomaly_names[k], cmt_anomaly_text(&a, k, hint, sizeof hint),
                L.allow_anomalies ? "" : "; --allow-anomalies judges them anyway");
    }
    if (L.per_marker) {
        if (check_per_marker(&a, &L)) failed = 1;
    } else if (have_budget || !baseline) {
        uint64_t counted = a.leaked_bytes + (L.count_cached ? a.cached_bytes : 0);
        if (counted > budget) {
            failed = 1;
            cmt_msg("check failed: %s leaked at %zu site%s%s, budget %s", cmt_human_size(counted, s1, sizeof s1),
                    a.nleaks + (L.count_cached ? a.ncached : 0), a.nleaks + (L.count_cached ? a.ncached : 0) == 1 ? "" : "s",
                    L.count_cached && a.ncached ? " (held by caching allocators included: --count-cached)" : "",
                    cmt_human_size(budget, s2, sizeof s2));
            for (size_t i = 0; i < a.nleaks && i < 5; i++) {
                fprintf(stderr, "    %s in %llu allocation%s (pid %u, live %s):\n",
                        cmt_human_size(a.leaks[i].leak->bytes, s1, sizeof s1),
                        (unsigned long long)a.leaks[i].leak->allocations, a.leaks[i].leak->allocations == 1 ? "" : "s",
                        a.procs[a.leaks[i].proc].hdr.pid, cmt_leak_at_phrase(a.leaks[i].leak->at));
                cmt_print_frames(stderr, &a.leaks[i].stack, "        ", 8);
            }
            for (size_t i = 0; L.count_cached && i < a.ncached && i < 5; i++) {
                fprintf(stderr, "    %s in %llu allocation%s held by %s (pid %u):\n",
                        cmt_human_size(a.cached[i].leak->bytes, s1, sizeof s1),
                        (unsigned long long)a.cached[i].leak->allocations,
                        a.cached[i].leak->allocations == 1 ? "" : "s", a.cached[i].allocator,
                        a.procs[a.cached[i].proc].hdr.pid);
                cmt_print_frames(stderr, &a.cached[i].stack, "        ", 8);
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
            bsupp.v = calloc(cli.supp.n + 1, sizeof *bsupp.v);
            for (size_t i = 0; bsupp.v && i < cli.supp.n; i++)
                if ((bsupp.v[bsupp.n].pattern = strdup(cli.supp.v[i].pattern))) bsupp.n++;
            bo.suppressions = &bsupp;
        }
        char *bargs[1] = {(char *)baseline};
        if (bsupp.n != (ro.suppressions ? cli.supp.n : 0)) {
            cmt_msg("check: out of memory");
            rc = 3;
        } else
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
            cmt_msg("check failed: leaked bytes grew from %s to %s against the baseline",
                    cmt_human_size(b.leaked_bytes, s1, sizeof s1), cmt_human_size(a.leaked_bytes, s2, sizeof s2));
            size_t n;
            size_t *ix = cmt_compare_order(&cmp, 1, &n);
            int shown = 0;
            for (size_t i = 0; ix && i < n && shown < 5; i++) {
                const struct cmt_chain_delta *e = &cmp.chains[ix[i]];
                if (e->leak[CMT_NEW] <= e->leak[CMT_OLD]) continue;
                shown++;
                fprintf(stderr, "    %s %s -> %s: %s\n", e->leak[CMT_OLD] ? "grew" : "new",
                        cmt_human_size(e->leak[CMT_OLD], s1, sizeof s1),
                        cmt_human_size(e->leak[CMT_NEW], s2, sizeof s2), e->chain[0] ? e->chain : "(no stack)");
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
                    cmt_msg(
                        "check failed: largest per-GPU peak grew %.1f%% (%s -> %s), limit %g%% (no GPU uuid in common)",
                        mb ? ((double)ma - (double)mb) / (double)mb * 100 : 100.0, cmt_human_size(mb, s1, sizeof s1),
                        cmt_human_size(ma, s2, sizeof s2), growth);
                }
            }
        }
        cmt_comparison_free(&cmp);
        cmt_analysis_free(&b);
        cmt_suppress_free(&bsupp);
    }
    if (!failed && L.per_marker)
        cmt_msg("check passed: %zu test%s in %zu process%s within their limits", a.ntests, a.ntests == 1 ? "" : "s",
                a.tests_procs, a.tests_procs == 1 ? "" : "es");
    else if (!failed)
        cmt_msg("check passed: %s leaked (%s suppressed) in %zu process%s",
                cmt_human_size(a.leaked_bytes, s1, sizeof s1), cmt_human_size(a.suppressed_bytes, s2, sizeof s2),
                a.nprocs, a.nprocs == 1 ? "" : "es");
    rc = cmt_analysis_status(&a);
    if (!rc) rc = failed ? 1 : 0;
    cmt_analysis_free(&a);
out:
    cmt_cli_free(&cli);
    return rc;
}
