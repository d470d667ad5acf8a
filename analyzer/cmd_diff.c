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

struct dside {
    const char *arg;
    struct cmt_analysis a;
};

static const char diff_help[] =
    "usage: cumemtrack diff [OPTIONS] OLD NEW\n"
    "Compares two runs (OLD and NEW: a dump or a directory of dumps each): leaked bytes, OOMs, the\n"
    "peak and leaked bytes of every GPU (matched by UUID), and the stacks whose leaked bytes or bytes\n"
    "live at the peak grew, shrank, appeared or disappeared. Stacks are matched by their symbolized\n"
    "function chains, so a rebuilt binary still compares with its baseline.\n"
    "  --json               JSON output\n"
    "  --top N              changed stacks listed per section in text (default 10; JSON lists all)\n"
    "  --suppressions FILE  LSan-style leak:PATTERN lines; matching leaks are left out\n"
    "  --no-symbols         do not symbolize (stacks then match only within the same binary)\n"
    "  --debug-dir DIR      also look for debug files in DIR\n"
    "  -o FILE              write to FILE instead of stdout\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt input\n";

static const char *signed_size(uint64_t o, uint64_t n, char *buf, size_t cap) {
    char b[32];
    if (o == n)
        snprintf(buf, cap, "0");
    else
        snprintf(buf, cap, "%c%s", n > o ? '+' : '-', cmt_human_size(n > o ? n - o : o - n, b, sizeof b));
    return buf;
}

/* "inner <- outer <- ..." for text */
static void text_chain(FILE *f, const char *chain) {
    if (!*chain) {
        fputs("(no stack recorded)", f);
        return;
    }
    for (const char *p = chain; *p; p++) {
        if (*p == ';')
            fputs(" <- ", f);
        else
            fputc((unsigned char)*p < 0x20 ? '?' : *p, f);
    }
}

static void text_section(FILE *f, const char *title, const struct cmt_comparison *c, int leak, size_t top) {
    size_t k;
    size_t *ix = cmt_compare_order(c, leak, &k);
    if (!ix) return;
    const struct cmt_chain_delta *v = c->chains;
    size_t changed = 0;
    for (size_t i = 0; i < k; i++)
        changed += cmt_chain_change(&v[ix[i]], leak) != 0;
    fprintf(f, "\n%s stacks (matched by function chain): %zu changed, %zu unchanged\n", title, changed, k - changed);
    for (size_t i = 0; i < k && i < top; i++) {
        const struct cmt_chain_delta *e = &v[ix[i]];
        const uint64_t *m = leak ? e->leak : e->peak;
        if (m[0] == m[1]) break;
        char b1[32], b2[32], b3[40];
        fprintf(f, "  %-11s %11s  (%s -> %s)  ", cmt_change_status(m[0], m[1]), signed_size(m[0], m[1], b3, sizeof b3),
                cmt_human_size(m[0], b1, sizeof b1), cmt_human_size(m[1], b2, sizeof b2));
        text_chain(f, e->chain);
        fputc('\n', f);
    }
    if (changed > top) fprintf(f, "  ... %zu more (--top N, or --json for all)\n", changed - top);
    free(ix);
}

