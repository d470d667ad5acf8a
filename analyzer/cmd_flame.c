/*
 * cmd_flame.c — cumemtrack flame [--leaks | --peak] [-o FILE] DUMP|DIR...: folded stacks for
 * flamegraph.pl, speedscope and compatible viewers (cmt_fold.h), and the folding itself.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmt_cmds.h"
#include "cmt_fold.h"

#define FLAME_TOP 65536 /* stacks kept per peak snapshot: all of them in practice */

char *cmt_fold_stack(const struct cmt_stack_sym *s) {
    if (!s->n) return strdup("[no stack]");
    size_t cap = 256, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (size_t k = s->n; k-- > 0;) {
        const struct cmt_sym_frame *f = &s->frames[k];
        char part[600];
        if (f->function) snprintf(part, sizeof part, "%s", f->function);
        else {
            const char *b = strrchr(f->module, '/');
            snprintf(part, sizeof part, "%s+0x%llx", b ? b + 1 : f->module, (unsigned long long)f->offset);
        }
        for (char *c = part; *c; c++) {
            if (*c == ';') *c = ':';
            else if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
        }
        size_t pl = strlen(part);
        if (len + pl + 2 > cap) {
            while (len + pl + 2 > cap) cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
        if (len) out[len++] = ';';
        memcpy(out + len, part, pl);
        len += pl;
    }
    out[len] = 0;
    return out;
}

static int cmp_fold(const void *x, const void *y) {
    return strcmp(((const struct cmt_fold *)x)->stack, ((const struct cmt_fold *)y)->stack);
}

static int fold_push(struct cmt_fold **v, size_t *n, size_t *cap, char *stack, uint64_t bytes) {
    if (!stack) return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct cmt_fold *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            free(stack);
            return -1;
        }
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = (struct cmt_fold){stack, bytes};
    return 0;
}

int cmt_fold_collect(struct cmt_analysis *a, int peak, struct cmt_fold **out, size_t *nout) {
    struct cmt_fold *v = NULL;
    size_t n = 0, cap = 0;
    if (!peak) {
        for (size_t i = 0; i < a->nleaks; i++)
            if (a->leaks[i].leak->bytes && fold_push(&v, &n, &cap, cmt_fold_stack(&a->leaks[i].stack), a->leaks[i].leak->bytes) != 0)
                goto fail;
    } else {
        for (size_t p = 0; p < a->nprocs; p++) {
            const struct cmt_replay *r = &a->procs[p].replay;
            for (size_t k = 0; k < r->ndevs; k++) {
                const struct cmt_devstate *d = &r->devs[k];
                for (size_t s = 0; d->peak && s < d->npeak_top; s++) {
                    struct cmt_stack_sym st = cmt_analysis_stack(a, p, d->peak_top[s].stack);
                    int rc = fold_push(&v, &n, &cap, cmt_fold_stack(&st), d->peak_top[s].bytes);
                    cmt_stack_sym_free(&st);
                    if (rc) goto fail;
                }
            }
        }
    }
    if (n) qsort(v, n, sizeof *v, cmp_fold);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !strcmp(v[w - 1].stack, v[i].stack)) {
            v[w - 1].bytes += v[i].bytes;
            free(v[i].stack);
        } else
            v[w++] = v[i];
    }
    *out = v;
    *nout = w;
    return 0;
fail:
    cmt_fold_free(v, n);
    *out = NULL;
    *nout = 0;
    return -1;
}

void cmt_fold_free(struct cmt_fold *v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i].stack);
    free(v);
}

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
            cmt_fold_free(v, n);
        }
    }
    cmt_analysis_free(&a);
    cmt_free_paths(paths, npaths);
    cmt_suppress_free(&supp);
    return rc;
}
