/*
 * render_text.c — the text report (cumemtrack report) of an analysis, and the one frame printer
 * every text output uses. See render.h.
 */
#include "render.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *cmt_marker_kind_name(uint64_t flags) {
    switch (flags) {
    case CMT_MARK_RANGE_PUSH:
        return "range";
    case CMT_MARK_SIGNAL:
        return "signal";
    default:
        return "mark";
    }
}

const char *cmt_rank_outlier_text(const struct cmt_ranks *R, const struct cmt_rank_outlier *o, char *buf, size_t cap) {
    const struct cmt_rank_row *r = &R->rows[o->row];
    char name[320], b1[32], b2[32];
    if (r->rank >= 0)
        snprintf(name, sizeof name, "rank %d on host %s", r->rank, r->host);
    else
        snprintf(name, sizeof name, "pid %u on host %s", r->pid, r->host);
    cmt_human_size(o->bytes, b1, sizeof b1);
    cmt_human_size(o->reference, b2, sizeof b2);
    switch (o->kind) {
    case CMT_OUTLIER_LEAK_ALONE:
        snprintf(buf, cap, "%s leaks %s; %llu of %zu %s leak nothing", name, b1, (unsigned long long)o->count,
                 R->ngroups, R->rows[0].rank >= 0 ? "ranks" : "processes");
        break;
    case CMT_OUTLIER_LEAK:
        snprintf(buf, cap, "%s leaks %s, %.*fx the median (%s)", name, b1, o->ratio < 10 ? 1 : 0, o->ratio, b2);
        break;
    case CMT_OUTLIER_PEAK:
        snprintf(buf, cap, "%s peaks %.1fx the mean (%s vs %s)", name, o->ratio, b1, b2);
        break;
    case CMT_OUTLIER_OOM:
        snprintf(buf, cap, "%s ran out of memory (%llu OOM%s)", name, (unsigned long long)o->count,
                 o->count == 1 ? "" : "s");
        break;
    }
    return buf;
}

/* "module+0xOFF" of a native frame (the module's file name, "?" when none) into buf. */
static const char *module_offset(const struct cmt_sym_frame *fr, char *buf, size_t cap) {
    const char *b = fr->module ? strrchr(fr->module, '/') : NULL;
    b = b ? b + 1 : fr->module ? fr->module : "?";
    snprintf(buf, cap, "%s+0x%llx", b, (unsigned long long)fr->offset);
    return buf;
}

void cmt_print_frame(FILE *f, const struct cmt_sym_frame *fr) {
    if (fr->kind == CMT_FRAME_PYTHON) {
        if (fr->line)
            fprintf(f, "%s %s:%d", fr->function, fr->file ? fr->file : "?", fr->line);
        else
            fprintf(f, "%s %s", fr->function, fr->file ? fr->file : "?");
        return;
    }
    char where[320];
    if (fr->function && fr->file)
        fprintf(f, "%s %s:%d%s", fr->function, fr->file, fr->line, fr->inlined ? " (inlined)" : "");
    else if (fr->function)
        fprintf(f, "%s (%s)", fr->function, module_offset(fr, where, sizeof where));
    else
        fputs(module_offset(fr, where, sizeof where), f);
}

const char *cmt_frame_parts(const struct cmt_sym_frame *fr, char *buf, size_t cap, const char **file, int *line) {
    *line = fr->line > 0 ? fr->line : 0;
    if (fr->kind == CMT_FRAME_PYTHON) {
        *file = fr->file ? fr->file : "?";
        return fr->function;
    }
    *file = fr->file ? fr->file : fr->module ? fr->module : "?";
    return fr->function ? fr->function : module_offset(fr, buf, cap);
}