static void write_text(FILE *f, struct dside *s, const struct cmt_comparison *c, size_t top) {
    char b1[32], b2[32], b3[40], b4[32], b5[32], b6[40];
    fprintf(f, "cumemtrack diff: %s (%zu process%s) -> %s (%zu process%s)\n", s[0].arg, s[0].a.nprocs,
            s[0].a.nprocs == 1 ? "" : "es", s[1].arg, s[1].a.nprocs, s[1].a.nprocs == 1 ? "" : "es");
    fprintf(f, "\n  %-10s %12s %12s %12s\n", "", "OLD", "NEW", "CHANGE");
    fprintf(f, "  %-10s %12s %12s %12s\n", "leaked", cmt_human_size(s[0].a.leaked_bytes, b1, sizeof b1),
            cmt_human_size(s[1].a.leaked_bytes, b2, sizeof b2),
            signed_size(s[0].a.leaked_bytes, s[1].a.leaked_bytes, b3, sizeof b3));
    fprintf(f, "  %-10s %12s %12s %12s\n", "peak (sum)", cmt_human_size(c->peak_total[0], b1, sizeof b1),
            cmt_human_size(c->peak_total[1], b2, sizeof b2),
            signed_size(c->peak_total[0], c->peak_total[1], b3, sizeof b3));
    fprintf(f, "  %-10s %12zu %12zu %+12lld\n", "OOMs", s[0].a.nooms, s[1].a.nooms,
            (long long)s[1].a.nooms - (long long)s[0].a.nooms);
    const struct cmt_gpu_pair *gp = c->gpus;
    size_t ng = c->ngpus;
    fprintf(f, "\ndevices (matched by uuid)\n");
    if (!ng)
        fprintf(f, "  (no device memory recorded)\n");
    else
        fprintf(f, "  %-40s %10s %10s %11s  %10s %10s %11s  %s\n", "UUID", "PEAK OLD", "PEAK NEW", "CHANGE", "LEAK OLD",
                "LEAK NEW", "CHANGE", "STATUS");
    for (size_t i = 0; i < ng; i++) {
        uint64_t po = gp[i].g[0] ? gp[i].g[0]->peak_bytes : 0, pn = gp[i].g[1] ? gp[i].g[1]->peak_bytes : 0;
        uint64_t lo = gp[i].g[0] ? gp[i].g[0]->leaked_bytes : 0, ln = gp[i].g[1] ? gp[i].g[1]->leaked_bytes : 0;
        const char *st = !gp[i].g[0] ? "appeared" : !gp[i].g[1] ? "disappeared" : cmt_change_status(po, pn);
        fprintf(f, "  %-40s %10s %10s %11s  %10s %10s %11s  %s\n", (gp[i].g[0] ? gp[i].g[0] : gp[i].g[1])->uuid,
                cmt_human_size(po, b1, sizeof b1), cmt_human_size(pn, b2, sizeof b2),
                signed_size(po, pn, b3, sizeof b3), cmt_human_size(lo, b4, sizeof b4),
                cmt_human_size(ln, b5, sizeof b5), signed_size(lo, ln, b6, sizeof b6), st);
    }
    text_section(f, "leak", c, 1, top);
    text_section(f, "peak", c, 0, top);
}

static void json_side(struct cmt_json *j, const char *key, struct dside *s, uint64_t peak_total, char **paths,
                      size_t npaths) {
    cmt_json_object(j, key);
    cmt_json_str(j, "argument", s->arg);
    cmt_json_array(j, "dumps");
    for (size_t i = 0; i < npaths; i++)
        cmt_json_str(j, NULL, paths[i]);
    cmt_json_array_end(j);
    cmt_json_u64(j, "processes", s->a.nprocs);
    cmt_json_u64(j, "leaked_bytes", s->a.leaked_bytes);
    cmt_json_u64(j, "leaked_allocations", s->a.leaked_allocations);
    cmt_json_u64(j, "peak_bytes", peak_total);
    cmt_json_u64(j, "ooms", s->a.nooms);
    cmt_json_object_end(j);
}

