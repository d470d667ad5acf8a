/*
 * cmt_markers.c — see cmt_markers.h.
 */
#include "cmt_markers.h"

#include <string.h>

#include "cmt_json.h"
#include "cmt_report.h"

static const char *kind_name(uint64_t flags) {
    switch (flags) {
    case CMT_MARK_RANGE_PUSH: return "range";
    case CMT_MARK_SIGNAL: return "signal";
    default: return "mark";
    }
}

static const char *uuid_of(const struct cmt_replay *r, int64_t dev, char *buf) {
    const struct cmt_devstate *d = dev >= 0 ? cmt_replay_device(r, dev) : NULL;
    if (!d || !d->has_info) return NULL;
    cmt_uuid_format(d->uuid, buf);
    return buf;
}

double cmt_growth_max(const struct cmt_analysis *a, size_t *proc, size_t *index) {
    double best = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        if (r->ngrowth && r->growth[0].bytes_per_marker > best) {
            best = r->growth[0].bytes_per_marker;
            if (proc) *proc = i;
            if (index) *index = 0;
        }
    }
    return best;
}

static void text_growth(struct cmt_analysis *a, size_t i, const struct cmt_growth *g, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    const struct cmt_replay *r = &a->procs[i].replay;
    const char *uu = uuid_of(r, g->device, u);
    char where[96];
    if (g->device < 0)
        snprintf(where, sizeof where, "host memory");
    else
        snprintf(where, sizeof where, "device %lld%s%s", (long long)g->device, uu ? " " : "", uu ? uu : "");
    fprintf(f, "  +%s per \"%s\" %s over %llu markers (%s -> %s) on %s, pid %u\n",
            cmt_human_size((uint64_t)(g->bytes_per_marker + 0.5), b1, sizeof b1), g->label,
            kind_name(g->flags), (unsigned long long)g->markers, cmt_human_size(g->first_bytes, b2, sizeof b2),
            cmt_human_size(g->last_bytes, b3, sizeof b3), where, a->procs[i].hdr.pid);
    struct cmt_stack_sym st = cmt_analysis_stack(a, i, g->stack);
    cmt_report_text_frames(f, &st, "      ");
    cmt_stack_sym_free(&st);
}

void cmt_growth_print_over(struct cmt_analysis *a, double limit, FILE *f, size_t top) {
    size_t shown = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ngrowth && shown < top; k++)
            if (r->growth[k].bytes_per_marker > limit) {
                text_growth(a, i, &r->growth[k], f);
                shown++;
            }
    }
}

void cmt_markers_text(struct cmt_analysis *a, FILE *f) {
    size_t nmarkers = 0, ngrowth = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        nmarkers += a->procs[i].replay.nmarkers;
        ngrowth += a->procs[i].replay.ngrowth;
    }
    if (!nmarkers) return;
    char b1[32];
    fprintf(f, "\nmarkers: %zu", nmarkers);
    /* the labels and how many of each, then live device bytes at the first and last marker */
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        if (!r->nmarkers) continue;
        fprintf(f, "\n  pid %u: %zu marker%s%s", a->procs[i].hdr.pid, r->nmarkers, r->nmarkers == 1 ? "" : "s",
                r->markers_dropped ? " (more were not kept)" : "");
        for (size_t k = 0; k < r->nmarkers; k += (r->nmarkers > 1 ? r->nmarkers - 1 : 1)) {
            const struct cmt_marker_rec *m = &r->markers[k];
            uint64_t gpu = 0;
            for (size_t d = 0; d < m->ndev; d++)
                if (m->dev[d] >= 0) gpu += m->live[d];
            fprintf(f, "\n    %s \"%s\" %s at t=%.6fs: %s live on GPUs", k ? "last " : "first", m->label,
                    kind_name(m->flags), (double)(m->time_ns - r->first_time) / 1e9,
                    cmt_human_size(gpu, b1, sizeof b1));
            if (r->nmarkers == 1) break;
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
        for (size_t k = 0; k < r->ngrowth && shown < a->opts.top_n; k++, shown++) text_growth(a, i, &r->growth[k], f);
    }
}

void cmt_markers_json(struct cmt_analysis *a, struct cmt_json *j) {
    char u[48];
    cmt_json_array(j, "markers");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nmarkers; k++) {
            const struct cmt_marker_rec *m = &r->markers[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_str(j, "label", m->label);
            cmt_json_str(j, "kind", kind_name(m->flags));
            cmt_json_str(j, "domain", m->domain[0] ? m->domain : NULL);
            cmt_json_i64(j, "time_ns", m->time_ns);
            cmt_json_array(j, "live_bytes");
            for (size_t d = 0; d < m->ndev; d++) {
                cmt_json_object(j, NULL);
                cmt_json_i64(j, "device", m->dev[d]);
                cmt_json_str(j, "uuid", uuid_of(r, m->dev[d], u));
                cmt_json_u64(j, "bytes", m->live[d]);
                cmt_json_object_end(j);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "growth");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ngrowth; k++) {
            const struct cmt_growth *g = &r->growth[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_str(j, "label", g->label);
            cmt_json_str(j, "kind", kind_name(g->flags));
            cmt_json_i64(j, "device", g->device);
            cmt_json_str(j, "uuid", uuid_of(r, g->device, u));
            cmt_json_double(j, "bytes_per_marker", g->bytes_per_marker);
            cmt_json_u64(j, "markers", g->markers);
            cmt_json_u64(j, "first_bytes", g->first_bytes);
            cmt_json_u64(j, "last_bytes", g->last_bytes);
            struct cmt_stack_sym st = cmt_analysis_stack(a, i, g->stack);
            cmt_report_json_frames(j, &st);
            cmt_stack_sym_free(&st);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}