size_t cmt_stack_user_frame(const struct cmt_stack_sym *s) {
    size_t vis = cmt_stack_visible(s), first = SIZE_MAX, second = SIZE_MAX, named = SIZE_MAX, caller = SIZE_MAX;
    int in_api = 0; /* the last shown frame was a CUDA API entry point */
    for (size_t i = 0; i < s->n; i++) {
        if (!CMT_FRAME_SHOWN(s, i, vis)) continue;
        const struct cmt_sym_frame *fr = &s->frames[i];
        if (fr->kind == CMT_FRAME_PYTHON) return i; /* never hidden */
        int api = fr->function && cmt_cuda_api_name(fr->function);
        if (first == SIZE_MAX)
            first = i;
        else if (second == SIZE_MAX)
            second = i;
        if (named == SIZE_MAX && fr->function && !api) named = i;
        if (caller == SIZE_MAX && in_api && !api) caller = i;
        in_api = api;
    }
    if (caller != SIZE_MAX) return caller;
    return named != SIZE_MAX ? named : second != SIZE_MAX ? second : first != SIZE_MAX ? first : 0;
}

size_t cmt_stack_pick(const struct cmt_stack_sym *s, size_t max, size_t *idx) {
    size_t vis = cmt_stack_visible(s), nshown = vis ? vis : s->n, u = 0, k = 0;
    if (!max || !s->n) return 0;
    size_t user = cmt_stack_user_frame(s);
    if (max == 1) {
        idx[0] = user;
        return 1;
    }
    for (size_t i = 0; i < user; i++) /* the user's frame among the shown ones */
        u += CMT_FRAME_SHOWN(s, i, vis);
    /* the innermost shown frame, then max - 1 from the user's frame outward (ending at the
     * outermost when fewer are left) */
    size_t from = nshown <= max ? 1 : u < 1 ? 1 : u > nshown - (max - 1) ? nshown - (max - 1) : u;
    for (size_t i = 0, j = 0; i < s->n && k < max; i++) {
        if (!CMT_FRAME_SHOWN(s, i, vis)) continue;
        if (j == 0 || j >= from) idx[k++] = i;
        j++;
    }
    return k;
}

void cmt_print_frames(FILE *f, const struct cmt_stack_sym *s, const char *indent, size_t max) {
    if (!s->n) {
        fprintf(f, "%s(no stack recorded)\n", indent);
        return;
    }
    size_t vis = cmt_stack_visible(s), nshown = vis ? vis : s->n;
    if (max > nshown) max = nshown;
    size_t *idx = malloc(max * sizeof *idx), n = 0;
    if (idx) n = cmt_stack_pick(s, max, idx);
    for (size_t i = 0, prev = 0; i < n; i++) {
        size_t gap = 0; /* shown frames left out between two printed ones */
        for (size_t k = prev + 1; i && k < idx[i]; k++)
            gap += CMT_FRAME_SHOWN(s, k, vis);
        if (gap) fprintf(f, "%s... %zu frame%s\n", indent, gap, gap == 1 ? "" : "s");
        fputs(indent, f);
        cmt_print_frame(f, &s->frames[idx[i]]);
        fputc('\n', f);
        prev = idx[i];
    }
    if (!idx) fprintf(f, "%s(out of memory)\n", indent);
    free(idx);
}

static double rel_s(const struct cmt_process *p, int64_t t) {
    return (double)cmt_sub_sat(t, p->hdr.start_clock_ns) / 1e9;
}

/* A marker's label in double quotes, one line whatever it holds: a control character prints as
 * '?', a quote or backslash with a backslash before it. */
static void quoted_label(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fputc('\\', f);
        fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
    }
    fputc('"', f);
}

static int worth_showing(const struct cmt_analysis *a) {
    const struct cmt_ranks *R = a->ranks;
    if (!R || !R->nrows) return 0;
    return R->nrows >= 2 || R->rows[0].rank >= 0;
}

