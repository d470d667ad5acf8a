/*
 * render_diff.c — `cumemtrack diff`'s output: a comparison (compare.h) as text or JSON. See
 * render.h.
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "render.h"

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

void cmt_render_diff_text(const struct cmt_comparison *c, size_t top, FILE *f) {
    char b1[32], b2[32], b3[40], b4[32], b5[32], b6[40];
    fprintf(f, "cumemtrack diff: %s (%zu process%s) -> %s (%zu process%s)\n", c->arg[0], c->run[0]->nprocs,
            c->run[0]->nprocs == 1 ? "" : "es", c->arg[1], c->run[1]->nprocs, c->run[1]->nprocs == 1 ? "" : "es");
    fprintf(f, "\n  %-10s %12s %12s %12s\n", "", "OLD", "NEW", "CHANGE");
    fprintf(f, "  %-10s %12s %12s %12s\n", "leaked", cmt_human_size(c->run[0]->leaked_bytes, b1, sizeof b1),
            cmt_human_size(c->run[1]->leaked_bytes, b2, sizeof b2),
            signed_size(c->run[0]->leaked_bytes, c->run[1]->leaked_bytes, b3, sizeof b3));
    fprintf(f, "  %-10s %12s %12s %12s\n", "peak (sum)", cmt_human_size(c->peak_total[0], b1, sizeof b1),
            cmt_human_size(c->peak_total[1], b2, sizeof b2),
            signed_size(c->peak_total[0], c->peak_total[1], b3, sizeof b3));
    fprintf(f, "  %-10s %12zu %12zu %+12lld\n", "OOMs", c->run[0]->nooms, c->run[1]->nooms,
            (long long)c->run[1]->nooms - (long long)c->run[0]->nooms);
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

static void json_side(struct cmt_json *j, const char *key, const struct cmt_comparison *c, int side) {
    const struct cmt_analysis *a = c->run[side];
    cmt_json_object(j, key);
    cmt_json_str(j, "argument", c->arg[side]);
    cmt_json_array(j, "dumps");
    for (size_t i = 0; i < c->npaths[side]; i++)
        cmt_json_str(j, NULL, c->paths[side][i]);
    cmt_json_array_end(j);
    cmt_json_u64(j, "processes", a->nprocs);
    cmt_json_u64(j, "leaked_bytes", a->leaked_bytes);
    cmt_json_u64(j, "leaked_allocations", a->leaked_allocations);
    cmt_json_u64(j, "peak_bytes", c->peak_total[side]);
    cmt_json_u64(j, "ooms", a->nooms);
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

void cmt_render_diff_json(const struct cmt_comparison *c, FILE *f) {
    struct cmt_json jj, *j = &jj;
    cmt_json_init(j, f, 1);
    cmt_json_object(j, NULL);
    cmt_json_str(j, "tool", "cumemtrack");
    cmt_json_str(j, "kind", "diff");
    json_side(j, "old", c, CMT_OLD);
    json_side(j, "new", c, CMT_NEW);
    cmt_json_i64(j, "leaked_delta_bytes", (int64_t)(c->run[1]->leaked_bytes - c->run[0]->leaked_bytes));
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
