/*
 * render_html.c — the self-contained HTML report. See render_html.h. The C side writes the page
 * skeleton, the CSS and the drawing script (html/, embedded at build time), the data (JSON, escaped
 * for a script element); the script builds every chart as SVG elements and every text with
 * textContent.
 */
#include "render_html.h"

#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "gpumerge.h"
#include "json.h"
#include "render.h"

/* ---------------------------------------------------------------- stack table */

struct stab {
    struct cmt_analysis *a;
    uint64_t *keys; /* (proc+1) << 44 ^ stack id, 0: empty */
    uint32_t *idx;
    size_t cap, n;
    struct cmt_json *j; /* where the "stacks" array is being written */
    uint64_t *order_proc, *order_id;
    size_t ocap;
};

static uint64_t skey(size_t proc, uint64_t id) {
    return ((uint64_t)(proc + 1) << 44) ^ id;
}

/* index of (proc, stack id) in the stacks table, adding it; -1 for no stack */
static long stab_get(struct stab *s, size_t proc, uint64_t id) {
    if (!id) return -1;
    if (s->n * 2 >= s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        uint64_t *nk = calloc(nc, sizeof *nk);
        uint32_t *ni = calloc(nc, sizeof *ni);
        if (!nk || !ni) {
            free(nk);
            free(ni);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->keys[i]) continue;
            size_t h = (s->keys[i] * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
            while (nk[h])
                h = (h + 1) & (nc - 1);
            nk[h] = s->keys[i];
            ni[h] = s->idx[i];
        }
        free(s->keys);
        free(s->idx);
        s->keys = nk;
        s->idx = ni;
        s->cap = nc;
    }
    uint64_t k = skey(proc, id);
    size_t h = (k * 0x9e3779b97f4a7c15ull >> 20) & (s->cap - 1);
    while (s->keys[h]) {
        if (s->keys[h] == k) return s->idx[h];
        h = (h + 1) & (s->cap - 1);
    }
    if (s->n == s->ocap) {
        size_t nc = s->ocap ? s->ocap * 2 : 256;
        uint64_t *np = realloc(s->order_proc, nc * sizeof *np);
        if (!np) return -1;
        s->order_proc = np;
        uint64_t *ni = realloc(s->order_id, nc * sizeof *ni);
        if (!ni) return -1;
        s->order_id = ni;
        s->ocap = nc;
    }
    s->keys[h] = k;
    s->idx[h] = (uint32_t)s->n;
    s->order_proc[s->n] = proc;
    s->order_id[s->n] = id;
    return (long)s->n++;
}

static void stab_free(struct stab *s) {
    free(s->keys);
    free(s->idx);
    free(s->order_proc);
    free(s->order_id);
}

static void json_stack_ref(struct cmt_json *j, const char *key, long v) {
    if (v < 0)
        cmt_json_null(j, key);
    else
        cmt_json_i64(j, key, v);
}

/* ---------------------------------------------------------------- data */

/* microseconds since the earliest process start (the script turns them into seconds) */
static int64_t rel(const struct cmt_analysis *a, size_t proc, int64_t t_from_start, int64_t base) {
    return cmt_add_sat(cmt_sub_sat(a->procs[proc].hdr.start_realtime_ns, base), t_from_start) / 1000;
}

static void uuid_of(const struct cmt_replay *r, int64_t dev, char *buf, size_t cap) {
    if (!cmt_replay_uuid(r, dev, buf)) snprintf(buf, cap, "device %lld (no uuid)", (long long)dev);
}

struct pt {
    int64_t t;
    uint64_t v;
};