static void ranks_text(const struct cmt_analysis *a, FILE *f) {
    const struct cmt_ranks *R = a->ranks;
    if (!worth_showing(a)) return;
    char b1[32], b2[32], rk[16], lr[16];
    fprintf(f, "\nranks\n  %-16s %5s %5s %8s %10s %10s %5s  %s\n", "HOST", "RANK", "LOCAL", "PID", "PEAK", "LEAKED",
            "OOMS", "GPUS");
    for (size_t i = 0; i < R->nrows; i++) {
        const struct cmt_rank_row *r = &R->rows[i];
        snprintf(rk, sizeof rk, "%d", r->rank);
        snprintf(lr, sizeof lr, "%d", r->local_rank);
        fprintf(f, "  %-16s %5s %5s %8u %10s %10s %5llu  ", r->host, r->rank >= 0 ? rk : "-",
                r->local_rank >= 0 ? lr : "-", r->pid, cmt_human_size(r->peak_bytes, b1, sizeof b1),
                cmt_human_size(r->leaked_bytes, b2, sizeof b2), (unsigned long long)r->ooms);
        for (size_t k = 0; k < r->nuuids; k++)
            fprintf(f, "%s%s", k ? "," : "", r->uuids[k]);
        if (!r->nuuids) fprintf(f, "-");
        if (r->worker_of >= 0) fprintf(f, "  (forked by pid %u)", R->rows[r->worker_of].pid);
        fprintf(f, "\n");
    }
    if (R->ngroups >= 2) {
        fprintf(f, "  across %zu %s: peak max/mean ", R->ngroups, R->rows[0].rank >= 0 ? "ranks" : "processes");
        if (R->peak_max_over_mean > 0)
            fprintf(f, "%.2f", R->peak_max_over_mean);
        else
            fprintf(f, "-");
        fprintf(f, ", leaked max/median ");
        if (R->leak_max_over_median > 0)
            fprintf(f, "%.1f\n", R->leak_max_over_median);
        else
            fprintf(f, "%s\n", R->leak_max_over_median < 0 ? "inf (median 0)" : "-");
    }
    char line[512];
    for (size_t i = 0; i < R->noutliers; i++)
        fprintf(f, "  outlier: %s\n", cmt_rank_outlier_text(R, &R->outliers[i], line, sizeof line));
    for (size_t h = 0; h < R->nhosts; h++)
        if (R->hosts[h].ngpus >= 2)
            fprintf(f, "  host %s: %zu GPUs, peak max/mean %.2f (%s highest)\n", R->hosts[h].host, R->hosts[h].ngpus,
                    R->hosts[h].peak_max_over_mean, R->hosts[h].max_uuid);
    for (size_t s = 0; s < R->nshared; s++) {
        const struct cmt_shared_gpu *sg = &R->shared[s];
        fprintf(f, "  shared GPU %s:", sg->uuid);
        for (size_t k = 0; k < sg->n; k++) {
            const struct cmt_rank_row *r = &R->rows[sg->rows[k]];
            if (r->rank >= 0)
                fprintf(f, " pid %u (rank %d)", r->pid, r->rank);
            else
                fprintf(f, " pid %u", r->pid);
            fprintf(f, k + 1 < sg->n ? "," : "\n");
        }
    }
}

static void text_growth(struct cmt_analysis *a, size_t i, const struct cmt_growth *g, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    const struct cmt_replay *r = &a->procs[i].replay;
    const char *uu = cmt_replay_uuid(r, g->device, u);
    char where[96];
    if (g->device < 0)
        snprintf(where, sizeof where, "host memory");
    else
        snprintf(where, sizeof where, "device %lld%s%s", (long long)g->device, uu ? " " : "", uu ? uu : "");
    fprintf(f, "  +%s per ", cmt_human_size((uint64_t)(g->bytes_per_marker + 0.5), b1, sizeof b1));
    quoted_label(f, g->label);
    fprintf(f, " %s over %llu markers (%s -> %s) on %s, pid %u\n", cmt_marker_kind_name(g->flags),
            (unsigned long long)g->markers, cmt_human_size(g->first_bytes, b2, sizeof b2),
            cmt_human_size(g->last_bytes, b3, sizeof b3), where, a->procs[i].hdr.pid);
    struct cmt_stack_sym st = cmt_analysis_stack(a, i, g->stack);
    cmt_print_frames(f, &st, "      ", SIZE_MAX);
    cmt_stack_sym_free(&st);
}

void cmt_growth_print_over(struct cmt_analysis *a, double limit, FILE *f, size_t top) {
    size_t shown = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->marks.ngrowth && shown < top; k++)
            if (r->marks.growth[k].bytes_per_marker > limit) {
                text_growth(a, i, &r->marks.growth[k], f);
                shown++;
            }
    }
}