static void json_section(struct cmt_json *j, const char *key, const struct cmt_comparison *c, int leak) {
    size_t k;
    size_t *ix = cmt_compare_order(c, leak, &k);
    const struct cmt_chain_delta *v = c->chains;
    cmt_json_array(j, key);
    for (size_t i = 0; ix && i < k; i++) {
        const struct cmt_chain_delta *e = &v[ix[i]];
        const uint64_t *m = leak ? e->leak : e->peak;
        cmt_json_object(j, NULL);
        cmt_json_str(j, "status", cmt_change_status(m[0], m[1]));
        cmt_json_u64(j, "old_bytes", m[0]);
        cmt_json_u64(j, "new_bytes", m[1]);
        cmt_json_i64(j, "delta_bytes", (int64_t)(m[1] - m[0]));
        if (leak) {
            cmt_json_u64(j, "old_allocations", e->leak_allocs[0]);
            cmt_json_u64(j, "new_allocations", e->leak_allocs[1]);
        }
        cmt_json_str(j, "chain", e->chain);
        cmt_json_array(j, "functions"); /* innermost first */
        for (const char *p = e->chain; *p;) {
            const char *q = strchr(p, ';');
            size_t len = q ? (size_t)(q - p) : strlen(p);
            cmt_json_strn(j, NULL, p, len);
            p += len + (q != NULL);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    free(ix);
}

static void write_json(FILE *f, struct dside *s, char **paths[2], size_t npaths[2], const struct cmt_comparison *c) {
    struct cmt_json jj, *j = &jj;
    cmt_json_init(j, f, 1);
    cmt_json_object(j, NULL);
    cmt_json_str(j, "tool", "cumemtrack");
    cmt_json_str(j, "kind", "diff");
    json_side(j, "old", &s[0], c->peak_total[0], paths[0], npaths[0]);
    json_side(j, "new", &s[1], c->peak_total[1], paths[1], npaths[1]);
    cmt_json_i64(j, "leaked_delta_bytes", (int64_t)(s[1].a.leaked_bytes - s[0].a.leaked_bytes));
    cmt_json_i64(j, "peak_delta_bytes", (int64_t)(c->peak_total[1] - c->peak_total[0]));
    const struct cmt_gpu_pair *gp = c->gpus;
    size_t ng = c->ngpus;
    cmt_json_array(j, "devices");
    for (size_t i = 0; i < ng; i++) {
        const struct cmt_gpu *any = gp[i].g[0] ? gp[i].g[0] : gp[i].g[1];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", any->uuid);
        cmt_json_str(j, "name", any->name);
        cmt_json_str(j, "pci_bus_id", any->pci);
        for (int side = 0; side < 2; side++) {
            const struct cmt_gpu *g = gp[i].g[side];
            if (!g) {
                cmt_json_null(j, side ? "new" : "old");
                continue;
            }
            cmt_json_object(j, side ? "new" : "old");
            cmt_json_u64(j, "peak_bytes", g->peak_bytes);
            cmt_json_u64(j, "leaked_bytes", g->leaked_bytes);
            cmt_json_u64(j, "processes", g->processes);
            cmt_json_object_end(j);
        }
        uint64_t po = gp[i].g[0] ? gp[i].g[0]->peak_bytes : 0, pn = gp[i].g[1] ? gp[i].g[1]->peak_bytes : 0;
        uint64_t lo = gp[i].g[0] ? gp[i].g[0]->leaked_bytes : 0, ln = gp[i].g[1] ? gp[i].g[1]->leaked_bytes : 0;
        cmt_json_i64(j, "peak_delta_bytes", (int64_t)(pn - po));
        cmt_json_i64(j, "leaked_delta_bytes", (int64_t)(ln - lo));
        cmt_json_str(j, "status", !gp[i].g[0] ? "appeared" : !gp[i].g[1] ? "disappeared" : cmt_change_status(po, pn));
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    json_section(j, "leaks", c, 1);
    json_section(j, "peak", c, 0);
    cmt_json_object_end(j);
    cmt_json_finish(j);
}

struct diff_job {
    struct dside *s;
    char ***paths;
    size_t *npaths;
    const struct cmt_comparison *cmp;
    size_t top;
    int json;
};

static int write_diff(void *arg, FILE *f) {
    struct diff_job *j = arg;
    if (j->json)
        write_json(f, j->s, j->paths, j->npaths, j->cmp);
    else
        write_text(f, j->s, j->cmp, j->top);
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
        cmt_suppress_free(&cli.supp);
        return 2;
    }
    ro.top_n = DIFF_TOP;
    struct dside s[2];
    memset(s, 0, sizeof s);
    char **paths[2] = {NULL, NULL};
    size_t npaths[2] = {0, 0};
    int rc = 0, loaded = 0;
    for (int side = 0; side < 2 && !rc; side++) {
        s[side].arg = argv[optind + side];
        if (cmt_expand_paths(argv + optind + side, 1, &paths[side], &npaths[side], err, sizeof err) != 0) {
            cmt_msg("%s", err);
            rc = 3;
            break;
        }
        loaded = side + 1;
        if (cmt_analysis_load(&s[side].a, &ro, paths[side], npaths[side]) != 0) {
            cmt_msg("%s", s[side].a.err);
            rc = 3;
        }
    }
    struct cmt_comparison cmp = {0};
    if (!rc && cmt_compare(&s[0].a, &s[1].a, &cmp) != 0) {
        cmt_msg("diff: out of memory");
        rc = 3;
    }
    struct diff_job job = {s, paths, npaths, &cmp, top, json};
    if (!rc) {
        rc = cmt_write_output(out, write_diff, &job);
        if (!rc) rc = cmt_analysis_status(&s[0].a);
        if (!rc) rc = cmt_analysis_status(&s[1].a);
    }
    cmt_comparison_free(&cmp);
    for (int side = 0; side < loaded; side++) {
        cmt_analysis_free(&s[side].a);
        cmt_free_paths(paths[side], npaths[side]);
    }
    cmt_suppress_free(&cli.supp);
    return rc;
}
