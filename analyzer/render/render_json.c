/*
 * render_json.c — the JSON report (cumemtrack report --json, schema in docs/report-schema.json)
 * of an analysis, and the one JSON frame writer. See render.h.
 */
#include "render.h"

#include <string.h>

void cmt_json_suppressions(struct cmt_json *j, const struct cmt_analysis *a) {
    cmt_json_array(j, "suppressions");
    for (size_t k = 0; a->opts.suppressions && k < a->opts.suppressions->n; k++) {
        const struct cmt_suppression *s = &a->opts.suppressions->v[k];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "pattern", s->pattern);
        cmt_json_u64(j, "leaks", s->leaks);
        cmt_json_u64(j, "bytes", s->bytes);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

void cmt_json_summary(struct cmt_json *j, const struct cmt_analysis *a) {
    cmt_json_u64(j, "leaked_bytes", a->leaked_bytes);
    cmt_json_u64(j, "leaked_allocations", a->leaked_allocations);
    cmt_json_u64(j, "leak_sites", a->nleaks);
    cmt_json_u64(j, "suppressed_bytes", a->suppressed_bytes);
    cmt_json_u64(j, "cached_bytes", a->cached_bytes);
    cmt_json_u64(j, "ooms", a->nooms);
    cmt_json_u64(j, "anomalies", cmt_analysis_anomalies(a));
    cmt_json_u64(j, "processes", a->nprocs);
}

static const char *hide_name(int h) {
    switch (h) {
    case CMT_HIDE_INTERPRETER:
        return "interpreter";
    case CMT_HIDE_CUDA:
        return "cuda";
    case CMT_HIDE_STARTUP:
        return "startup";
    }
    return NULL;
}

void cmt_json_frames(struct cmt_json *j, const struct cmt_stack_sym *s) {
    char buf[32];
    cmt_json_array(j, "frames");
    for (size_t i = 0; i < s->n; i++) {
        const struct cmt_sym_frame *fr = &s->frames[i];
        cmt_json_object(j, NULL);
        if (fr->kind == CMT_FRAME_PYTHON) {
            cmt_json_str(j, "kind", "python");
            cmt_json_str(j, "function", fr->function);
            cmt_json_str(j, "file", fr->file);
            cmt_json_i64(j, "line", fr->line);
            cmt_json_object_end(j);
            continue;
        }
        cmt_json_str(j, "kind", "native");
        cmt_json_str(j, "function", fr->function);
        cmt_json_str(j, "file", fr->file);
        if (fr->file && fr->line)
            cmt_json_i64(j, "line", fr->line);
        else
            cmt_json_null(j, "line");
        cmt_json_str(j, "module", fr->module);
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr->address);
        cmt_json_str(j, "address", buf);
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr->offset);
        cmt_json_str(j, "offset", buf);
        cmt_json_bool(j, "inlined", fr->inlined);
        if (fr->hidden) cmt_json_str(j, "hidden", hide_name(fr->hidden));
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

/* One entry of "leaks" or "cached" (with "allocator"). */
static void leak_json(struct cmt_json *j, const struct cmt_analysis *a, const struct cmt_rleak *l) {
    cmt_json_object(j, NULL);
    cmt_json_u64(j, "pid", a->procs[l->proc].hdr.pid);
    cmt_json_i64(j, "device", l->leak->device);
    cmt_json_str(j, "uuid", l->uuid);
    cmt_json_str(j, "kind", cmt_kind_name(l->leak->kind) ? cmt_kind_name(l->leak->kind) : "unknown");
    cmt_json_u64(j, "bytes", l->leak->bytes);
    cmt_json_u64(j, "requested_bytes", l->leak->requested);
    cmt_json_u64(j, "allocations", l->leak->allocations);
    cmt_json_str(j, "at", cmt_leak_at_name(l->leak->at));
    if (l->allocator) cmt_json_str(j, "allocator", l->allocator);
    cmt_json_frames(j, &l->stack);
    cmt_json_object_end(j);
}

static void json_stack_bytes(struct cmt_json *j, struct cmt_analysis *a, size_t proc, const struct cmt_stack_bytes *v,
                             size_t n) {
    cmt_json_array(j, "top");
    for (size_t s = 0; s < n && s < a->opts.top_n; s++) {
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "bytes", v[s].bytes);
        cmt_json_u64(j, "allocations", v[s].allocations);
        struct cmt_stack_sym st = cmt_analysis_stack(a, proc, v[s].stack);
        cmt_json_frames(j, &st);
        cmt_stack_sym_free(&st);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

static void ranks_json(const struct cmt_analysis *a, struct cmt_json *j) {
    const struct cmt_ranks *R = a->ranks;
    size_t n = R ? R->nrows : 0;
    cmt_json_array(j, "ranks");
    for (size_t i = 0; i < n; i++) {
        const struct cmt_rank_row *r = &R->rows[i];
        const struct cmt_process *p = &a->procs[r->proc];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "host", p->hdr.host);
        if (r->rank >= 0)
            cmt_json_i64(j, "rank", r->rank);
        else
            cmt_json_null(j, "rank");
        if (r->local_rank >= 0)
            cmt_json_i64(j, "local_rank", r->local_rank);
        else
            cmt_json_null(j, "local_rank");
        if (p->hdr.world_size >= 0)
            cmt_json_i64(j, "world_size", p->hdr.world_size);
        else
            cmt_json_null(j, "world_size");
        cmt_json_str(j, "job_id", p->hdr.job_id[0] ? p->hdr.job_id : NULL);
        cmt_json_u64(j, "pid", r->pid);
        if (r->worker_of >= 0)
            cmt_json_u64(j, "forked_by", R->rows[r->worker_of].pid);
        else
            cmt_json_null(j, "forked_by");
        cmt_json_array(j, "uuids");
        for (size_t k = 0; k < r->nuuids; k++)
            cmt_json_str(j, NULL, r->uuids[k]);
        cmt_json_array_end(j);
        cmt_json_u64(j, "peak_bytes", r->peak_bytes);
        cmt_json_u64(j, "leaked_bytes", r->leaked_bytes);
        cmt_json_u64(j, "ooms", r->ooms);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "shared_gpus");
    for (size_t s = 0; R && s < R->nshared; s++) {
        const struct cmt_shared_gpu *sg = &R->shared[s];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", sg->uuid);
        cmt_json_array(j, "pids");
        for (size_t k = 0; k < sg->n; k++)
            cmt_json_u64(j, NULL, R->rows[sg->rows[k]].pid);
        cmt_json_array_end(j);
        cmt_json_array(j, "ranks");
        for (size_t k = 0; k < sg->n; k++) {
            int32_t rk = R->rows[sg->rows[k]].rank;
            if (rk >= 0)
                cmt_json_i64(j, NULL, rk);
            else
                cmt_json_null(j, NULL);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "rank_imbalance");
    cmt_json_u64(j, "ranks_compared", R ? R->ngroups : 0);
    if (R && R->peak_max_over_mean > 0)
        cmt_json_double(j, "peak_max_over_mean", R->peak_max_over_mean);
    else
        cmt_json_null(j, "peak_max_over_mean");
    if (R && R->leak_max_over_median > 0)
        cmt_json_double(j, "leak_max_over_median", R->leak_max_over_median);
    else
        cmt_json_null(j, "leak_max_over_median");
    cmt_json_array(j, "outliers");
    char line[512];
    for (size_t i = 0; R && i < R->noutliers; i++)
        cmt_json_str(j, NULL, cmt_rank_outlier_text(R, &R->outliers[i], line, sizeof line));
    cmt_json_array_end(j);
    cmt_json_array(j, "hosts");
    for (size_t h = 0; R && h < R->nhosts; h++) {
        const struct cmt_host_balance *hb = &R->hosts[h];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "host", hb->host);
        cmt_json_u64(j, "gpus", hb->ngpus);
        if (hb->ngpus >= 2) {
            cmt_json_double(j, "peak_max_over_mean", hb->peak_max_over_mean);
            cmt_json_str(j, "max_uuid", hb->max_uuid);
        } else {
            cmt_json_null(j, "peak_max_over_mean");
            cmt_json_null(j, "max_uuid");
        }
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
}

/* "tests": every test of a test runner (pertest.h), in the table's order. */
static void tests_json(struct cmt_analysis *a, struct cmt_json *j) {
    cmt_json_array(j, "tests");
    for (size_t i = 0; i < a->ntests; i++) {
        const struct cmt_rtest *t = &a->tests[i];
        const struct cmt_process *p = &a->procs[t->proc];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "name", t->t->name);
        cmt_json_u64(j, "pid", p->hdr.pid);
        cmt_json_str(j, "dump", p->path);
        cmt_json_str(j, "end", cmt_test_end_names[t->t->end]);
        cmt_json_i64(j, "begin_ns", t->t->begin_ns);
        cmt_json_i64(j, "duration_ns", t->t->end_ns - t->t->begin_ns);
        cmt_json_u64(j, "leaked_bytes", t->leaked_bytes);
        cmt_json_u64(j, "leaked_allocations", t->leaked_allocations);
        cmt_json_u64(j, "cached_bytes", t->cached_bytes);
        cmt_json_u64(j, "cached_allocations", t->cached_allocations);
        cmt_json_u64(j, "suppressed_bytes", t->suppressed_bytes);
        cmt_json_u64(j, "peak_bytes", t->t->peak_bytes);
        cmt_json_u64(j, "allocated_bytes", t->t->allocated_bytes);
        cmt_json_u64(j, "allocations", t->t->allocations);
        cmt_json_array(j, "stacks");
        for (size_t s = 0; s < t->nstacks && s < a->opts.top_n; s++) {
            const struct cmt_rtest_stack *st = &t->stacks[s];
            cmt_json_object(j, NULL);
            cmt_json_str(j, "status", st->suppressed ? "suppressed" : st->allocator ? "cached" : "leaked");
            cmt_json_i64(j, "device", st->device);
            cmt_json_str(j, "uuid", st->uuid);
            cmt_json_u64(j, "bytes", st->bytes);
            cmt_json_u64(j, "allocations", st->allocations);
            cmt_json_str(j, "allocator", st->allocator);
            cmt_json_frames(j, &st->stack);
            cmt_json_object_end(j);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

static void markers_json(struct cmt_analysis *a, struct cmt_json *j) {
    char u[48];
    cmt_json_array(j, "markers");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->marks.nmarkers; k++) {
            const struct cmt_marker_rec *m = &r->marks.markers[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_str(j, "label", m->label);
            cmt_json_str(j, "kind", cmt_marker_kind_name(m->flags));
            cmt_json_str(j, "domain", m->domain[0] ? m->domain : NULL);
            cmt_json_i64(j, "time_ns", m->time_ns);
            cmt_json_array(j, "live_bytes");
            for (size_t d = 0; d < m->ndev; d++) {
                cmt_json_object(j, NULL);
                cmt_json_i64(j, "device", m->dev[d]);
                cmt_json_str(j, "uuid", cmt_replay_uuid(r, m->dev[d], u));
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
        for (size_t k = 0; k < r->marks.ngrowth; k++) {
            const struct cmt_growth *g = &r->marks.growth[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_str(j, "label", g->label);
            cmt_json_str(j, "kind", cmt_marker_kind_name(g->flags));
            cmt_json_i64(j, "device", g->device);
            cmt_json_str(j, "uuid", cmt_replay_uuid(r, g->device, u));
            cmt_json_double(j, "bytes_per_marker", g->bytes_per_marker);
            cmt_json_u64(j, "markers", g->markers);
            cmt_json_u64(j, "first_bytes", g->first_bytes);
            cmt_json_u64(j, "last_bytes", g->last_bytes);
            struct cmt_stack_sym st = cmt_analysis_stack(a, i, g->stack);
            cmt_json_frames(j, &st);
            cmt_stack_sym_free(&st);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}

static void heaps_json(struct cmt_analysis *a, struct cmt_json *j) {
    char buf[48];
    cmt_json_array(j, "pools");
    for (size_t i = 0; i < a->nprocs; i++) {
        size_t n;
        const struct cmt_heap *v = cmt_heaps_list(a->procs[i].replay.heaps, &n);
        for (size_t k = 0; k < n; k++) {
            const struct cmt_heap *pl = &v[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)pl->heap);
            cmt_json_str(j, "heap", buf);
            cmt_json_str(j, "name", pl->name);
            cmt_json_i64(j, "device", pl->device);
            cmt_json_str(j, "uuid", cmt_replay_uuid(&a->procs[i].replay, pl->device, buf));
            cmt_json_u64(j, "bytes", pl->size);
            cmt_json_u64(j, "regions_registered", pl->registered);
            cmt_json_u64(j, "regions_live", pl->live_regions);
            cmt_json_u64(j, "live_bytes", pl->live_bytes);
            cmt_json_u64(j, "peak_bytes", pl->peak_bytes);
            cmt_json_bool(j, "unregistered", pl->unregistered);
            cmt_json_array(j, "leaks");
            for (size_t q = 0; q < pl->nleaks; q++) {
                cmt_json_object(j, NULL);
                cmt_json_u64(j, "bytes", pl->leaks[q].bytes);
                cmt_json_u64(j, "regions", pl->leaks[q].regions);
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, pl->leaks[q].stack);
                cmt_json_frames(j, &st);
                cmt_stack_sym_free(&st);
                cmt_json_object_end(j);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}

void cmt_render_json(struct cmt_analysis *a, FILE *f) {
    struct cmt_json jj, *j = &jj;
    char u[48];
    cmt_json_init(j, f, 1);
    cmt_json_object(j, NULL);
    cmt_json_str(j, "tool", "cumemtrack");
    cmt_json_u64(j, "format_version", 1);
    cmt_json_object(j, "summary");
    cmt_json_summary(j, a);
    cmt_json_object_end(j);
    cmt_json_array(j, "processes");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", p->hdr.pid);
        cmt_json_u64(j, "ppid", p->hdr.ppid);
        cmt_json_str(j, "host", p->hdr.host);
        if (p->hdr.rank >= 0)
            cmt_json_i64(j, "rank", p->hdr.rank);
        else
            cmt_json_null(j, "rank");
        if (p->hdr.world_size >= 0)
            cmt_json_i64(j, "world_size", p->hdr.world_size);
        else
            cmt_json_null(j, "world_size");
        cmt_json_str(j, "job_id", p->hdr.job_id[0] ? p->hdr.job_id : NULL);
        cmt_json_str(j, "command", p->command);
        cmt_json_str(j, "exe", p->hdr.exe);
        cmt_json_str(j, "exit", p->exit);
        cmt_json_u64(j, "live_now_bytes", p->live_now_bytes);
        if (p->replay.have_exit)
            cmt_json_i64(j, "exit_status", p->replay.exit_status);
        else
            cmt_json_null(j, "exit_status");
        cmt_json_str(j, "dump", p->path);
        cmt_json_bool(j, "truncated", p->truncated);
        cmt_json_u64(j, "writers", p->writers);
        cmt_json_u64(j, "events", p->replay.events);
        cmt_json_object(j, "counters");
        static const char *const cn[] = {
#define CN(id, name) name,
            CMT_COUNTERS(CN)
#undef CN
        };
        for (unsigned k = 0; k < CMT_CTR_COUNT; k++)
            cmt_json_u64(j, cn[k], p->hdr.counters[k]);
        cmt_json_object_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "devices");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "ordinal", d->ordinal);
            cmt_json_str(j, "name", d->has_info ? d->name : NULL);
            cmt_json_str(j, "uuid", cmt_device_uuid(d, u));
            cmt_json_str(j, "pci_bus_id", d->has_info ? d->pci : NULL);
            cmt_json_u64(j, "total_bytes", d->total);
            cmt_json_u64(j, "allocations", d->allocations);
            cmt_json_u64(j, "frees", d->frees);
            cmt_json_u64(j, "peak_bytes", d->peak);
            cmt_json_i64(j, "peak_time_ns", d->peak_time);
            cmt_json_u64(j, "leaked_bytes", d->leaked_bytes);
            cmt_json_u64(j, "leaked_allocations", d->leaked_allocations);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    uint64_t hl = 0, hp = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        hl += a->procs[i].replay.host_leaked;
        hp += a->procs[i].replay.host_peak;
    }
    cmt_json_object(j, "host");
    cmt_json_u64(j, "leaked_bytes", hl);
    cmt_json_u64(j, "peak_bytes", hp);
    cmt_json_object_end(j);
    cmt_json_array(j, "imported");
    for (size_t i = 0; i < a->nimported; i++) {
        const struct cmt_imported_row *m = &a->imported[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", a->procs[m->proc].hdr.pid);
        cmt_json_i64(j, "device", m->device);
        cmt_json_u64(j, "imports", m->imports);
        cmt_json_u64(j, "open", m->open);
        cmt_json_u64(j, "open_bytes", m->open_bytes);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "leaks");
    for (size_t i = 0; i < a->nleaks && i < a->opts.top_n; i++)
        leak_json(j, a, &a->leaks[i]);
    cmt_json_array_end(j);
    cmt_json_array(j, "cached");
    for (size_t i = 0; i < a->ncached && i < a->opts.top_n; i++)
        leak_json(j, a, &a->cached[i]);
    cmt_json_array_end(j);
    cmt_json_array(j, "peak");
    for (size_t k = 0; k < a->npeaks; k++) {
        size_t i = a->peaks[k].proc;
        const struct cmt_devstate *d = a->peaks[k].dev;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
        cmt_json_i64(j, "device", d->ordinal);
        cmt_json_str(j, "uuid", cmt_device_uuid(d, u));
        cmt_json_u64(j, "bytes", d->peak);
        cmt_json_i64(j, "time_ns", d->peak_time);
        json_stack_bytes(j, a, i, d->peak_top, d->npeak_top);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "oom");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nooms; k++) {
            const struct cmt_oom *o = &r->ooms[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "device", o->device);
            cmt_json_str(j, "uuid", cmt_replay_uuid(r, o->device, u));
            const char *an = cmt_replay_api_name(r, o->api);
            cmt_json_str(j, "api", an);
            cmt_json_u64(j, "requested_bytes", o->requested);
            cmt_json_i64(j, "time_ns", o->time_ns);
            cmt_json_u64(j, "live_bytes", o->live_bytes);
            cmt_json_object(j, "live_by_uuid");
            for (size_t s = 0; s < o->nlive; s++) {
                const char *uu = cmt_replay_uuid(r, o->live_dev[s], u);
                char key[64];
                if (!uu) snprintf(key, sizeof key, "ordinal:%lld", (long long)o->live_dev[s]);
                cmt_json_u64(j, uu ? uu : key, o->live_bytes_dev[s]);
            }
            cmt_json_object_end(j);
            struct cmt_stack_sym st = cmt_analysis_stack(a, i, o->stack);
            cmt_json_frames(j, &st);
            cmt_stack_sym_free(&st);
            json_stack_bytes(j, a, i, o->top, o->ntop);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "imbalance");
    cmt_json_array(j, "gpus");
    for (size_t g = 0; g < a->ngpus; g++) {
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", a->gpus[g].uuid);
        cmt_json_str(j, "name", a->gpus[g].name);
        cmt_json_str(j, "pci_bus_id", a->gpus[g].pci);
        cmt_json_u64(j, "peak_bytes", a->gpus[g].peak_bytes);
        cmt_json_array(j, "peak_processes");
        for (size_t k = 0; k < a->gpus[g].npeak_procs; k++) {
            const struct cmt_gpu_proc *gp = &a->gpus[g].peak_procs[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[gp->proc].hdr.pid);
            cmt_json_str(j, "host", a->procs[gp->proc].hdr.host);
            cmt_json_u64(j, "bytes", gp->bytes);
            cmt_json_object_end(j);
        }
        cmt_json_array_end(j);
        cmt_json_u64(j, "leaked_bytes", a->gpus[g].leaked_bytes);
        cmt_json_u64(j, "processes", a->gpus[g].processes);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    if (a->peak_max_over_mean > 0)
        cmt_json_double(j, "peak_max_over_mean", a->peak_max_over_mean);
    else
        cmt_json_null(j, "peak_max_over_mean");
    cmt_json_str(j, "outlier_uuid", a->outlier >= 0 ? a->gpus[a->outlier].uuid : NULL);
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_object_end(j);
    ranks_json(a, j);
    markers_json(a, j);
    tests_json(a, j);
    heaps_json(a, j);
    cmt_json_object(j, "anomalies");
    for (int k = 0; k < CMT_AN_COUNT; k++)
        cmt_json_u64(j, cmt_anomaly_names[k], a->anomalies[k]);
    cmt_json_object_end(j);
    cmt_json_array(j, "unreadable");
    for (size_t k = 0; k < a->nunreadable; k++) {
        const struct cmt_unreadable *u = &a->unreadable[k];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "file", u->path);
        if (u->offset >= 0)
            cmt_json_i64(j, "offset", u->offset);
        else
            cmt_json_null(j, "offset");
        cmt_json_str(j, "reason", u->reason);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_suppressions(j, a);
    cmt_json_array(j, "notes");
    for (size_t k = 0; k < a->nnotes; k++) {
        const struct cmt_note *nt = &a->notes[k];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "kind", cmt_note_kind_names[nt->kind]);
        cmt_json_array(j, "pids");
        for (size_t q = 0; q < nt->nprocs; q++)
            cmt_json_u64(j, NULL, a->procs[nt->procs[q]].hdr.pid);
        cmt_json_array_end(j);
        cmt_json_str(j, "text", nt->text);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
    cmt_json_finish(j);
}