static void markers_text(struct cmt_analysis *a, FILE *f) {
    size_t nmarkers = 0, ngrowth = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        nmarkers += a->procs[i].replay.marks.nmarkers;
        ngrowth += a->procs[i].replay.marks.ngrowth;
    }
    if (!nmarkers) return;
    char b1[32];
    fprintf(f, "\nmarkers: %zu", nmarkers);
    /* the labels and how many of each, then live device bytes at the first and last marker */
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        if (!r->marks.nmarkers) continue;
        fprintf(f, "\n  pid %u: %zu marker%s%s", a->procs[i].hdr.pid, r->marks.nmarkers,
                r->marks.nmarkers == 1 ? "" : "s", r->marks.dropped ? " (more were not kept)" : "");
        for (size_t k = 0; k < r->marks.nmarkers; k += (r->marks.nmarkers > 1 ? r->marks.nmarkers - 1 : 1)) {
            const struct cmt_marker_rec *m = &r->marks.markers[k];
            uint64_t gpu = 0;
            for (size_t d = 0; d < m->ndev; d++)
                if (m->dev[d] >= 0) gpu += m->live[d];
            fprintf(f, "\n    %s ", k ? "last " : "first");
            quoted_label(f, m->label);
            fprintf(f, " %s at t=%.6fs: %s live on GPUs", cmt_marker_kind_name(m->flags),
                    rel_s(&a->procs[i], m->time_ns), cmt_human_size(gpu, b1, sizeof b1));
            if (r->marks.nmarkers == 1) break;
        }
    }
    fprintf(f, "\n");
    if (!ngrowth) {
        fprintf(f, "  no stack grows across markers\n");
        return;
    }
    fprintf(f, "\ngrowth per marker (stacks whose live bytes grow at every marker of a label)\n");
    size_t shown = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->marks.ngrowth && shown < a->opts.top_n; k++, shown++)
            text_growth(a, i, &r->marks.growth[k], f);
    }
}

/* A test's name on one line: a control character prints as '?'. */
static void test_name(FILE *f, const char *s) {
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
    }
}

/* One row of the per-test table, and the stack that leaks most in that test (the cached one when
 * nothing leaked: which allocator holds what). */
static void test_row(const struct cmt_analysis *a, const struct cmt_rtest *t, FILE *f) {
    char b1[32], b2[32], b3[32];
    fprintf(f, "  %10s %10s %10s  ", cmt_human_size(t->leaked_bytes, b1, sizeof b1),
            cmt_human_size(t->cached_bytes, b2, sizeof b2), cmt_human_size(t->t->peak_bytes, b3, sizeof b3));
    test_name(f, t->t->name);
    fprintf(f, " (pid %u%s)\n", a->procs[t->proc].hdr.pid,
            t->t->end == CMT_TEST_NEXT         ? ", no end marker"
            : t->t->end == CMT_TEST_UNFINISHED ? ", unfinished"
                                               : "");
    if (!t->nstacks || t->stacks[0].suppressed) return;
    const struct cmt_rtest_stack *s = &t->stacks[0];
    if (s->allocator)
        fprintf(f, "      %s in %llu allocation%s held by %s:\n", cmt_human_size(s->bytes, b1, sizeof b1),
                (unsigned long long)s->allocations, s->allocations == 1 ? "" : "s", s->allocator);
    else
        fprintf(f, "      %s in %llu allocation%s still live at its end:\n", cmt_human_size(s->bytes, b1, sizeof b1),
                (unsigned long long)s->allocations, s->allocations == 1 ? "" : "s");
    cmt_print_frames(f, &s->stack, "        ", 8);
}