static int cmp_pt(const void *x, const void *y) {
    const struct pt *a = x, *b = y;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* "pts": flat [t, bytes, stack, stack_bytes, ...] in time order, each bucket's min, max and last
 * (a bucket's max is always kept: peaks survive the downsampling), then the last value at end
 * (times of s: since proc's start). */
static void write_pts(struct cmt_json *j, struct cmt_analysis *a, size_t nbuckets, const struct cmt_tl_series *s,
                      struct stab *st, int64_t base, size_t proc, int64_t end) {
    cmt_json_array(j, "pts");
    int64_t lastt = -1;
    uint64_t lastv = 0;
    for (size_t i = 0; i < nbuckets; i++) {
        const struct cmt_tl_bucket *b = &s->b[i];
        if (!b->has) continue;
        struct pt v[3] = {{b->tmin, b->min}, {b->tmax, b->max}, {b->tlast, b->last}};
        qsort(v, 3, sizeof *v, cmp_pt);
        long sr = stab_get(st, proc, b->top_stack);
        for (int k = 0; k < 3; k++) {
            /* points at the same time are all kept (a coarse clock gives many): only exact
             * repeats go, so the bucket's max is always drawn */
            if (v[k].t == lastt && v[k].v == lastv) continue;
            lastt = v[k].t;
            lastv = v[k].v;
            cmt_json_i64(j, NULL, rel(a, proc, v[k].t, base));
            cmt_json_u64(j, NULL, v[k].v);
            if (sr < 0)
                cmt_json_i64(j, NULL, -1);
            else
                cmt_json_i64(j, NULL, sr);
            cmt_json_u64(j, NULL, b->top_bytes);
        }
    }
    if (end > s->tlast) { /* to the end of the process */
        cmt_json_i64(j, NULL, rel(a, proc, end, base));
        cmt_json_u64(j, NULL, s->last);
        cmt_json_i64(j, NULL, -1);
        cmt_json_u64(j, NULL, 0);
    }
    cmt_json_array_end(j);
}

static void write_series(struct cmt_json *j, struct cmt_analysis *a, const struct cmt_tl *tl,
                         const struct cmt_tl_series *s, struct stab *st, int64_t base) {
    const struct cmt_process *p = &a->procs[s->proc];
    cmt_json_object(j, NULL);
    cmt_json_u64(j, "proc", s->proc);
    cmt_json_i64(j, "dev", s->device);
    cmt_json_u64(j, "peak", s->peak);
    cmt_json_i64(j, "peak_t", rel(a, s->proc, s->peak_t, base));
    json_stack_ref(j, "peak_stack", stab_get(st, s->proc, s->peak_top_stack));
    cmt_json_u64(j, "peak_stack_bytes", s->peak_top_bytes);
    write_pts(j, a, tl->nbuckets, s, st, base, s->proc, cmt_sub_sat(p->replay.last_time, p->hdr.start_clock_ns));
    cmt_json_object_end(j);
}

/* "merged": per host, the GPU's live bytes summed over its processes (gpumerge.h), downsampled like
 * a process's series; its peak (the hosts' peaks add up to imbalance.gpus[].peak_bytes) and the
 * processes live then. Times since the host's first process start. */
static int write_merged(struct cmt_json *j, struct cmt_analysis *a, size_t nbuckets, const char *uuid, struct stab *st,
                        int64_t base) {
    struct cmt_gm gm;
    if (cmt_gm_build(a, uuid, &gm) != 0) return -1;
    cmt_json_array(j, "merged");
    for (size_t h = 0; h < gm.nh; h++) {
        const struct cmt_gm_host *H = &gm.h[h];
        size_t ref = H->m[H->t0_member].proc;
        struct cmt_tl_series ms;
        if (cmt_tl_series_init(&ms, nbuckets) != 0) {
            cmt_gm_free(&gm);
            return -1;
        }
        cmt_tl_bucket_put(&ms, cmt_tl_bucket_at(&ms, nbuckets, 0), 0, H->base, 0, 0);
        for (size_t i = 0; i < H->n; i++) {
            int64_t t = H->v[i].t - H->t0;
            cmt_tl_bucket_put(&ms, cmt_tl_bucket_at(&ms, nbuckets, t), t, H->v[i].total, 0, 0);
        }
        int64_t end = 0;
        for (size_t k = 0; k < H->nm; k++) {
            int64_t e = a->procs[H->m[k].proc].replay.last_time - H->t0;
            if (e > end) end = e;
        }
        cmt_json_object(j, NULL);
        cmt_json_str(j, "host", H->host);
        cmt_json_u64(j, "peak", H->peak);
        cmt_json_i64(j, "peak_t", rel(a, ref, H->peak_at == (size_t)-1 ? 0 : H->v[H->peak_at].t - H->t0, base));
        cmt_json_array(j, "peak_procs"); /* [proc, bytes] of each process live at the peak */
        for (size_t k = 0; k < H->nm; k++) {
            if (!H->peak_live[k]) continue;
            cmt_json_array(j, NULL);
            cmt_json_u64(j, NULL, H->m[k].proc);
            cmt_json_u64(j, NULL, H->peak_live[k]);
            cmt_json_array_end(j);
        }
        cmt_json_array_end(j);
        write_pts(j, a, nbuckets, &ms, st, base, ref, end);
        cmt_json_object_end(j);
        free(ms.b);
    }
    cmt_json_array_end(j);
    cmt_gm_free(&gm);
    return 0;
}

static void write_frames(struct cmt_json *j, const struct cmt_stack_sym *s) {
    cmt_json_array(j, NULL);
    size_t vis = cmt_stack_visible(s);
    for (size_t i = 0; i < s->n; i++) {
        if (!CMT_FRAME_SHOWN(s, i, vis)) continue;
        char line[1200] = "";
        FILE *m = fmemopen(line, sizeof line, "w"); /* the one frame printer, cut at the buffer's size */
        if (m) {
            setvbuf(m, NULL, _IONBF, 0);
            cmt_print_frame(m, &s->frames[i]);
            fclose(m);
        }
        line[sizeof line - 1] = 0;
        cmt_json_str(j, NULL, line);
    }
    cmt_json_array_end(j);
}

#define HTML_BRIEF 8 /* frames of a stack in a tooltip */

/* out[0]: the frame nearest the user's code, out[1]: how many frames a tooltip shows, out[2...]:
 * which; each an index into the shown frames write_frames writes */
static void brief_of(const struct cmt_stack_sym *s, size_t *out) {
    size_t vis = cmt_stack_visible(s), idx[HTML_BRIEF];
    size_t user = cmt_stack_user_frame(s), n = cmt_stack_pick(s, HTML_BRIEF, idx);
    out[0] = out[1] = 0;
    for (size_t i = 0, shown = 0, k = 0; i < s->n; i++) {
        if (!CMT_FRAME_SHOWN(s, i, vis)) continue;
        if (i == user) out[0] = shown;
        if (k < n && idx[k] == i) out[2 + k++] = shown, out[1] = k;
        shown++;
    }
}

static void write_folded(struct cmt_json *j, const char *key, struct cmt_analysis *a, int peak) {
    struct cmt_fold *v;
    size_t n;
    cmt_json_array(j, key);
    if (cmt_fold_collect(a, peak, 0, &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            cmt_json_array(j, NULL);
            cmt_json_str(j, NULL, v[i].stack);
            cmt_json_u64(j, NULL, v[i].bytes);
            cmt_json_array_end(j);
        }
        cmt_fold_free(v, n);
    }
    cmt_json_array_end(j);
}

/* Every OOM as the text report lists it: the failed request, its stack, what was live then. */
static void write_ooms(struct cmt_json *j, struct cmt_analysis *a, struct stab *st, int64_t base, size_t top) {
    char u[64];
    cmt_json_array(j, "ooms");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nooms; k++) {
            const struct cmt_oom *o = &r->ooms[k];
            const struct cmt_devstate *d = o->device >= 0 ? cmt_replay_device(r, o->device) : NULL;
            const char *api = cmt_replay_api_name(r, o->api);
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "proc", i);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "rank", a->procs[i].hdr.rank);
            cmt_json_i64(j, "dev", o->device);
            if (o->device >= 0) {
                uuid_of(r, o->device, u, sizeof u);
                cmt_json_str(j, "uuid", u);
            } else
                cmt_json_null(j, "uuid");
            cmt_json_i64(j, "t", rel(a, i, cmt_sub_sat(o->time_ns, a->procs[i].hdr.start_clock_ns), base));
            cmt_json_u64(j, "requested", o->requested);
            cmt_json_u64(j, "live", o->live_bytes);
            cmt_json_u64(j, "total", d ? d->total : 0);
            if (api)
                cmt_json_str(j, "api", api);
            else
                cmt_json_null(j, "api");
            json_stack_ref(j, "stack", stab_get(st, i, o->stack));
            cmt_json_array(j, "live_then");
            for (size_t s = 0; s < o->ntop && s < top; s++) {
                cmt_json_object(j, NULL);
                cmt_json_u64(j, "bytes", o->top[s].bytes);
                cmt_json_u64(j, "allocs", o->top[s].allocations);
                json_stack_ref(j, "stack", stab_get(st, i, o->top[s].stack));
                cmt_json_object_end(j);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}

/* The per-test table (the text report's "per test"), only when the dumps hold tests: at most top
 * rows, each with its top leaking (or cached) stack. */
static void write_tests(struct cmt_json *j, struct cmt_analysis *a, struct stab *st, size_t top) {
    if (!a->ntests) return;
    cmt_json_u64(j, "tests_total", a->ntests);
    cmt_json_array(j, "tests");
    for (size_t i = 0; i < a->ntests && i < top; i++) {
        const struct cmt_rtest *t = &a->tests[i];
        const struct cmt_rtest_stack *s = t->nstacks && !t->stacks[0].suppressed ? &t->stacks[0] : NULL;
        cmt_json_object(j, NULL);
        cmt_json_str(j, "name", t->t->name);
        cmt_json_u64(j, "pid", a->procs[t->proc].hdr.pid);
        cmt_json_i64(j, "rank", a->procs[t->proc].hdr.rank);
        cmt_json_str(j, "end", cmt_test_end_names[t->t->end]);
        cmt_json_u64(j, "leaked", t->leaked_bytes);
        cmt_json_u64(j, "cached", t->cached_bytes);
        cmt_json_u64(j, "peak", t->t->peak_bytes);
        if (s) {
            cmt_json_u64(j, "bytes", s->bytes);
            cmt_json_u64(j, "allocs", s->allocations);
            cmt_json_str(j, "allocator", s->allocator);
            json_stack_ref(j, "stack", stab_get(st, t->proc, s->id));
        }
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

/* The stacks growing across the markers of a label (the text report's growth per marker), each
 * with its own series [marker index, bytes, ...]: a few KiB per iteration is lost on the scale of
 * a whole GPU's chart. */
static void write_growth(struct cmt_json *j, struct cmt_analysis *a, struct stab *st, size_t top) {
    char u[64];
    size_t shown = 0;
    cmt_json_array(j, "growth");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->marks.ngrowth && shown < top; k++, shown++) {
            const struct cmt_growth *g = &r->marks.growth[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "proc", i);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "rank", a->procs[i].hdr.rank);
            cmt_json_i64(j, "dev", g->device);
            if (g->device >= 0) {
                uuid_of(r, g->device, u, sizeof u);
                cmt_json_str(j, "uuid", u);
            } else
                cmt_json_null(j, "uuid");
            cmt_json_str(j, "label", g->label);
            cmt_json_str(j, "kind", cmt_marker_kind_name(g->flags));
            cmt_json_u64(j, "per_marker", (uint64_t)(g->bytes_per_marker + 0.5));
            cmt_json_u64(j, "markers", g->markers);
            cmt_json_u64(j, "first", g->first_bytes);
            cmt_json_u64(j, "last", g->last_bytes);
            json_stack_ref(j, "stack", stab_get(st, i, g->stack));
            cmt_json_array(j, "pts");
            uint64_t lastidx = 0;
            for (uint32_t h = 0; g->hist && h < g->hist_n; h++) {
                lastidx = (uint64_t)h * g->hist_stride;
                cmt_json_u64(j, NULL, lastidx);
                cmt_json_u64(j, NULL, g->hist[h]);
            }
            if (!g->hist_n || lastidx + 1 < g->markers) {
                cmt_json_u64(j, NULL, g->markers - 1);
                cmt_json_u64(j, NULL, g->last_bytes);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
}

/* The top entries of the leaks or of what caching allocators hold (allocator set), one table of the
 * page each (report.js leakTable). */
static void write_leaks(struct cmt_json *j, const char *key, struct cmt_analysis *a, const struct cmt_rleak *v,
                        size_t n, struct stab *st, size_t top) {
    cmt_json_array(j, key);
    for (size_t i = 0; i < n && i < top; i++) {
        const struct cmt_rleak *l = &v[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "bytes", l->leak->bytes);
        cmt_json_u64(j, "allocs", l->leak->allocations);
        cmt_json_str(j, "kind", cmt_kind_name(l->leak->kind) ? cmt_kind_name(l->leak->kind) : "?");
        cmt_json_u64(j, "pid", a->procs[l->proc].hdr.pid);
        cmt_json_i64(j, "rank", a->procs[l->proc].hdr.rank);
        cmt_json_i64(j, "dev", l->leak->device);
        cmt_json_str(j, "uuid", l->uuid);
        cmt_json_str(j, "at", cmt_leak_at_name(l->leak->at));
        if (l->allocator) cmt_json_str(j, "allocator", l->allocator);
        json_stack_ref(j, "stack", stab_get(st, l->proc, l->leak->stack));
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

static int write_data(struct cmt_json *j, struct cmt_analysis *a, const struct cmt_tl *tl, size_t top) {
    int rc = 0;
    struct stab st = {0};
    st.a = a;
    char u[64];
    int64_t base = 0;
    for (size_t i = 0; i < a->nprocs; i++)
        if (!i || a->procs[i].hdr.start_realtime_ns < base) base = a->procs[i].hdr.start_realtime_ns;
    cmt_json_object(j, NULL);
    cmt_json_object(j, "summary");
    cmt_json_summary(j, a);
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_u64(j, "cached_sites", a->ncached);
    cmt_json_i64(j, "start_unix_ms", base / 1000000);
    cmt_json_object_end(j);
    cmt_json_object(j, "anomalies");
    for (int k = 0; k < CMT_AN_COUNT; k++)
        if (a->anomalies[k]) cmt_json_u64(j, cmt_anomaly_names[k], a->anomalies[k]);
    cmt_json_object_end(j);
    cmt_json_array(j, "notes"); /* the report's lines (analysis.h notes[]: Python frames missing) */
    for (size_t k = 0; k < a->nnotes; k++)
        cmt_json_str(j, NULL, a->notes[k].text);
    cmt_json_array_end(j);
    cmt_json_array(j, "processes");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", p->hdr.pid);
        cmt_json_i64(j, "rank", p->hdr.rank);
        cmt_json_str(j, "host", p->hdr.host);
        cmt_json_str(j, "command", p->command);
        cmt_json_str(j, "exit", p->exit);
        cmt_json_str(j, "dump", p->path);
        uint64_t pk = 0, lk = 0;
        for (size_t k = 0; k < p->replay.ndevs; k++) {
            pk += p->replay.devs[k].peak;
            lk += p->replay.devs[k].leaked_bytes;
        }
        cmt_json_u64(j, "peak", pk);
        cmt_json_u64(j, "leaked", lk);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    /* GPUs: one chart each, series of every process that used it */
    cmt_json_array(j, "gpus");
    unsigned char *done = calloc(tl->nseries + 1, 1);
    for (size_t s0 = 0; done && s0 < tl->nseries; s0++) {
        if (done[s0]) continue;
        const struct cmt_tl_series *s = &tl->series[s0];
        char key[64];
        uuid_of(&a->procs[s->proc].replay, s->device, key, sizeof key);
        int has_uuid = !strncmp(key, "GPU-", 4);
        const struct cmt_devstate *d = cmt_replay_device(&a->procs[s->proc].replay, s->device);
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", key);
        cmt_json_str(j, "name", d && d->has_info ? d->name : "");
        cmt_json_str(j, "pci", d && d->has_info ? d->pci : "");
        cmt_json_u64(j, "total", d ? d->total : 0);
        uint64_t gpeak = 0, gleak = 0;
        for (size_t g = 0; g < a->ngpus; g++)
            if (!strcmp(a->gpus[g].uuid, key)) {
                gpeak = a->gpus[g].peak_bytes;
                gleak = a->gpus[g].leaked_bytes;
            }
        if (!has_uuid && d) {
            gpeak = d->peak;
            gleak = d->leaked_bytes;
        }
        cmt_json_u64(j, "peak", gpeak);
        cmt_json_u64(j, "leaked", gleak);
        /* the ordinals the processes saw it as (shown next to the UUID), in series order, once each */
        cmt_json_array(j, "ordinals");
        for (size_t k = s0; k < tl->nseries; k++) {
            char k2[64];
            if (done[k] || (!has_uuid && k != s0)) continue;
            uuid_of(&a->procs[tl->series[k].proc].replay, tl->series[k].device, k2, sizeof k2);
            if (strcmp(k2, key)) continue;
            int seen = 0;
            for (size_t q = s0; q < k && !seen; q++) {
                uuid_of(&a->procs[tl->series[q].proc].replay, tl->series[q].device, k2, sizeof k2);
                seen = !done[q] && !strcmp(k2, key) && tl->series[q].device == tl->series[k].device;
            }
            if (!seen) cmt_json_i64(j, NULL, tl->series[k].device);
        }
        cmt_json_array_end(j);
        cmt_json_array(j, "series");
        size_t nser = 0;
        for (size_t k = s0; k < tl->nseries; k++) {
            char k2[64];
            if (done[k]) continue;
            uuid_of(&a->procs[tl->series[k].proc].replay, tl->series[k].device, k2, sizeof k2);
            if (strcmp(k2, key) || (!has_uuid && k != s0)) continue;
            done[k] = 1;
            nser++;
            write_series(j, a, tl, &tl->series[k], &st, base);
        }
        cmt_json_array_end(j);
        /* several processes on it: their total at each moment, the chart's GPU line and peak */
        if (has_uuid && nser > 1 && write_merged(j, a, tl->nbuckets, key, &st, base) != 0) rc = -1;
        cmt_json_array(j, "ooms");
        for (size_t m = 0; m < tl->nmarks; m++) {
            const struct cmt_tl_mark *mk = &tl->marks[m];
            if (mk->kind != CMT_TL_OOM || mk->device < 0) continue;
            uuid_of(&a->procs[mk->proc].replay, mk->device, u, sizeof u);
            if (strcmp(u, key)) continue;
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "proc", mk->proc);
            cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
            cmt_json_u64(j, "requested", mk->requested);
            cmt_json_u64(j, "live", mk->live);
            cmt_json_str(j, "api", mk->label);
            json_stack_ref(j, "stack", stab_get(&st, mk->proc, mk->stack));
            cmt_json_object_end(j);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    free(done);
    cmt_json_array_end(j);
    cmt_json_array(j, "markers");
    for (size_t m = 0; m < tl->nmarks; m++) {
        const struct cmt_tl_mark *mk = &tl->marks[m];
        if (mk->kind != CMT_TL_MARKER) continue;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "proc", mk->proc);
        cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
        cmt_json_str(j, "label", mk->label ? mk->label : "");
        cmt_json_str(j, "kind", cmt_marker_kind_name(mk->mark_kind));
        if (mk->mark_kind == CMT_MARK_RANGE_PUSH && mk->t_end >= 0)
            cmt_json_i64(j, "t_end", rel(a, mk->proc, mk->t_end, base)); /* its pop */
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "host_ooms"); /* OOMs of host allocations: listed, not charted */
    for (size_t m = 0; m < tl->nmarks; m++) {
        const struct cmt_tl_mark *mk = &tl->marks[m];
        if (mk->kind != CMT_TL_OOM || mk->device >= 0) continue;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "proc", mk->proc);
        cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
        cmt_json_u64(j, "requested", mk->requested);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    write_ooms(j, a, &st, base, top);
    write_growth(j, a, &st, top);
    write_tests(j, a, &st, top);
    write_leaks(j, "leaks", a, a->leaks, a->nleaks, &st, top);
    write_leaks(j, "cached", a, a->cached, a->ncached, &st, top);
    cmt_json_suppressions(j, a); /* the --suppressions rules and what each hid */
    cmt_json_array(j, "peaks");
    for (size_t k = 0; k < a->npeaks; k++) {
        size_t i = a->peaks[k].proc;
        const struct cmt_replay *r = &a->procs[i].replay;
        const struct cmt_devstate *d = a->peaks[k].dev;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
        cmt_json_i64(j, "rank", a->procs[i].hdr.rank);
        cmt_json_i64(j, "dev", d->ordinal);
        uuid_of(r, d->ordinal, u, sizeof u);
        cmt_json_str(j, "uuid", u);
        cmt_json_u64(j, "bytes", d->peak);
        cmt_json_i64(j, "t", rel(a, i, cmt_sub_sat(d->peak_time, a->procs[i].hdr.start_clock_ns), base));
        cmt_json_array(j, "top");
        for (size_t s = 0; s < d->npeak_top && s < top; s++) {
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "bytes", d->peak_top[s].bytes);
            cmt_json_u64(j, "allocs", d->peak_top[s].allocations);
            json_stack_ref(j, "stack", stab_get(&st, i, d->peak_top[s].stack));
            cmt_json_object_end(j);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "imbalance");
    cmt_json_double(j, "outlier_ratio", CMT_IMBALANCE_OUTLIER); /* report.js colours bars at or above it */
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_array(j, "gpus");
    for (size_t g = 0; g < a->ngpus; g++) {
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", a->gpus[g].uuid);
        cmt_json_str(j, "name", a->gpus[g].name);
        cmt_json_str(j, "pci", a->gpus[g].pci);
        cmt_json_u64(j, "peak", a->gpus[g].peak_bytes);
        cmt_json_u64(j, "leaked", a->gpus[g].leaked_bytes);
        cmt_json_bool(j, "outlier", a->outlier == (int)g);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
    write_folded(j, "flame_leaks", a, 0);
    write_folded(j, "flame_peak", a, 1);
    /* last: every stack referenced above, symbolized; then which of its frames the page's short
     * views show (the summary line: the frame nearest the user's code; a tooltip: HTML_BRIEF
     * frames), by the one rule of every view (cmt_stack_pick), as indices into its frames */
    size_t *brief = calloc(st.n ? st.n * (HTML_BRIEF + 2) : 1, sizeof *brief);
    cmt_json_array(j, "stacks");
    for (size_t i = 0; i < st.n; i++) {
        struct cmt_stack_sym s = cmt_analysis_stack(a, st.order_proc[i], st.order_id[i]);
        write_frames(j, &s);
        if (brief) brief_of(&s, brief + i * (HTML_BRIEF + 2));
        cmt_stack_sym_free(&s);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "stacks_user");
    for (size_t i = 0; brief && i < st.n; i++)
        cmt_json_u64(j, NULL, brief[i * (HTML_BRIEF + 2)]);
    cmt_json_array_end(j);
    cmt_json_array(j, "stacks_brief");
    for (size_t i = 0; brief && i < st.n; i++) {
        const size_t *b = brief + i * (HTML_BRIEF + 2);
        cmt_json_array(j, NULL);
        for (size_t k = 0; k < b[1]; k++)
            cmt_json_u64(j, NULL, b[2 + k]);
        cmt_json_array_end(j);
    }
    cmt_json_array_end(j);
    if (!brief) rc = -1;
    free(brief);
    cmt_json_object_end(j);
    stab_free(&st);
    return rc;
}

/* ---------------------------------------------------------------- page */

static void html_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        }
    }
}

/* cmt_html_report_css[], cmt_html_report_js[]: analyzer/html/report.css and report.js, embedded
 * by a make rule (analyzer/analyzer.mk). The script puts everything the data contains into the
 * page with textContent or as SVG attribute values set through setAttribute: never parsed as HTML. */
#include "html_assets.h"

int cmt_render_html(struct cmt_analysis *a, const struct cmt_tl *tl, size_t top, FILE *f) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return 3;
    struct cmt_json j;
    cmt_json_init(&j, m, 0);
    int drc = write_data(&j, a, tl, top ? top : 10);
    cmt_json_finish(&j);
    if (fclose(m) != 0 || drc != 0) {
        free(buf);
        return 3;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<title>cumemtrack report",
          f);
    if (a->nprocs) {
        fputs(": ", f);
        html_escape(f, a->procs[0].command && a->procs[0].command[0] ? a->procs[0].command : a->procs[0].path);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header><h1>cumemtrack report</h1><div class=\"sub\">",
            cmt_html_report_css);
    for (size_t i = 0; i < a->nprocs && i < 8; i++) {
        if (i) fputs(" &middot; ", f);
        html_escape(f, a->procs[i].path);
    }
    if (a->nprocs > 8) fprintf(f, " &middot; and %zu more", a->nprocs - 8);
    fputs(" &middot; <span id=\"cmt-start\"></span></div></header>\n<main>\n"
          "<noscript><p>This report draws its charts with JavaScript; enable it for this file.</p></noscript>\n"
          "<div id=\"cmt-errors\"></div>\n<div id=\"cmt-root\"></div>\n</main>\n"
          "<script>window.onerror=function(msg,src,line){var e=document.getElementById('cmt-errors');"
          "e.setAttribute('data-error','1');e.textContent+='script error: '+msg+' (line '+line+') ';};</script>\n"
          "<script type=\"application/json\" id=\"cmt-data\">",
          f);
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (c == '<')
            fputs("\\u003c", f);
        else if (c == '>')
            fputs("\\u003e", f);
        else if (c == '&')
            fputs("\\u0026", f);
        else
            fputc(c, f);
    }
    free(buf);
    fprintf(f, "</script>\n<script>\n%s</script>\n</body></html>\n", cmt_html_report_js);
    return 0;
}