void cmt_tests_print(const struct cmt_analysis *a, FILE *f, size_t top) {
    fprintf(f,
            "\nper test: %zu test%s in %zu process%s (GPU memory allocated during each test: leaked = still live at "
            "its end, cached = held by a caching allocator then, peak = the most live at one moment)\n",
            a->ntests, a->ntests == 1 ? "" : "s", a->tests_procs, a->tests_procs == 1 ? "" : "es");
    fprintf(f, "  %10s %10s %10s  %s\n", "LEAKED", "CACHED", "PEAK", "TEST");
    size_t shown = 0;
    for (; shown < a->ntests && shown < top; shown++)
        test_row(a, &a->tests[shown], f);
    if (shown < a->ntests) {
        size_t leaking = 0;
        for (size_t i = shown; i < a->ntests; i++)
            leaking += a->tests[i].leaked_bytes > 0;
        fprintf(f, "  ... %zu more test%s (%zu leaking; --top N shows more)\n", a->ntests - shown,
                a->ntests - shown == 1 ? "" : "s", leaking);
    }
}

static void heaps_text(struct cmt_analysis *a, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    int any = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        size_t n;
        const struct cmt_heap *v = cmt_heaps_list(a->procs[i].replay.heaps, &n);
        for (size_t k = 0; k < n; k++) {
            const struct cmt_heap *pl = &v[k];
            if (!any++) fprintf(f, "\npools (sub-allocations reported through NVTX memory heaps)\n");
            char where[96];
            if (pl->device < 0)
                snprintf(where, sizeof where, "memory of no tracked allocation");
            else if (cmt_replay_uuid(&a->procs[i].replay, pl->device, u))
                snprintf(where, sizeof where, "device %lld (%s)", (long long)pl->device, u);
            else
                snprintf(where, sizeof where, "device %lld", (long long)pl->device);
            fprintf(f, "  pid %u heap 0x%llx \"%s\" %s on %s: %llu region%s live (%s), peak %s%s\n",
                    a->procs[i].hdr.pid, (unsigned long long)pl->heap, pl->name ? pl->name : "",
                    cmt_human_size(pl->size, b1, sizeof b1), where, (unsigned long long)pl->live_regions,
                    pl->live_regions == 1 ? "" : "s", cmt_human_size(pl->live_bytes, b2, sizeof b2),
                    cmt_human_size(pl->peak_bytes, b3, sizeof b3), pl->unregistered ? ", unregistered" : "");
            for (size_t q = 0; q < pl->nleaks && q < a->opts.top_n; q++) {
                fprintf(f, "    %s in %llu region%s still registered at the end:\n",
                        cmt_human_size(pl->leaks[q].bytes, b1, sizeof b1), (unsigned long long)pl->leaks[q].regions,
                        pl->leaks[q].regions == 1 ? "" : "s");
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, pl->leaks[q].stack);
                cmt_print_frames(f, &st, "        ", SIZE_MAX);
                cmt_stack_sym_free(&st);
            }
        }
    }
}

/* One entry of the leaks or of the cached section (l->allocator set: held by that allocator). */
static void leak_text(const struct cmt_analysis *a, const struct cmt_rleak *l, size_t i, FILE *f) {
    char b1[32];
    const char *kn = cmt_kind_name(l->leak->kind);
    fprintf(f, "  #%zu %s in %llu allocation%s (%s) on ", i + 1, cmt_human_size(l->leak->bytes, b1, sizeof b1),
            (unsigned long long)l->leak->allocations, l->leak->allocations == 1 ? "" : "s", kn ? kn : "?");
    if (l->leak->device >= 0)
        fprintf(f, "device %lld%s%s%s", (long long)l->leak->device, l->uuid ? " (" : "", l->uuid ? l->uuid : "",
                l->uuid ? ")" : "");
    else
        fprintf(f, "host");
    fprintf(f, ", pid %u, %s %s\n", a->procs[l->proc].hdr.pid, l->allocator ? "held" : "live",
            cmt_leak_at_phrase(l->leak->at));
    if (l->allocator) fprintf(f, "      (caching allocator: %s)\n", l->allocator);
    cmt_print_frames(f, &l->stack, "      ", SIZE_MAX);
}

void cmt_render_text(struct cmt_analysis *a, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    size_t top = a->opts.top_n;
    fprintf(f, "cumemtrack: %s leaked at %zu site%s in %zu process%s, %zu OOM%s, %llu anomal%s\n",
            cmt_human_size(a->leaked_bytes, b1, sizeof b1), a->nleaks, a->nleaks == 1 ? "" : "s", a->nprocs,
            a->nprocs == 1 ? "" : "es", a->nooms, a->nooms == 1 ? "" : "s",
            (unsigned long long)cmt_analysis_anomalies(a), cmt_analysis_anomalies(a) == 1 ? "y" : "ies");
    for (size_t k = 0; k < a->nnotes; k++)
        fprintf(f, "%s\n", a->notes[k].text);
    fprintf(f, "\nprocesses\n");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        fprintf(f, "  pid %u", p->hdr.pid);
        if (p->hdr.rank >= 0) fprintf(f, " rank %d", p->hdr.rank);
        fprintf(f, " on %s, exit %s", p->hdr.host[0] ? p->hdr.host : "?", p->exit);
        if (p->running) fprintf(f, " (%s live now, not leaked)", cmt_human_size(p->live_now_bytes, b1, sizeof b1));
        fprintf(f, "%s: %s\n", p->truncated ? " (truncated dump)" : "", p->command && p->command[0] ? p->command : "?");
    }
    fprintf(f, "\ndevices\n  %-7s %-4s %-40s %-14s %10s %10s %7s %7s  %s\n", "PID", "DEV", "UUID", "PCI", "PEAK",
            "LEAKED", "ALLOCS", "FREES", "NAME");
    int anydev = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            if (!d->allocations && !d->peak && !d->leaked_bytes) continue; /* idle: JSON lists it */
            anydev = 1;
            fprintf(f, "  %-7u %-4lld %-40s %-14s %10s %10s %7llu %7llu  %s\n", a->procs[i].hdr.pid,
                    (long long)d->ordinal, cmt_device_uuid(d, u) ? u : "?", d->pci[0] ? d->pci : "?",
                    cmt_human_size(d->peak, b1, sizeof b1), cmt_human_size(d->leaked_bytes, b2, sizeof b2),
                    (unsigned long long)d->allocations, (unsigned long long)d->frees, d->name[0] ? d->name : "?");
        }
        if (r->host_peak || r->host_leaked)
            fprintf(f, "  %-7u %-4s %-40s %-14s %10s %10s %7llu %7llu  %s\n", a->procs[i].hdr.pid, "host", "-", "-",
                    cmt_human_size(r->host_peak, b1, sizeof b1), cmt_human_size(r->host_leaked, b2, sizeof b2),
                    (unsigned long long)r->host_allocations, (unsigned long long)r->host_frees,
                    "pinned/registered host memory");
    }
    if (!anydev) fprintf(f, "  (no device memory recorded)\n");
    for (size_t i = 0; i < a->nimported; i++) {
        const struct cmt_imported_row *m = &a->imported[i];
        if (i == 0)
            fprintf(f, "\nimported (another process's memory mapped here; not in this process's leaks or peaks)\n"
                       "  %-7s %-4s %8s %8s %12s\n",
                    "PID", "DEV", "IMPORTS", "OPEN", "OPEN-BYTES");
        fprintf(f, "  %-7u %-4lld %8llu %8llu %12s\n", a->procs[m->proc].hdr.pid, (long long)m->device,
                (unsigned long long)m->imports, (unsigned long long)m->open,
                cmt_human_size(m->open_bytes, b1, sizeof b1));
    }
    if (a->nleaks) {
        fprintf(f, "\nleaks (top %zu of %zu)\n", a->nleaks < top ? a->nleaks : top, a->nleaks);
        for (size_t i = 0; i < a->nleaks && i < top; i++)
            leak_text(a, &a->leaks[i], i, f);
    } else
        fprintf(f, "\nleaks: none\n");
    if (a->ncached) {
        fprintf(f, "\nheld by caching allocators at exit (%s; top %zu of %zu; not leaks: their cache)\n",
                cmt_human_size(a->cached_bytes, b1, sizeof b1), a->ncached < top ? a->ncached : top, a->ncached);
        for (size_t i = 0; i < a->ncached && i < top; i++)
            leak_text(a, &a->cached[i], i, f);
    }
    if (a->npeaks) fprintf(f, "\npeaks\n");
    for (size_t k = 0; k < a->npeaks; k++) {
        size_t i = a->peaks[k].proc;
        const struct cmt_devstate *d = a->peaks[k].dev;
        fprintf(f, "  pid %u device %lld: %s at t=%.6fs\n", a->procs[i].hdr.pid, (long long)d->ordinal,
                cmt_human_size(d->peak, b1, sizeof b1), rel_s(&a->procs[i], d->peak_time));
        for (size_t s = 0; s < d->npeak_top && s < top; s++) {
            fprintf(f, "    %s in %llu allocation%s\n", cmt_human_size(d->peak_top[s].bytes, b1, sizeof b1),
                    (unsigned long long)d->peak_top[s].allocations, d->peak_top[s].allocations == 1 ? "" : "s");
            struct cmt_stack_sym st = cmt_analysis_stack(a, i, d->peak_top[s].stack);
            cmt_print_frames(f, &st, "        ", SIZE_MAX);
            cmt_stack_sym_free(&st);
        }
    }
    if (a->nooms) {
        fprintf(f, "\nout-of-memory errors\n");
        for (size_t i = 0; i < a->nprocs; i++) {
            struct cmt_replay *r = &a->procs[i].replay;
            for (size_t k = 0; k < r->nooms; k++) {
                const struct cmt_oom *o = &r->ooms[k];
                const struct cmt_devstate *d = o->device >= 0 ? cmt_replay_device(r, o->device) : NULL;
                fprintf(f, "  pid %u device %lld at t=%.6fs: requested %s with %s live", a->procs[i].hdr.pid,
                        (long long)o->device, rel_s(&a->procs[i], o->time_ns),
                        cmt_human_size(o->requested, b1, sizeof b1), cmt_human_size(o->live_bytes, b2, sizeof b2));
                if (d && d->total) fprintf(f, " of %s", cmt_human_size(d->total, b3, sizeof b3));
                fprintf(f, "\n");
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, o->stack);
                cmt_print_frames(f, &st, "      ", SIZE_MAX);
                cmt_stack_sym_free(&st);
                for (size_t s = 0; s < o->ntop && s < top; s++) {
                    fprintf(f, "    live then: %s in %llu allocation%s\n",
                            cmt_human_size(o->top[s].bytes, b1, sizeof b1), (unsigned long long)o->top[s].allocations,
                            o->top[s].allocations == 1 ? "" : "s");
                    st = cmt_analysis_stack(a, i, o->top[s].stack);
                    cmt_print_frames(f, &st, "        ", SIZE_MAX);
                    cmt_stack_sym_free(&st);
                }
            }
        }
    }
    fprintf(f, "\nimbalance: %s\n", a->verdict);
    ranks_text(a, f);
    markers_text(a, f);
    if (a->ntests) cmt_tests_print(a, f, a->opts.top_n);
    heaps_text(a, f);
    if (cmt_analysis_anomalies(a) || a->anomalies[CMT_AN_CAPTURED_ALLOCATIONS]) {
        fprintf(f, "\nanomalies\n");
        char hint[512];
        for (int k = 0; k < CMT_AN_COUNT; k++)
            if (a->anomalies[k])
                fprintf(f, "  %-21s %6llu  %s\n", cmt_anomaly_names[k], (unsigned long long)a->anomalies[k],
                        cmt_anomaly_text(a, k, hint, sizeof hint));
        for (size_t k = 0; k < a->nunreadable; k++)
            fprintf(f, "    unreadable: %s (%s)\n", a->unreadable[k].path, a->unreadable[k].reason);
    }
    if (a->opts.suppressions && a->opts.suppressions->n) {
        fprintf(f, "\nsuppressions\n");
        for (size_t k = 0; k < a->opts.suppressions->n; k++) {
            const struct cmt_suppression *s = &a->opts.suppressions->v[k];
            fprintf(f, "  leak:%s  %llu leak%s, %s\n", s->pattern, (unsigned long long)s->leaks,
                    s->leaks == 1 ? "" : "s", cmt_human_size(s->bytes, b1, sizeof b1));
        }
    }
}
